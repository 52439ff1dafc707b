"""Pawn moves (P1–P8, B1–B2): validate unit moves, list reachable squares, explain a change.

Unit moves are ``N E S W``, ``I`` (enter onto p11 from beside the board, P2)
and ``X`` (leave through the exit from a1, P3).  Each costs one point; a
slide across a pool is free (P8).  Flipping the pawn afterwards (G3) is the
game's job, not this module's.
"""
from __future__ import annotations

from collections import deque
from dataclasses import replace

from .errors import IllegalMoveError, InvalidSetupError
from .geometry import DIRECTION_NAMES, ENTRANCE, EXIT, NEIGHBOUR, square_name, wall_letter
from .names import piece_name
from .pools import KEPT, pushed_to
from .position import BOARD, OUT, WAITING, Position
from .wording import N_, PawnName, Plural, Text

MOVE_LETTERS = "NESWIX"
_WAITING = -1
_OUT = -2
_GONE = -3


class _Illegal(Exception):
    def __init__(self, rule: str, template: str, **params):
        self.rule = rule
        self.template = template
        self.params = params

    @property
    def message(self) -> Text:
        return Text(self.template, **self.params)


class _Ctx:
    """The fixed part of the board for one pawn's move."""

    __slots__ = ("pools", "tele", "monster", "others", "name")

    def __init__(self, pos: Position, label: str):
        self.pools = pos.pools
        self.tele = pos.teleporters
        self.monster = pos.monster
        self.others = frozenset(p.square for p in pos.pawns if p.place == BOARD and p.label != label)
        self.name = PawnName(pos.pawn(label).name)


def _push_stone(ctx: _Ctx, stones: dict, s: int, d: int) -> dict:
    """P7: the pawn entering ``s`` pushes its one stone on; returns the new stones or raises."""
    beyond = NEIGHBOUR[s * 4 + d]
    kind = stones[s]
    if beyond is None:
        raise _Illegal("P7", N_("%(what)s on %(square)s cannot be pushed into wall %(wall)s"),
                       what=_stone_word(kind), square=square_name(s), wall=wall_letter(s, d))
    if beyond in stones:
        raise _Illegal("P7", N_("%(what)s on %(square)s cannot be pushed: %(beyond)s holds another stone "
                                "(only one stone is ever pushed)"),
                       what=_stone_word(kind), square=square_name(s), beyond=square_name(beyond))
    if beyond in ctx.others:
        raise _Illegal("P7", N_("%(what)s on %(square)s cannot be pushed onto the pawn on %(beyond)s"),
                       what=_stone_word(kind), square=square_name(s), beyond=square_name(beyond))
    if beyond == ctx.monster:
        raise _Illegal("P7", N_("%(what)s on %(square)s cannot be pushed onto the monster on %(beyond)s"),
                       what=_stone_word(kind), square=square_name(s), beyond=square_name(beyond))
    new = dict(stones)
    del new[s]
    others, monster = ctx.others, ctx.monster
    path, fate = pushed_to(beyond, d, ctx.pools, ctx.tele, lambda n: n in new or n in others or n == monster,
                           stone=True)
    if fate == KEPT:
        new[path[-1]] = kind
    # otherwise destroyed on a teleporter (T3) or removed on a corner square (P7, B2)
    return new


def _stone_word(kind: str) -> Text:
    """The pushed stone as the refusal names it (``the crystal``): what one cannot push, the object of
    the sentence as the other languages word it (de: *man kann den Kristall … nicht schieben*)."""
    return piece_name(kind, "the-object")


def _slide(ctx: _Ctx, stones: dict, sq: int, d: int) -> tuple[int, dict]:
    """P8: the pawn has entered pool square ``sq`` heading ``d``; slide across for free."""
    cur = sq
    while True:
        n = NEIGHBOUR[cur * 4 + d]
        if n is None or n in ctx.tele or n == ctx.monster:
            return cur, stones
        if n in stones:
            try:
                stones = _push_stone(ctx, stones, n, d)
            except _Illegal:
                return cur, stones
            if n in ctx.pools:
                cur = n
                continue
            return n, stones
        if n in ctx.pools:
            cur = n
            continue
        return n, stones


