"""Pieces for the synthetic camera: which physical sticker goes where, and what it looks like.

``layout`` turns a Position (and the tombstone tile) into placed stickers using the marker
scheme: each pawn face, each stone tile face (so a plain-side crystal tile is a ``stone``),
teleporters with their arrow as marker rotation, the two pools, the monster with its heading
and the tombstone tile in the card zone.  Pieces are put down by hand on a real table, so they
get a seeded small shift and turn (pawn discs any turn at all).

``piece_face`` draws each piece's top face (with its sticker, upright in the piece's own
frame) and ``Body`` describes the side walls seen when the camera is not overhead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from engine.geometry import direction_name, square_name
from engine.pools import split_pools
from engine.position import BOARD, Position

from ..scheme import Scheme, Sticker, marker_corners_mm
from ..stickers import PAWN_DISC_MM
from ..teaching_layout import fronts_up
from .draw import Canvas, marker_bits, marker_image
from .look import Look, monster_outline, plain_face

PAWN_COLOURS = {"blue": (200, 96, 30), "yellow": (40, 205, 235), "red": (40, 40, 200),
                "green": (60, 150, 50), "purple": (140, 50, 120), "black": (35, 35, 35),
                "white": (232, 232, 228)}
STONE_COLOURS = {"plain": (120, 122, 118), "stone": (128, 128, 132), "crystal": (210, 190, 120),
                 "pivot-right": (60, 130, 200), "pivot-about": (150, 90, 170)}
TELEPORTER_COLOURS = {1: (190, 130, 30), 2: (170, 60, 170)}
MONSTER_COLOUR = (40, 70, 40)
POOL_COLOUR = (24, 20, 120)
TILE_COLOUR = (165, 168, 160)
PAPER = (250, 250, 250)

TILE_MM = 28.0  # stone and teleporter tiles
MONSTER_FOOT_MM = 22.0
TOMBSTONE_MM = (46.0, 62.0)


@dataclass(frozen=True)
class Placed:
    """One sticker as laid on the table: its scheme entry, the square it stands for (None
    for the tombstone tile), the sticker centre and rotation (scheme convention), the
    piece's own centre and what it looks like."""

    sticker: Sticker
    square: int | None
    centre_mm: tuple[float, float]
    rotation: float
    piece_centre_mm: tuple[float, float]
    look: tuple  # hashable description for piece_face
    cut: float = 1.0  # white margin actually left around the marker, in modules (hand-cut)

    @property
    def height_mm(self) -> float:
        return self.sticker.height_mm

    def corners_mm(self) -> list[tuple[float, float]]:
        return marker_corners_mm(self.centre_mm, self.sticker.size_mm, self.rotation)

    @property
    def angle_deg(self) -> float:
        """Clockwise turn of the piece frame (where the marker is drawn upright)."""
        return self.rotation - 90.0


class LayoutError(ValueError):
    """The position cannot be laid out with the physical pieces of the game."""


def layout(position: Position, tile: str | None, scheme: Scheme, rng: np.random.Generator, *,
           copies: bool = False, look: Look | None = None) -> list[Placed]:
    """Every sticker the camera should see for ``position`` and the tombstone ``tile``.
    The pieces are placed in a fixed order so the same ``rng`` gives the same table.
    ``copies``: a stone the game's tiles cannot make (a 12th) is drawn as a copy of a tile already
    down (as a copied sticker at a real table), which the reader flags, instead of LayoutError.
    ``look``: the box without stickers (the monster figure of that look's height); a position whose
    ``monster`` is None (a teaching step without it) has no monster on the table."""
    by = _index(scheme)
    out: list[Placed] = []

    def put(st: Sticker, sq: int, rotation: float, shift: float, turn: float, look: tuple):
        cx, cy = scheme.square_center_mm(sq)
        dx, dy = rng.uniform(-shift, shift, 2)
        rot = rotation + rng.uniform(-turn, turn)
        out.append(Placed(st, sq, (cx + dx, cy + dy), rot, (cx + dx, cy + dy), look, _cut(rng)))

    monster = _one(by["monster"], "the monster")
    if look is not None:
        # its truth is the square in the middle of its top (inside every outline a look draws)
        monster = replace(monster, height_mm=look.monster_height_mm, size_mm=0.5 * look.monster_top_mm)
    if position.monster is not None:
        put(monster, position.monster, scheme.rotation_for(direction_name(position.facing), "monster"), 1.5, 6.0,
            ("monster",))
    for sq, st in _stone_faces(position, by["stone"], rng, copies, None if look is None else _stone_side(position)):
        put(st, sq, 90.0 * int(rng.integers(4)), 1.2, 5.0, ("stone", st.kind if st.side == "front" else "plain"))
    for sq, st in _teleporter_faces(position, by["teleporter"]):
        rot = scheme.rotation_for(direction_name(position.teleporters[sq].arrow), "teleporter")
        put(st, sq, rot, 1.2, 5.0, ("teleporter", st.pair))
    out.extend(_pools(position, by, scheme, rng))
    for sq, st, p in _pawn_faces(position, by["pawn"]):
        put(st, sq, rng.uniform(0, 360), 1.8, 0.0, ("pawn", p.colour, p.kind, p.face))
    if tile is not None:
        out.append(_tombstone(tile, by, scheme, rng))
    return out


