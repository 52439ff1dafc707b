"""Teaching (NOSTICKERS.md): the layout's photos → what this copy of the game looks like.

``teach(layout, images)`` takes one photo per step of the teaching layout, in order.  The first
(the empty board) becomes the board reference (``board.BoardReference``, registered by the pieces
of the first step that has a dozen) and each square's empty look; every later photo is located
against it, and each square must show what the step lists: a piece where one lies (else
``TeachError``: "red 6/1 expected on g7, the square looks empty"), nothing where none does
(squares beside the monster excepted: a tall figure hides them from a tilted camera).  The faces
that move in play — both faces of every pawn and the stone tiles' faces — are described
(``looks.describe``) where they lie; nothing is written unless every step passes.

The pool and teleporter tiles are sampled too (the bare look of their squares in play; for the
advanced setup, the pools' colours and each teleporter's pair and arrow: ``tiles.learn_step``); a stone
face that barely differs from the board is recorded as faint.  A pawn's partly black face must show
more black than its coloured face (photos out of order, pawns not turned over).

A face is read (``Pieces.match``) only when its samples are clearly nearer (``looks.Bank``: the
RMS Lab difference at the best turn) than those of every other face that could lie there; faces
that lie closer to each other than a sample to itself moved by ``JITTER_PX`` are named in
``warnings`` (they will mostly be read as unknown under this light).  At most ``SAMPLES`` samples
are kept per face (the layout shows most faces in several steps, in the same place), more only of a face
shown in another look (``_worth_keeping``: a plain stone's front and back).  Pawns of one colour
and side, which differ by their printed number only, are told apart where their taught faces differ
(``Pieces.tell``: each pawn face is also sampled finer from the photo itself, ``numbers``) when one is clearly
nearest there; else the game tells which.  A tombstone tile is told by its
middle, its number or its prey, compared as a picture (``Pieces._tile_by_picture``; a pieces file taught
before the middles were kept: the whole tile's polar sample checked by its middle's, ``Pieces._tile_by_middle``).
"""
from __future__ import annotations

import base64
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.deck import TILES
from engine.errors import FlureError
from engine.geometry import SQUARES, around, square_name
from engine.observation import EMPTY, UNKNOWN, PawnLook, SquareLook
from engine.wording import Join, Text

from ..change import setup_looks
from ..detect import check_frame
from . import looks as L
from . import numbers as N
from .board import BoardReference, Canvas, Lens, _sheet_mask
from .tiles import TileLooks, learn_step, palette_of
from .words import (
    BAD_PIECES,
    COUNT,
    EXPECTED_EMPTY,
    EXPECTED_PIECE,
    NO_PIECES,
    NOT_LOCATED_STEP,
    NOT_READ_STEP,
    NOT_TURNED,
    TILE_MISSING,
)

FORMAT = "flure-pieces/1"
MAX_DISTANCE = 15.0         # RMS Lab units: a face is never read farther than this from its samples
RATIO = 0.75                # the face read must be this much nearer than any other allowed face
STRANGER_RATIO = 0.75       # a face no legal change allows there this much nearer: the square is unknown
JITTER_PX = 2.0             # a sample's own noise, measured by moving its centre this much
ALIKE = 1.0                 # faces closer than their noise are named in ``warnings``
TILE_SIZE_SLACK = 0.1       # a tombstone tile read is this close (a share of each side) to the taught tiles' size
SAMPLES = 2                 # samples kept per face …
MORE_SAMPLES = 4            # … or up to this many when a face shows more than one look (a plain stone: a tile's
OTHER_LOOK = 0.5 * MAX_DISTANCE     # plain front and the plain back of the others): a sample this far from the
                                    # face's kept ones is another look of it
TELL_RATIO = 0.45           # a pawn told from the others of its kind by its number (``Pieces.tell``): the face
                            # taken is this much nearer there than any other
NEAREST = 3                 # faces compared at every centre besides the allowed ones
SEARCH_PX = 4.0             # how far the centre is moved (canonical pixels, on a 5 × 5 grid)
_GRID = (-SEARCH_PX, -SEARCH_PX / 2, 0.0, SEARCH_PX / 2, SEARCH_PX)
SHIFTS = [(dx, dy) for dx in _GRID for dy in _GRID if dx or dy]


class TeachError(FlureError, ValueError):
    """A photo that does not match its step, or photos that do not match the layout (wording data)."""


class PiecesError(FlureError, ValueError):
    """A pieces file that cannot be read (names the file and why)."""


FIXED = ("pool", "teleporter")      # faces of the pieces that never move: a square's bare look in play


