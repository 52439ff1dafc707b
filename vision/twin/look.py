"""The box without stickers: what one copy of the game looks like, varied per look seed (NOSTICKERS.md).

``Look.from_seed(S)`` draws one edition's looks: the seven pawn colours (each hue, saturation and
brightness varied), the pawns' picture and face style (a coloured face, a partly black face, the
numbers in a badge), the stone tiles (a plain back; fronts with a boulder, a crystal, a right-turn or
an about-turn arrow), the teleporters (a portal ring per pair and the arrow), the pools, the tombstone
tiles, a monster figure of its own shape, size and height, and the printed board: flagstones of their
own size and colour, brick walls, stains and cracks, pillars, grid lines, exit and entrance — no corner
markers.  Nothing here is meant to be read: the reader learns it by teaching, so every look differs.

``plain_face`` draws a piece's top face (in the frame ``pieces.piece_face`` uses), ``plain_body`` its
side walls, ``art_board_texture`` the board and table; ``pieces``/``scene`` call them when
``stickers=False``.
"""
from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from engine.geometry import COLS, ENTRANCE, EXIT, SQUARES, N, S

from .draw import Canvas

# The nominal hue (degrees), saturation and value of each pawn colour; a look moves each one.
_NOMINAL = {"blue": (220, 0.75, 0.70), "yellow": (52, 0.80, 0.92), "red": (2, 0.80, 0.75),
            "green": (125, 0.65, 0.55), "purple": (285, 0.55, 0.55)}
MOTIFS = ("bust", "ghost", "lantern", "face")
DARK_STYLES = ("half", "band", "ring", "crescent")
MONSTER_SHAPES = ("round", "square", "octagon", "star")


def _bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb((h % 360) / 360.0, min(1.0, max(0.0, s)), min(1.0, max(0.0, v)))
    return int(round(b * 255)), int(round(g * 255)), int(round(r * 255))


def _shade(colour, f: float) -> tuple[int, int, int]:
    return tuple(int(min(255, max(0, round(v * f)))) for v in colour[:3])


def _mix(a, b, t: float) -> tuple[int, int, int]:
    return tuple(int(round(x * (1 - t) + y * t)) for x, y in zip(a[:3], b[:3]))


@dataclass(frozen=True)
class Look:
    """One copy of the game as it looks (hashable: the drawings are cached per look)."""

    seed: int
    pawn_colours: tuple[tuple[str, tuple[int, int, int]], ...]
    pawn_edge: tuple[int, int, int] | None   # the disc's side: painted (None: its own colour) or bare wood
    motif: str
    dark_style: str
    badge_angle: float          # where the number's badge sits on the disc (degrees, piece frame)
    badge_mm: float
    stone: tuple[int, int, int]
    stone_back: tuple[int, int, int]
    crystal: tuple[int, int, int]
    pivot: tuple[int, int, int]
    teleporter_base: tuple[int, int, int]
    portals: tuple[tuple[int, int, int], tuple[int, int, int]]
    pool: tuple[int, int, int]
    tomb: tuple[int, int, int]
    tomb_ink: tuple[int, int, int]
    monster: tuple[int, int, int]
    monster_shape: str
    monster_foot_mm: float
    monster_top_mm: float
    monster_height_mm: float
    table: tuple[int, int, int]
    table_grain: float
    floor: tuple[int, int, int]
    mortar: tuple[int, int, int]
    wall: tuple[int, int, int]
    pillar: tuple[int, int, int]
    pillar_round: bool
    letter: tuple[int, int, int]
    flag_mm: tuple[float, float]
    grid_alpha: float
    stains: int

    def pawn_colour(self, name: str) -> tuple[int, int, int]:
        return dict(self.pawn_colours)[name]

    @classmethod
    def from_seed(cls, seed: int) -> "Look":
        return _look(int(seed))


