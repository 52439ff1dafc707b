"""Prior-guided decoding: reading a sticker the game expects where blind decoding read none.

The blind reader decodes every sticker against the whole dictionary and drops a blurred,
small or partly covered one.  When a change is ambiguous, or its moved pawn's square is
unseen, the game knows which few stickers can lie on that square.  ``guided_look`` looks
at that square again (enlarged, as the reader's second look): every dark quadrilateral
the detector found there but could not decode is sampled cell by cell and compared with
every id of the dictionary in its four turns.  An expected sticker is accepted only when

- its sampled bits are close to the expected id's (``max_bit_errors``),
- it wins clearly over every other id of the dictionary (``margin_bits``), the other face
  of the same pawn included, and over "no sticker" (a dark, even border on light paper),
- and the blind decoder read nothing else there: a sticker decoded on the square that is
  not an expected one refuses the guided answer.

Pure vision: the expected ids come from the caller (``vision.change``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .config import DEFAULT_CONFIG, ReaderConfig
from .detect import _close_detector
from .scheme import Scheme

PX_PER_CELL = 10


@dataclass(frozen=True)
class GuidedConfig:
    max_bit_errors: float = 3.0    # soft bit errors allowed for the expected id (of 16 bits for 4x4)
    margin_bits: float = 1.5       # how much worse (in soft bit errors) every other id of the dictionary must fit
    min_contrast: float = 30.0     # grey levels between the sticker's border and its white margin
    scale: float = 3.0             # the square's region is enlarged this much before looking
    # The blurred fit (``_blurred_fit``): the expected id's residual at most this (in black-white steps),
    # every other id's at least fit_margin times as large; and the soft bits' own best id must be the
    # same one, within max_bit_errors_blurred (two readings of the patch that agree).
    max_fit_rms: float = 0.12
    fit_margin: float = 1.8
    max_bit_errors_blurred: float = 5.0


GUIDED = GuidedConfig()


@lru_cache(maxsize=4)
def _dictionary_bits(dictionary: str) -> tuple[np.ndarray, int]:
    """(ids x 4 turns x n*n bits as float, n) of an OpenCV predefined dictionary."""
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    n = int(dic.markerSize)
    out = np.zeros((len(dic.bytesList), 4, n * n), np.float32)
    for i in range(len(dic.bytesList)):
        bits = cv2.aruco.Dictionary.getBitsFromByteList(dic.bytesList[i:i + 1], n).astype(np.float32)
        for k in range(4):
            out[i, k] = np.rot90(bits, k).ravel()
    return out, n


def sticker_ids(scheme: Scheme, look) -> set[int]:
    """The sticker ids that show ``look``'s piece from above (pawns and stones; none for a bare square)."""
    if look.pawn is not None:
        p = look.pawn
        return {i for i, st in scheme.stickers.items() if st.piece == "pawn" and st.colour == p.colour
                and st.pawn == p.kind and st.face == p.face}
    if look.stone is not None and look.monster is None:
        return {i for i, st in scheme.stickers.items() if st.piece == "stone" and st.kind == look.stone}
    return set()


