"""The simulated table: the physical pieces, apart from the game, and the camera that films them.

A real table is not the game: a pawn lies a little off its square's centre, a hand hangs over
the board while a player moves, the drawn tombstone tile lies in the card zone until someone
takes it away, and after a monster move the pieces stay where they were until the players
carry out the follow-up.  ``PhysicalTable`` holds exactly that — where every physical piece
lies — and nothing of the game's state (whose turn, the deck, the score).  Simulated players
(``companion_app``) change it; ``SimulatedCamera`` renders it with the synthetic camera into
frames behind the same ``read()``/``close()`` interface as a USB camera (``vision.sources``),
so the session learns about the table only by reading those frames.

Thread-safe: the players' thread moves pieces while the camera worker reads frames.
"""
from __future__ import annotations

import random
import threading
from dataclasses import dataclass, replace

import cv2
import numpy as np

from engine.geometry import SQUARES, direction_name, parse_square, square_name
from engine.names import KINDS, piece_name
from engine.placement import PIECES
from engine.position import BOARD, STONE_KINDS, WAITING, Pawn, Position, Teleporter
from engine.wording import N_, Text, Worded

from ..scheme import Scheme, load_scheme
from . import effects as fx
from .camera import pose_camera
from .look import Edition
from .pieces import Placed, layout
from .scene import Lamp, _draw_scene, _image_direction, _scale_at_board, room_rng

# How far from its square's centre a player puts a piece down (mm).  The pawn disc is 27 mm on
# a 30 mm square.  Measured with the reader at 1280x720: 4 mm off made it flag the neighbouring
# squares as covered in 2 of 10 frames, 3 mm in none of 40; 2.5 mm keeps a margin.
SLOPPY_MM = 2.5
DEMO_SIZE = (1280, 720)   # modest, so a two-core laptop keeps up; stickers are still ~23 px
# Not supersampled by default: drawing a frame then takes ~90 ms instead of ~190 ms here, and the
# reader reads it as well (the sticker edges are a little rougher, as a real camera's are).


class CannotMove(Worded, ValueError):
    """A piece the referee's hand cannot move on the simulated table, or a table the box's pieces
    cannot make (a 12th stone); the sentence names the square (wording data: /api/simulated
    answers in the request's language)."""


# The box: 11 stone tiles (A1), each with a plain stone side and a marked front.
STONE_TILES = sum(PIECES[kind] for kind in STONE_KINDS)


def box_refusal(stones: dict[int, str], new: tuple[int, ...] = ()) -> CannotMove | None:
    """Why the stones ``stones`` (square → kind) cannot all lie on a table at once — more stone tiles
    than the box holds, more of one marked face than there are tiles with it — or None.
    ``new`` are the squares being filled now: the sentence names the first of them that is too many."""
    def where(kind=None):
        squares = [sq for sq in sorted(stones) if kind is None or stones[sq] == kind]
        fresh = [sq for sq in new if sq in squares]
        return square_name((fresh or squares)[-1])

    if len(stones) > STONE_TILES:
        return CannotMove(Text(N_("there is no stone tile left to put on %(square)s: the game has %(count)s and "
                                  "they all lie on the table"), square=where(), count=STONE_TILES))
    for kind in STONE_KINDS:
        if kind != "stone" and sum(1 for k in stones.values() if k == kind) > PIECES[kind]:
            return CannotMove(Text(N_("there is none left to put on %(square)s: the game has %(count)s %(pieces)s "
                                      "and they all lie on the table"), square=where(kind), count=PIECES[kind],
                                   pieces=piece_name(kind, "names")))
    return None


@dataclass(frozen=True)
class Lying:
    """One piece as it lies: its square, how far off the square's centre (mm) and its turn."""

    square: int
    offset: tuple[float, float] = (0.0, 0.0)
    turn: float = 0.0


@dataclass(frozen=True)
class PawnDisc:
    colour: str
    kind: str
    face: str = "white"
    lying: Lying | None = None     # None: beside the board (waiting, out or eaten for good)