def _pools(position: Position, by: dict, scheme: Scheme, rng) -> list[Placed]:
    """The pool tiles: the sticker on the anchor square, the tile drawn around it."""
    q = scheme.square_mm
    out = []
    for anchor, shape, orientation in pool_shapes(position.pools):
        st = _one(by["pool"].get(shape, []), f"the {shape} pool")
        if shape == "2x2":
            rot = 90.0 * int(rng.integers(4))
            w, h = 2, 2
        else:
            rots = [r for r, v in sorted(scheme.pool_orientations.items()) if v == orientation]
            rot = float(rots[int(rng.integers(len(rots)))])
            w, h = (4, 1) if orientation == "horizontal" else (1, 4)
        ax, ay = scheme.square_center_mm(anchor)
        pcx, pcy = ax + (w - 1) * q / 2, ay + (h - 1) * q / 2
        dx, dy = rng.uniform(-1.0, 1.0, 2)
        rot += rng.uniform(-2.0, 2.0)
        out.append(Placed(st, anchor, (ax + dx, ay + dy), rot, (pcx + dx, pcy + dy),
                          ("pool", w * q - 2.0, h * q - 2.0), _cut(rng)))
    return out


def _pawn_faces(position: Position, stickers: dict):
    """(square, sticker, pawn) for each pawn on the board; a pawn the scheme cannot show is an error."""
    seen: dict[tuple, str] = {}
    for p in position.pawns:
        if p.place != BOARD:
            continue
        where = square_name(p.square)
        if p.colour is None or p.kind is None:
            raise LayoutError(f"pawn {p.label} on {where} has no colour and kind, so no "
                              f"sticker: the camera knows pawns as COLOUR-KIND (like red-6/1)")
        key = (p.colour, p.kind, p.face)
        if key not in stickers:
            raise LayoutError(f"pawn {p.name} on {where}: the marker scheme has no sticker for "
                              f"a {p.colour} {p.kind} pawn ({p.face} face)")
        if key[:2] in seen:
            raise LayoutError(f"pawn {p.name} is on the board twice ({seen[key[:2]]} and {where})")
        seen[key[:2]] = where
        yield p.square, stickers[key], p


def _tombstone(tile: str, by: dict, scheme: Scheme, rng) -> Placed:
    """The drawn tombstone tile, lying roughly straight somewhere in the card zone."""
    ids = by["tile"].get(str(tile), [])
    st = _one(ids[int(rng.integers(len(ids)))] if ids else None, f"tombstone tile {tile}")
    x, y, w, h = scheme.card_zone_mm
    tw, th = TOMBSTONE_MM
    sx = max(0.0, (w - tw) / 2 - 4)
    sy = max(0.0, (h - th) / 2 - 4)
    cx, cy = x + w / 2 + rng.uniform(-sx, sx), y + h / 2 + rng.uniform(-sy, sy)
    rot = 90.0 + rng.uniform(-8, 8)
    a = math.radians(rot - 90.0)
    off = -(th / 2 - tw / 2)  # sticker in the upper part of the tile (piece frame y)
    sc = (cx - math.sin(a) * off, cy + math.cos(a) * off)
    return Placed(st, None, sc, rot, (cx, cy), ("tombstone", str(tile)), _cut(rng))


