"""The table's camera without stickers (NOSTICKERS.md): each frame read with what ``flure teach`` learned.

``vision.nostickers.read.Reader`` reads a frame only against a prior: the position the game holds
before the change and the faces a legal change can leave on each square (``allowed_faces``).  The
camera worker reads frames in its own thread, so it is given that prior as a callable at
construction (``PiecesReader(pieces, prior)``) and never looks into the session: ``table_prior``
makes the callable from the game and whether the table is being brought into the game's position.

What the engine allows there (RULES.md G3, G7, A2):

- the pawn phase: the moves of the player to move (G3);
- the monster phase and a game over: no piece moves, only a tile is read (G7);
- the advanced setup: one of the pieces left put down where A2 lets it (``legal_placements``);
- a follow-up (after the monster's move, an undo, a new game, the referee's entry): the table
  still shows the position before it or already the game's, so the faces of both are allowed.

The answer is a vision ``Reading`` as the sticker reader's, so the same stable-frame gate, judge and
loop act on it.  The monster is not read: its square is unseen (``monster-unread``) and the game
gives it (NOSTICKERS.md "Reading a change").
"""
from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.geometry import parse_square
from engine.observation import looks
from engine.position import Position, basic_position
from engine.wording import N_, Text
from vision.reading import Reading

from .port import Prior

if TYPE_CHECKING:
    from vision.nostickers.read import FrameRead


@dataclass(frozen=True)
class FacePrior:
    """What a frame is read against: ``before`` the position the game holds, ``allowed`` square → the
    faces (``vision.nostickers.teach.face_key``) that can lie there."""

    before: Position
    allowed: dict[int, set[str]]
    tile: bool = True      # a tombstone tile in the card zone means something now (the monster phase, G7)


def allowed_now(prior: Prior | None, previous: Position | None = None) -> FacePrior:
    """What a frame is read against for the game's ``prior`` (``port.Prior``; None: no game yet, the
    basic setup); ``previous``: the position the table may still show during a follow-up, whose faces are
    allowed too.  (``allowed_faces`` of ``vision.nostickers.read``, with the pawns the player to move may
    still move, G3.)"""
    from engine.reconcile import legal_changes
    from vision.nostickers.teach import face_key

    before = prior.position if prior is not None else basic_position()
    shown = [before] if previous is None else [before, previous]
    if prior is not None and prior.phase == "pawns":
        shown += [change.after for change in legal_changes(before, prior.mover, only=prior.only)]
    elif prior is not None and prior.phase == "placement":
        from engine.reconcile_place import legal_placements

        shown += [change.after for change in legal_placements(before, dict(prior.pieces_left))]
    allowed: dict[int, set[str]] = {}
    for position in shown:
        for sq, look in looks(position).items():
            key = face_key(look)
            if key is not None:
                allowed.setdefault(sq, set()).add(key)
    return FacePrior(before, allowed, tile=prior is not None and prior.phase == "monster")


class table_prior:
    """``prior()`` for the camera worker: what a frame is read against now (``allowed_now``), made once per
    game state.  ``game_prior()`` gives the game's ``port.Prior`` (``TableSession.prior``; None before a
    game); while the table is being brought into the game's position (``Prior.following``) the position
    the game held before its last change is allowed as well: the table may still show it."""

    def __init__(self, game_prior: Callable[[], Prior | None]):
        self.game_prior = game_prior
        self._lock = threading.Lock()
        self._last: Position | None = None       # the game's position at the last call
        self._previous: Position | None = None   # the one before it (what the table may still show)
        self._key = None
        self._prior: FacePrior | None = None

    def __call__(self) -> FacePrior:
        prior = self.game_prior()
        with self._lock:
            position = prior.position if prior is not None else None
            if position is not None and position != self._last:
                self._previous, self._last = self._last, position
            previous = self._previous if prior is not None and prior.following else None
            key = (prior, previous)
            if self._prior is None or self._key != key:
                self._prior, self._key = allowed_now(prior, previous), key
            return self._prior