@lru_cache(maxsize=64)
def _look(seed: int) -> Look:
    rng = np.random.default_rng([int(seed), 27])
    u = rng.uniform
    colours = []
    for name, (h, s, v) in _NOMINAL.items():
        colours.append((name, _bgr(h + u(-14, 14), s * u(0.75, 1.15), v * u(0.8, 1.12))))
    colours.append(("black", _bgr(u(0, 360), u(0, 0.25), u(0.10, 0.22))))
    colours.append(("white", _bgr(u(30, 60), u(0.02, 0.15), u(0.86, 0.97))))
    floor_h = u(15, 60) if rng.random() < 0.7 else u(80, 220)
    floor_v = u(0.35, 0.6)
    floor = _bgr(floor_h, u(0.12, 0.4), floor_v)
    wall = _bgr(floor_h + u(-20, 20), u(0.1, 0.35), u(0.16, 0.3))
    monster_foot = u(18.0, 25.0)
    return Look(
        seed=int(seed), pawn_colours=tuple(colours),
        pawn_edge=None if rng.random() < 0.5 else _bgr(u(25, 40), u(0.35, 0.55), u(0.6, 0.8)),
        motif=MOTIFS[int(rng.integers(len(MOTIFS)))], dark_style=DARK_STYLES[int(rng.integers(len(DARK_STYLES)))],
        badge_angle=u(0, 360), badge_mm=u(9.0, 11.5),
        # the stone tiles' printed rock is lighter than the board's floor (a tile stands out from the board)
        stone=_bgr(u(20, 60) if rng.random() < 0.6 else u(190, 230), u(0.05, 0.25), min(0.95, floor_v + u(0.18, 0.32))),
        stone_back=_bgr(u(20, 60), u(0.05, 0.25), min(0.92, floor_v + u(0.15, 0.3))),
        crystal=_bgr(u(160, 200), u(0.35, 0.7), u(0.8, 1.0)), pivot=_bgr(u(0, 360), u(0.5, 0.85), u(0.6, 0.9)),
        teleporter_base=_bgr(u(200, 280), u(0.2, 0.5), u(0.18, 0.32)),
        portals=(_bgr(u(20, 60), u(0.7, 0.95), u(0.8, 1.0)), _bgr(u(160, 200), u(0.6, 0.9), u(0.75, 1.0))),
        pool=_bgr(u(350, 365), u(0.75, 0.95), u(0.35, 0.55)),
        tomb=_bgr(u(20, 50), u(0.08, 0.3), u(0.55, 0.75)), tomb_ink=_bgr(u(0, 360), u(0, 0.3), u(0.08, 0.2)),
        monster=_bgr(u(0, 360), u(0.35, 0.75), u(0.3, 0.6)),
        monster_shape=MONSTER_SHAPES[int(rng.integers(len(MONSTER_SHAPES)))],
        monster_foot_mm=monster_foot, monster_top_mm=monster_foot * u(0.75, 1.1), monster_height_mm=u(45.0, 75.0),
        # a light table, as the reader asks (the board against a table of another colour: its dark edge shows)
        table=_bgr(u(20, 40), u(0.3, 0.6), u(0.55, 0.8)), table_grain=u(2.0, 5.0), floor=floor,
        mortar=_shade(floor, u(0.45, 0.7)), wall=wall, pillar=_bgr(floor_h, u(0.05, 0.2), u(0.55, 0.75)),
        pillar_round=bool(rng.random() < 0.5), letter=_bgr(u(30, 60), u(0.05, 0.3), u(0.7, 0.9)),
        flag_mm=(u(22, 48), u(16, 30)), grid_alpha=u(0.0, 0.5), stains=int(rng.integers(6, 18)))


# -- pieces --------------------------------------------------------------------------

def plain_face(kind_look: tuple, look: Look, s: float, off=(0.0, 0.0), angle: float = 0.0,
               disc_mm: float = 27.0, tile_mm: float = 28.0) -> Canvas:
    """A piece's printed top face without a sticker, BGRA, in the sticker frame (``pieces.piece_face``):
    the piece's heading (monster, teleporter arrow) is the frame's +x."""
    return _face(kind_look, look, s, off, angle, disc_mm, tile_mm)


@lru_cache(maxsize=512)
def _face(kl: tuple, look: Look, s: float, off, angle, disc_mm: float, tile_mm: float) -> Canvas:
    kind = kl[0]
    if kind == "pawn":
        return _pawn_face(look, kl[1], kl[2], kl[3], s, disc_mm)
    if kind == "stone":
        return _stone_face(look, kl[1], s, tile_mm)
    if kind == "teleporter":
        return _teleporter_face(look, kl[1], s, tile_mm)
    if kind == "monster":
        return _monster_face(look, s)
    if kind == "pool":
        return _pool_face(look, kl[1], kl[2], s, off, angle)
    return _tomb_face(look, kl[1], s, off, angle)