def face_key(look: SquareLook) -> str | None:
    """The taught face a square's look shows (a pawn's or a stone's face; else a pool or a teleporter
    tile's), None for a bare square or the monster."""
    if look.pawn is not None:
        return f"pawn:{look.pawn.colour}:{look.pawn.kind}:{look.pawn.face}"
    if look.stone is not None:
        return f"stone:{look.stone}"
    if look.pool:
        return "pool"
    return "teleporter" if look.teleporter is not None else None


def key_look(key: str) -> SquareLook:
    """The look of a piece face (``face_key``); a fixed piece's face (pool, teleporter) is the bare look,
    the game's pool or teleporter being added by the reconciliation (B1, T1)."""
    if key in FIXED:
        return EMPTY
    parts = key.split(":")
    if parts[0] == "pawn" and len(parts) == 4:
        return SquareLook(pawn=PawnLook(parts[1], parts[2], parts[3]))
    if parts[0] == "stone" and len(parts) == 2:
        return SquareLook(stone=parts[1])
    raise ValueError(f"unknown face {key!r}")


@dataclass
class Face:
    key: str
    polar: np.ndarray       # looks.describe: (ANGLES, RINGS, 3) Lab
    noise: float
    step: int
    square: str
    detail: np.ndarray | None = None    # finer, what tells the face from its look-alikes: a tombstone tile's middle
                                        # (``looks.tile_sample``), a pawn face's number (``numbers.taught``); None: untaught
    middle: np.ndarray | None = None    # a tombstone tile's middle as a picture (``looks.middle_of``); None: not taught
    size: tuple[float, float] | None = None     # a tombstone tile's sides (mm, ``looks.TileView``); None: not taught