def _cut(rng) -> float:
    """Stickers are cut by hand: between 0.6 and 1 module of white is left around the marker
    (rounded so that the drawn faces can be cached)."""
    return round(float(rng.uniform(0.6, 1.0)), 1)


def _one(st, what: str) -> Sticker:
    if isinstance(st, list):
        st = st[0] if st else None
    if st is None:
        raise LayoutError(f"the marker scheme has no sticker for {what}")
    return st


def _index(scheme: Scheme) -> dict:
    """The scheme's stickers grouped the way layout looks them up."""
    by: dict = {"monster": None, "stone": [], "teleporter": {}, "pool": {}, "pawn": {}, "tile": {}}
    for st in sorted(scheme.stickers.values(), key=lambda s: s.id):
        if st.piece == "monster":
            by["monster"] = by["monster"] or st
        elif st.piece == "stone":
            by["stone"].append(st)
        elif st.piece == "teleporter":
            by["teleporter"].setdefault(st.pair, []).append(st)
        elif st.piece == "pool":
            by["pool"].setdefault(st.shape, st)
        elif st.piece == "pawn":
            by["pawn"][(st.colour, st.pawn, st.face)] = st
        elif st.piece == "tile":
            by["tile"].setdefault(str(st.tile), []).append(st)
    return by


def _stone_side(position: Position) -> str:
    """Which side of a tile shows a plain ``stone`` when drawn without stickers: the plain back, except when
    all eleven tiles lie with every marked front up (a teaching layout's fronts step: the other three
    tiles then show their plain front)."""
    return "front" if fronts_up(position.stones.values()) else "plain"


def _stone_faces(position: Position, stones: list[Sticker], rng, copies: bool = False, side: str | None = None):
    """Assign physical stone tiles: special faces first (they have few tiles), then plain
    stones on any remaining tile's plain side (or a front side that is a stone; ``side`` ``"plain"`` or
    ``"front"`` takes that side when a free tile has it).  With ``copies``
    a stone no free tile can show gets a face of a tile already used (its other side if that
    shows the kind, else the same sticker again)."""
    tiles: dict = {}
    for st in stones:
        tiles.setdefault(st.tile, {})[st.side] = st
    free = sorted(tiles, key=str)
    used: set[int] = set()
    special = sorted((sq for sq, k in position.stones.items() if k != "stone"))
    plain = sorted(sq for sq, k in position.stones.items() if k == "stone")
    for sq in special + plain:
        kind = position.stones[sq]
        if kind == "stone":
            options = [(t, "plain") for t in free if "plain" in tiles[t]]
            options += [(t, "front") for t in free if tiles[t].get("front") and tiles[t]["front"].kind == "stone"]
            if side is not None and any(o[1] == side for o in options):
                options = [o for o in options if o[1] == side]
        else:
            options = [(t, "front") for t in free if tiles[t].get("front") and tiles[t]["front"].kind == kind]
        if not options and copies:
            faces = sorted((st for t in sorted(tiles, key=str) for st in tiles[t].values() if st.kind == kind),
                           key=lambda st: st.id in used)
            if faces:
                used.add(faces[0].id)
                yield sq, faces[0]
                continue
        if not options:
            have = sum(1 for t in tiles if any(s.kind == kind for s in tiles[t].values()))
            raise LayoutError(f"a {kind} on {square_name(sq)}: the game has only {have} tile(s) with a {kind} face "
                              f"and they are all on the board")
        t, side = options[int(rng.integers(len(options)))]
        free.remove(t)
        used.add(tiles[t][side].id)
        yield sq, tiles[t][side]


def _teleporter_faces(position: Position, by_pair: dict):
    used: dict[int, int] = {}
    for sq in sorted(position.teleporters):
        pair = position.teleporters[sq].pair
        ids = by_pair.get(pair, [])
        n = used.get(pair, 0)
        if n >= len(ids):
            raise LayoutError(f"teleporter on {square_name(sq)}: the scheme has {len(ids)} sticker(s) for pair {pair}")
        used[pair] = n + 1
        yield sq, ids[n]