def _pawn_face(look: Look, colour: str, pair: str, face: str, s: float, d: float) -> Canvas:
    base = look.pawn_colour(colour)
    cv = Canvas.blank(d + 2, d + 2, s, (0, 0, 0, 0), origin_mm=(-(d + 2) / 2, -(d + 2) / 2))
    r = d / 2
    cv.circle((0, 0), r, base + (255,))
    dark = (18, 18, 20, 255)
    if face == "black":   # the partly black face
        if look.dark_style == "half":
            cv.poly(_arc_poly(r, 180, 360), dark)
        elif look.dark_style == "band":
            cv.rect(-r, -r * 0.25, r, r * 0.45, dark)
        elif look.dark_style == "ring":
            cv.circle((0, 0), r, dark)
            cv.circle((0, 0), r * 0.62, base + (255,))
        else:
            cv.circle((0, 0), r, dark)
            cv.circle((r * 0.3, -r * 0.15), r * 0.78, base + (255,))
        _clip_disc(cv, r)
    lum = sum(base) / 3
    ink = _shade(base, 0.45) if lum > 90 else _mix(base, (235, 235, 235), 0.45)
    _motif(cv, look.motif, r * 0.62, (-r * 0.12, -r * 0.05), ink + (255,))
    black, white = pair.split("/")
    a = math.radians(look.badge_angle)
    br = look.badge_mm / 2
    at = ((r - br - 0.8) * math.cos(a), (r - br - 0.8) * math.sin(a))
    if face == "white":
        cv.circle(at, br, _shade(base, 0.55) + (255,) if lum > 60 else (70, 70, 70, 255))
        cv.text(at, white, br * 1.15, (245, 245, 245, 255))
    else:
        cv.circle(at, br, (232, 232, 226, 255))
        cv.text(at, black, br * 1.15, (15, 15, 15, 255))
    return cv


def _clip_disc(cv: Canvas, r: float) -> None:
    """Transparent outside the disc (a face style drawn past the edge)."""
    import cv2
    mask = np.zeros(cv.image.shape[:2], np.uint8)
    c = cv.px([(0, 0)])[0]
    cv2.circle(mask, (int(c[0]), int(c[1])), int(round(r * cv.px_per_mm * 16)), 255, -1, cv2.LINE_AA, 4)
    cv.image[..., 3] = np.minimum(cv.image[..., 3], mask)


def _arc_poly(r: float, a0: float, a1: float, n: int = 24) -> list[tuple[float, float]]:
    a = np.radians(np.linspace(a0, a1, n))
    return [(0.0, 0.0)] + [(r * math.cos(t), r * math.sin(t)) for t in a]


def _motif(cv: Canvas, motif: str, r: float, c, colour) -> None:
    """The pawn's picture: a small figure or sign, the same on every pawn of the box."""
    x, y = c
    if motif == "bust":
        cv.circle((x, y - r * 0.35), r * 0.3, colour)
        cv.ellipse((x, y + r * 0.35), (r * 0.55, r * 0.38), 0, colour)
    elif motif == "ghost":
        cv.poly([(x - r * 0.45, y + r * 0.6), (x - r * 0.45, y - r * 0.1), (x, y - r * 0.6),
                 (x + r * 0.45, y - r * 0.1), (x + r * 0.45, y + r * 0.6), (x + r * 0.15, y + r * 0.35),
                 (x - r * 0.15, y + r * 0.6)], colour)
    elif motif == "lantern":
        cv.rect(x - r * 0.3, y - r * 0.4, x + r * 0.3, y + r * 0.45, colour)
        cv.circle((x, y - r * 0.55), r * 0.18, colour)
    else:
        cv.circle((x, y), r * 0.5, colour)
        cv.circle((x - r * 0.18, y - r * 0.1), r * 0.1, (240, 240, 240, 255))
        cv.circle((x + r * 0.18, y - r * 0.1), r * 0.1, (240, 240, 240, 255))


def _tile(s: float, t: float) -> Canvas:
    return Canvas.blank(t + 2, t + 2, s, (0, 0, 0, 0), origin_mm=(-(t + 2) / 2, -(t + 2) / 2))