@dataclass
class Pieces:
    """What teaching learned: the board reference, the face samples, the faces that look alike."""

    board: BoardReference
    faces: list[Face]
    warnings: list[dict] = field(default_factory=list)
    faint: list[str] = field(default_factory=list)   # faces that can look like a bare square
    tiles: list[Face] = field(default_factory=list)  # the tombstone tiles in the card zone (``tile:8``)
    placed: TileLooks | None = None     # the pools' and teleporters' looks, for the advanced setup (``tiles``)

    def __post_init__(self):
        self._bank = L.Bank([f.polar for f in self.faces])
        self._keys = [f.key for f in self.faces]
        self._names = sorted(set(self._keys))                       # each face once
        self._ids = np.array([self._names.index(k) for k in self._keys], dtype=np.intp)
        self._tiles = L.Bank([f.polar for f in self.tiles])
        taught = self.tiles and all(f.middle is not None and f.size is not None for f in self.tiles)
        self._middles = L.Middles([f.middle for f in self.tiles]) if taught else None
        self._size = np.median([f.size for f in self.tiles], axis=0) if taught else None

    def read_tile(self, zone_lab):
        """The tombstone tile the card zone shows (``"8"``), None when it is seen empty — or when the
        teaching did not show every tile of the deck (then the tile comes from the referee or the MONSTER
        button: a tile never taught looks most like the taught one it resembles, an 8 like the 5) —,
        ``UNKNOWN`` when it cannot be told (out of view, a hand, no taught tile clearly nearest)."""
        if not set(TILES) <= {f.key.split(":", 1)[1] for f in self.tiles} or self.board.zone is None:
            return None
        if zone_lab is None:
            return UNKNOWN
        ref, canvas = L.lab(self.board.zone), Canvas.zone(_scheme())
        view = L.tile_sample(zone_lab, ref, canvas)
        if self._middles is not None and view.sample is not None and not self._tile_sized(view):
            # larger than a tile: a shadow cast into the zone may touch it (the monster's figure on the board's
            # edge); without the table's shadowed pixels, a tile's size is taken
            apart = L.tile_sample(zone_lab, ref, canvas, shadows_apart=True)
            view = apart if apart.sample is not None and self._tile_sized(apart) else view
        cover, sample, details = view.cover, view.sample, view.details
        if sample is None:
            return None if cover < L.EMPTY_COVER else UNKNOWN
        nearest = _nearest(self.tiles, self._tiles.distances(sample))
        ranked = sorted(nearest.items(), key=lambda kv: kv[1])
        best, dist = ranked[0]
        rival = ranked[1][1] if len(ranked) > 1 else np.inf
        if dist > MAX_DISTANCE:
            return UNKNOWN
        if self._middles is not None:
            return self._tile_by_picture(view, nearest)
        if dist <= RATIO * rival:
            return self._tile_by_middle(best, details, nearest)
        return self._tile_by_detail([k for k, d in ranked if d * RATIO < dist], details)

    def _tile_sized(self, view) -> bool:
        """Whether what the zone shows has a taught tile's size (within ``TILE_SIZE_SLACK`` of each side)."""
        return view.size is not None and not np.any(np.abs(np.asarray(view.size) - self._size)
                                                    > TILE_SIZE_SLACK * self._size)

    def _tile_by_picture(self, view, whole: dict[str, float]):
        """``UNKNOWN`` when what the zone shows is not a tile's size (within ``TILE_SIZE_SLACK`` of the taught
        tiles': a hand or an arm reaching in, a tile half out of the zone or half hidden); else the tile whose
        middle (``Face.middle``: its number or its prey, as a picture) is clearly nearest (``RATIO``, within
        ``MAX_DISTANCE``) to the zone's, at its best place and turn (``looks.Middles``), and within
        ``MAX_DISTANCE`` as a whole too; else ``UNKNOWN``.  As a whole, a tile taught elsewhere in the zone (in
        another light, seen from another angle) can look more like another tile than like itself (a 5 like an
        8); its middle, found where it best fits, does not."""
        if not self._tile_sized(view):
            return UNKNOWN
        near = _nearest(self.tiles, self._middles.distances(view.window))
        ranked = sorted(near.items(), key=lambda kv: kv[1])
        first, dist = ranked[0]
        rival = ranked[1][1] if len(ranked) > 1 else np.inf
        if dist <= MAX_DISTANCE and dist <= RATIO * rival and whole.get(first, np.inf) <= MAX_DISTANCE:
            return first.split(":", 1)[1]
        return UNKNOWN

    def _tile_by_middle(self, best: str, details, whole: dict[str, float]):
        """The tile read as a whole (``best``) checked by its middle (``details``, the number) against every taught
        tile's: taken when its middle is the nearest too; when another tile's middle is clearly nearest (``RATIO``,
        within ``MAX_DISTANCE``, that tile within ``MAX_DISTANCE`` as a whole too) that tile — a tile taught a
        little off its place looks as a whole more like another tile than like itself, its number does not —;
        else ``UNKNOWN``."""
        faces = [f for f in self.tiles if f.detail is not None]
        if details is None or not faces:
            return best.split(":", 1)[1]
        near = _nearest(faces, L.Bank([f.detail for f in faces]).distances(details).min(axis=0))
        ranked = sorted(near.items(), key=lambda kv: kv[1])
        first, dist = ranked[0]
        if first == best:
            return best.split(":", 1)[1]
        rival = ranked[1][1] if len(ranked) > 1 else np.inf
        if dist <= MAX_DISTANCE and dist <= RATIO * rival and whole.get(first, np.inf) <= MAX_DISTANCE:
            return first.split(":", 1)[1]
        return UNKNOWN

    def _tile_by_detail(self, close: list[str], details):
        """Among taught tiles that look alike as a whole (``close``, the nearest first: 5 and 8 differ by their
        number only), the one whose middle (``Face.detail``, the number) is clearly nearest to the zone's,
        within ``MAX_DISTANCE``; ``UNKNOWN`` when none is, or a tile was taught without its middle."""
        faces = [f for f in self.tiles if f.key in close]
        if details is None or any(f.detail is None for f in faces) or {f.key for f in faces} != set(close):
            return UNKNOWN
        near = _nearest(faces, L.Bank([f.detail for f in faces]).distances(details).min(axis=0))
        ranked = sorted(near.items(), key=lambda kv: kv[1])
        best, dist = ranked[0]
        rival = ranked[1][1] if len(ranked) > 1 else np.inf
        return best.split(":", 1)[1] if dist <= MAX_DISTANCE and dist <= RATIO * rival else UNKNOWN

    def tell(self, sample, keys, fine=None) -> str | None:
        """Which of ``keys`` — faces of one kind (``same_kind``: pawns of one colour and side, which differ by
        their small number only, part of each face's taught look) — a square shows, or None when it cannot be
        told.  ``sample`` as for ``match``.  The faces are compared only where their taught samples differ
        (``looks.number_area``: their number as this copy prints it), each at the centre (within
        ``SEARCH_PX``) and turn that fit it best there, and the nearest is taken only when every other is
        clearly farther (``TELL_RATIO``); else None, as before: which pawn it is, the game may still tell.
        ``fine``: the square's finer samples from the camera frame (``numbers.Sampler``); when every face was taught
        with its own (``Face.detail``), they are compared instead (``numbers.tell``)."""
        keys = sorted(keys)
        details = {k: [f.detail for f in self.faces if f.key == k and f.detail is not None] for k in keys}
        if fine is not None and len(keys) > 1 and all(details.values()):
            return N.tell(fine, details)[0]
        taught = [[f.polar for f in self.faces if f.key == k] for k in keys]
        if len(keys) < 2 or not all(taught):
            return None
        ref = taught[0][0]
        turned = [[L.turned(p, ref) for p in ps] for ps in taught]
        area = L.number_area([ps[0] for ps in turned])
        if area is None:
            return None
        shifts = [sample(0.0, 0.0)] + [sample(dx, dy) for dx, dy in SHIFTS]
        near = sorted((min(L.area_distance(L.turned(o, p), p, area) for o in shifts for p in ps), k)
                      for k, ps in zip(keys, turned))
        return near[0][1] if near[0][0] <= TELL_RATIO * near[1][0] else None

    def match(self, sample, allowed: set[str] | frozenset[str] = frozenset(),
              nearest: dict[str, float] | None = None, kind: bool = False) -> str | None:
        """The taught face a square shows, or None when it cannot be told.

        ``sample(dx, dy)``: the square's polar sample (``looks.polar_at``) about its silhouette's
        centre moved by (dx, dy) canonical pixels.  Each face's distance is that of its nearest
        sample; the allowed faces and the nearest others are also compared with the centre moved
        within ``SEARCH_PX`` (a lifted piece's top is not where its silhouette's middle is).
        ``allowed``: the faces a legal change can leave there.  As with stickers, only those are told
        apart here (the game, as the prior, tells the rest: a pawn that is not where a legal change
        puts it shows elsewhere too): the nearest allowed face is taken when it lies within
        ``MAX_DISTANCE`` and clearly nearer than any other allowed face (``RATIO``: two look-alike
        faces that could both lie there leave the square unknown).  When a face no legal change
        allows there is clearly nearer still (``STRANGER_RATIO``), the square is unknown: as with a
        sticker that does not decode, a square is never read as what it does not show.  Faces of one
        kind (``same_kind``: two pawns of one colour on the same side, which differ only by a small
        number) are judged as one against the others — the kind's distance is its nearest face's —
        and told apart only among themselves, when a legal change allows more than one there: which
        pawn of that kind lies there, the game tells.  ``nearest``, when given, is filled with each
        face's distance; ``kind`` True: the nearest allowed face of the kind read, even when the allowed
        pawns of that kind are not told apart (``read.explained`` then asks the game which)."""
        if not self.faces:
            return None
        best_of = np.full(len(self._names), np.inf)             # each face's distance: its nearest sample's
        np.minimum.at(best_of, self._ids, self._bank.distances(sample(0.0, 0.0)))
        keep = np.zeros(len(self._names), bool)
        keep[np.argsort(best_of)[:NEAREST]] = True
        keep |= np.isin(self._names, list(allowed))
        only = np.flatnonzero(keep[self._ids])
        moved = self._bank.distances(np.stack([sample(dx, dy) for dx, dy in SHIFTS]), only)    # (shifts, samples)
        np.minimum.at(best_of, self._ids[only], moved.min(axis=0))
        found = {} if nearest is None else nearest
        for name, d in zip(self._names, best_of.tolist()):
            found[name] = min(found.get(name, np.inf), d)
        ranked = sorted(found.items(), key=lambda kv: kv[1])
        mine = [(k, d) for k, d in ranked if k in allowed]
        if not mine:
            return None
        best, own = mine[0]
        # The face's kind (a pawn's colour and side; any other face alone): what a camera tells apart.
        near = min(d for k, d in ranked if same_kind(k, best))
        stranger = next((d for k, d in ranked if k not in allowed and not same_kind(k, best)), np.inf)
        if near > MAX_DISTANCE or stranger < STRANGER_RATIO * near:
            return None
        rival = next((d for k, d in mine[1:] if not same_kind(k, best)), np.inf)
        twin = next((d for k, d in mine[1:] if same_kind(k, best)), np.inf)
        return best if near <= RATIO * rival and (kind or own <= RATIO * twin) else None

    def save(self, path) -> None:
        """Writes the file whole or not at all (a temporary file renamed over it)."""
        data = {"format": FORMAT, "board": self.board.to_json(),
                "faces": [{"face": f.key, "step": f.step, "square": f.square, "noise": round(f.noise, 4),
                           "polar": base64.b64encode(f.polar.astype("<f2").tobytes()).decode("ascii"),
                           **({"detail": N.encode(f.detail)} if f.detail is not None else {})}
                          for f in self.faces],
                "warnings": self.warnings, "faint": self.faint,
                "tiles": [{"tile": f.key.split(":", 1)[1], "step": f.step, "polar": _b64(f.polar),
                           **({"detail": _b64(f.detail)} if f.detail is not None else {}),
                           **({"middle": _b64(f.middle)} if f.middle is not None else {}),
                           **({"size": [round(v, 2) for v in f.size]} if f.size is not None else {})}
                          for f in self.tiles],
                **({"placed": self.placed.to_json()} if self.placed is not None else {})}
        path = Path(path)
        fd, tmp = tempfile.mkstemp(prefix=path.name, suffix=".part", dir=path.parent or ".")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path) -> "Pieces":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise PiecesError(NO_PIECES(path=str(path))) from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise PiecesError(BAD_PIECES(path=str(path), why=str(exc))) from None
        try:
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f"not a {FORMAT} file (format {data.get('format') if isinstance(data, dict) else None!r})")
            board = BoardReference.from_json(data["board"])
            faces = [Face(f["face"], _polar(f["polar"], f["face"]), float(f["noise"]), int(f["step"]),
                          str(f["square"]), N.decode(f["detail"], f["face"]) if "detail" in f else None)
                     for f in data["faces"]]
            for f in faces:
                key_look(f.key)
            warnings = list(data.get("warnings") or [])
            faint = [str(k) for k in data.get("faint") or []]
            tiles = [Face(f"tile:{t['tile']}", _polar(t["polar"], f"tile {t['tile']}"), 0.0, int(t["step"]), "card zone",
                          _polar(t["detail"], f"tile {t['tile']}") if "detail" in t else None,
                          _picture(t["middle"], f"tile {t['tile']}") if "middle" in t else None,
                          _sides(t["size"], f"tile {t['tile']}") if "size" in t else None)
                     for t in data.get("tiles") or []]
            placed = TileLooks.from_json(data["placed"]) if data.get("placed") is not None else None
            pieces = cls(board, faces, warnings, faint, tiles, placed)
        except (KeyError, TypeError, ValueError) as exc:
            what = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            raise PiecesError(BAD_PIECES(path=str(path), why=what)) from None
        return pieces


