"""Reading a change with the game as prior (VISION.md "Reading a change", TABLE.md).

The camera sees some squares and not others (a hand, the monster's figure, a sticker
that does not decode).  The game knows the position before the change and who moves.
``reconcile`` lists every legal change of that mover — one pawn move, the pawn flipped
afterwards (P1, G3), a tombstone tile laid in the card zone, or nothing — keeps those
that agree with every *seen* square, and answers:

- exactly one, and the moved pawn's end square is seen ⇒ that change, with the
  unseen squares taken from it;
- several ⇒ ``ambiguous``, naming the candidates and the squares to uncover;
- none ⇒ ``unexplained``, naming the squares and the rules no legal move satisfies.

It never guesses.  Outcomes are enumerated with the engine's own move generator
(``engine.pawns.outcomes``), one per distinct resulting position, so a pawn's points
(P1), pushes (P7, T3), slides (P8, B2), entering (P2) and leaving (P3) are the pawn
rules themselves, not a re-derivation.  Pure: no I/O, no clock.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .actions import Place
from .geometry import square_name
from .observation import ANY_PAWN, EMPTY, MONSTER_PHASE, UNKNOWN, Observation, PawnLook, SquareLook, looks
from .pawns import outcomes
from .position import BOARD, OUT, WAITING, Position
from .reconcile_text import unexplained
from .wording import N_, Join, Moves, PawnName, Said, Term, Text, join_or

__all__ = ["ANY_PAWN", "MONSTER_PHASE", "UNKNOWN", "EMPTY", "SquareLook", "PawnLook", "Observation", "looks",
           "Change", "Problem", "Reconciliation", "legal_changes", "reconcile", "reconcile_game", "refused"]

# -- the answer ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """Why an answer cannot be accepted: ``code`` (stable, what programs decide by), ``message`` the
    sentence as wording data (engine.wording; plain English only for a problem read back from JSON),
    ``square`` where one applies."""

    code: str
    message: object
    square: int | None = None

    def to_json(self) -> dict:
        """VISION.md's ``{code, message, square}``: ``message`` is a ``Said``, the English that JSON and
        logs see, keeping its wording so that each reader's edge says it in their own language."""
        return {"code": self.code, "message": Said(self.message),
                "square": square_name(self.square) if self.square is not None else None}


@dataclass(frozen=True)
class Change:
    """One legal change: ``kind`` is ``none``, ``move``, ``tile`` or ``place`` (the advanced setup,
    engine.reconcile_place); ``after`` the position."""

    kind: str
    after: Position
    pawn: str | None = None        # label of the moved pawn (``move``)
    moves: str | None = None       # one unit-move string producing it (``move``)
    tile: str | None = None        # the tile laid (``tile``; None while the card zone is unseen)
    place: Place | None = None     # the piece put down (``place``, A2)

    def describe_words(self, before: Position):
        """The change in words, as wording data (engine.wording)."""
        if self.kind == "none":
            return Text(N_("nothing changed"))
        if self.kind == "place":
            from .reconcile_place import describe_place_words  # late: that module builds on this one

            assert self.place is not None   # a place change always names its piece
            return describe_place_words(self.place, before)
        if self.kind == "tile":
            return (Text(N_("tile %(tile)s laid in the card zone"), tile=self.tile) if self.tile
                    else Text(N_("a tile laid in the card zone")))
        assert self.pawn is not None    # a move names its pawn
        p0, p1 = before.pawn(self.pawn), self.after.pawn(self.pawn)
        name = PawnName(p0.name)
        if p1.place == OUT:
            return Text(N_("%(pawn)s left the fortress from a1 (P3)"), pawn=name)
        if p0.place == BOARD and p1.place == BOARD and p0.square == p1.square:
            if self.moves:
                return Text(N_("%(pawn)s pushed a stone and came back to %(square)s (%(moves)s)"), pawn=name,
                            square=p1.where(), moves=Moves(self.moves))
            return Text(N_("%(pawn)s stayed on %(square)s"), pawn=name, square=p1.where())
        if p0.place == WAITING:
            return Text(N_("%(pawn)s went from beside the board to %(square)s"), pawn=name, square=p1.where())
        return Text(N_("%(pawn)s went from %(start)s to %(square)s"), pawn=name, start=p0.where(), square=p1.where())

    def destination(self) -> int | None:
        """The board square where the moved pawn ends, if on the board."""
        if self.kind != "move" or self.pawn is None:
            return None
        p = self.after.pawn(self.pawn)
        return p.square if p.place == BOARD else None