def _speckle(cv: Canvas, rng, box, colour, n: int, size: tuple[float, float]) -> None:
    x0, y0, x1, y1 = box
    for _ in range(n):
        cv.circle((rng.uniform(x0, x1), rng.uniform(y0, y1)), rng.uniform(*size), colour)


def _stone_face(look: Look, kind: str, s: float, t: float) -> Canvas:
    cv = _tile(s, t)
    h = t / 2
    rng = np.random.default_rng([look.seed, 3, len(kind)])
    rim = (30, 30, 32, 255)   # the die-cut cardboard's dark edge
    cv.rect(-h, -h, h, h, rim)
    h -= 0.7
    if kind == "plain":   # the plain back: cracked flagstone
        cv.rect(-h, -h, h, h, look.stone_back + (255,))
        _speckle(cv, rng, (-h, -h, h, h), _shade(look.stone_back, 0.85) + (255,), 30, (0.4, 1.4))
        for _ in range(3):
            pts = np.cumsum(rng.uniform(-4, 4, (5, 2)), axis=0) + rng.uniform(-h * 0.6, h * 0.6, 2)
            for a, b in zip(pts[:-1], pts[1:]):
                cv.line(tuple(a), tuple(b), 0.4, _shade(look.stone_back, 0.55) + (255,))
        return cv
    cv.rect(-h, -h, h, h, _shade(look.stone, 0.8) + (255,))
    cv.ellipse((0, 0.5), (h * 0.82, h * 0.72), 0, look.stone + (255,))
    cv.ellipse((-h * 0.25, -h * 0.25), (h * 0.35, h * 0.22), -20, _mix(look.stone, (255, 255, 255), 0.3) + (255,))
    if kind == "crystal":
        g = h * 0.55
        cv.poly([(0, -g), (g * 0.6, -g * 0.2), (g * 0.35, g * 0.8), (-g * 0.35, g * 0.8), (-g * 0.6, -g * 0.2)],
                look.crystal + (255,))
        cv.poly([(0, -g), (g * 0.6, -g * 0.2), (0, g * 0.1)], _mix(look.crystal, (255, 255, 255), 0.45) + (255,))
    elif kind in ("pivot-right", "pivot-about"):
        sweep = 90 if kind == "pivot-right" else 180
        _arrow_arc(cv, h * 0.5, -90, -90 + sweep + 40, 2.2, look.pivot + (255,))
    return cv


def _arrow_arc(cv: Canvas, r: float, a0: float, a1: float, w: float, colour) -> None:
    """A clockwise curved arrow from ``a0`` to ``a1`` degrees (0 = +x, clockwise in the image)."""
    pts = [(r * math.cos(math.radians(a)), r * math.sin(math.radians(a))) for a in np.linspace(a0, a1, 16)]
    for a, b in zip(pts[:-1], pts[1:]):
        cv.line(a, b, w, colour)
    end = math.radians(a1)
    tip = (r * math.cos(end), r * math.sin(end))
    tangent = (-math.sin(end), math.cos(end))
    normal = (math.cos(end), math.sin(end))
    k = w * 1.6
    cv.poly([(tip[0] + tangent[0] * k * 1.4, tip[1] + tangent[1] * k * 1.4),
             (tip[0] + normal[0] * k, tip[1] + normal[1] * k), (tip[0] - normal[0] * k, tip[1] - normal[1] * k)],
            colour)


def _teleporter_face(look: Look, pair: int, s: float, t: float) -> Canvas:
    cv = _tile(s, t)
    h = t / 2
    portal = look.portals[(int(pair) - 1) % 2]
    cv.rect(-h, -h, h, h, look.teleporter_base + (255,))
    for k in range(int(pair)):   # one ring for pair 1, two for pair 2
        cv.circle((0, 0), h * (0.85 - 0.3 * k), portal + (255,))
        cv.circle((0, 0), h * (0.85 - 0.3 * k) - 1.3, look.teleporter_base + (255,))
    # The arrow: the direction the monster faces on arrival, the frame's +x.
    cv.rect(-h * 0.45, -1.2, h * 0.2, 1.2, (235, 235, 235, 255))
    cv.poly([(h * 0.65, 0), (h * 0.15, -h * 0.32), (h * 0.15, h * 0.32)], (235, 235, 235, 255))
    return cv


