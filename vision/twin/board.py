"""The printed board as the synthetic camera sees it, drawn to scale in the board frame.

Table, board sheet, the 156 floor squares, the pillars at the grid intersections, the walls
with their letters (BOARD.md), exit and entrance, and the four corner markers of the scheme
with their white quiet zone.  Pieces are drawn separately (``pieces``) because they stand
above the board.  The texture depends only on the scheme and the scale, so it is cached.
"""
from __future__ import annotations

import numpy as np

from engine.geometry import COLS, ENTRANCE, EXIT, ROWS, SQUARES, WALL_LETTERS, E, N, S, W, on_board

from ..scheme import Scheme
from .draw import Canvas, marker_bits, marker_image

# The texture covers the table around the sheet, the corner markers and the card zone.
TEXTURE_ORIGIN_MM = (-150.0, -140.0)
TEXTURE_SIZE_MM = (820.0, 610.0)

TABLE = (68, 104, 146)
SHEET = (58, 62, 66)
WALL = (44, 48, 54)
FLOOR = (112, 116, 118)
PILLAR = (168, 170, 166)
LETTER = (196, 206, 210)
EXIT_TINT = (96, 140, 100)
ENTRANCE_TINT = (90, 120, 150)

_cache: dict[tuple, np.ndarray] = {}


def board_texture(scheme: Scheme, px_per_mm: float) -> np.ndarray:
    """BGR texture of table + board, ``px_per_mm``, top-left at TEXTURE_ORIGIN_MM."""
    key = (scheme.dictionary, scheme.square_mm, tuple(sorted(scheme.sheet_mm.items())),
           tuple((m.id, m.size_mm, m.center_mm, m.rotation) for m in scheme.board_markers), px_per_mm)
    if key not in _cache:
        if len(_cache) >= 2:
            _cache.pop(next(iter(_cache)))
        _cache[key] = _draw_board(scheme, px_per_mm)
    return _cache[key]


def _draw_board(scheme: Scheme, s: float) -> np.ndarray:
    cv = Canvas.blank(*TEXTURE_SIZE_MM, s, TABLE, origin_mm=TEXTURE_ORIGIN_MM)
    rng = np.random.default_rng(7)  # fixed: the same table every time
    _grain(cv, rng, (40, 3), 14)
    sh = scheme.sheet_mm
    cv.rect(sh["left"], sh["top"], sh["right"], sh["bottom"], WALL)
    q = scheme.square_mm
    # Cut-away corners are walls like the border; the floor squares sit in the grid.
    for sq in SQUARES:
        c, r = sq % COLS, sq // COLS
        shade = int(rng.integers(-6, 7))
        cv.rect(c * q + 0.6, r * q + 0.6, (c + 1) * q - 0.6, (r + 1) * q - 0.6,
                tuple(v + shade for v in FLOOR))
    _mottle(cv, rng, scheme)
    for sq, tint, word, side in ((EXIT, EXIT_TINT, "AUSGANG", N), (ENTRANCE, ENTRANCE_TINT, "EINGANG", S)):
        c, r = sq % COLS, sq // COLS
        cv.rect(c * q + 1.5, r * q + 1.5, (c + 1) * q - 1.5, (r + 1) * q - 1.5, tint)
        y = r * q + (4.5 if side == N else q - 4.5)
        cv.text(((c + 0.5) * q, y), word, 2.6, LETTER)
    # Footprints on the exit.
    cv.ellipse((0.38 * q, 0.62 * q), (2.6, 4.5), -10, SHEET)
    cv.ellipse((0.64 * q, 0.48 * q), (2.6, 4.5), 10, SHEET)
    _pillars(cv, q)
    _wall_letters(cv, q)
    for m in scheme.board_markers:
        _sticker_on(cv, scheme.dictionary, m.id, m.corners_mm())
    return cv.image


