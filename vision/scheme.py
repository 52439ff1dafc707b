"""The marker scheme (VISION.md): which ArUco id is stuck on which piece face, where.

One data file (``marker_scheme.json`` next to this module) is read by the sticker
printer, the reader and the synthetic camera, so they cannot disagree.  This module
only parses and validates it; it does not import OpenCV (``aruco_dictionary()``
does, lazily) so that every command stays cheap to import.

Board frame: millimetres, origin at the outer top-left corner of square ``a1``,
x towards column ``p``, y towards row 11.  Heights are above the board surface.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from engine import jsontext
from engine.errors import FlureError
from engine.geometry import COLS, ROWS, on_board, parse_direction, square
from engine.position import COLOURS, FACES, PAWN_KINDS, STONE_KINDS, pawn_label
from engine.wording import N_, Join, Text, os_reason

from .problems import piece_words

DEFAULT_PATH = Path(__file__).with_name("marker_scheme.json")
FORMAT = "flure-marker-scheme/1"
PIECE_TYPES = ("monster", "tile", "teleporter", "pool", "stone", "pawn")
TILES = ("5", "7", "8", "10", "prey-1", "prey-2", "prey-3")
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


class SchemeError(FlureError, ValueError):
    """A malformed marker scheme file; the message names the file and the field.  ``message`` may be
    wording data (engine.wording Text): the frame (file, field) stays as it is in every language."""

    def __init__(self, message, field_path: str | None = None, path: str | None = None):
        self.field = field_path
        self.path = path
        head = Text(N_("marker scheme %(path)s:"), path=path) if path else Text(N_("marker scheme:"))
        super().__init__(Join(" ", [head, *([f"{field_path}:"] if field_path else []), message]))


@dataclass(frozen=True)
class BoardMarker:
    """A marker fixed beside the board sheet; its 4 corners register the board."""

    id: int
    corner: str
    size_mm: float
    center_mm: tuple[float, float]
    rotation: int

    def corners_mm(self) -> list[tuple[float, float]]:
        return marker_corners_mm(self.center_mm, self.size_mm, self.rotation)


@dataclass(frozen=True)
class Sticker:
    """One piece face: what the sticker with ``id`` identifies.

    ``piece`` is one of PIECE_TYPES; the other fields are filled as they apply:
    pawns (``color``, ``pawn``, ``face``), stones (``tile`` number, ``side``, ``kind``),
    teleporters (``pair``), pools (``shape`` ``2x2``/``1x4``), tombstone tiles
    (``tile`` text such as ``"8"``).
    """

    id: int
    piece: str
    size_mm: float
    height_mm: float
    colour: str | None = None
    pawn: str | None = None
    face: str | None = None
    kind: str | None = None
    tile: str | int | None = None
    side: str | None = None
    pair: int | None = None
    shape: str | None = None
    heading_from_rotation: bool = False
    arrow_from_rotation: bool = False
    orientation_from_rotation: bool = False

    @property
    def label(self) -> str | None:
        """Pawn label in a reading: ``red-6/1``."""
        return pawn_label(self.colour, self.pawn) if self.piece == "pawn" else None

    @property
    def physical(self) -> str:
        """Which physical object carries this sticker: two faces of one object share it,
        so seeing both at once means something is wrong."""
        if self.piece == "pawn":
            return f"pawn {self.colour} {self.pawn}"
        if self.piece == "stone":
            return f"stone tile {self.tile}"
        return f"{self.piece} sticker {self.id}"

    def describe(self) -> str:
        """Plain-language English name of the piece (``pawn red 3/4 (white face)``); problems name it as
        wording data instead (vision.problems.piece_words, the one wording of both)."""
        return str(piece_words(self))


@dataclass(frozen=True)
class Scheme:
    dictionary: str
    square_mm: float
    grid_mm: tuple[float, float]
    sheet_mm: dict[str, float]
    board_markers: tuple[BoardMarker, ...]
    card_zone_mm: tuple[float, float, float, float]  # x, y, width, height
    stickers: dict[int, Sticker]
    headings: dict[int, str]
    pool_orientations: dict[int, str]
    path: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # -- geometry in the board frame --------------------------------------
    def square_at(self, x_mm: float, y_mm: float) -> int | None:
        """The square whose area contains the board-frame point, or None off the grid."""
        c = math.floor(x_mm / self.square_mm)
        r = math.floor(y_mm / self.square_mm)
        if 0 <= c < COLS and 0 <= r < ROWS and on_board(c, r):
            return square(c, r)
        return None

    def square_center_mm(self, sq: int) -> tuple[float, float]:
        c, r = sq % COLS, sq // COLS
        return ((c + 0.5) * self.square_mm, (r + 0.5) * self.square_mm)

    def in_card_zone(self, x_mm: float, y_mm: float) -> bool:
        x, y, w, h = self.card_zone_mm
        return x <= x_mm <= x + w and y <= y_mm <= y + h

    @cached_property
    def board_marker_ids(self) -> frozenset[int]:
        return frozenset(m.id for m in self.board_markers)

    def rotation_name(self, rotation: int, piece: str) -> str | None:
        """Heading (``N``…) or pool orientation for a marker rotation snapped to 0/90/180/270."""
        table = self.pool_orientations if piece == "pool" else self.headings
        return table.get(rotation % 360)

    def rotation_for(self, name: str, piece: str) -> int:
        """Inverse of rotation_name: the rotation that means heading/orientation ``name``."""
        table = self.pool_orientations if piece == "pool" else self.headings
        for rot, value in sorted(table.items()):
            if value == name:
                return rot
        raise KeyError(f"no rotation means {name!r} for a {piece}")

    def aruco_dictionary(self):
        """The cv2.aruco dictionary object (imports OpenCV)."""
        import cv2
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))


def marker_corners_mm(center: tuple[float, float], size: float, rotation: float) -> list[tuple[float, float]]:
    """Board-frame positions of a marker's 4 corners in cv2.aruco order.

    ``rotation`` (degrees clockwise from north) is the direction of the marker's top
    edge, from its first corner to its second (the scheme file's convention).
    """
    a = math.radians(rotation)
    u = (math.sin(a), -math.cos(a))   # first -> second corner
    v = (-u[1], u[0])                  # second -> third corner (u turned 90° clockwise)
    s = size / 2.0
    cx, cy = center
    return [(cx + s * (du * u[0] + dv * v[0]), cy + s * (du * u[1] + dv * v[1]))
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1))]


def rotation_of_corners(corners) -> tuple[int, float]:
    """Marker rotation (snapped to 0/90/180/270) from board-frame corners, and the
    absolute deviation in degrees from the snapped value (a confidence measure)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = [(float(p[0]), float(p[1])) for p in corners]
    ux, uy = (x1 - x0) + (x2 - x3), (y1 - y0) + (y2 - y3)
    angle = math.degrees(math.atan2(ux, -uy)) % 360.0
    snapped = int(round(angle / 90.0)) % 4 * 90
    dev = abs((angle - snapped + 180.0) % 360.0 - 180.0)
    return snapped, dev


# -- loading ---------------------------------------------------------------

_cache: dict[str, Scheme] = {}
CANNOT_READ = N_("cannot read the file (%(why)s)")


def load_scheme(path: str | Path | None = None) -> Scheme:
    """Read and validate a marker scheme file (default: the packaged one).

    Raises SchemeError naming the file and the field for anything malformed.
    """
    p = Path(path) if path is not None else DEFAULT_PATH
    key = str(p.resolve())
    try:
        mtime = p.stat().st_mtime_ns
    except OSError as exc:
        raise SchemeError(Text(CANNOT_READ, why=os_reason(exc)), path=str(p)) from None
    cached = _cache.get(key)
    if cached is not None and cached.raw.get("_mtime") == mtime:
        return cached
    try:
        data = jsontext.loads(p.read_bytes())
    except OSError as exc:
        raise SchemeError(Text(CANNOT_READ, why=os_reason(exc)), path=str(p)) from None
    except jsontext.JsonTextError as exc:   # not UTF-8, not JSON, nested too deep, huge numbers
        raise SchemeError(str(exc), path=str(p)) from None
    scheme = parse_scheme(data, path=str(p))
    scheme.raw["_mtime"] = mtime
    _cache[key] = scheme
    return scheme


def parse_scheme(data: Any, path: str | None = None) -> Scheme:
    """Validate a scheme already parsed from JSON."""
    r = _Reader(path)
    if not isinstance(data, dict):
        raise r.err("the file must hold a JSON object", None)
    fmt = data.get("format")
    if fmt is not None and fmt != FORMAT:
        raise r.err(f"unsupported format {fmt!r} (expected {FORMAT!r})", "format")
    dictionary = r.text(data, "dictionary")
    if not dictionary.startswith("DICT_"):
        raise r.err(f"{dictionary!r} is not an OpenCV predefined dictionary name (like DICT_4X4_100)",
                    "dictionary")
    square_mm = r.number(data, "square_mm", positive=True)
    grid = r.obj(data, "grid_mm")
    grid_mm = (r.number(grid, "width", "grid_mm", positive=True), r.number(grid, "height", "grid_mm", positive=True))
    sheet = r.obj(data, "sheet_mm")
    sheet_mm = {k: r.number(sheet, k, "sheet_mm") for k in ("left", "top", "right", "bottom")}
    zone = r.obj(data, "card_zone_mm")
    card_zone = tuple(r.number(zone, k, "card_zone_mm", positive=k in ("width", "height"))
                      for k in ("x", "y", "width", "height"))
    sizes = r.obj(data, "sizes_mm")
    heights = r.obj(data, "heights_mm")
    for kind in PIECE_TYPES:
        r.number(sizes, kind, "sizes_mm", positive=True)
        r.number(heights, kind, "heights_mm")
    headings = r.rotation_table(data, "headings", ("N", "E", "S", "W"))
    pool_orient = r.rotation_table(data, "pool_orientations", ("horizontal", "vertical"))

    markers_in = data.get("board_markers")
    if not isinstance(markers_in, list) or len(markers_in) < 1:
        raise r.err("must be a non-empty list of corner markers", "board_markers")
    markers = []
    seen_ids: dict[int, str] = {}
    for i, m in enumerate(markers_in):
        f = f"board_markers[{i}]"
        if not isinstance(m, dict):
            raise r.err("must be an object {id, corner, size_mm, center_mm, rotation}", f)
        mid = r.marker_id(m, f, seen_ids)
        corner = m.get("corner", "")
        centre = m.get("center_mm")
        if (not isinstance(centre, list) or len(centre) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in centre)):
            raise r.err("must be [x, y] in millimetres", f + ".center_mm")
        markers.append(BoardMarker(mid, str(corner), r.number(m, "size_mm", f, positive=True),
                                   (float(centre[0]), float(centre[1])), r.rotation(m, f)))

    pieces_in = data.get("pieces")
    if not isinstance(pieces_in, list):
        raise r.err("must be a list of piece stickers", "pieces")
    stickers: dict[int, Sticker] = {}
    for i, p in enumerate(pieces_in):
        f = f"pieces[{i}]"
        if not isinstance(p, dict):
            raise r.err("must be an object with id and piece", f)
        sid = r.marker_id(p, f, seen_ids)
        piece = p.get("piece")
        if piece not in PIECE_TYPES:
            raise r.err(f"unknown piece {piece!r} (one of {', '.join(PIECE_TYPES)})", f + ".piece")
        size = r.number(p, "size_mm", f, positive=True) if "size_mm" in p else float(sizes[piece])
        height = r.number(p, "height_mm", f) if "height_mm" in p else float(heights[piece])
        stickers[sid] = _sticker(r, p, f, sid, piece, size, height)

    return Scheme(dictionary, square_mm, grid_mm, sheet_mm, tuple(markers), card_zone,  # type: ignore[arg-type]
                  stickers, headings, pool_orient, path, {"data": data})