def _nearest(faces: list[Face], distances) -> dict[str, float]:
    """Each face's distance (its nearest sample's), from the distances of ``faces``' samples."""
    out: dict[str, float] = {}
    for face, d in zip(faces, distances):
        out[face.key] = min(out.get(face.key, np.inf), float(d))
    return out


def same_kind(a: str, b: str) -> bool:
    """The same face, or faces of two pawns of one colour on the same side: they differ only by their
    small number, which a camera often cannot read; which pawn it is, the game tells (it lies where
    a legal change puts it, and its own square shows bare where it left)."""
    if a == b:
        return True
    pa, pb = a.split(":"), b.split(":")
    return pa[0] == pb[0] == "pawn" and len(pa) == len(pb) == 4 and pa[1] == pb[1] and pa[3] == pb[3]


def _b64(polar: np.ndarray) -> str:
    return base64.b64encode(polar.astype("<f2").tobytes()).decode("ascii")


def _polar(text: str, key: str) -> np.ndarray:
    data = base64.b64decode(text, validate=True)
    if len(data) != L.ANGLES * L.RINGS * 3 * 2:
        raise ValueError(f"face {key}: a malformed sample")
    raw = np.frombuffer(data, dtype="<f2")
    if not np.all(np.isfinite(raw)):
        raise ValueError(f"face {key}: a malformed sample")
    return raw.astype(np.float32).reshape(L.ANGLES, L.RINGS, 3)