def monster_outline(look: Look, side_mm: float) -> np.ndarray:
    """The figure's outline (piece frame, mm) of width ``side_mm``: its own shape per look."""
    r = side_mm / 2
    if look.monster_shape == "round":
        a = np.linspace(0, 2 * np.pi, 28, endpoint=False)
        return np.column_stack([r * np.cos(a), r * np.sin(a)])
    if look.monster_shape == "square":
        return np.array([(-r, -r), (r, -r), (r, r), (-r, r)], np.float64)
    if look.monster_shape == "octagon":
        a = np.radians(22.5 + 45 * np.arange(8))
        return np.column_stack([r * np.cos(a), r * np.sin(a)])
    a = np.radians(36 * np.arange(10))
    rad = np.where(np.arange(10) % 2 == 0, r, r * 0.72)
    return np.column_stack([rad * np.cos(a), rad * np.sin(a)])


def _monster_face(look: Look, s: float) -> Canvas:
    top = look.monster_top_mm
    cv = Canvas.blank(top + 2, top + 2, s, (0, 0, 0, 0), origin_mm=(-(top + 2) / 2, -(top + 2) / 2))
    cv.poly(monster_outline(look, top), look.monster + (255,))
    r = top / 2
    cv.poly(monster_outline(look, top * 0.55) + (-r * 0.15, 0), _shade(look.monster, 1.3) + (255,))
    # Its face looks along +x: two eyes and a mouth near the front edge.
    for sy in (-1, 1):
        cv.circle((r * 0.5, sy * r * 0.32), r * 0.16, (60, 230, 250, 255))
        cv.circle((r * 0.55, sy * r * 0.32), r * 0.07, (10, 10, 10, 255))
    cv.rect(r * 0.72, -r * 0.25, r * 0.82, r * 0.25, (20, 20, 30, 255))
    return cv


def _place(off, angle):
    """Board-aligned piece coordinates -> the sticker frame turned ``angle`` (as ``pieces._draw_face``)."""
    a = math.radians(angle)
    c, sn = math.cos(a), math.sin(a)
    ox, oy = off
    return lambda x, y: (ox + c * x + sn * y, oy - sn * x + c * y)


def _framed(w: float, h: float, s: float, off, angle):
    a = math.radians(angle)
    ew = abs(math.cos(a)) * w + abs(math.sin(a)) * h
    eh = abs(math.sin(a)) * w + abs(math.cos(a)) * h
    ox, oy = off
    return Canvas.blank(ew + 4, eh + 4, s, (0, 0, 0, 0), origin_mm=(ox - ew / 2 - 2, oy - eh / 2 - 2))


def _pool_face(look: Look, w: float, h: float, s: float, off, angle) -> Canvas:
    cv = _framed(w, h, s, off, angle)
    to = _place(off, angle)
    cv.poly([to(-w / 2, -h / 2), to(w / 2, -h / 2), to(w / 2, h / 2), to(-w / 2, h / 2)],
            _shade(look.floor, 0.7) + (255,))
    rng = np.random.default_rng([look.seed, 5, int(w), int(h)])
    for _ in range(int(w * h / 40)):   # the blood: overlapping blobs, a darker rim
        x, y = rng.uniform(-0.4, 0.4) * w, rng.uniform(-0.4, 0.4) * h
        cv.circle(to(x, y), rng.uniform(4, 8), _shade(look.pool, 0.75) + (255,))
    for _ in range(int(w * h / 40)):
        x, y = rng.uniform(-0.36, 0.36) * w, rng.uniform(-0.36, 0.36) * h
        cv.circle(to(x, y), rng.uniform(3, 6.5), look.pool + (255,))
    for _ in range(int(w * h / 300)):
        x, y = rng.uniform(-0.3, 0.3) * w, rng.uniform(-0.3, 0.3) * h
        cv.circle(to(x, y), rng.uniform(0.8, 2), _mix(look.pool, (255, 255, 255), 0.35) + (255,))
    return cv