@dataclass(frozen=True)
class TableView:
    """An immutable snapshot of the table (what a frame shows); hashable, so frames of an
    unchanged table reuse one drawing."""

    monster: Lying
    facing: int
    stones: tuple[tuple[str, Lying], ...]
    pools: frozenset
    teleporters: tuple
    pawns: tuple[tuple[str, PawnDisc], ...]
    tile: str | None
    hand: int | None

    def position(self) -> Position:
        """What lies on the board, as an engine Position (pawns off the board count as waiting).
        It may be impossible (two pieces on a square): it is a table, not a game."""
        pawns = tuple(Pawn(label, d.colour, d.kind, d.face, BOARD if d.lying else WAITING,
                           d.lying.square if d.lying else None) for label, d in self.pawns)
        return Position(self.monster.square, self.facing, {ly.square: kind for kind, ly in self.stones},
                        self.pools, dict(self.teleporters), pawns)


class PhysicalTable:
    """Where every physical piece lies.  Start it from the game's starting position (the
    players set the board up), then move pieces with the methods below."""

    def __init__(self, position: Position, *, seed: int = 0, sloppy_mm: float = SLOPPY_MM):
        self._lock = threading.RLock()
        self.rng = random.Random(seed)
        self.sloppy_mm = sloppy_mm
        self.version = 0
        self.pools = frozenset(position.pools)
        self.teleporters = tuple(sorted(position.teleporters.items()))
        self.monster = Lying(position.monster)
        self.facing = position.facing
        self.stones: dict[int, tuple[str, Lying]] = {}
        self.pawns: dict[str, PawnDisc] = {}
        self.tile: str | None = None
        self.hand: int | None = None
        self.arrange(position, sloppy=False)

    # -- what is on the table ------------------------------------------------
    def view(self) -> TableView:
        with self._lock:
            return TableView(self.monster, self.facing, tuple(sorted(self.stones.values(), key=lambda s: s[1].square)),
                             self.pools, self.teleporters, tuple(sorted(self.pawns.items())), self.tile, self.hand)

    def position(self) -> Position:
        return self.view().position()

    def pawn_square(self, label: str) -> int | None:
        with self._lock:
            disc = self.pawns[label]
            return disc.lying.square if disc.lying else None

    def occupant(self, sq: int) -> str | None:
        """What lies on ``sq``: "monster", a stone kind, a pawn label, or None."""
        with self._lock:
            if self.monster.square == sq:
                return "monster"
            if sq in self.stones:
                return self.stones[sq][0]
            return next((label for label, d in self.pawns.items() if d.lying and d.lying.square == sq), None)

    def differences(self, position: Position) -> list[str]:
        """Squares whose pieces differ from ``position`` (board order); offsets do not count."""
        return _differences(self.position(), position)

    # -- moving pieces ---------------------------------------------------------
    def refusal(self, position: Position) -> CannotMove | None:
        """Why the box's pieces cannot lie as ``position`` has them (a 12th stone), or None."""
        with self._lock:
            old = {ly.square for _, ly in self.stones.values()}
        return box_refusal(dict(position.stones), tuple(sq for sq in sorted(position.stones) if sq not in old))

    def arrange(self, position: Position, *, sloppy: bool = True) -> None:
        """Bring every piece into ``position`` (the follow-up done right).  Pieces already on
        their square are not touched; moved ones are put down a little off centre.  A position
        the box's pieces cannot make raises CannotMove and changes nothing."""
        with self._lock:
            refused = self.refusal(position)
            if refused is not None:
                raise refused
            self.pools = frozenset(position.pools)          # a new game's board tiles
            self.teleporters = tuple(sorted(position.teleporters.items()))
            gone = set(self.pawns) - {p.label for p in position.pawns}
            for label in gone:                              # another game's pawns leave the table
                del self.pawns[label]
            if self.monster.square != position.monster or self.facing != position.facing:
                self.monster, self.facing = self._put(position.monster, sloppy, 6.0), position.facing
            old = {ly.square: (kind, ly) for kind, ly in self.stones.values()}
            self.stones = {}
            for sq, kind in position.stones.items():
                keep = old.get(sq)
                self.stones[sq] = keep if keep and keep[0] == kind else (kind, self._put(sq, sloppy, 4.0, quarter=True))
            for p in position.pawns:
                disc = self.pawns.get(p.label)
                here = disc.lying if disc else None
                if p.place == BOARD:
                    lying = here if here and here.square == p.square else self._put(p.square, sloppy, 360.0)
                else:
                    lying = None
                self.pawns[p.label] = PawnDisc(p.colour, p.kind, p.face, lying)
            self._bump()

    def move_pawn(self, label: str, square: int | str | None, face: str | None = None) -> None:
        """Put pawn ``label`` down on ``square`` (None: beside the board), optionally flipped to ``face``."""
        sq = _square(square)
        with self._lock:
            disc = self.pawns[label]
            self.pawns[label] = replace(disc, face=face or disc.face,
                                        lying=None if sq is None else self._put(sq, True, 360.0))
            self._bump()

    def move_stone(self, frm: int | str, to: int | str | None) -> None:
        """Slide the stone on ``frm`` to ``to`` (None: off the table)."""
        a, b = _square(frm), _square(to)
        with self._lock:
            kind, _ = self.stones.pop(a)
            if b is not None:
                self.stones[b] = (kind, self._put(b, True, 4.0, quarter=True))
            self._bump()

    def put_piece(self, piece: str, squares, *, arrow: int | None = None, pair: int | None = None) -> None:
        """Put a board piece down (the advanced setup, A2): a stone tile of kind ``piece`` on ``squares[0]``
        (a little off centre and turned, as a hand puts it), a ``teleporter`` of ``pair`` with its
        ``arrow``, or a ``pool-2x2``/``pool-1x4`` over ``squares``.  What is legal is the game's business."""
        squares = tuple(_square(sq) for sq in squares)
        with self._lock:
            if piece == "teleporter":
                self.teleporters = tuple(sorted({**dict(self.teleporters), squares[0]: Teleporter(pair, arrow)}.items()))
            elif piece.startswith("pool-"):
                self.pools = self.pools | frozenset(squares)
            else:
                stones = {ly.square: kind for kind, ly in self.stones.values()}
                refused = box_refusal({**stones, squares[0]: piece}, squares[:1])
                if refused is not None:
                    raise refused
                self.stones[squares[0]] = (piece, self._put(squares[0], True, 4.0, quarter=True))
            self._bump()

    def take_piece(self, squares) -> None:
        """Take the board piece off ``squares`` (stone, teleporter or pool squares) again."""
        squares = {_square(sq) for sq in squares}
        with self._lock:
            self.teleporters = tuple((sq, t) for sq, t in self.teleporters if sq not in squares)
            self.pools = self.pools - squares
            for sq in squares:
                self.stones.pop(sq, None)
            self._bump()

    def move_monster(self, square: int | str, facing: int) -> None:
        with self._lock:
            self.monster, self.facing = self._put(_square(square), True, 6.0), facing
            self._bump()

    def lay_tile(self, tile: str | None) -> None:
        """Lay the drawn tombstone tile in the card zone (None: take it away)."""
        with self._lock:
            self.tile = None if tile is None else str(tile)
            self._bump()

    def hand_over(self, square: int | str | None) -> None:
        """A player's hand hangs over ``square`` (None: no hand over the board)."""
        with self._lock:
            self.hand = _square(square)
            self._bump()

    def move_piece(self, frm: int | str, to: int | str | None) -> str:
        """Move whatever lies on ``frm`` to ``to`` (the referee's hand on the simulated table);
        returns what was moved, in words.  Raises CannotMove (a ValueError, with wording data) naming
        the square when it cannot."""
        a, b = _square(frm), _square(to)
        with self._lock:
            what = self.occupant(a)
            if what is None:
                raise CannotMove(Text(N_("nothing lies on %(square)s to move"), square=square_name(a)))
            if b is not None and self.occupant(b) is not None and b != a:
                there = self.occupant(b)
                raise CannotMove(Text(N_("%(square)s is not free: %(what)s lies there"), square=square_name(b),
                                      what=piece_name(there, "the-object") if there in KINDS else there))   # de: …dort den …
            if what == "monster":
                if b is None:
                    raise CannotMove(Text(N_("the monster stays on the board; give a square to move it to")))
                self.move_monster(b, self.facing)
            elif a in self.stones:
                self.move_stone(a, b)
            else:
                self.move_pawn(what, b)
            return f"{what} from {square_name(a)} to {square_name(b) if b is not None else 'beside the board'}"

    # -- internals -----------------------------------------------------------
    def _put(self, sq: int, sloppy: bool, turn: float, quarter: bool = False) -> Lying:
        r = self.rng
        s = self.sloppy_mm if sloppy else 0.0
        base = 90.0 * r.randrange(4) if quarter else 0.0
        return Lying(sq, (round(r.uniform(-s, s), 2), round(r.uniform(-s, s), 2)),
                     round(base + r.uniform(-turn / 2, turn / 2) if turn < 360 else r.uniform(0, 360), 1))

    def _bump(self) -> None:
        self.version += 1