class PiecesReader:
    """Frames → vision ``Reading`` without stickers: ``read(frame)`` reads it with the taught ``pieces``
    against ``prior()`` (a ``FacePrior``).  ``scheme`` is None: no sticker scheme reads these frames."""

    scheme = None
    keeps_readings = True     # the worker hands the stable frames' readings to the judge (``checked_by_frames``)

    def __init__(self, pieces, prior: Callable[[], FacePrior], calibration=None, path=None):
        self.prior, self.path, self.calibration = prior, path, calibration
        self.pieces = self.reader = None
        self.waiting = Text(N_("the camera is being taught the pieces"))   # why nothing is read before
        if pieces is not None:
            self.taught(pieces)

    def taught(self, pieces) -> None:
        """Read with ``pieces`` from the next frame on (the simulated table teaches itself while the worker runs)."""
        from vision.nostickers.read import Reader

        self.reader, self.pieces = Reader(pieces, self.calibration), pieces

    def read(self, frame) -> Reading | None:
        """The frame's reading, or None while nothing is taught yet (``waiting`` says so)."""
        reader = self.reader
        if reader is None:
            return None
        prior = self.prior()
        return pieces_reading(reader.read_frame(frame, prior.before, prior.allowed), prior)


def pieces_reading(frame: FrameRead, prior: FacePrior) -> PiecesReading:
    """What the reader made of one frame (``vision.nostickers.read.FrameRead``) read against ``prior``, as the
    vision ``Reading`` the stable-frame gate takes: the card zone left out outside the monster phase
    (``without_card_zone``), the game's pools and teleporters named (``with_fixed_tiles``), with the frame's
    doubts, faces read and the squares showing a pawn of one kind whose number was not told (``alike``)."""
    data = frame.data if prior.tile else without_card_zone(frame.data)
    alike = {sq: faces for sq, nearest in frame.doubts.items()
             if (faces := of_one_kind(nearest, prior.allowed.get(sq, ())))}
    # the pawns of a kind read, their number not told (``Pieces.tell``)
    alike.update((sq, faces) for sq, key in frame.read.items()
                 if sq in frame.twins and len(faces := kind_allowed(key, prior.allowed.get(sq, ()))) > 1)
    return as_reading(with_fixed_tiles(data, prior.before), frame.doubts, frame.read, alike)


def without_card_zone(data: dict) -> dict:
    """The reading without the card zone, outside the monster phase: no change of the game then is a tile
    (the judge leaves it out), so a card zone the reader cannot tell (a pawn put down beside the board
    over it, a look the teaching did not see) must not hold the stable-frame gate up.  ``tile`` is null,
    as when the teaching showed no tile (NOSTICKERS.md)."""
    from vision.change import CARD_ZONE_CODES

    problems = [p for p in data.get("problems") or [] if p.get("code") not in CARD_ZONE_CODES]
    return {**data, "tile": None, "problems": problems}


@dataclass
class PiecesReading(Reading):
    """A frame read without stickers, with its ``doubts``: square → the faces nearest to what covers it,
    where no face was read (``FrameRead.doubts``), and the faces it ``read`` (square → face key,
    ``FrameRead.read``), for ``checked_by_frames``."""

    doubts: dict = field(default_factory=dict)
    read: dict = field(default_factory=dict)
    alike: dict = field(default_factory=dict)     # square → the allowed faces of the one kind it shows (``of_one_kind``)


def checked_by_frames(result, readings):
    """An accepted answer checked against the squares the frames it combines read no face on, as
    ``flure vision explain --pieces`` checks it (``vision.nostickers.read.checked``): an unread square
    that clearly shows something else than the answer leaves there refuses it — an unread square never
    lets a second change through.  Readings of another reader leave the answer as it is."""
    from vision.nostickers.read import checked

    mine = [r for r in readings if isinstance(r, PiecesReading)]
    doubts = [r.doubts for r in mine if r.doubts]
    if not result.accepted or not doubts:
        return result
    return checked(result, doubts, [r.read for r in mine])


def of_one_kind(nearest: dict[str, float], allowed) -> frozenset[str]:
    """The faces a legal change allows on a square no face was read on, when what covers it clearly is a
    pawn of one kind (one colour, one side: ``teach.same_kind``) and only its small number was not told
    (``Pieces.match``'s tests but the last, on its distances ``nearest``): those of that kind it allows,
    when more than one (else none).  Which of them lies there, the game tells (``told_by_the_game``)."""
    from vision.nostickers.teach import MAX_DISTANCE, RATIO, STRANGER_RATIO, same_kind

    ranked = sorted(nearest.items(), key=lambda kv: kv[1])
    mine = [k for k, _d in ranked if k in allowed]
    if not mine:
        return frozenset()
    best = mine[0]
    kind = min(d for k, d in ranked if same_kind(k, best))
    stranger = min((d for k, d in ranked if k not in allowed and not same_kind(k, best)), default=float("inf"))
    rival = min((nearest[k] for k in mine if not same_kind(k, best)), default=float("inf"))
    if kind > MAX_DISTANCE or stranger < STRANGER_RATIO * kind or kind > RATIO * rival:
        return frozenset()
    faces = kind_allowed(best, mine)
    return faces if len(faces) > 1 else frozenset()


