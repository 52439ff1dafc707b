"""Reading a change without stickers (NOSTICKERS.md, VISION.md "Reading a change").

Each frame becomes the same reading JSON the sticker reader gives (``located``, ``setup``,
``tile``, ``problems``, ``unseen``), and ``vision.change.explain_readings`` does the rest as it
does with stickers: frames combined square by square, ``engine.reconcile`` asked for the one legal
change that fits — the same problems, statuses and strictness.

Per square (``Reader.read_frame``): bare when it matches its taught empty look; when a piece lies
there, the one face among those a legal change can leave there (``allowed_faces``) that is
clearly nearest (``Pieces.match``).  A square that cannot be told — between bare and covered, a
piece no allowed face clearly matches (a hand, a shadow, two faces that look alike and both fit,
a face no legal change allows) — is unknown, never empty, as a square whose sticker does not
decode.  On a square the game gives a pool or a teleporter, that tile's taught look is the bare
one.  A square where a stone face that looks like the board (``Pieces.faint``) may lie is never
read bare.  The monster is not read: its square is unseen (``monster-unread``) and its heading is
the game's.  The tombstone tile in the card zone is read when the teaching showed the tiles
(``Pieces.read_tile``), else ``tile`` is null.  A pool or a teleporter a legal placement may have put
down (the advanced setup, A2) is read by ``tiles.read_placed``.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from engine.geometry import COLS, SQUARES, around, square_name
from engine.observation import ANY_PAWN, EMPTY, Observation, SquareLook, looks
from engine.position import Position
from engine.reconcile import Problem, ambiguous, legal_changes, reconcile, refused

from ..change import combine, explain_readings, observation_json, observe
from ..detect import check_frame
from ..problems import CARD_ZONE_HIDDEN, CARD_ZONE_NOT_KNOWN, board_not_located
from ..reading import not_located, problem
from . import looks as L
from . import numbers as N
from .board import Lens, _sheet_mask
from .teach import FIXED, MAX_DISTANCE, RATIO, Pieces, face_key, frame_view, key_look, same_kind
from .tiles import read_placed
from .words import NOT_WHAT_IT_LEAVES

FAINT_RATIO = 0.75          # a faint stone face this much nearer than the bare square: it may lie there
UNKNOWN_PIECE = "unknown-piece"     # a covered square no taught face holds
MONSTER_UNREAD = "monster-unread"   # the monster's square: its heading is the game's


@dataclass(frozen=True)
class FrameRead:
    """What one frame yields (``Reader.read_frame``).  ``data``: its reading JSON.  ``seen``, ``tile``,
    ``unseen`` (square → why): that reading's — the three None when the board was not located.  ``doubts``:
    the covered squares no face was read on (square → face → distance, ``Pieces.match``); ``read``: the faces
    read (square → face key); ``twins``: the squares read as a pawn of one kind where the legal changes allow
    several of that kind (square → those faces; a square whose kind was read but not which of them, unseen in
    the reading, too); ``placed``:
    the pools and teleporters measured (``tiles.read_placed``)."""

    data: dict
    seen: dict[int, SquareLook] | None = None
    tile: object = None         # as ``Observation.tile``: a tile, None (seen empty) or ``UNKNOWN``
    unseen: dict[int, str] | None = None
    doubts: dict[int, dict[str, float]] = field(default_factory=dict)
    read: dict[int, str] = field(default_factory=dict)
    twins: dict[int, set[str]] = field(default_factory=dict)
    placed: dict = field(default_factory=dict)


class Reader:
    """Frames → reading JSON with one ``Pieces`` (keeps the reference's Lab picture, the board's sheet mask
    and the lens maps; nothing of the frames it reads)."""

    def __init__(self, pieces: Pieces, calibration=None):
        self.pieces = pieces
        self.lens = Lens(calibration)
        self.ref_lab = L.lab(pieces.board.picture)
        from ..scheme import load_scheme
        self.sheet = _sheet_mask(pieces.board.canvas, load_scheme()) > 0

    def reading(self, image, before: Position, allowed: dict[int, set[str]] | None = None) -> dict:
        """The reading JSON of one frame (``read_frame``'s ``data``)."""
        return self.read_frame(image, before, allowed).data

    def read_frame(self, image, before: Position, allowed: dict[int, set[str]] | None = None) -> FrameRead:
        """What one frame yields (a ``FrameRead``), ``before`` the position the game holds, ``allowed`` the faces
        a legal change can leave on each square (``allowed_faces``; default: those of any pawn's move)."""
        if allowed is None:
            allowed = allowed_faces(before, ANY_PAWN)
        _gray, why = check_frame(image)
        if why is not None:
            return FrameRead(not_located(board_not_located(why)).to_json())
        frame, why = frame_view(self.pieces.board, image, self.lens, self.ref_lab, self.sheet)
        if frame is None:
            return FrameRead(not_located(why).to_json())
        prior = looks(before)
        faint = set(self.pieces.faint)
        seen, unseen, doubts, read = {}, {}, {}, {}
        twins_read: dict[int, set[str]] = {}
        # the game's board tiles (pools, stone tiles, teleporters: a row of tiles placed side by side in the
        # advanced setup, A2, is no hand) and the monster with its shadow
        fixed = {sq for sq, look in prior.items() if look.pool or look.stone or look.teleporter is not None} \
            | around(before.monster)
        hand = L.occluded(frame.diff, self.pieces.board.canvas, fixed, lambda sq: self._face_under(frame, sq, allowed))
        for sq in SQUARES:
            was = prior.get(sq, EMPTY)
            cover = frame.cover.get(sq)
            if cover is None:
                unseen[sq] = "out-of-view"
            elif sq in hand:
                unseen[sq] = "occluded"
            elif was.monster is not None:
                unseen[sq] = MONSTER_UNREAD
            elif cover < L.EMPTY_COVER and not (was.pool or was.teleporter is not None):
                if faint & allowed.get(sq, set()):
                    unseen[sq] = UNKNOWN_PIECE      # a stone face much like the board could lie there
                else:
                    seen[sq] = EMPTY
            elif cover < L.PIECE_COVER and not (was.pool or was.teleporter is not None):
                unseen[sq] = UNKNOWN_PIECE
                if faint and was == EMPTY and sq not in fixed:
                    self._faint_doubt(frame, sq, faint, doubts)
            else:
                canvas = self.pieces.board.canvas
                centre = L.centre_of(frame.lab, frame.diff, canvas, sq, self.ref_lab,
                                     without=before.monster if sq in around(before.monster) else None)
                nearest: dict[str, float] = {}
                sample = None if centre is None else \
                    (lambda dx, dy, c=centre: L.polar_at(frame.blurred, (c[0] + dx, c[1] + dy), canvas))
                key = None if centre is None else self.pieces.match(sample, allowed.get(sq, frozenset()), nearest,
                                                                     kind=True)
                twins = {k for k in allowed.get(sq, ()) if key is not None and same_kind(k, key)}
                fine = N.sampler_of(frame.image, frame.location, canvas, centre) if len(twins) > 1 else None
                if len(twins) > 1 and (number := self.pieces.tell(sample, twins, fine)) is not None:
                    key, twins = number, set()      # its number read (``Pieces.tell``): no need to ask the game
                if key is not None and any(nearest.get(k, np.inf) * RATIO < nearest[key] for k in twins - {key}):
                    key = None                  # the kind is read; which pawn of it, only the game can tell
                if key is None and cover >= L.PIECE_COVER:
                    doubts[sq] = nearest
                if key is None or (key in FIXED and face_key(was) != key):
                    unseen[sq] = UNKNOWN_PIECE     # (a pool or teleporter read where the game has none)
                else:
                    seen[sq] = key_look(key)
                    read[sq] = key
                if len(twins) > 1:
                    twins_read[sq] = twins
        placed = read_placed(self.pieces, frame, prior, allowed, seen, unseen, self.ref_lab, doubts)
        tile = self.pieces.read_tile(frame.zone)
        data = card_zone_said(observation_json(Observation(seen, tile, unseen)), frame.zone is None)
        return FrameRead(data, seen, tile, unseen, doubts, read, twins_read, placed)

    def _face_under(self, frame, sq: int, allowed: dict[int, set[str]]) -> bool:
        """Whether a square under a large difference clearly shows a face a legal change allows there
        (``Pieces.match``): pawns standing close together, with their shadows, make one difference as large
        as a hand's (``looks.occluded`` tells them from a hand; the square is then read as any other)."""
        if frame.cover.get(sq, 0.0) < L.PIECE_COVER or not allowed.get(sq):
            return False
        canvas = self.pieces.board.canvas
        centre = L.centre_of(frame.lab, frame.diff, canvas, sq, self.ref_lab)
        return centre is not None and self.pieces.match(
            lambda dx, dy: L.polar_at(frame.blurred, (centre[0] + dx, centre[1] + dy), canvas), allowed[sq]) is not None

    def _faint_doubt(self, frame, sq: int, faint: set[str], doubts: dict) -> None:
        """A bare square partly differing from its taught look, where a stone face much like the board
        (``Pieces.faint``) may have come: when such a face, sampled about the square's middle, is within
        ``MAX_DISTANCE`` and clearly nearer than the bare square, it is kept as a doubt, so that
        ``checked`` refuses an answer that leaves the square bare (a stone moved by nobody)."""
        canvas = self.pieces.board.canvas
        c, r = sq % COLS, sq // COLS
        cx, cy = canvas.px([((c + 0.5) * L.SQUARE_MM, (r + 0.5) * L.SQUARE_MM)])[0]
        nearest: dict[str, float] = {}
        self.pieces.match(lambda dx, dy: L.polar_at(frame.blurred, (cx + dx, cy + dy), canvas), frozenset(), nearest)
        near = {k: d for k, d in nearest.items() if k in faint}
        if not near:
            return
        bare = L.distance(L.polar_at(frame.blurred, (cx, cy), canvas),
                          L.polar_at(L.smooth(self.ref_lab), (cx, cy), canvas))
        if min(near.values()) <= MAX_DISTANCE and min(near.values()) < FAINT_RATIO * bare:
            doubts[sq] = near


def card_zone_said(data: dict, hidden: bool) -> dict:
    """The reading with its card-zone problem said as for a camera without stickers: the zone out of view
    (``hidden``), or something there that is none of the taught tombstone tiles — never a sticker."""
    said = problem(CARD_ZONE_HIDDEN if hidden else CARD_ZONE_NOT_KNOWN)
    return {**data, "problems": [said if p.get("code") == "card-zone-unclear" else p for p in data["problems"]]}


def explain_change(before_setup, images, pieces: Pieces, *, calibration=None, player: str | None = None):
    """The legal change the frames show (a ``Reconciliation``; ``.to_json()`` is ``flure vision explain``'s
    answer), ``before_setup`` a scenario setup (or a ``Position``), ``images`` consecutive BGR frames of
    one camera over a still table, ``player`` the colour to move (None: any pawn)."""
    before = before_setup if isinstance(before_setup, Position) else Position.from_setup(before_setup, where="BEFORE")
    mover = player or ANY_PAWN
    reader = Reader(pieces, calibration)
    allowed = allowed_faces(before, mover)
    return explained(before, [reader.read_frame(image, before, allowed) for image in images], mover)


MAX_TOLD = 16       # at most this many choices of pawns of one kind are tried (``told_by_the_game``)


def told_by_the_game(observation: Observation, choices: dict[int, set[str]], answer) -> list:
    """Which pawn of one kind lies where, told by the game (NOSTICKERS.md): ``choices`` square → the faces of
    one kind (a pawn's colour and side, ``teach.same_kind``) a legal change allows there, whose small number
    was not read or is not trusted.  Each choice of those faces is put in ``observation`` as seen there and
    ``answer(observation, chosen)`` asked (square → face chosen; a checked ``Reconciliation``).  Returns the
    answers accepted, one per legal change: the answer when exactly one, a guess never made when several —
    what a caller does then is its own (refused either way).  None tried (an empty list) when there are more
    than ``MAX_TOLD`` choices."""
    order = sorted(choices)
    if not order or math.prod(len(choices[sq]) for sq in order) > MAX_TOLD:
        return []
    answers: dict = {}
    for choice in itertools.product(*(sorted(choices[sq]) for sq in order)):
        chosen = dict(zip(order, choice))
        tried = Observation({**observation.seen, **{sq: key_look(k) for sq, k in chosen.items()}}, observation.tile,
                            {sq: why for sq, why in observation.why.items() if sq not in chosen})
        result = answer(tried, chosen)
        if result.accepted:
            answers.setdefault((result.change, result.after, result.tile), result)
    return list(answers.values())


def explained(before: Position, frames: list[FrameRead], mover: str = ANY_PAWN):
    """The frames' readings (``FrameRead``) through ``explain_readings`` then ``checked``, with the pawns of one
    kind told by the game (``told_by_the_game``): where a frame read a square as a pawn of one colour and side
    and the legal changes allow several such pawns there (``FrameRead.twins``, over all the frames: their small
    numbers are not trusted, even when the answer was accepted; a square whose kind was read but not which of
    those pawns, unseen in the reading, too), the answer is the one legal change that fits with one of them,
    and when two different ones fit, ambiguous (refused: a guess is never made)."""
    readings = [f.data for f in frames]
    doubts, read = [f.doubts for f in frames], [f.read for f in frames]
    result = checked(explain_readings(before, readings, mover), doubts, read)
    twins: dict[int, set[str]] = {}
    for f in frames:
        for sq, faces in f.twins.items():
            twins.setdefault(sq, set()).update(faces)
    if not twins:
        return result
    observation, blocking = observe(combine(readings))
    if observation is None or blocking:
        return result
    answers = told_by_the_game(observation, twins,
                               lambda seen, chosen: checked(reconcile(before, seen, mover), doubts, read, chosen))
    if len(answers) == 1:
        return answers[0]
    if len(answers) > 1 or result.accepted:     # (accepted, none tried: too many choices — the number stays untold)
        return refused(before, several_fit(before, answers, result), unseen=result.unseen)
    return result


def several_fit(before: Position, answers: list, result) -> Problem:
    """Why an answer is refused when ``told_by_the_game`` found several pawns of one kind fitting (``answers``), or
    none tried while ``result`` leaned on a number not told: ambiguous, naming the changes that fit."""
    fitting = [c for a in answers for c in a.candidates[:1]] or list(result.candidates[:1])
    return ambiguous(before, Observation({}, None, {}), fitting)


ELSEWHERE_RATIO = 0.5      # another kind of face this much nearer than the answer's: the square shows something else
FIGURE_DISTANCE = 0.5 * MAX_DISTANCE    # beside the monster, a piece this near shows through its figure's cover


def checked(result, doubts: list[dict[int, dict[str, float]]], read: list[dict[int, str]],
            chosen: dict[int, str] | None = None):
    """An accepted answer checked against the squares no face was read on (``doubts``, one dict per frame:
    square → face → distance, ``FrameRead.doubts``; ``read``, one per frame: square → face read,
    ``FrameRead.read``): where a frame shows a piece that clearly is not what the answer leaves there — a face
    of another colour or the other side at most half as far as the answer's (a pawn of the same colour and side
    only looks alike: its number is small), or a taught piece where the answer leaves none — the answer is
    refused: an unread square never lets a second change through.  Pool and teleporter squares are not judged
    here, nor a square another frame of the still table read as what the answer leaves there (a hand passed over
    it).  Beside the monster, whose figure and shadow cover its neighbours, a square the answer leaves bare must
    show a piece much nearer (``FIGURE_DISTANCE``) to refuse it.  ``chosen``: square → the pawn's face the game
    told there (``told_by_the_game``), taken as read."""
    if not result.accepted:
        return result
    after = looks(result.after)
    figure = around(result.before.monster) | around(result.after.monster)
    for frame in doubts:
        for sq, nearest in sorted(frame.items()):
            if not nearest:
                continue
            key = face_key(after.get(sq, EMPTY))
            if key in FIXED or (key is not None and (key == (chosen or {}).get(sq)
                                                     or any(faces.get(sq) == key for faces in read))):
                continue
            best = min(nearest, key=nearest.get)
            if key is None:
                clash = nearest[best] <= (FIGURE_DISTANCE if sq in figure else MAX_DISTANCE)
            else:
                clash = not same_kind(best, key) and nearest[best] < ELSEWHERE_RATIO * nearest.get(key, np.inf)
            if clash:
                return refused(result.before, Problem("unexplained", NOT_WHAT_IT_LEAVES(square=square_name(sq)),
                                                           sq), unseen=result.unseen)
    return result


def allowed_faces(before: Position, mover: str = ANY_PAWN) -> dict[int, set[str]]:
    """Square → the faces (``teach.face_key``) that the legal changes (``engine.reconcile.legal_changes``)
    can leave there, the position before included."""
    out: dict[int, set[str]] = {}
    for change in legal_changes(before, mover):
        for sq, look in looks(change.after).items():
            key = face_key(look)
            if key is not None:
                out.setdefault(sq, set()).add(key)
    return out
