"""Reading the advanced setup's placement (A1, A2) with the game as prior (TABLE.md).

During the advanced setup the players put the board pieces down one at a time (A2).
The game knows the position before, who places next and which pieces are left; the
camera sees some squares and not others.  ``reconcile_placement`` lists every legal
placement — built and checked by engine/placement.py itself (``parse_placement``,
``check_placement``, ``apply_placement``), nothing re-derived here — plus "nothing
placed yet", keeps those that agree with every *seen* square, and answers as
``engine.reconcile`` does for a pawn move:

- exactly one ⇒ that ``place`` action (engine.actions.Place), with the unseen squares
  of a pool taken from it;
- several ⇒ ``ambiguous``, naming the candidates and the squares to uncover (a piece
  the camera cannot tell apart, say a teleporter whose square is covered, is never guessed);
- none ⇒ ``unexplained``, naming the squares and the rule (A1, A2) no placement satisfies.

A piece is told apart by what the camera reads of it (engine.observation.SquareLook): a
stone tile's marked face (plain, crystal, pivot right, pivot about), a teleporter's
pair and arrow, and a pool by the squares it covers (a 2×2 block, a 1×4 row or
column).  Pure: no I/O, no clock.
"""
from __future__ import annotations

from itertools import combinations
from typing import Iterator, Mapping

from .actions import Place
from .errors import FlureError
from .geometry import DIRECTION_NAMES, SQUARES, parse_square, square_name
from .observation import EMPTY, Observation, SquareLook, looks
from .placement import PIECES, TELEPORTER_PAIRS, apply_placement, check_placement, parse_placement
from .pools import ORIENTATIONS, pool_squares
from .position import Position
from .reconcile import Change, Problem, Reconciliation, _fits, ambiguous
from .wording import N_, Colour, Text, listing

POOLS = ("pool-2x2", "pool-1x4")


def place_actions(piece: str, square: int) -> Iterator[Place]:
    """Every way to put ``piece`` down on ``square`` (its north-west square for a pool): a
    teleporter in each pair and with each arrow, a 1×4 pool in each orientation."""
    name = square_name(square)
    if piece == "teleporter":
        for pair in TELEPORTER_PAIRS:
            for arrow in DIRECTION_NAMES:
                yield Place(piece, name, arrow=arrow, pair=pair)
    elif piece == "pool-1x4":
        for orientation in ORIENTATIONS:
            yield Place(piece, name, orientation=orientation)
    else:
        yield Place(piece, name)


def _squares(action: Place) -> tuple[int, ...] | None:
    """The squares ``action`` covers, from the same pool shapes the engine places (engine.pools)."""
    sq = parse_square(action.square)
    if action.piece in POOLS:
        return pool_squares(sq, action.piece[5:], action.orientation or "horizontal")
    return (sq,)


def legal_placements(before: Position, left: Mapping[str, int], keep=None):
    """Every legal placement from ``before`` with the pieces ``left`` (A1, A2), as ``reconcile.Change``
    values of kind ``place``; ``keep(squares)`` may skip shapes early (a speed-up, never a rule)."""
    out = []
    for piece, n in left.items():
        if n <= 0:
            continue
        for sq in SQUARES:
            for action in place_actions(piece, sq):
                squares = _squares(action)
                if squares is None or (keep is not None and not keep(squares)):
                    continue
                try:
                    placement = parse_placement(action, before)
                    check_placement(before, placement, dict(left))
                except FlureError:
                    continue
                out.append(Change("place", apply_placement(before, placement), place=action))
    return out


def describe_place_words(action: Place, before: Position) -> Text:
    """``a crystal on g7``, ``an about-turn pivot stone on e4``, ``a 2×2 pool on e5–f6``, ``a teleporter
    on g7 (pair 1, arrow N)`` as wording data, from the squares engine.placement gives the piece."""
    return parse_placement(action, before).describe_words()


def placed_words(action: Place, before: Position, placer: str) -> Text:
    """``red placed a crystal on g7 (A2)``: the camera's sentence for ``placer`` putting down a piece."""
    return Text(N_("%(colour)s placed %(piece)s (A2)"), colour=Colour(placer),
                piece=describe_place_words(action, before))


def reconcile_placement(before: Position, observation: Observation, placer: str | None,
                        left: Mapping[str, int]):
    """The one legal placement of ``placer`` (or nothing placed yet) that explains everything seen,
    or why there is none or several.  The card zone plays no part in the setup."""
    obs = Observation(observation.seen, None, observation.why)
    before_looks = looks(before)
    differs = {sq for sq, look in obs.seen.items() if look != before_looks.get(sq, EMPTY)}

    def keep(squares) -> bool:   # a placement changes exactly its own squares
        return differs <= set(squares) and all(sq in differs or sq not in obs.seen for sq in squares)

    candidates = ([Change("none", before)] if not differs else []) + legal_placements(before, left, keep)
    fitting = [c for c in candidates if _fits(c, obs, before_looks, differs)]
    unseen = tuple(sorted(obs.unknown))
    if not fitting:
        square, words = unexplained_placement(before, obs, differs, left, placer)
        return Reconciliation("unexplained", before, unseen=unseen, problems=(Problem("unexplained", words, square),))
    if len(fitting) > 1:
        return Reconciliation("unexplained", before, unseen=unseen, candidates=tuple(fitting),
                              problems=(ambiguous(before, obs, fitting),))
    change = fitting[0]
    return Reconciliation(change.kind, before, change.after, unseen=unseen, candidates=(change,), place=change.place)


# -- why nothing fits ----------------------------------------------------------------------------