def kind_allowed(key: str, allowed) -> frozenset[str]:
    """The faces of ``allowed`` of the same kind as ``key`` (``teach.same_kind``: a pawn's colour and side)."""
    from vision.nostickers.teach import same_kind

    return frozenset(k for k in allowed if same_kind(k, key))


def told_by_the_game(game, observation, readings, result):
    """The answer of the pawn phase with the pawns the frames could not tell by their number
    (``PiecesReading.alike``: every stable frame saw a pawn of one kind there, the same faces allowed, and
    no frame told its small number, ``Pieces.tell``): the reader's ``told_by_the_game`` tries each choice of
    those pawns as seen there, each answer ``checked_by_frames`` too, and when exactly one legal change fits
    it is the answer — which pawn of that kind lies there, the game tells (NOSTICKERS.md).  When several fit,
    an answer the frames' untold number made is refused as ambiguous (a guess is never made: the referee
    enters the move, the moved pawn named); a refused answer stays refused."""
    from engine.reconcile import reconcile_game, refused
    from vision.nostickers.read import UNKNOWN_PIECE, several_fit
    from vision.nostickers.read import told_by_the_game as told

    mine = [r for r in readings or () if isinstance(r, PiecesReading)]
    if game is None or game.phase != "pawns" or not mine:
        return result
    squares, before = {}, looks(game.position)
    for sq in sorted({sq for r in mine for sq in r.alike}):
        faces = [r.alike.get(sq, frozenset()) for r in mine]
        look = observation.seen.get(sq)
        unread = look is None and observation.why.get(sq) == UNKNOWN_PIECE
        changed = look is not None and look.pawn is not None and look != before.get(sq)   # (else read where it was)
        if (unread or changed) and faces[0] and all(f == faces[0] for f in faces):
            squares[sq] = set(faces[0])
    if not squares:
        return result
    answers = told(observation, squares, lambda seen, _chosen: checked_by_frames(reconcile_game(game, seen), readings))
    if len(answers) == 1:
        return answers[0]
    if result.accepted:
        problem = several_fit(game.position, answers, result)
        return refused(game.position, dataclasses.replace(problem, message=Text(N_(
            "%(why)s; the camera cannot read the pawn's number: enter the move on the referee view"),
            why=problem.message)), unseen=result.unseen)
    return result


def with_fixed_tiles(data: dict, before: Position) -> dict:
    """The reading with the game's pools and teleporters on the squares it saw them: the reader reads a
    pool or teleporter square of the game as bare when that tile's taught look is there (a square that
    does not show it is unseen), so the setup it gives names none.  The table's follow-ups (a new game's
    setup among them) compare pools and teleporters too."""
    setup = data.get("setup")
    if setup is None:
        return data
    unseen = data.get("unseen") or {}
    game = before.to_setup()
    pools = [sq for sq in game.get("pools") or [] if sq not in unseen]
    teleporters = {sq: t for sq, t in (game.get("teleporters") or {}).items() if sq not in unseen}
    return {**data, "setup": {**setup, "pools": sorted({*(setup.get("pools") or []), *pools}, key=parse_square),
                              "teleporters": {**(setup.get("teleporters") or {}), **teleporters}}}


def as_reading(data: dict, doubts=None, read=None, alike=None) -> PiecesReading:
    """A reading JSON of ``Reader.read_frame`` as the vision ``Reading`` the stable-frame gate takes."""
    unseen = {parse_square(name): code for name, code in (data.get("unseen") or {}).items()}
    return PiecesReading(bool(data.get("located")), tile=data.get("tile"), problems=list(data.get("problems") or []),
                         setup=data.get("setup") if data.get("located") else None, unseen=unseen,
                         doubts=dict(doubts or {}), read=dict(read or {}), alike=dict(alike or {}))