def _unit(ctx: _Ctx, sq: int, stones: dict, move: str) -> tuple[int, dict]:
    """One unit move from ``sq`` (or _WAITING); returns (square, stones) or raises _Illegal."""
    if sq == _OUT:
        raise _Illegal("P3", N_("%(pawn)s has already left the fortress"), pawn=ctx.name)
    if sq == _GONE:
        raise _Illegal("G9", N_("%(pawn)s was eaten in round 2 and has left the game"), pawn=ctx.name)
    if move == "I":
        if sq != _WAITING:
            raise _Illegal("P2", N_("%(pawn)s is already on the board; only a pawn beside the board can enter"),
                           pawn=ctx.name)
        if ENTRANCE == ctx.monster:
            raise _Illegal("P5", N_("%(pawn)s cannot enter onto p11 (P2): the monster stands there"), pawn=ctx.name)
        if ENTRANCE in ctx.tele:
            raise _Illegal("T1", N_("%(pawn)s cannot enter onto p11 (P2): a teleporter lies there"), pawn=ctx.name)
        if ENTRANCE in stones:
            raise _Illegal("P2", N_("%(pawn)s cannot enter: a stone lies on the entrance p11, and coming from "
                                    "beside the board the pawn has no direction to push it in (P7)"), pawn=ctx.name)
        return ENTRANCE, stones
    if sq == _WAITING:
        raise _Illegal("P2", N_("%(pawn)s is beside the board and must first enter onto p11 (I)"), pawn=ctx.name)
    if move == "X":
        if sq != EXIT:
            raise _Illegal("P3", N_("%(pawn)s can only leave from the exit a1, not from %(square)s"),
                           pawn=ctx.name, square=square_name(sq))
        return _OUT, stones
    d = DIRECTION_NAMES.index(move)
    t = NEIGHBOUR[sq * 4 + d]
    if t is None:
        raise _Illegal("P6", N_("%(pawn)s cannot walk through wall %(wall)s from %(square)s"),
                       pawn=ctx.name, wall=wall_letter(sq, d), square=square_name(sq))
    if t in ctx.tele:
        raise _Illegal("T1", N_("%(pawn)s cannot step onto the teleporter on %(square)s: it is a wall for pawns (P6)"),
                       pawn=ctx.name, square=square_name(t))
    if t == ctx.monster:
        raise _Illegal("P5", N_("%(pawn)s cannot step onto the monster on %(square)s"),
                       pawn=ctx.name, square=square_name(t))
    if t in stones:
        stones = _push_stone(ctx, stones, t, d)
    if t in ctx.pools:
        return _slide(ctx, stones, t, d)
    return t, stones


def _start(pos: Position, label: str) -> int:
    p = pos.pawn(label)
    if p.place == BOARD and p.square is not None:
        return p.square
    return {WAITING: _WAITING, OUT: _OUT}.get(p.place, _GONE)


def _check_label(pos: Position, label: str) -> None:
    if not any(p.label == label for p in pos.pawns):
        raise InvalidSetupError(Text(N_("there is no pawn %(label)s in this position"), label=repr(label)), "pawn")


def _points(pos: Position, label: str, points: int | None) -> int:
    if points is None:
        points = pos.pawn(label).value
        if points is None:
            raise InvalidSetupError(Text(N_("pawn %(label)s has no known kind, so give its points"), label=repr(label)),
                                    "points")
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise InvalidSetupError(Text(N_("points must be a whole number of 0 or more, not %(value)s"), value=repr(points)),
                                "points")
    return points


def _finish(pos: Position, label: str, sq: int, stones: dict) -> Position:
    p = pos.pawn(label)
    if sq == _GONE:
        return pos
    if sq == _OUT:
        p = replace(p, place=OUT, square=None)
    elif sq == _WAITING:
        p = replace(p, place=WAITING, square=None)
    else:
        p = replace(p, place=BOARD, square=sq)
    return replace(pos, stones=stones, pawns=tuple(p if q.label == label else q for q in pos.pawns))