@dataclass(frozen=True)
class Reconciliation:
    """The answer to "which legal change did the camera see?" (VISION.md JSON via ``to_json``).

    ``change`` is ``none``, ``move``, ``tile``, ``place`` (the advanced setup, A2) or
    ``unexplained`` (also for an ambiguous or refused answer: ``problems`` then say why and
    ``candidates`` list what fitted).  Accepted means ``change`` is not ``unexplained`` and
    ``problems`` is empty.
    """

    change: str
    before: Position
    after: Position | None = None
    pawn: str | None = None
    moves: str | None = None
    tile: str | None = None
    unseen: tuple[int, ...] = ()
    problems: tuple[Problem, ...] = ()
    candidates: tuple[Change, ...] = ()
    place: Place | None = None

    @property
    def accepted(self) -> bool:
        return self.change in ("none", "move", "tile", "place") and not self.problems

    def to_json(self) -> dict:
        setup = None
        if self.after is not None:
            setup = self.after.to_setup()
            if self.pawn is not None and self.after.pawn(self.pawn).place == OUT:
                setup["pawns"].pop(self.pawn)   # a pawn that left by X is not listed (VISION.md)
        out = {"change": self.change,
               "move": {"pawn": self.pawn, "moves": self.moves} if self.change == "move" else None,
               "tile": self.tile,
               "setup": setup,
               "unseen": [square_name(sq) for sq in self.unseen],
               "problems": [p.to_json() for p in self.problems]}
        if self.change == "place" and self.place is not None:
            out["place"] = self.place.to_json()
        return out


def refused(before: Position, *problems: Problem, unseen: Iterable[int] = ()) -> Reconciliation:
    """An answer that is no change at all: not located, frames disagree, a doubtful reading."""
    return Reconciliation("unexplained", before, unseen=tuple(sorted(unseen)), problems=tuple(problems))


# -- the legal changes --------------------------------------------------------------------------

def legal_changes(before: Position, mover: str = ANY_PAWN, only: Iterable[str] | None = None) -> list[Change]:
    """Every distinct legal change for ``mover`` (a colour, ``ANY_PAWN`` or ``MONSTER_PHASE``).

    ``only``: the labels of the pawns that may still move (G3: those not yet moved this
    pawn phase); None for every pawn of the mover.

    ``none`` and ``tile`` (the board unchanged, G7) first, then every pawn outcome with
    the pawn flipped (P1, G3).  A pawn beside the board that only flips shows no change
    (VISION.md): it is the ``none`` entry.
    """
    changes = [Change("none", before), Change("tile", before)]
    if mover == MONSTER_PHASE:
        return changes
    allowed = None if only is None else frozenset(only)
    for pawn in before.pawns:
        if pawn.place not in (BOARD, WAITING) or pawn.value is None:
            continue
        if allowed is not None and pawn.label not in allowed:
            continue
        if mover != ANY_PAWN and pawn.colour != mover:
            continue
        for after, moves in outcomes(before, pawn.label).items():
            moved = after.pawn(pawn.label)
            if moved.place == WAITING:
                continue   # flipped beside the board: invisible, the "none" change
            changes.append(Change("move", after.with_pawn(moved.flipped()), pawn.label, moves))
    return changes


def _fits(change: Change, obs: Observation, before_looks: dict[int, SquareLook], differs: set[int]) -> bool:
    if change.kind == "tile":
        if obs.tile is None:
            return False
    elif obs.tile is not UNKNOWN and obs.tile is not None:
        return False
    shown = before_looks if change.kind in ("none", "tile") else looks(change.after)
    for sq in differs | shown.keys() | before_looks.keys():
        seen = obs.seen.get(sq)
        if seen is not None and seen != shown.get(sq, EMPTY):
            return False
    return True


def reconcile_game(game, observation: Observation) -> Reconciliation:
    """``reconcile`` with the game's own prior: in the pawn phase the player to move and their
    pawns not yet moved (G3) that may show a move (``Game.seen_movers``: not a pawn G4 keeps beside
    the board), in the monster phase only a tile (G7), in the advanced setup one piece of those left
    (A2, engine.reconcile_place); no change once the game is over."""
    if game.phase == "placement":
        from .reconcile_place import reconcile_placement  # late: it builds this module's answers

        return reconcile_placement(game.position, observation, game.placer, dict(game.pieces_left))
    if game.phase == "pawns":
        return reconcile(game.position, observation, game.to_move, only=game.seen_movers())
    if game.phase == "monster":
        return reconcile(game.position, observation, MONSTER_PHASE)
    return refused(game.position, Problem("no-change-expected", Text(
        N_("the game is in its %(phase)s phase: no pawn move or tile is read from the camera now"),
        phase=Term(PHASE_WORDS.get(game.phase, game.phase)))), unseen=observation.unknown)