def pool_shapes(pools) -> list[tuple[int, str, str | None]]:
    """Split the pool squares into the game's one 2x2 and one 1x4 pool:
    ``(anchor, shape, orientation)`` with the anchor top-left / first square."""
    found = split_pools(pools)
    if found is None:
        names = " ".join(square_name(s) for s in sorted(pools))
        raise LayoutError(f"the pool squares {names} are not one 2x2 and one 1x4 blood pool")
    return found


# -- looks -------------------------------------------------------------------

@dataclass(frozen=True)
class Body:
    """The piece's side walls: outline (piece-frame mm, closed) at the bottom and at the top."""

    bottom: np.ndarray
    top: np.ndarray
    top_height: float
    colour: tuple[int, int, int]


def body_of(p: Placed, look: Look | None = None) -> Body | None:
    kind = p.look[0]
    h = p.height_mm
    if look is not None:
        return _plain_body(p, look)
    if kind == "pawn":
        ring = _circle(PAWN_DISC_MM / 2)
        return Body(ring, ring, h, _shade(PAWN_COLOURS[p.look[1]], 0.7))
    if kind in ("stone", "teleporter") and h > 0.5:
        sq = _square(TILE_MM)
        col = STONE_COLOURS["plain"] if kind == "stone" else TELEPORTER_COLOURS.get(p.look[1], (90, 90, 90))
        return Body(sq, sq, h, _shade(col, 0.6))
    if kind == "monster":
        top = _square(_monster_cap(p.sticker.size_mm))
        return Body(_square(MONSTER_FOOT_MM), top, h, _shade(MONSTER_COLOUR, 0.8))
    return None


def _plain_body(p: Placed, look: Look) -> Body | None:
    """The side walls of the box without stickers: the disc's edge, the tiles', the figure's own shape."""
    kind, h = p.look[0], p.height_mm
    if kind == "pawn":
        ring = _circle(PAWN_DISC_MM / 2)
        return Body(ring, ring, h, look.pawn_edge or _shade(look.pawn_colour(p.look[1]), 0.7))
    if kind in ("stone", "teleporter") and h > 0.5:
        sq = _square(TILE_MM)
        return Body(sq, sq, h, _shade(look.stone if kind == "stone" else look.teleporter_base, 0.6))
    if kind == "monster":
        return Body(monster_outline(look, look.monster_foot_mm), monster_outline(look, look.monster_top_mm), h,
                    _shade(look.monster, 0.75))
    return None


def face_offset(p: Placed) -> tuple[float, float]:
    """Where the piece centre sits in the sticker's frame (pools, tombstone tile)."""
    a = math.radians(p.angle_deg)
    dx, dy = p.piece_centre_mm[0] - p.centre_mm[0], p.piece_centre_mm[1] - p.centre_mm[1]
    return (math.cos(a) * dx + math.sin(a) * dy, -math.sin(a) * dx + math.cos(a) * dy)


def piece_face(p: Placed, dictionary: str, px_per_mm: float, look: Look | None = None) -> Canvas:
    """The piece's top face as a BGRA canvas in the sticker's frame (marker upright, centred
    on the sticker), so ``mm_to_texture(origin, scale, p.centre_mm, p.angle_deg)`` places it.
    Faces are cached: only pools and the tombstone tile depend on the offset and turn.
    With a ``look`` (the box without stickers) the face is that look's printed picture."""
    off, angle = (0.0, 0.0), 0.0
    if p.look[0] in ("pool", "tombstone"):
        o = face_offset(p)
        off, angle = (round(o[0], 1), round(o[1], 1)), round(p.angle_deg, 0)
    st = p.sticker
    if look is not None:
        return plain_face(p.look, look, px_per_mm, off, angle, PAWN_DISC_MM, TILE_MM)
    return _draw_face(p.look, st.id, st.size_mm, dictionary, px_per_mm, off, angle, p.cut)


