"""Is something (a hand, a forearm, a glare spot) hiding part of the board?

A hidden sticker reads as a missing piece — a wrong position — so a frame where part
of the board is hidden must not be accepted.  The cue works on one frame and on any
board print: every square on which no sticker was read should look like empty board.
The board's own colour is taken as the median over those squares (so it adapts to the
print, the light and the white balance); a square whose inner area mostly differs
from it is "foreign".  A connected group of foreign squares is an occluder (a hand
spans several squares).  A square showing a patch of white paper, or far more
black-and-white contrast than empty board, but no read sticker holds a piece whose
sticker could not be decoded (blur, glare, dirt, half hidden), which is just as doubtful.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from engine.geometry import COLS, ROWS, SQUARES, parse_square

from .config import ReaderConfig
from .locate import BoardLocation
from .scheme import Scheme

PX_PER_SQUARE = 12
INNER = 0.6   # fraction of a square's side checked (skips grid lines, pillars, overhangs)


@dataclass(frozen=True)
class Occlusion:
    groups: list[list[int]]      # connected foreign squares, largest first
    lone: list[int]              # squares that look like an undecoded sticker
    hidden: list[int] = field(default_factory=list)   # squares read pieces hide entirely
    stray: list[int] = field(default_factory=list)    # covered-looking, not empty board (pool print, …)
    shaded: list[int] = field(default_factory=list)   # empty board under a shadow (or something as plain)

    @property
    def squares(self) -> list[int]:
        return sorted(s for g in self.groups for s in g)


def board_cells(image: np.ndarray, loc: BoardLocation, scheme: Scheme) -> np.ndarray:
    """The grid warped to a square-aligned image: ROWS*P × COLS*P pixels, in Lab (float32)."""
    q = scheme.square_mm
    return board_patch(image, loc, (0.0, 0.0, COLS * q, ROWS * q), PX_PER_SQUARE / q)


def board_patch(image: np.ndarray, loc: BoardLocation, rect_mm, px_per_mm: float) -> np.ndarray:
    """A board-frame rectangle (x, y, width, height in mm) of the frame, seen from above, in Lab."""
    x0, y0, wmm, hmm = rect_mm
    w, h = int(round(wmm * px_per_mm)), int(round(hmm * px_per_mm))
    if loc.dist_coeffs is not None and np.any(loc.dist_coeffs):
        # Through the lens model: each patch pixel's place in the raw (distorted) frame.
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        mm = np.column_stack([x0 + (xs.ravel() + 0.5) / px_per_mm, y0 + (ys.ravel() + 0.5) / px_per_mm])
        raw = loc.to_raw_image(mm).astype(np.float32).reshape(h, w, 2)
        patch = cv2.remap(image, raw[..., 0], raw[..., 1], cv2.INTER_LINEAR)
    else:
        to_mm = np.array([[1 / px_per_mm, 0, x0], [0, 1 / px_per_mm, y0], [0, 0, 1.0]])
        # frame -> patch is the inverse of patch pixel -> mm -> frame
        patch = cv2.warpPerspective(image, np.linalg.inv(loc.homography @ to_mm), (w, h), flags=cv2.INTER_AREA)
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(patch.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def card_zone_unclear(image, loc: BoardLocation, scheme: Scheme, config: ReaderConfig) -> bool:
    """Whether something lies in the card zone (where no tile sticker was read): its inside
    differs from the table just around it in colour or in texture."""
    x, y, w, h = scheme.card_zone_mm
    m = config.card_zone_ring_mm
    lab = board_patch(image, loc, (x - m, y - m, w + 2 * m, h + 2 * m), 1.0)
    k = int(round(m))
    inner = lab[k:-k, k:-k].reshape(-1, 3)
    ring = np.concatenate([lab[:k].reshape(-1, 3), lab[-k:].reshape(-1, 3),
                           lab[k:-k, :k].reshape(-1, 3), lab[k:-k, -k:].reshape(-1, 3)])
    d = np.median(inner, axis=0) - np.median(ring, axis=0)
    colour = float(np.sqrt((d[0] * config.occlusion_luma_weight) ** 2 + d[1] ** 2 + d[2] ** 2))
    texture = float(inner[:, 0].std()) / max(float(ring[:, 0].std()), 0.5)
    return colour > config.occlusion_colour_distance or texture > config.unread_texture_ratio


def frame_cells(image, gray: np.ndarray, loc: BoardLocation, scheme: Scheme) -> np.ndarray:
    """``board_cells`` of the frame in colour when it has colour (else gray)."""
    if isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] >= 3:
        return board_cells(np.ascontiguousarray(image[:, :, :3]), loc, scheme)
    return board_cells(gray, loc, scheme)


def find_occlusion(image, gray: np.ndarray, loc: BoardLocation, scheme: Scheme, config: ReaderConfig,
                   occupied: set[int], covers: list[np.ndarray] = (), pools=frozenset(),
                   cells: np.ndarray | None = None, figures: list[np.ndarray] = ()) -> Occlusion:
    """Foreign-looking squares among those where no piece was read.

    ``covers`` are board-frame polygons (mm, as seen on the board plane) of what the read
    pieces hide in the image — a tall piece leans over its neighbours; those pixels are
    left out of every square's statistics.  ``pools`` are the squares of the pools that
    were read: they are judged like any other square (a piece standing on a pool whose
    sticker is hidden must not vanish), against the pools' own look rather than the
    board's.  Board squares that look like pool print where no pool was read are
    ``stray``: a pool tile whose sticker is covered is not "no pool".  ``cells``: the
    frame's ``frame_cells`` for ``loc`` when already at hand (a second check of one frame).
    ``figures``: those of the ``covers`` that are tall pieces' figures (the monster's), which
    lean over their neighbours and can hide a corner of their stickers.
    """
    lab = frame_cells(image, gray, loc, scheme) if cells is None else cells
    p = PX_PER_SQUARE
    q = scheme.square_mm
    hidden = _cover_mask(covers, p, q)
    lab = lab.copy()
    lab[hidden] = np.nan
    m = int(round(p * (1 - INNER) / 2))
    whole = lab.reshape(ROWS, p, COLS, p, 3).transpose(0, 2, 1, 3, 4)        # (R, C, p, p, 3)
    cells = whole[:, :, m:p - m, m:p - m, :].reshape(ROWS, COLS, -1, 3)      # inner part
    whole = whole.reshape(ROWS, COLS, -1, 3)
    # Pixels left to judge per square (NaN where a read piece hides them), counted once:
    # every per-square fraction below is a count over these.
    inner_seen = ~np.isnan(cells[..., 0])
    inner_count = inner_seen.sum(axis=2)
    seen_frac = (inner_count / inner_seen.shape[2]).ravel()
    # Per square (index = square number) masks: on the board, read, pool, printed art.
    n = ROWS * COLS
    valid, free, pool = _mask(n, SQUARES), ~_mask(n, occupied), _mask(n, pools)
    free &= valid
    # Squares a read piece hides from this camera (the monster leaning over a neighbour):
    # whatever stands there cannot be seen at all — on a pool square as anywhere else.
    hidden_squares = np.flatnonzero(free & (seen_frac < config.min_visible_fraction)).tolist()
    judged = free & (seen_frac >= config.min_visible_fraction)
    empty, on_pool = judged & ~pool, judged & pool
    if empty.sum() < 10:
        return Occlusion([], [], hidden_squares)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # all-NaN squares: judged below
        med = _nan_median(cells).reshape(n, 3)
        ref = np.median(med[empty], axis=0)
        refs = np.broadcast_to(ref, med.shape).copy()
        # The pools' own look: the median over their squares, so one piece standing on a
        # pool (or two on both pools) does not shift it.
        pool_ref = np.median(med[on_pool], axis=0) if on_pool.any() else None
        if pool_ref is not None:
            refs[on_pool] = pool_ref
        refs = refs.reshape(ROWS, COLS, 3)
        diff = cells - refs[:, :, None, :]
        dist = np.sqrt((diff[..., 0] * config.occlusion_luma_weight) ** 2 + diff[..., 1] ** 2
                       + diff[..., 2] ** 2)
        # A shadow only dims the board under it: that is board, not something over it (``shaded``).
        # (only where the pixel would differ: board art a little darker than the median stays board)
        dimmed = shaded(cells, refs, config)
        shade = dimmed & (dist > config.occlusion_colour_distance)
        dist[shade] = 0.0
        # (a NaN pixel compares False: counted neither as differing nor as white)
        frac = (np.count_nonzero(dist > config.occlusion_colour_distance, axis=2) / inner_count).ravel()
        dim = (np.count_nonzero(shade, axis=2) / np.maximum(inner_count, 1)).ravel()
        # A sticker that was not decoded still shows its white paper: much brighter
        # than the board (or pool) and nearly colourless.  (The exit and entrance art has none.)
        w = whole
        white_px = ((w[..., 0] > refs[..., 0:1] + config.sticker_white_lightness)
                    & (np.abs(w[..., 1]) < config.sticker_white_chroma)
                    & (np.abs(w[..., 2]) < config.sticker_white_chroma))
        white = (np.count_nonzero(white_px, axis=2) / np.count_nonzero(~np.isnan(w[..., 0]), axis=2)).ravel()
        # ... and its black-and-white pattern: far more contrast than empty board,
        # even when blurred beyond decoding.  Relative to the board's own texture,
        # so a stone-textured print is no sticker; printed art gets a higher bar.
        # (a shadow's edge across a square is no ink either: shaded pixels count as the board's own light)
        std = _texture(np.where(dimmed, refs[:, :, None, 0], cells[..., 0]), p - 2 * m).ravel()
    foreign = judged & (frac >= config.occlusion_cell_fraction)
    groups = sorted(_groups(set(np.flatnonzero(foreign).tolist())), key=len, reverse=True)
    candidates = [g for g in groups if len(g) >= config.occlusion_min_squares]
    leaned: set[int] = set()
    if candidates and figures and pool_ref is not None:
        # Stickers a figure hides a corner of: undecoded, yet paper, not a hand (see _pool_tile).
        reached = _cover_mask(figures, p, q).reshape(ROWS, p, COLS, p)[:, m:p - m, :, m:p - m].any(axis=(1, 3))
        leaned = set(np.flatnonzero(reached.ravel() & (white >= config.sticker_white_fraction)).tolist())
    big = [sorted(g) for g in candidates if not _pool_tile(g - leaned, med, ref, pool_ref, config)]
    in_groups = _mask(n, [sq for g in big for sq in g])
    base = max(float(np.median(std[empty])), 0.5)
    # A pool's print may carry more texture than the board: its own median, never less than the board's.
    pool_base = max(base, float(np.median(std[on_pool]))) if pool_ref is not None else base
    decorated = _mask(n, [parse_square(s) for s in config.decorated_squares])
    limit = config.unread_texture_ratio * np.where(decorated, config.decorated_factor, 1.0)
    ratio = std / np.where(pool, pool_base, base)
    lone = judged & ~in_groups & ((white >= config.sticker_white_fraction) | (ratio >= limit))
    stray = _stray(foreign & ~in_groups & ~lone, decorated, empty, med, ref, pool_ref, config)
    # Shaded squares are no hand (nothing to hold up the second look for), but a plain sleeve of the
    # board's hue would look just as dim: what stands there is not known, never taken as bare.
    in_shade = judged & ~in_groups & ~lone & ~_mask(n, stray) & (dim >= config.occlusion_cell_fraction)
    return Occlusion(big, np.flatnonzero(lone).tolist(), hidden_squares, stray, np.flatnonzero(in_shade).tolist())


def shaded(lab: np.ndarray, refs: np.ndarray, config: ReaderConfig) -> np.ndarray:
    """Pixels of ``lab`` (R, C, n, 3) that show their square's reference colour ``refs`` (R, C, 3)
    dimmed, as under a shadow: less light scales L*+16, a* and b* by one factor (the cube root of the
    light's), so a shaded pixel is darker by a factor within ``shadow_dim`` and keeps the board's hue
    within ``shadow_chroma``.  A hand, a sleeve or a piece has its own hue or is darker than any
    shadow; an undecoded sticker's black ink is far darker, so its texture still shows."""
    lo, hi = config.shadow_dim
    ref = refs[:, :, None, :]
    t = (lab[..., 0] + 16.0) / np.maximum(ref[..., 0] + 16.0, 1.0)
    with np.errstate(invalid="ignore"):
        hue = np.hypot(lab[..., 1] - t * ref[..., 1], lab[..., 2] - t * ref[..., 2])
        return (t >= lo) & (t <= hi) & (hue <= config.shadow_chroma)


def _pool_tile(group, med: np.ndarray, ref: np.ndarray, pool_ref, config) -> bool:
    """A group of at most four squares with the read pools' own colour (all but one: the square
    the monster's figure leans over) is a pool tile whose sticker that figure hides, not a hand:
    its squares stay unread (``_stray``), unknown to the game, without holding up every reading
    while the monster stands there (a hand is not pool-coloured; where one is, its squares are
    still unknown, never taken as empty).  The caller leaves out of ``group`` the squares where
    the figure hides a corner of a sticker showing its white paper (a stone beside the pool, the
    pool's own sticker): the figure can spoil both at once, which joins the stone's square to
    the pool tile's group — no hand shows sticker paper, and those squares stay unread too."""
    if pool_ref is None or len(group) > 4:
        return False
    w = np.array([config.occlusion_luma_weight, 1.0, 1.0])
    far = float(np.linalg.norm((pool_ref - ref) * w))
    if far <= config.occlusion_colour_distance:
        return False
    d = np.linalg.norm(np.nan_to_num((med[list(group)] - pool_ref) * w, nan=1e9), axis=1)
    return int(np.sum(d < 0.5 * far)) >= max(2, len(group) - 1)


def _cover_mask(polygons, p: int, q: float) -> np.ndarray:
    """Where board-frame polygons (mm) lie on the ``board_cells`` grid (``p`` pixels to a square of
    ``q`` mm), plus a pixel's margin: the blurred edge of a piece is not board either."""
    mask = np.zeros((ROWS * p, COLS * p), np.uint8)
    for poly in polygons:
        cv2.fillPoly(mask, [np.round(np.asarray(poly) * p / q).astype(np.int32)], 1)
    if len(polygons):
        mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
    return mask.astype(bool)


def _nan_median(a: np.ndarray) -> np.ndarray:
    """``np.nanmedian(a, axis=2)`` for (R, C, n, k) arrays, several times faster: NaNs sort
    last, so each square's median sits at the middle of its count of numbers."""
    s = np.sort(a, axis=2)
    cnt = np.sum(~np.isnan(a[:, :, :, :1]), axis=2, keepdims=True)          # (R, C, 1, 1)
    lo = np.take_along_axis(s, np.maximum(cnt - 1, 0) // 2, axis=2)
    hi = np.take_along_axis(s, cnt // 2 - (cnt == 0), axis=2)
    return np.where(cnt > 0, 0.5 * (lo + hi), np.nan)[:, :, 0]


def _mask(n: int, squares) -> np.ndarray:
    out = np.zeros(n, bool)
    out[list(squares)] = True
    return out


def _stray(foreign: np.ndarray, decorated: np.ndarray, empty: np.ndarray, med: np.ndarray, ref: np.ndarray,
           pool_ref, config) -> list[int]:
    """Covered-looking squares too few to be a hand that still are not empty board: a piece
    whose sticker is missing or hidden, a pool tile whose sticker is covered.  A square
    with printed art (``decorated``) counts only beside another such square (corners
    touching).  Board squares with the read pools' colour are pool print where no pool
    was read."""
    grid = foreign.reshape(ROWS, COLS).astype(np.uint8)
    # itself plus at least one of its eight neighbours
    beside = (cv2.filter2D(grid, -1, np.ones((3, 3), np.float32), borderType=cv2.BORDER_CONSTANT) > 1).ravel()
    out = foreign & (~decorated | beside)
    if pool_ref is not None:
        w = np.array([config.occlusion_luma_weight, 1.0, 1.0])
        far = float(np.linalg.norm((pool_ref - ref) * w))
        if far > config.occlusion_colour_distance:
            d = np.linalg.norm(np.nan_to_num((med - pool_ref) * w, nan=1e9), axis=1)
            out |= empty & (d < 0.5 * far)
    return np.flatnonzero(out).tolist()


def _texture(light: np.ndarray, side: int) -> np.ndarray:
    """Spread of lightness in each square's inner area (R, C, side*side), after taking out
    a linear ramp: a lamp's gradient across a square is not texture, a sticker's ink is.
    Squares partly hidden (NaN) get the ramp fitted to what is visible (the plain spread
    when too little is)."""
    xs, ys, x, ramp_free = _ramp(side)
    resid = light @ ramp_free.T
    flat = np.sqrt(np.mean(resid ** 2, axis=2) * (side * side) / (side * side - 3))
    partial = np.argwhere(np.isnan(flat))
    if len(partial):
        # least squares on the visible pixels of all partly hidden squares at once (normal equations)
        vals = light[partial[:, 0], partial[:, 1]].astype(np.float64)          # (K, n)
        seen = ~np.isnan(vals)
        w = seen.astype(np.float64)
        v = np.where(seen, vals, 0.0)
        a = x.astype(np.float64)
        n = w.sum(axis=1)
        ata = (a.T[None] * w[:, None, :]) @ a                                   # (K, 3, 3)
        atb = v @ a
        px, py = xs.ravel()[None].astype(np.float64), ys.ravel()[None].astype(np.float64)
        spread_x = np.where(seen, px, -np.inf).max(axis=1) - np.where(seen, px, np.inf).min(axis=1)
        spread_y = np.where(seen, py, -np.inf).max(axis=1) - np.where(seen, py, np.inf).min(axis=1)
        ok = (n >= 12) & (spread_x > 0) & (spread_y > 0)
        if ok.any():
            coef = np.linalg.solve(ata[ok], atb[ok][..., None])[..., 0]           # (K', 3)
            res = (v[ok] - coef @ a.T) * w[ok]
            rows, cols = partial[ok, 0], partial[ok, 1]
            flat[rows, cols] = np.sqrt(np.sum(res ** 2, axis=1) / (n[ok] - 3))
    left = np.isnan(flat)
    if left.any():      # the plain spread, only where no ramp could be fitted
        flat[left] = np.nanstd(light[left], axis=1)
    return flat


@lru_cache(maxsize=4)
def _ramp(side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For a side × side square: its pixel columns and rows, the linear-ramp design matrix
    (1, x, y) and the projection that removes a fitted ramp — the same every frame."""
    ys, xs = np.mgrid[0:side, 0:side]
    x = np.column_stack([np.ones(side * side), xs.ravel(), ys.ravel()]).astype(np.float32)
    ramp_free = np.eye(side * side, dtype=np.float32) - x @ np.linalg.pinv(x)
    for a in (xs, ys, x, ramp_free):
        a.flags.writeable = False
    return xs, ys, x, ramp_free


def _groups(cells: set[int]) -> list[set[int]]:
    """4-connected groups of squares."""
    left, out = set(cells), []
    while left:
        stack, group = [left.pop()], set()
        while stack:
            s = stack.pop()
            group.add(s)
            for n in (s - 1, s + 1, s - COLS, s + COLS):
                if n in left and abs((n % COLS) - (s % COLS)) <= 1:
                    left.remove(n)
                    stack.append(n)
        out.append(group)
    return out