def _picture(text: str, key: str) -> np.ndarray:
    """A square Lab picture (a tile's middle, ``looks.middle_of``) from the pieces file."""
    data = base64.b64decode(text, validate=True)
    side = int(round(np.sqrt(len(data) / 6)))
    if side < 3 or side * side * 6 != len(data):
        raise ValueError(f"{key}: a malformed middle")
    raw = np.frombuffer(data, dtype="<f2")
    if not np.all(np.isfinite(raw)):
        raise ValueError(f"{key}: a malformed middle")
    return raw.astype(np.float32).reshape(side, side, 3)


def _sides(value, key: str) -> tuple[float, float]:
    sides = tuple(float(v) for v in value)
    if len(sides) != 2 or not all(np.isfinite(v) and v > 0 for v in sides):
        raise ValueError(f"{key}: a malformed size")
    return sides


def alike(faces: list[Face]) -> list[dict]:
    """Pairs of faces whose samples lie closer than ``ALIKE`` times their noise (data for the Setup page)."""
    out: dict[tuple, float] = {}
    for i, a in enumerate(faces):
        for b in faces[i + 1:]:
            if a.key == b.key:
                continue
            d = L.distance(a.polar, b.polar)
            if d < ALIKE * max(a.noise, b.noise):
                pair = tuple(sorted((a.key, b.key)))
                out[pair] = min(out.get(pair, np.inf), d)
    return [{"faces": list(k), "distance": round(v, 3)} for k, v in sorted(out.items())]