def apply_moves(position: Position, label: str, moves: str, points: int | None = None) -> Position:
    """Play ``moves`` for pawn ``label``; the new position, or IllegalMoveError naming rule and move."""
    _check_label(position, label)
    if not isinstance(moves, str):
        raise InvalidSetupError(Text(N_("moves must be text such as %(example)s"), example="'NWWWN'"), "moves")
    moves = moves.upper()
    for i, m in enumerate(moves):
        if m not in MOVE_LETTERS:
            raise InvalidSetupError(Text(N_("unknown move letter %(letter)s at position %(number)s (use N E S W I X)"),
                                         letter=repr(m), number=i + 1), "moves")
    budget = _points(position, label, points)
    ctx = _Ctx(position, label)
    sq = _start(position, label)
    stones = dict(position.stones)
    slid = False
    for i, m in enumerate(moves):
        if i >= budget:
            params = dict(pawn=ctx.name, points=budget, number=i + 1, letter=m)
            if m == "I":
                words = Plural("%(pawn)s has only %(points)s point; move %(number)s (%(letter)s) is one too many "
                               "(entering costs a point, P2)",
                               "%(pawn)s has only %(points)s points; move %(number)s (%(letter)s) is one too many "
                               "(entering costs a point, P2)", budget, **params)
            elif m == "X":
                words = Plural("%(pawn)s has only %(points)s point; move %(number)s (%(letter)s) is one too many "
                               "(leaving costs a point, P3)",
                               "%(pawn)s has only %(points)s points; move %(number)s (%(letter)s) is one too many "
                               "(leaving costs a point, P3)", budget, **params)
            else:
                words = Plural("%(pawn)s has only %(points)s point; move %(number)s (%(letter)s) is one too many",
                               "%(pawn)s has only %(points)s points; move %(number)s (%(letter)s) is one too many",
                               budget, **params)
            raise IllegalMoveError(words, "P1", i, m)
        try:
            before = sq
            sq, stones = _unit(ctx, sq, stones, m)
        except _Illegal as exc:
            raise IllegalMoveError(Text(N_("move %(number)s (%(letter)s): %(reason)s"), number=i + 1, letter=m,
                                        reason=exc.message), exc.rule, i, m) from None
        slid = m in "NESW" and NEIGHBOUR[before * 4 + DIRECTION_NAMES.index(m)] in ctx.pools
    if sq >= 0 and sq in ctx.others:
        last = len(moves) - 1
        template = (N_("%(pawn)s may not end its move on %(square)s, which holds another pawn (its slide across "
                       "the pool ends there, P8)") if slid else
                    N_("%(pawn)s may not end its move on %(square)s, which holds another pawn"))
        raise IllegalMoveError(Text(template, pawn=ctx.name, square=square_name(sq)),
                               "P4", last, moves[last] if moves else None)
    return _finish(position, label, sq, stones)


def _search(position: Position, label: str, points: int):
    """BFS over (square, stones) states; yields (square, stones, moves) for every legal end state.

    Breadth first, so each state is first reached by a shortest move string.
    """
    ctx = _Ctx(position, label)
    start = _start(position, label)
    stones0 = dict(position.stones)
    key0 = (start, frozenset(stones0.items()))
    best = {key0: points}
    queue = deque([(start, stones0, key0[1], "", points)])
    letters_board = "NESW"
    while queue:
        sq, stones, skey, moves, left = queue.popleft()
        if sq == _OUT or sq not in ctx.others:
            yield sq, stones, moves
        if left == 0 or sq in (_OUT, _GONE):
            continue
        if sq == _WAITING:
            options = "I"
        elif sq == EXIT:
            options = "NESWX"
        else:
            options = letters_board
        for m in options:
            try:
                nsq, nstones = _unit(ctx, sq, stones, m)
            except _Illegal:
                continue
            nkey = skey if nstones is stones else frozenset(nstones.items())
            k = (nsq, nkey)
            if best.get(k, -1) >= left - 1:
                continue
            best[k] = left - 1
            queue.append((nsq, nstones, nkey, moves + m, left - 1))


def _end_states(position: Position, label: str, points: int | None):
    """``_search``'s end states; none for a pawn already out (P3) or out of the game (G9)."""
    _check_label(position, label)
    budget = _points(position, label, points)
    if _start(position, label) in (_OUT, _GONE):
        return iter(())
    return _search(position, label, budget)


def reachable(position: Position, label: str, points: int | None = None) -> dict[str, str]:
    """Every square where the pawn may end its move (its own included), and ``"out"``.

    Maps each to one shortest move string.  A pawn beside the board may also
    stay there (moves ``""``); that is not a square and is not listed.
    """
    found: dict[str, str] = {}
    for sq, _stones, moves in _end_states(position, label, points):
        if sq == _WAITING:
            continue
        name = "out" if sq == _OUT else square_name(sq)
        found.setdefault(name, moves)
    return found