def _new_parts(was: SquareLook, now: SquareLook) -> tuple[list[str], SquareLook]:
    """(what ``was`` showed that ``now`` does not, what ``now`` adds): a placed piece never goes away."""
    gone = [f for f in ("monster", "stone", "pawn", "teleporter") if getattr(was, f) is not None
            and getattr(now, f) != getattr(was, f)]
    if was.pool and not now.pool:
        gone.append("pool")
    added = SquareLook(stone=now.stone if now.stone != was.stone else None,
                 pawn=now.pawn if now.pawn != was.pawn else None,
                 teleporter=now.teleporter if now.teleporter != was.teleporter else None,
                 pool=now.pool and not was.pool,
                 monster=now.monster if now.monster != was.monster else None)
    return gone, added


def _pool_tiles(squares: set[int], unknown: frozenset[int]) -> list[tuple[Place, ...]]:
    """The fewest pool pieces that together cover ``squares`` (and otherwise only unseen squares),
    each a place action, no two overlapping and no more of a piece than the game has (A1): every
    such set of that size, [] when none does.  Two pool tiles put down at once are found here as
    two pieces, so that the player hears "one piece at a time" (A2) before any shape complaint."""
    shapes = []
    for piece in POOLS:
        for sq in SQUARES:
            for action in place_actions(piece, sq):
                cells = _squares(action)
                if cells is not None and squares & set(cells) and set(cells) - squares <= unknown:
                    shapes.append((action, set(cells)))
    for n in range(1, sum(PIECES[piece] for piece in POOLS) + 1):
        found = []
        for chosen in combinations(shapes, n):
            covered = [c for _, c in chosen]
            if (sum(map(len, covered)) == len(set().union(*covered)) and squares <= set().union(*covered)
                    and all(sum(a.piece == piece for a, _ in chosen) <= PIECES[piece] for piece in POOLS)):
                found.append(tuple(a for a, _ in chosen))
        if found:
            return found
    return []


def unexplained_placement(before: Position, obs: Observation, differs: set[int], left: Mapping[str, int],
                          placer: str | None) -> tuple[int | None, Text]:
    """(square, message as wording data): what is seen that no single legal placement (A1, A2)
    explains, naming the squares and the rule."""
    square, why = _why_not_placed(before, obs, differs, left, placer)
    return square, Text(N_("no legal placement explains what the camera sees: %(why)s"), why=why)


def _why_not_placed(before, obs, differs, left, placer):
    before_looks = looks(before)
    order = sorted(differs)
    pieces: list[tuple[int, object]] = []      # (square, what is new there, in words)
    pool_new: set[int] = set()
    for sq in order:
        was, now = before_looks.get(sq, EMPTY), obs.seen[sq]
        gone, added = _new_parts(was, now)
        if gone:
            return sq, Text(N_("%(square)s showed %(before)s and now shows %(after)s: a piece already placed stays "
                               "where it was put (A2); put it back"), square=square_name(sq),
                            before=was.describe_words("a-object"), after=now.describe_words("a-object"))
        if added.monster is not None:
            return sq, Text(N_("the monster is seen on %(square)s; it waits on %(start)s until the setup is done (A2)"),
                            square=square_name(sq), start=square_name(before.monster))
        if added.pawn is not None:
            return sq, Text(N_("%(pawn)s is seen on %(square)s; pawns come onto the board only once every piece is "
                               "placed (A2)"), pawn=added.pawn.name_words, square=square_name(sq))
        if added.stone is not None or added.teleporter is not None:
            pieces.append((sq, SquareLook(stone=added.stone, teleporter=added.teleporter).describe_words()))
        if added.pool:
            pool_new.add(sq)
    actions: list[Place] = []
    for sq, _ in pieces:
        look = obs.seen[sq]
        new_stone = look.stone if look.stone != before_looks.get(sq, EMPTY).stone else None
        if new_stone is not None:
            actions.append(Place(new_stone, square_name(sq)))
        else:
            t = look.teleporter
            actions.append(Place("teleporter", square_name(sq), arrow=DIRECTION_NAMES[t.arrow], pair=t.pair))
    where = list(pieces)
    if pool_new:
        tilings = _pool_tiles(pool_new, obs.unknown)
        names = " ".join(square_name(s) for s in sorted(pool_new))
        if not tilings:
            return min(pool_new), Text(N_("the pool squares %(squares)s are not one 2×2 or 1×4 pool (A1)"),
                                       squares=names)
        if len(tilings) > 1 and len(tilings[0]) == 1 and not pieces:
            return min(pool_new), Text(N_("the pool squares %(squares)s could be more than one pool; uncover the "
                                          "squares around them (A1)"), squares=names)
        for pool in tilings[0]:
            actions.append(pool)
            where.append((min(pool_new & set(_squares(pool))), Text(N_("a pool"))))
    if len(actions) > 1:
        listed = listing(Text(N_("%(what)s on %(square)s"), what=what, square=square_name(sq))
                         for sq, what in sorted(where, key=lambda w: w[0]))
        if placer:
            return order[0], Text(N_("%(num)s new pieces are seen (%(pieces)s); the players place one piece at a "
                                     "time, %(colour)s now (A2)"), num=len(actions), pieces=listed,
                                  colour=Colour(placer))
        return order[0], Text(N_("%(num)s new pieces are seen (%(pieces)s); the players place one piece at a "
                                 "time (A2)"), num=len(actions), pieces=listed)
    action = actions[0]
    try:
        placement = parse_placement(action, before)
        check_placement(before, placement, dict(left))
    except FlureError as exc:   # the engine's own reason, with its rule (A1, A2)
        return order[0], Text(N_("%(what)s: %(why)s"), what=describe_place_words(action, before), why=exc)
    return order[0], Text(N_("%(what)s is legal, but the rest of what is seen does not match it (A2)"),
                          what=describe_place_words(action, before))