@dataclass
class Frame:
    """One photo on the canonical plane: its light-matched Lab, its difference from the empty board,
    and each fully seen square's cover."""

    lab: np.ndarray
    diff: np.ndarray
    cover: dict[int, float]
    location: object
    blurred: np.ndarray         # ``lab`` smoothed for polar samples (looks.smooth)
    zone: np.ndarray | None = None      # the card zone in Lab, its light matched (None: not in view)
    image: np.ndarray | None = None     # the undistorted photo (``numbers.Sampler``: a pawn's number, finer)


def frame_view(board: BoardReference, image: np.ndarray, lens: Lens, ref_lab: np.ndarray, sheet: np.ndarray,
               fallback=None, fast: bool = True, at=None):
    """(Frame, None) for a located photo, (None, why) otherwise; ``fallback``: the location taken when
    the photo's own match is refused (then (Frame, why that match was refused): the caller checks it);
    ``fast`` False: the board matched at full size (``BoardReference.locate``; teaching); ``at``: the
    location taken without matching (the last teaching photo's)."""
    image = lens.undistort(image)
    location, why = (at, None) if at is not None else board.locate(image, lens, fast)
    if location is None and fallback is not None and tuple(fallback.image_size) == image.shape[1::-1]:
        location = fallback
    if location is None:
        return None, why
    import cv2
    canon = board.canonical(image, location)
    seen = board.seen(image.shape[1::-1], location) > 0
    seen = cv2.erode(seen.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    raw_lab = L.lab(canon)
    light = L.global_light(raw_lab, ref_lab, sheet & seen)
    frame_lab = L.matched_light(raw_lab, ref_lab, sheet & seen, light=light)
    diff = L.difference(frame_lab, ref_lab, L.REGISTRATION_PX)
    zone = board.zone_of(image, location) if board.zone is not None else None
    if zone is not None:
        zone = L.lit(L.lab(zone), *light)
    return Frame(frame_lab, diff, L.covers(diff, board.canvas, seen), location, L.smooth(frame_lab), zone, image), \
        (why if location is fallback else None)


def teach(layout, images, calibration=None) -> Pieces:
    """What this copy looks like, from one photo per step of ``layout`` (a ``TeachingLayout``).

    Raises ``TeachError`` (wording data naming the step and the squares) and writes nothing."""
    steps = list(layout.steps)
    images = list(images)
    if len(images) != len(steps):
        raise TeachError(COUNT(photos=len(images), steps=len(steps)))
    for n, image in enumerate(images, 1):
        _gray, why = check_frame(image)
        if why is not None:
            raise TeachError(NOT_READ_STEP(step=n, why=why))
    lens = Lens(calibration)
    board, why, n = None, None, 1
    anchor = next((n for n, step in enumerate(steps[1:], 2) if len(_anchors(step)) >= 12), None)
    if anchor is not None:      # the board registered by the pieces of the first step that has enough
        board, why = BoardReference.from_empty_photo(images[0], lens, pieces_photo=images[anchor - 1],
                                                     pieces_mm=_anchors(steps[anchor - 1]))
        n = anchor
    else:
        board, why = BoardReference.from_empty_photo(images[0], lens)
    if board is None:
        raise TeachError(NOT_LOCATED_STEP(step=n, why=why))
    ref_lab = L.lab(board.picture)
    sheet = _sheet_mask(board.canvas, _scheme()) > 0
    faces: list[Face] = []
    tiles: list[Face] = []
    faint: set[str] = set()
    zone_canvas = Canvas.zone(_scheme())
    ref_zone = L.lab(board.zone) if board.zone is not None else None
    last = None
    placed, pool_pixels = TileLooks(), []
    for n, (step, image) in enumerate(zip(steps, images), 1):
        if n == 1:
            continue
        frame, why = frame_view(board, image, lens, ref_lab, sheet, fallback=last, fast=False)
        expected = setup_looks(step.setup)
        if frame is not None and frame.location is last and not _still_there(frame, expected):
            frame = None        # the camera moved since the last step's photo: the match's refusal stands
        if frame is None:
            raise TeachError(NOT_LOCATED_STEP(step=n, why=why))
        if last is not None and frame.location is not last and tuple(last.image_size) == image.shape[1::-1] \
                and _misfits(frame, expected):
            # One camera over a still board: where the photo's own match leaves a piece missing or a
            # stray one, the last photo's location is tried, and taken when everything fits there.
            again, _why = frame_view(board, image, lens, ref_lab, sheet, at=last)
            if again is not None and not _misfits(again, expected):
                frame = again
        last = frame.location
        near_monster = _beside_monster(expected)
        missing, stray = [], []
        for sq in SQUARES:
            look = expected.get(sq, EMPTY)
            cover = frame.cover.get(sq)
            if look == EMPTY:
                if cover is not None and cover >= L.PIECE_COVER and sq not in near_monster \
                        and _clearly_differs(frame, board.canvas, sq):
                    stray.append(sq)
                continue
            key = face_key(look)
            movable = key is not None and key not in FIXED
            if cover is None or cover < L.PIECE_COVER:
                if key is not None and key.startswith("stone:") and cover is not None:
                    faint.add(key)  # a stone face much like the board: a bare square there proves nothing
                elif movable:       # (a pool or a teleporter tile may look much like the board: no proof)
                    missing.append((sq, look))
                    continue
                if cover is None or cover < L.EMPTY_COVER:
                    continue
            if key is not None:
                desc = L.describe(frame.lab, frame.diff, board.canvas, sq, ref_lab=ref_lab, blurred=frame.blurred)
                if desc is None:
                    if movable:
                        missing.append((sq, look))
                    continue
                if not _worth_keeping(desc, [f.polar for f in faces if f.key == key]):
                    continue
                moved = [d for d in (L.describe(frame.lab, frame.diff, board.canvas, sq, (dx, dy), ref_lab, frame.blurred)
                                     for dx, dy in ((JITTER_PX, 0), (-JITTER_PX, 0), (0, JITTER_PX), (0, -JITTER_PX)))
                         if d is not None]
                noise = float(L.Bank(moved).distances(desc).max()) if moved else 0.0
                faces.append(Face(key, desc, noise, n, square_name(sq), _number(frame, board.canvas, sq, key, faces)))
        if missing:
            sq, look = missing[0]
            others = ", ".join(square_name(s) for s, _ in missing[1:6])
            raise TeachError(Join("", [EXPECTED_PIECE(step=n, what=look.describe_words(), square=square_name(sq)),
                                       Text(" (+ %(squares)s)", squares=others) if others else ""]))
        if stray:
            raise TeachError(EXPECTED_EMPTY(step=n, squares=", ".join(square_name(s) for s in stray[:6])))
        learn_step(frame, expected, board.canvas, ref_lab, pool_pixels, placed)
        if step.tile is not None and frame.zone is not None:
            view = L.tile_sample(frame.zone, ref_zone, zone_canvas, least=L.EMPTY_COVER)
            if view.sample is None:
                raise TeachError(TILE_MISSING(step=n, tile=step.tile))
            tiles.append(Face(f"tile:{step.tile}", view.sample, 0.0, n, "card zone", view.details[0],
                              L.middle_of(view.window, zone_canvas), view.size))
    _check_turned(faces)
    placed.palette = palette_of(pool_pixels)
    return Pieces(board, faces, alike(faces), faint=sorted(faint), tiles=tiles, placed=placed)


DARKER = 0.02       # a pawn's partly black face shows at least this much more dark area than its coloured one
DARK_OF_LIGHTEST = 0.45     # dark: under this share of the pawn's lightest lightness (its 95th percentile
                            # over both faces), so that a dim or warm room does not make every face dark


def _number(frame: Frame, canvas: Canvas, sq: int, key: str, faces: list[Face]) -> np.ndarray | None:
    """A pawn face's finer sample of its number (``numbers.taught``), placed as the first taught of its kind
    (``same_kind``) lies; None for any other face."""
    if not key.startswith("pawn:"):
        return None
    first = next((f.detail for f in faces if f.detail is not None and same_kind(f.key, key)), None)
    return N.taught(N.sampler_of(frame.image, frame.location, canvas, L.centre_of(frame.lab, frame.diff, canvas, sq)),
                    first)


def _worth_keeping(desc: np.ndarray, kept: list[np.ndarray]) -> bool:
    """Whether a face's sample is kept beside its ``kept`` ones: the first ``SAMPLES``, then only another look
    of the same face (``OTHER_LOOK`` from each kept one — the plain ``stone`` is a tile's plain front in one
    step and the plain back of every tile in another, and a copy may print them unlike), up to ``MORE_SAMPLES``."""
    if len(kept) < SAMPLES:
        return True
    return len(kept) < MORE_SAMPLES and float(L.Bank(kept).distances(desc).min()) > OTHER_LOOK


def _check_turned(faces: list[Face]) -> None:
    """Refuse photos whose pawns were not turned as their steps say: a pawn's partly black face
    (NOSTICKERS.md) must show more dark area than its coloured face, for most pawns.  Dark is
    measured against the pawn's own lightest part (both faces, the same room), not a fixed lightness."""
    light: dict[tuple[str, str], dict[str, tuple[np.ndarray, int]]] = {}
    for f in faces:
        if f.key.startswith("pawn:"):
            _p, colour, kind, face = f.key.split(":")
            light.setdefault((colour, kind), {}).setdefault(face, (f.polar, f.step))
    pairs = [v for v in light.values() if "white" in v and "black" in v]
    wrong = []
    for v in pairs:
        below = DARK_OF_LIGHTEST * float(np.percentile(np.concatenate([v[face][0][..., 0].ravel()
                                                                       for face in ("white", "black")]), 95))
        if L.dark_share(v["black"][0], below) < L.dark_share(v["white"][0], below) + DARKER:
            wrong.append(v)
    if pairs and len(wrong) * 2 > len(pairs):
        steps = sorted({v[face][1] for v in wrong for face in ("white", "black")})
        raise TeachError(NOT_TURNED(steps=", ".join(map(str, steps)), count=len(wrong), total=len(pairs)))


def _anchors(step) -> np.ndarray:
    """Board mm centres of a step's pieces that lie on one square each (not the pools)."""
    scheme = _scheme()
    return np.array([scheme.square_center_mm(sq) for sq, look in sorted(setup_looks(step.setup).items())
                     if not look.pool],
                    dtype=np.float64).reshape(-1, 2)


def _scheme():
    from ..scheme import load_scheme
    return load_scheme()


STRAY_CLEAR = 0.6           # a piece that should not be there differs clearly over this share of its square's middle


def _clearly_differs(frame: Frame, canvas: Canvas, sq: int) -> bool:
    """Whether a square that should be empty clearly shows something: its cover (``looks.covers``) fills what a
    faint difference encloses, and in a small photo of a busy board a bare square's printed edges and texture, a
    little off, can enclose its middle or differ over much of it (looks 11 and 14 of the twin at 1280 × 720 were
    refused so); a piece left there differs clearly (``looks.DIFF``) over most of it (``STRAY_CLEAR``).  (A stray
    piece let through costs nothing: only the pieces a step lists are learned, and a piece missing from its own
    square is refused.)"""
    x0, y0, x1, y1 = L.square_box(canvas, sq, 0.0)
    return bool(np.mean(frame.diff[y0:y1, x0:x1] > L.DIFF) >= STRAY_CLEAR)


def _beside_monster(expected: dict) -> set[int]:
    """The squares up to two away from the monster (which a tall figure and its shadow may hide from a
    tilted camera)."""
    return {m for sq, look in expected.items() if look.monster is not None for n in around(sq) for m in around(n)}


def _misfits(frame: Frame, expected: dict) -> bool:
    """Whether a step's photo shows, by its squares' cover alone, a piece missing or a stray one (as
    ``teach`` judges them: a piece's square out of view is missing too — a match gone wrong can put half the
    board outside the photo)."""
    near = _beside_monster(expected)
    for sq in SQUARES:
        cover = frame.cover.get(sq)
        key = face_key(expected.get(sq, EMPTY))
        if key is None and sq not in expected:
            if cover is not None and cover >= L.PIECE_COVER and sq not in near:
                return True
        elif key is not None and key not in FIXED and not key.startswith("stone:") \
                and (cover is None or cover < L.PIECE_COVER):
            return True
    return False


STILL_BARE = 0.8    # share of a step's bare squares that must look bare where the last step's location puts them


def _still_there(frame: Frame, expected: dict) -> bool:
    """Whether the board lies where the last step's photo had it (the teaching's photos are taken by one
    camera over a still board; a photo full of pieces can leave too little of the board's picture for
    its own match): most squares the step leaves bare look bare there."""
    near = _beside_monster(expected)
    bare = [c for sq, c in frame.cover.items() if sq not in expected and sq not in near]
    return len(bare) >= 20 and sum(c < L.EMPTY_COVER for c in bare) >= STILL_BARE * len(bare)