def _sticker(r: "_Reader", p: dict, f: str, sid: int, piece: str, size: float, height: float) -> Sticker:
    if piece == "pawn":
        colour = r.choice(p, "color", COLOURS, f)
        kind = r.choice(p, "pawn", PAWN_KINDS, f)
        face = r.choice(p, "face", FACES, f)
        return Sticker(sid, piece, size, height, colour=colour, pawn=kind, face=face)
    if piece == "stone":
        kind = r.choice(p, "kind", STONE_KINDS, f)
        side = r.choice(p, "side", ("plain", "front"), f)
        return Sticker(sid, piece, size, height, kind=kind, side=side, tile=p.get("tile"))
    if piece == "teleporter":
        pair = p.get("pair")
        if not isinstance(pair, int) or isinstance(pair, bool) or pair < 1:
            raise r.err(f"pair must be 1 or 2, not {pair!r}", f + ".pair")
        return Sticker(sid, piece, size, height, pair=pair, arrow_from_rotation=True)
    if piece == "pool":
        shape = r.choice(p, "shape", ("2x2", "1x4"), f)
        return Sticker(sid, piece, size, height, shape=shape, orientation_from_rotation=shape == "1x4")
    if piece == "tile":
        tile = p.get("tile")
        if str(tile) not in TILES:
            raise r.err(f"unknown tombstone tile {tile!r} (one of {', '.join(TILES)})", f + ".tile")
        return Sticker(sid, piece, size, height, tile=str(tile))
    return Sticker(sid, piece, size, height, heading_from_rotation=True)