def _tomb_face(look: Look, tile: str, s: float, off, angle, size=(46.0, 62.0)) -> Canvas:
    tw, th = size
    cv = _framed(tw, th, s, off, angle)
    to = _place(off, angle)
    cv.poly([to(-tw / 2, -th / 2), to(tw / 2, -th / 2), to(tw / 2, th / 2), to(-tw / 2, th / 2)], look.tomb + (255,))
    stone = _shade(look.tomb, 0.7) + (255,)
    cv.poly([to(x, y) for x, y in [(-14, 18), (-14, -10), (-10, -18), (10, -18), (14, -10), (14, 18)]], stone)
    ink = look.tomb_ink + (255,)
    if tile.startswith("prey"):
        n = int(tile.split("-")[1])
        for k in range(n):
            x = (k - (n - 1) / 2) * 11.0
            cv.circle(to(x, -3), 4.5, ink)
            cv.poly([to(x - 5, 9), to(x + 5, 9), to(x + 3, 1), to(x - 3, 1)], ink)
    else:
        # A number turned with the tile: drawn upright, then only small turns (the tile lies roughly straight).
        cv.text(to(0, 0), tile, 14.0, ink)
    return cv


# -- the board -----------------------------------------------------------------------

_board_cache: dict[tuple, np.ndarray] = {}


def art_board_texture(scheme, s: float, look: Look, origin_mm, size_mm) -> np.ndarray:
    """BGR texture of the table and the printed board (no corner markers), ``s`` px/mm, top-left at
    ``origin_mm``; cached per look and scale."""
    key = (look, s, scheme.square_mm, tuple(sorted(scheme.sheet_mm.items())))
    if key not in _board_cache:
        if len(_board_cache) >= 2:
            _board_cache.pop(next(iter(_board_cache)))
        _board_cache[key] = _draw_art_board(scheme, s, look, origin_mm, size_mm)
    return _board_cache[key]