def _square(square) -> int | None:
    if square is None or isinstance(square, int):
        return square
    return parse_square(square)


def _contents(position: Position) -> dict[int, tuple]:
    """Square → everything lying there (the board tiles too: they are placed in the advanced setup)."""
    out: dict[int, tuple] = {position.monster: (("monster", direction_name(position.facing)),)}
    for sq, kind in position.stones.items():
        out[sq] = out.get(sq, ()) + (("stone", kind),)
    for sq, t in position.teleporters.items():
        out[sq] = out.get(sq, ()) + (("teleporter", t.pair, t.arrow),)
    for sq in position.pools:
        out[sq] = out.get(sq, ()) + (("pool",),)
    for p in position.pawns:
        if p.place == BOARD:
            out[p.square] = out.get(p.square, ()) + (("pawn", p.label, p.face),)
    return out


def _differences(a: Position, b: Position) -> list[str]:
    ca, cb = _contents(a), _contents(b)
    return [square_name(sq) for sq in SQUARES if ca.get(sq) != cb.get(sq)]


# -- the camera -----------------------------------------------------------------

class SimulatedCamera:
    """A frame source filming a ``PhysicalTable`` (``read()``/``close()``, as vision.sources).

    Only the last still scene is kept (8-bit, with one noise buffer reused frame after frame):
    frames of an unchanged table differ by sensor noise alone, and neither the memory nor the
    per-frame allocations grow with the game's length.
    """

    def __init__(self, table: PhysicalTable, *, width: int = DEMO_SIZE[0], height: int = DEMO_SIZE[1],
                 seed: int = 0, noise: float = 1.5, light: float = 0.2, supersample: int = 1,
                 scheme: Scheme | str | None = None, stickers: bool = True, look_seed: int = 0):
        self.table = table
        self.look = None if stickers else Edition.from_seed(look_seed)   # the box without stickers (NOSTICKERS.md)
        self.width, self.height = width, height
        self.seed, self.noise, self.light, self.supersample = seed, noise, light, supersample
        self.scheme = scheme if isinstance(scheme, Scheme) else load_scheme(scheme)
        self.camera = pose_camera(width, height)
        self.frames = 0
        self.last_view: TableView | None = None
        self._still: tuple[TableView, np.ndarray] | None = None
        self._noise: np.ndarray | None = None
        self._lock = threading.Lock()

    def read(self) -> np.ndarray | None:
        view = self.table.view()
        with self._lock:
            if self._still is None or self._still[0] != view:
                self._still = None                      # free the old drawing before making the new one
                img = draw_table(view, self.camera, self.scheme, seed=self.seed, light=self.light,
                                 supersample=self.supersample, look=self.look)
                # Kept as 8-bit with one 16-bit noise buffer reused frame after frame: 8 MB at
                # 1280x720 instead of a float still and half a dozen full-size float temporaries.
                self._still = (view, cv2.convertScaleAbs(img))   # rounded and clipped, no float copies
                self._noise = np.empty((img.shape[0], img.size // img.shape[0]), np.int16)
            _, still = self._still
            # One channel as far as OpenCV knows: cv2.randn with a scalar fills only channel 0.
            cv2.setRNGSeed(int(np.random.default_rng([self.seed, 1, self.frames]).integers(2**31 - 1)))
            cv2.randn(self._noise, 0.0, float(self.noise))
            self.frames += 1
            self.last_view = view
            return cv2.add(still, self._noise.reshape(still.shape), dtype=cv2.CV_8U)

    def close(self) -> None:
        with self._lock:
            self._still = self._noise = None


def draw_table(view: TableView, cam, scheme: Scheme, *, seed: int = 0, light: float = 0.2,
               supersample: int = 2, look: Edition | None = None) -> np.ndarray:
    """The still scene of a table snapshot (float32 BGR, before sensor noise): the pieces where
    they lie, the tile in the card zone, and the hand over its square; with a ``look``, the box
    without stickers (a table without the monster — a teaching step's — draws none)."""
    rng = np.random.default_rng([seed, 0])
    position = view.position()
    # copies: a table the game's pieces cannot make is filmed as it lies (the reader says what is wrong),
    # never a camera failure
    placed = [_as_lying(p, view, scheme) for p in layout(position, view.tile, scheme, rng, copies=True, look=look)]
    room = room_rng(seed, look, rng)
    lamp = Lamp(room.uniform(0, 360), room.uniform(45, 75), 0.15 + 0.2 * light)
    img, _ = _draw_scene(cam, scheme, placed, max(1, supersample), lamp, look)
    if view.hand is not None:
        # The same hand while it stays over the same square; a new reach looks different.
        hand_rng = np.random.default_rng([seed, 2, view.hand])
        target = cam.project([scheme.square_center_mm(view.hand)], 0.0)[0]
        fx.hand(img, target, _scale_at_board(cam) * 900.0 / 750.0, hand_rng)
    img = fx.uneven_light(img, light, room, away=_image_direction(cam, lamp))
    return img


def _as_lying(p: Placed, view: TableView, scheme: Scheme) -> Placed:
    """A laid-out sticker moved to where the physical piece lies (pawns, stones, the monster)."""
    kind = p.look[0]
    if p.square is None or kind not in ("pawn", "stone", "monster"):
        return p
    if kind == "monster":
        lying = view.monster
        rotation = p.rotation
    elif kind == "stone":
        lying = next(ly for _, ly in view.stones if ly.square == p.square)
        rotation = lying.turn
    else:
        lying = next(d.lying for _, d in view.pawns if d.lying and (d.colour, d.kind) == p.look[1:3])
        rotation = lying.turn
    cx, cy = scheme.square_center_mm(p.square)
    centre = (cx + lying.offset[0], cy + lying.offset[1])
    return replace(p, centre_mm=centre, piece_centre_mm=centre, rotation=rotation)


def teaching_photos(table: PhysicalTable, camera, layout, *, frames: int = 1, on_step=None) -> list:
    """The teaching layout's photos taken by the table's own camera (NOSTICKERS.md): for each step the
    pieces are laid out as it lists them (a little off centre, as a hand puts them; no hand over the
    board), its tombstone tile in the card zone, and ``frames`` frames read (the last one kept).
    The table is left as the last step has it: arrange the game's position afterwards.  ``on_step(n, step)``
    is called once each step lies on the table, before its photo (to show it being taught)."""
    photos = []
    for n, step in enumerate(layout.steps):
        table.hand_over(None)
        table.arrange(step.pieces())
        table.lay_tile(step.tile)
        if on_step is not None:
            on_step(n, step)
        for _ in range(max(1, frames)):
            frame = camera.read()
        photos.append(frame)
    return photos