def _grain(cv: Canvas, rng, cell_mm: tuple[float, float], amplitude: float) -> None:
    """Low-frequency wood-like streaks (stretched noise) over the whole canvas."""
    import cv2
    h, w = cv.image.shape[:2]
    gw = max(2, int(w / (cell_mm[0] * cv.px_per_mm)))
    gh = max(2, int(h / (cell_mm[1] * cv.px_per_mm)))
    noise = rng.normal(0, amplitude, (gh, gw)).astype(np.float32)
    field = cv2.resize(noise, (w, h), interpolation=cv2.INTER_CUBIC)
    # Fade out towards the edges: beyond the texture the table is its plain colour.
    fade = int(40 * cv.px_per_mm)
    wx = np.clip(np.minimum(np.arange(w), np.arange(w)[::-1]) / fade, 0, 1).astype(np.float32)
    wy = np.clip(np.minimum(np.arange(h), np.arange(h)[::-1]) / fade, 0, 1).astype(np.float32)
    field *= wy[:, None]
    field *= wx[None, :]
    _add_field(cv.image, field)


def _mottle(cv: Canvas, rng, scheme: Scheme) -> None:
    """Stone-floor mottling on the sheet only (the printed board is not flat grey)."""
    import cv2
    sh = scheme.sheet_mm
    (x0, y0), (x1, y1) = cv.px([(sh["left"], sh["top"]), (sh["right"], sh["bottom"])]) >> 4
    h, w = y1 - y0, x1 - x0
    noise = rng.normal(0, 6, (max(2, h // int(4 * cv.px_per_mm)), max(2, w // int(4 * cv.px_per_mm))))
    field = cv2.resize(noise.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    _add_field(cv.image[y0:y1, x0:x1], field)


def _add_field(image: np.ndarray, field: np.ndarray) -> None:
    """``image += field`` (clipped), one channel at a time: a float copy of the whole texture
    at 3 px/mm is 54 MB, and the table session's resident memory must stay small."""
    tmp = np.empty(field.shape, np.float32)
    for k in range(image.shape[2]):
        np.add(image[..., k], field, out=tmp)
        np.clip(tmp, 0, 255, out=tmp)
        image[..., k] = tmp


def pillar_points() -> list[tuple[int, int]]:
    """Grid intersections (column, row lines) where four squares meet: BOARD.md's 130 pillars."""
    return [(c, r) for r in range(1, ROWS) for c in range(1, COLS)
            if all(on_board(c - dc, r - dr) for dc in (0, 1) for dr in (0, 1))]


def _pillars(cv: Canvas, q: float) -> None:
    half = 2.6
    for c, r in pillar_points():
        x, y = c * q, r * q
        cv.rect(x - half - 0.6, y - half - 0.6, x + half + 0.6, y + half + 0.6, SHEET)
        cv.rect(x - half, y - half, x + half, y + half, PILLAR)


def _wall_letters(cv: Canvas, q: float, colour=LETTER) -> None:
    """Each wall segment's letter, just outside the square's side, facing outwards."""
    offset = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}
    turns = {N: 0, E: 1, S: 2, W: 3}
    for (sq, side), letter in WALL_LETTERS.items():
        c, r = sq % COLS, sq // COLS
        dx, dy = offset[side]
        centre = ((c + 0.5 + dx * 0.5) * q + dx * 6.0, (r + 0.5 + dy * 0.5) * q + dy * 6.0)
        cv.text(centre, letter, 6.0, colour, turns=turns[side])


def _sticker_on(cv: Canvas, dictionary: str, marker_id: int, corners_mm, margin_modules: float = 1.0) -> None:
    """A printed marker: white quiet zone of ``margin_modules`` around the black square."""
    corners = np.asarray(corners_mm, np.float64)
    centre = corners.mean(axis=0)
    grow = 1 + 2 * margin_modules / marker_bits(dictionary)
    cv.poly(centre + (corners - centre) * grow, (250, 250, 250, 255)[: cv.image.shape[2]])
    side = np.linalg.norm(corners[1] - corners[0]) * cv.px_per_mm
    cv.paste(marker_image(dictionary, marker_id, max(12, int(round(side)))), corners)