@lru_cache(maxsize=256)
def _draw_face(look: tuple, sticker_id: int, size: float, dictionary: str, s: float, off, angle,
               cut: float = 1.0) -> Canvas:
    kind = look[0]
    margin = cut * size / marker_bits(dictionary)
    paper = size + 2 * margin
    if kind == "pawn":
        # Square sticker on a round disc: the margin is trimmed so the corners stay on it.
        d = PAWN_DISC_MM
        cv = Canvas.blank(d + 2, d + 2, s, (0, 0, 0, 0), origin_mm=(-(d + 2) / 2, -(d + 2) / 2))
        cv.circle((0, 0), d / 2, PAWN_COLOURS[look[1]] + (255,))
        paper = max(min(paper, d / math.sqrt(2) - 0.2), size + margin)  # as stickers.paper_mm
        black, white = look[2].split("/")
        number = white if look[3] == "white" else black
        ink = (245, 245, 245, 255) if look[3] == "white" else (20, 20, 20, 255)
        gap = (d / 2 + paper / 2) / 2
        cv.text((0, gap), number, min(3.0, d / 2 - paper / 2 - 0.8), ink)
    elif kind == "monster":
        cap = _monster_cap(size)
        cv = Canvas.blank(cap + 2, cap + 2, s, (0, 0, 0, 0), origin_mm=(-(cap + 2) / 2, -(cap + 2) / 2))
        cv.rect(-cap / 2, -cap / 2, cap / 2, cap / 2, MONSTER_COLOUR + (255,))
    elif kind in ("stone", "teleporter"):
        t = TILE_MM
        cv = Canvas.blank(t + 2, t + 2, s, (0, 0, 0, 0), origin_mm=(-(t + 2) / 2, -(t + 2) / 2))
        col = STONE_COLOURS[look[1]] if kind == "stone" else TELEPORTER_COLOURS.get(look[1], (90, 90, 90))
        cv.rect(-t / 2, -t / 2, t / 2, t / 2, col + (255,))
        paper = min(paper, t - 1.0)
    elif kind == "pool":
        w, h = look[1], look[2]
        a = math.radians(angle)
        # Extent of the (board-aligned) pool in the sticker's turned frame.
        ew = abs(math.cos(a)) * w + abs(math.sin(a)) * h
        eh = abs(math.sin(a)) * w + abs(math.cos(a)) * h
        ox, oy = off
        cv = Canvas.blank(ew + 4, eh + 4, s, (0, 0, 0, 0), origin_mm=(ox - ew / 2 - 2, oy - eh / 2 - 2))
        corners = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
        c, sn = math.cos(a), math.sin(a)
        # board offset (bx, by) -> sticker frame: (c*bx + s*by, -s*bx + c*by)
        pts = [(ox + c * x + sn * y, oy - sn * x + c * y) for x, y in corners]
        cv.poly(pts, POOL_COLOUR + (255,))
        rng = np.random.default_rng(int(w * 10 + h))
        for _ in range(int(w * h / 150)):
            u, v = rng.uniform(-0.45, 0.45, 2)
            bx, by = u * w, v * h
            cv.circle((ox + c * bx + sn * by, oy - sn * bx + c * by), rng.uniform(2, 5),
                      _shade(POOL_COLOUR, 0.7) + (255,))
    else:  # tombstone tile
        tw, th = TOMBSTONE_MM
        ox, oy = off
        cv = Canvas.blank(tw + 2, th + 2, s, (0, 0, 0, 0), origin_mm=(ox - tw / 2 - 1, oy - th / 2 - 1))
        cv.rect(ox - tw / 2, oy - th / 2, ox + tw / 2, oy + th / 2, TILE_COLOUR + (255,))
        label = {"prey-1": "1 PREY", "prey-2": "2 PREY", "prey-3": "3 PREY"}.get(look[1], look[1])
        cv.text((ox, oy + th / 2 - 8.0), label, 7.0, (40, 40, 40, 255))
    half = paper / 2
    cv.rect(-half, -half, half, half, PAPER + (255,))
    side = size * s
    cv.paste(marker_image(dictionary, sticker_id, max(12, int(round(side)))),
             [(-size / 2, -size / 2), (size / 2, -size / 2), (size / 2, size / 2), (-size / 2, size / 2)])
    return cv


def _monster_cap(size_mm: float) -> float:
    """The monster's top cap: the sticker with a one-module margin (4x4) and a rim."""
    return size_mm * 8 / 6 + 2.0


def _circle(r: float, n: int = 24) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def _square(side: float) -> np.ndarray:
    h = side / 2
    return np.array([(-h, -h), (h, -h), (h, h), (-h, h)], np.float64)


def _shade(colour, f: float) -> tuple[int, int, int]:
    return tuple(int(v * f) for v in colour[:3])