def explain(before: Position, label: str, square: str | None, after: Position | None = None,
            points: int | None = None) -> list[str]:
    """Legal move strings that bring the pawn to ``square`` ("out", or None: stays beside the board).

    With ``after``, only those whose resulting stones also equal ``after``'s.
    One shortest string per distinct resulting stone layout; ``[]`` if no legal move does it.
    """
    _check_label(before, label)
    budget = _points(before, label, points)
    if square is None:
        want = _WAITING
    elif square == "out":
        want = _OUT
    else:
        from .geometry import parse_square
        want = parse_square(square)
    target_stones = dict(after.stones) if after is not None else None
    results: dict[frozenset, str] = {}
    for sq, stones, moves in _search(before, label, budget):
        if sq != want:
            continue
        if target_stones is not None and stones != target_stones:
            continue
        results.setdefault(frozenset(stones.items()), moves)
    return list(results.values())


def outcomes(position: Position, label: str, points: int | None = None) -> dict[Position, str]:
    """Every distinct position the pawn's move can leave, each with one shortest move string.

    Keyed by the resulting position (the pawn not yet flipped: that is G3's job), so move
    strings that end alike (``EW`` and ``""`` with no push, two ways round a stone) count
    once.  Staying (``""``) is included, on the board and beside it.
    """
    found: dict[Position, str] = {}
    for sq, stones, moves in _end_states(position, label, points):
        found.setdefault(_finish(position, label, sq, stones), moves)
    return found


def explain_change(before: Position, after: Position, points: int | None = None) -> tuple[str | None, list[str], str]:
    """Which pawn moved between two positions (e.g. two camera readings), and how.

    Returns ``(label, move strings, message)``.  ``label`` is None when no
    single pawn's move explains the change; the message then says why in
    plain language.  A pawn that changed face on its own square stayed (P1);
    a pawn back on its own square with the stones moved pushed and returned
    (P7).  Faces are otherwise not checked here (``engine.reconcile`` does, for
    the camera).
    """
    moved = [p for p in after.pawns
             if any(q.label == p.label and (q.place, q.square, q.face) != (p.place, p.square, p.face)
                    for q in before.pawns)]
    stones_moved = dict(before.stones) != dict(after.stones)
    if not moved and not stones_moved:
        return None, [], "nothing moved"
    if len(moved) > 1:
        names = ", ".join(f"{p.name} ({before.pawn(p.label).where()} → {p.where()})" for p in moved)
        return None, [], f"more than one pawn moved: {names}; a player moves one pawn at a time (G3)"
    if not moved:
        # A pawn may push a stone and walk back to its own square (EW, P1, P7).
        movers = [p for p in before.pawns if p.place == BOARD and (p.value is not None or points is not None)]
        found = {p.label: _moves_to(before, p.label, after, points) for p in movers}
        found = {label: moves for label, moves in found.items() if moves}
        if len(found) == 1:
            label, moves = next(iter(found.items()))
            p = before.pawn(label)
            return label, moves, f"{p.name} pushed and came back to {p.where()}: {moves[0]}"
        if found:
            names = " or ".join(before.pawn(label).name for label in found)
            return None, [], f"stones moved and {names} could each have pushed them and come back (P7)"
        return None, [], ("stones moved but no pawn's move explains it: a pawn only pushes a stone by entering its "
                          "square (P7)")
    p = moved[0]
    if p.place not in (BOARD, OUT, WAITING):
        return None, [], f"{p.name} cannot leave the game by a pawn move"
    ways = _moves_to(before, p.label, after, points)
    start = before.pawn(p.label).where()
    if not ways:
        return p.label, [], (f"no legal move takes {p.name} from {start} to {p.where()} "
                             "with the stones as they now lie")
    return p.label, ways, f"{p.name} went from {start} to {p.where()}: {ways[0] or 'stayed (P1)'}"


def _moves_to(before: Position, label: str, after: Position, points: int | None) -> list[str]:
    """Move strings taking ``label`` to where ``after`` has it, leaving ``after``'s stones."""
    p = after.pawn(label)
    target = p.where() if p.place == BOARD else ("out" if p.place == OUT else None)
    return explain(before, label, target, after=after, points=points)