class _Reader:
    """Field readers that raise SchemeError naming the field."""

    def __init__(self, path: str | None):
        self.path = path

    def err(self, message: str, field_path: str | None) -> SchemeError:
        return SchemeError(message, field_path, self.path)

    def obj(self, data: dict, key: str) -> dict:
        v = data.get(key)
        if not isinstance(v, dict):
            raise self.err("required, as a JSON object", key)
        return v

    def text(self, data: dict, key: str) -> str:
        v = data.get(key)
        if not isinstance(v, str) or not v:
            raise self.err("required, as text", key)
        return v

    def number(self, data: dict, key: str, parent: str | None = None, positive: bool = False) -> float:
        f = f"{parent}.{key}" if parent else key
        v = data.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
            raise self.err(f"required, as a number (got {v!r})", f)
        if positive and v <= 0:
            raise self.err(f"must be greater than 0 (got {v!r})", f)
        return float(v)

    def choice(self, data: dict, key: str, allowed, parent: str) -> str:
        v = data.get(key)
        if v not in allowed:
            raise self.err(f"{v!r} is not one of {', '.join(allowed)}", f"{parent}.{key}")
        return v

    def rotation(self, data: dict, parent: str) -> int:
        v = data.get("rotation", 0)
        if not isinstance(v, int) or isinstance(v, bool) or v % 90 != 0:
            raise self.err(f"must be 0, 90, 180 or 270 (got {v!r})", f"{parent}.rotation")
        return v % 360

    def marker_id(self, data: dict, parent: str, seen: dict[int, str]) -> int:
        v = data.get("id")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise self.err(f"must be a marker id (a whole number ≥ 0), not {v!r}", f"{parent}.id")
        if v in seen:
            raise self.err(f"id {v} is already used by {seen[v]}", f"{parent}.id")
        seen[v] = parent
        return v

    def rotation_table(self, data: dict, key: str, values) -> dict[int, str]:
        table = self.obj(data, key)
        out: dict[int, str] = {}
        for k, v in table.items():
            try:
                rot = int(k)
            except ValueError:
                raise self.err(f"key {k!r} must be a rotation 0, 90, 180 or 270", key) from None
            if rot % 90 or v not in values:
                raise self.err(f"{k!r}: {v!r} must map a rotation to one of {', '.join(values)}", key)
            out[rot % 360] = v
        if key == "headings":
            if sorted(out) != [0, 90, 180, 270] or len(set(out.values())) != 4:
                raise self.err("must map each of 0, 90, 180, 270 to a different heading", key)
            for v in out.values():
                parse_direction(v)
        return out