def _soft_bits(crop: np.ndarray, quad: np.ndarray, n: int) -> tuple[np.ndarray, float, bool] | None:
    """(soft bits 0..1 of the inner n x n cells, contrast, border even, every cell's mean) of the quad
    in ``crop``, read with one more ring of cells outside the border for the paper's white."""
    cells = n + 4                                    # paper ring, border, n cells, border, paper ring
    side = cells * PX_PER_CELL
    dst = np.float32([[PX_PER_CELL, PX_PER_CELL], [side - PX_PER_CELL, PX_PER_CELL],
                      [side - PX_PER_CELL, side - PX_PER_CELL], [PX_PER_CELL, side - PX_PER_CELL]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    patch = cv2.warpPerspective(crop, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    c = PX_PER_CELL // 4
    means = patch.reshape(cells, PX_PER_CELL, cells, PX_PER_CELL)[:, c:-c, :, c:-c].mean(axis=(1, 3))
    ring = np.concatenate([means[0], means[-1], means[1:-1, 0], means[1:-1, -1]])
    border = np.concatenate([means[1, 1:-1], means[-2, 1:-1], means[2:-2, 1], means[2:-2, -2]])
    inner = means[2:-2, 2:-2]
    white, black = float(np.median(ring)), float(np.median(border))
    contrast = white - black
    if contrast <= 0:
        return None
    even = float(border.max()) < black + 0.6 * contrast
    return np.clip((inner.ravel() - black) / contrast, 0.0, 1.0), contrast, even, means


def guided_look(gray: np.ndarray, loc, scheme: Scheme, square: int, expected: set[int],
                config: ReaderConfig = DEFAULT_CONFIG, guided: GuidedConfig = GUIDED) -> int | None:
    """The expected sticker id read on ``square`` of one frame, or None (nothing clear enough, or the
    blind decoder reads another sticker there).  ``loc`` is the frame's BoardLocation."""
    from .reader import _square_regions  # late: the reader's own helper, the reader does not import this

    if not expected:
        return None
    x0, y0, x1, y1 = _square_regions([square], loc, scheme, 0.3)[0]
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    f = guided.scale
    crop = cv2.resize(gray[y0:y1, x0:x1], None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
    corners, ids, rejected = _close_detector(scheme.dictionary, config).detectMarkers(crop)

    def on_square(quad: np.ndarray, sid: int | None) -> bool:
        raw = (quad.reshape(4, 2) + 0.5) / f - 0.5 + np.array([x0, y0])
        st = scheme.stickers.get(sid) if sid is not None else None
        height = st.height_mm if st is not None else max(scheme.stickers[i].height_mm for i in expected)
        x, y = loc.to_board(loc.undistort(raw), height).mean(axis=0)
        return scheme.square_at(float(x), float(y)) == square

    if ids is not None:
        decoded = {int(i) for c, i in zip(corners, ids.ravel()) if on_square(np.asarray(c), int(i))}
        if decoded - expected:
            return None                   # the blind decoder reads another sticker there
        if decoded:
            return min(decoded)
    bits, n = _dictionary_bits(scheme.dictionary)
    exp = sorted(i for i in expected if i < len(bits))
    if not exp:
        return None
    others = np.setdiff1d(np.arange(len(bits)), exp)
    found = set()
    for quad in rejected or ():
        quad = np.asarray(quad, np.float32).reshape(4, 2)
        if not on_square(quad, None):
            continue
        sampled = _soft_bits(crop, quad, n)
        if sampled is None:
            continue
        soft, contrast, even, means = sampled
        if contrast < guided.min_contrast or not even:
            continue                      # no clear sticker: "no sticker" is not beaten
        err = np.abs(bits - soft).sum(axis=2).min(axis=1)
        best = min(exp, key=lambda i: err[i])
        if err[best] <= guided.max_bit_errors and float(err[others].min()) - float(err[best]) >= guided.margin_bits \
                and all(err[i] - err[best] >= guided.margin_bits for i in exp if i != best):
            found.add(int(best))
            continue
        # Blurred beyond the cell means: which id, blurred alike, draws these cells (``_blurred_fit``)?
        fit = _blurred_fit(scheme.dictionary, means)
        best = min(exp, key=lambda i: fit[i])
        if int(np.argmin(err)) == best == int(np.argmin(fit)) and err[best] <= guided.max_bit_errors_blurred \
                and fit[best] <= guided.max_fit_rms and float(fit[others].min()) >= guided.fit_margin * float(fit[best]) \
                and all(fit[i] >= guided.fit_margin * fit[best] for i in exp if i != best):
            found.add(int(best))
    return found.pop() if len(found) == 1 else None


BLUR_CELLS = (0.0, 0.2, 0.35, 0.5, 0.65)    # Gaussian blur sigmas tried, in marker cells


@lru_cache(maxsize=4)
def _blurred_cells(dictionary: str) -> np.ndarray:
    """(ids, 4 turns x len(BLUR_CELLS), (n+2)^2) cell means of every id's marker (border and bits,
    the paper ring around them white) blurred by each of ``BLUR_CELLS``, sampled as ``_soft_bits``
    samples a patch."""
    bits, n = _dictionary_bits(dictionary)
    cells = n + 4
    c = PX_PER_CELL // 4
    out = np.zeros((len(bits), 4 * len(BLUR_CELLS), (n + 2) ** 2), np.float32)
    for i in range(len(bits)):
        for k in range(4):
            grid = np.ones((cells, cells), np.float32)
            grid[1:-1, 1:-1] = 0.0
            grid[2:-2, 2:-2] = bits[i, k].reshape(n, n)
            img = np.kron(grid, np.ones((PX_PER_CELL, PX_PER_CELL), np.float32))
            for b, sigma in enumerate(BLUR_CELLS):
                im = cv2.GaussianBlur(img, (0, 0), sigma * PX_PER_CELL) if sigma else img
                m = im.reshape(cells, PX_PER_CELL, cells, PX_PER_CELL)[:, c:-c, :, c:-c].mean(axis=(1, 3))
                out[i, k * len(BLUR_CELLS) + b] = m[1:-1, 1:-1].ravel()
    return out


def _blurred_fit(dictionary: str, means: np.ndarray) -> np.ndarray:
    """Per id: how far the sampled cells (border and bits) are from that id's marker blurred alike,
    after the best gain and offset (the light) — the residual's RMS over the fitted gain, minimised
    over the four turns and ``BLUR_CELLS``.  A blurred sticker whose cell means no longer separate
    black from white still fits its own id far better than any other."""
    t = _blurred_cells(dictionary)                              # (ids, turns*blurs, m)
    y = means[1:-1, 1:-1].ravel().astype(np.float32)
    y = y - y.mean()
    tc = t - t.mean(axis=2, keepdims=True)
    tt = (tc * tc).sum(axis=2)
    gain = (tc @ y) / np.maximum(tt, 1e-6)                      # least squares, per template
    resid = ((y[None, None, :] - gain[..., None] * tc) ** 2).mean(axis=2)
    rms = np.sqrt(resid) / np.maximum(gain, 1e-3)              # in units of the black-white step
    rms[gain <= 0] = np.inf
    return rms.min(axis=1)