PHASE_WORDS = {"over": N_("over")}   # the phase name in ``no-change-expected`` (the only phase without a prior)


def unseen_move(game) -> tuple[str, str] | None:
    """The pawn phase's one move no camera can see: when every pawn the player to move may still
    move can only be flipped beside the board (G4's first turn, or the entrance blocked, G5),
    that flip is the move.  ``(pawn label, rule)``, or None when the table must show the move."""
    if game.phase != "pawns" or game.to_move is None:
        return None
    mine = [lab for lab in game.unmoved if game.position.pawn(lab).colour == game.to_move]
    if not mine or any(t["square"] is not None for lab in mine for t in game.targets(lab)):
        return None
    return mine[0], "G4" if game.round == 1 and game.turn == 1 else "G5"


def reconcile(before: Position, observation: Observation, mover: str = ANY_PAWN,
              only: Iterable[str] | None = None) -> Reconciliation:
    """The one legal change that explains everything seen, or why there is none or several.

    ``mover`` and ``only`` as in ``legal_changes``.  Pools and teleporters are the game's
    (``Observation.with_fixed_pieces``, B1, T1): not seeing one is no evidence.
    """
    observation = observation.with_fixed_pieces(before)
    before_looks = looks(before)
    differs = {sq for sq, look in observation.seen.items() if look != before_looks.get(sq, EMPTY)}
    fitting = [c for c in legal_changes(before, mover, only) if _fits(c, observation, before_looks, differs)]
    unseen = tuple(sorted(observation.unknown))
    if not fitting:
        square, message = unexplained(before, observation, mover, differs, only)
        return Reconciliation("unexplained", before, unseen=unseen,
                              problems=(Problem("unexplained", message, square),))
    if len(fitting) > 1:
        return Reconciliation("unexplained", before, unseen=unseen, candidates=tuple(fitting),
                              problems=(ambiguous(before, observation, fitting),))
    change = fitting[0]
    dest = change.destination()
    if dest is not None and dest not in observation.seen and change.pawn is not None:
        p = before.pawn(change.pawn)
        problem = Problem("destination-unseen",
                               Text(N_("only %(change)s fits what is seen, but %(why)s, so %(pawn)s's face there "
                                       "cannot be checked (P1): uncover %(square)s"), change=change.describe_words(before),
                                    why=observation.unknown_words(dest), pawn=PawnName(p.name), square=square_name(dest)),
                               dest)
        return Reconciliation("unexplained", before, unseen=unseen, candidates=(change,), problems=(problem,))
    tile = observation.tile if change.kind == "tile" and isinstance(observation.tile, str) else None
    return Reconciliation(change.kind, before, change.after, change.pawn, change.moves, tile, unseen,
                          candidates=(change,))


def ambiguous(before: Position, obs: Observation, fitting: list[Change]) -> Problem:
    """Name the candidates and the one unseen square (or the card zone) to uncover: the square whose
    look leaves the fewest candidates standing whatever it shows (the first such in board order)."""
    shown = [looks(c.after) for c in fitting]
    telling = sorted(sq for sq in obs.unknown if len({s.get(sq, EMPTY) for s in shown}) > 1)
    names = join_or(c.describe_words(before) for c in fitting[:4])
    if len(fitting) > 4:
        names = Join("", [names, Text(N_(" (or %(num)s more)"), num=len(fitting) - 4)])
    best = min(telling, key=lambda sq: (_largest_group(shown, sq), sq), default=None)
    uncover: list[str | Text] = [square_name(best)] if best is not None else []
    reasons: list[Text] = [obs.unknown_words(best)] if best is not None else []
    if obs.tile is UNKNOWN and len({c.kind == "tile" for c in fitting}) > 1:
        uncover.append(Text(N_("the card zone")))
        reasons.append(Text(N_("the card zone is not seen")))
    if uncover:
        words = Text(N_("%(candidates)s could explain what is seen: %(reasons)s — uncover %(squares)s (a guess is "
                        "never applied)"), candidates=names, reasons=Join("; ", reasons), squares=Join(", ", uncover))
    else:
        words = Text(N_("%(candidates)s could explain what is seen (a guess is never applied)"), candidates=names)
    return Problem("ambiguous", words, best)


def _largest_group(shown: list[dict[int, SquareLook]], sq: int) -> int:
    """How many candidates can still be left once square ``sq`` is seen: the largest number that show it alike."""
    counts: dict[SquareLook, int] = {}
    for s in shown:
        look = s.get(sq, EMPTY)
        counts[look] = counts.get(look, 0) + 1
    return max(counts.values())