def _draw_art_board(scheme, s: float, look: Look, origin_mm, size_mm) -> np.ndarray:
    import cv2

    from .board import _add_field, _grain, _wall_letters, pillar_points
    rng = np.random.default_rng([look.seed, 9])
    cv = Canvas.blank(*size_mm, s, look.table, origin_mm=origin_mm)
    _grain(cv, rng, (40, 3), look.table_grain)   # the texture ends before the picture does: a faint grain
    sh = scheme.sheet_mm
    q = scheme.square_mm
    cv.rect(sh["left"], sh["top"], sh["right"], sh["bottom"], look.wall)
    # Brick walls over the whole sheet (the floor covers them where the squares are).
    bw, bh = rng.uniform(14, 24), rng.uniform(6, 10)
    y, row = sh["top"], 0
    while y < sh["bottom"]:
        x = sh["left"] - (bw / 2 if row % 2 else 0)
        while x < sh["right"]:
            cv.rect(max(x, sh["left"]) + 0.5, y + 0.5, min(x + bw, sh["right"]) - 0.5, min(y + bh, sh["bottom"]) - 0.5,
                    _shade(look.wall, rng.uniform(0.85, 1.25)))
            x += bw
        y += bh
        row += 1
    # The floor: flagstones in running bond, clipped to the 156 squares.
    floor = Canvas.blank(COLS * q, 11 * q, s, _shade(look.mortar, 1.0))
    fw, fh = look.flag_mm
    y, row = 0.0, 0
    while y < 11 * q:
        h = fh * rng.uniform(0.8, 1.2)
        x = -rng.uniform(0, fw)
        while x < COLS * q:
            w = fw * rng.uniform(0.6, 1.4)
            jitter = rng.uniform(-0.6, 0.6, 4)
            cv_col = _shade(look.floor, rng.uniform(0.8, 1.2))
            floor.poly([(x + 0.7 + jitter[0], y + 0.7), (x + w - 0.7, y + 0.7 + jitter[1]),
                        (x + w - 0.7 + jitter[2], y + h - 0.7), (x + 0.7, y + h - 0.7 + jitter[3])], cv_col)
            x += w
        y += h
        row += 1
    # The printed picture's own details, different all over (so no two places of the board look alike):
    # pebbles and rubble, bones, fine grain at two scales.
    for _ in range(int(rng.integers(250, 450))):
        c = (rng.uniform(0, COLS * q), rng.uniform(0, 11 * q))
        floor.ellipse(c, (rng.uniform(0.6, 2.6), rng.uniform(0.5, 1.8)), rng.uniform(0, 180),
                      _shade(look.floor, rng.uniform(0.45, 1.45)))
    bone = _mix(look.floor, (225, 235, 240), 0.7)
    for _ in range(int(rng.integers(8, 20))):
        c = np.array([rng.uniform(0, COLS * q), rng.uniform(0, 11 * q)])
        a = rng.uniform(0, np.pi)
        d = np.array([np.cos(a), np.sin(a)]) * rng.uniform(4, 9)
        floor.line(tuple(c - d), tuple(c + d), 1.3, bone)
        for end in (c - d, c + d):
            floor.circle(tuple(end + (0.0, 0.9)), 1.1, bone)
            floor.circle(tuple(end - (0.0, 0.9)), 1.1, bone)
    for cell, amp in ((5.0, 9.0), (1.2, 7.0)):
        noise = rng.normal(0, amp, (max(2, int(11 * q / cell)), max(2, int(COLS * q / cell)))).astype(np.float32)
        _add_field(floor.image, cv2.resize(noise, floor.image.shape[1::-1], interpolation=cv2.INTER_CUBIC))
    # Damp stains and dirt, drawn at 1 px/mm and blurred once.
    stain = np.zeros((int(11 * q), int(COLS * q)), np.float32)
    for _ in range(look.stains):
        c = (int(rng.uniform(0, COLS * q)), int(rng.uniform(0, 11 * q)))
        cv2.ellipse(stain, c, (int(rng.uniform(10, 45)), int(rng.uniform(8, 30))), rng.uniform(0, 180), 0, 360,
                    float(rng.uniform(0.15, 0.35)), -1)
    stain = cv2.resize(cv2.GaussianBlur(stain, (0, 0), 6), floor.image.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    floor.image[:] = (floor.image * (1 - np.minimum(stain, 0.6))[..., None]).astype(np.uint8)
    for _ in range(10):   # cracks
        pts = np.cumsum(rng.uniform(-6, 6, (8, 2)), axis=0) + (rng.uniform(0, COLS * q), rng.uniform(0, 11 * q))
        for a, b in zip(pts[:-1], pts[1:]):
            floor.line(tuple(a), tuple(b), 0.5, _shade(look.mortar, 0.7))
    if look.grid_alpha > 0.02:
        lines = Canvas.blank(COLS * q, 11 * q, s, (0,))
        for k in range(COLS + 1):
            lines.line((k * q, 0), (k * q, 11 * q), 0.6, (255,))
        for k in range(12):
            lines.line((0, k * q), (COLS * q, k * q), 0.6, (255,))
        a = lines.image.astype(np.float32) * (look.grid_alpha / 255.0)
        floor.image[:] = (floor.image * (1 - a) + np.float32(_shade(look.mortar, 0.6)) * a).astype(np.uint8)
    mask = np.zeros(floor.image.shape[:2], np.uint8)
    for sq in SQUARES:
        c, r = sq % COLS, sq // COLS
        p = floor.px([(c * q, r * q), ((c + 1) * q, (r + 1) * q)]) >> 4
        mask[max(0, p[0][1]):p[1][1] + 1, max(0, p[0][0]):p[1][0] + 1] = 1
    (x0, y0) = cv.px([(0.0, 0.0)])[0] >> 4
    region = cv.image[y0:y0 + mask.shape[0], x0:x0 + mask.shape[1]]
    region[mask.astype(bool)] = floor.image[mask.astype(bool)]
    # Exit and entrance: their own tint, footprints and an arrow.
    for sq, word, side in ((EXIT, "AUSGANG", N), (ENTRANCE, "EINGANG", S)):
        c, r = sq % COLS, sq // COLS
        cv.rect(c * q + 2, r * q + 2, (c + 1) * q - 2, (r + 1) * q - 2, _mix(look.floor, (60, 160, 90), 0.35))
        cv.text(((c + 0.5) * q, r * q + (4.5 if side == N else q - 4.5)), word, 2.6, look.letter)
    cv.ellipse((0.38 * q, 0.62 * q), (2.6, 4.5), -10, look.mortar)
    cv.ellipse((0.64 * q, 0.48 * q), (2.6, 4.5), 10, look.mortar)
    half = rng.uniform(2.0, 3.2)
    for c, r in pillar_points():
        x, y = c * q, r * q
        if look.pillar_round:
            cv.circle((x, y), half + 0.6, _shade(look.wall, 0.6))
            cv.circle((x, y), half, look.pillar)
        else:
            cv.rect(x - half - 0.6, y - half - 0.6, x + half + 0.6, y + half + 0.6, _shade(look.wall, 0.6))
            cv.rect(x - half, y - half, x + half, y + half, look.pillar)
    _wall_letters(cv, q, look.letter)
    return cv.image
