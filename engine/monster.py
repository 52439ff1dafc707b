"""The monster move (M1–M11, T1–T3, B1–B2), resolved into a :class:`~engine.plan.Plan`.

``resolve(position, tile)`` works out, for each step, the look (what was seen in each
direction and how far) and the decision with its rule, then every square entered, push,
slide, wrap, pivot and teleport and the pawns eaten; then the final look and the resulting
position.  The plan's types, JSON form and wording live in engine/plan.py.
"""
from __future__ import annotations

from dataclasses import replace

from .errors import InvalidSetupError
from .geometry import NEIGHBOUR, SQUARES, monster_next, turn_about, turn_right, wall_letter
from .plan import (
    Eat,
    Enter,
    LazyNames,
    Look,
    Pivot,
    Plan,
    Push,
    Sighting,
    Slide,
    Step,
    Stop,
    Teleport,
    Wrap,
)
from .pools import CORNER, KEPT, TELEPORTER, pawn_pushed_to, pushed_to
from .position import BOARD, WAITING, Position
from .wording import N_, Join, Text

__all__ = ["TILE_KINDS", "PREY_STEP_CAP", "Plan", "resolve", "tile_rule"]

TILE_KINDS = ("5", "7", "8", "10", "prey-1", "prey-2", "prey-3")   # prey-3 only by G11's 5
PREY_STEP_CAP = 20
MAX_PIVOT_TURNS = 4


def tile_rule(tile: str, *, prey3_variant: bool = False) -> tuple[int | None, int | None]:
    """(exact steps, prey count) for a tombstone tile (M1); under the G11 variant the 5 is three prey.

    The one place that says what a tile makes the monster do: the deck and its messages ask here.
    """
    if tile not in TILE_KINDS:
        raise InvalidSetupError(Text(N_("unknown tombstone tile %(tile)s (one of %(known)s)"), tile=repr(tile),
                                     known=", ".join(TILE_KINDS)), "tile")
    if tile == "5" and prey3_variant:
        return None, 3
    if tile.startswith("prey-"):
        return None, int(tile[5:])
    return int(tile), None


class _Work:
    """Mutable scratch board used while resolving."""

    __slots__ = ("stones", "pawns", "start_pawns", "pools", "tele", "names", "position")

    def __init__(self, pos: Position, names: LazyNames):
        self.position = pos
        self.stones = dict(pos.stones)
        self.start_pawns = pos.board_pawns()
        self.pawns = dict(self.start_pawns)
        self.pools = pos.pools
        self.tele = pos.teleporters
        self.names = names


def _sight_lines() -> list:
    """For each square and heading (``sq * 4 + d``): the squares a look passes, nearest first,
    and the wall it ends at (M3: sight never wraps)."""
    table: list = [None] * len(NEIGHBOUR)
    for sq in SQUARES:
        for d in range(4):
            line, prev, t = [], sq, NEIGHBOUR[sq * 4 + d]
            while t is not None:
                line.append(t)
                prev, t = t, NEIGHBOUR[t * 4 + d]
            table[sq * 4 + d] = (tuple(line), f"wall {wall_letter(prev, d)}")
    return table


_SIGHT = _sight_lines()


def look(work: _Work, at: int, facing: int) -> Look:
    """M3 + M4: look ahead, left and right, and decide the heading."""
    stones, pawns = work.stones, work.pawns
    sightings = []
    best = 99
    nearest = None
    tie = False
    for side, d in (("ahead", facing), ("left", (facing + 3) % 4), ("right", (facing + 1) % 4)):
        line, wall = _SIGHT[at * 4 + d]
        dist = 0
        for t in line:
            dist += 1
            label = pawns.get(t)
            if label is not None:
                seen = Sighting(side, d, label, t, dist, None)
                if dist < best:
                    best, nearest, tie = dist, seen, False
                elif dist == best:
                    tie = True
                break
            kind = stones.get(t)
            if kind is not None and kind != "crystal":
                seen = Sighting(side, d, None, t, dist, kind)
                break
        else:
            seen = Sighting(side, d, None, None, None, wall)
        sightings.append(seen)
    if nearest is None:
        return Look(at, facing, tuple(sightings), "nothing seen", "none", facing, work.names)
    if tie:
        return Look(at, facing, tuple(sightings), "tie", "none", facing, work.names)
    turn = "none" if nearest.side == "ahead" else nearest.side
    return Look(at, facing, tuple(sightings), "nearest", turn, nearest.direction, work.names)


class _Mover:
    """Carries out one step's move (M5–M9, T2, T3, B2) on a _Work board."""

    def __init__(self, work: _Work, eaten_log: list[str]):
        self.w = work
        self.eaten_log = eaten_log
        self.changes = 0  # pieces pushed or eaten so far: a slide can only repeat itself on an unchanged board

    def move(self, at: int, heading: int, saw_pawn: bool, events: list) -> tuple[int, int]:
        w = self.w
        pivots = 0
        cur = at
        sliding = False
        slid_over: set[tuple[int, int, int]] = set()
        while True:
            target, letter = monster_next(cur, heading)
            kind = w.stones.get(target)
            if kind in ("pivot-right", "pivot-about") and not saw_pawn and pivots < MAX_PIVOT_TURNS:
                new = turn_right(heading) if kind == "pivot-right" else turn_about(heading)
                pivots += 1
                events.append(Pivot(cur, target, kind, heading, new))
                heading = new
                continue
            if letter is not None:
                events.append(Wrap(cur, target, letter))
            events.append(Slide(target) if sliding else Enter(target))
            label = w.pawns.get(target)
            if kind is not None:
                self.push_line(target, heading, cur, events)
            elif label is not None:
                del w.pawns[target]
                self.changes += 1
                self.eaten_log.append(label)
                events.append(Eat(label, target))
            cur = target
            dest = w.position.teleporter_partner(target) if target in w.tele else None
            if dest is not None:
                heading = w.tele[dest].arrow
                events.append(Teleport(target, dest, heading))
                return dest, heading
            if target in w.pools:
                key = (target, heading, self.changes)
                if key in slid_over:
                    # Pools all the way round through the walls (only in a made-up position):
                    # the slide would never end, so the monster stops here.
                    events.append(Stop(target))
                    return cur, heading
                slid_over.add(key)
                sliding = True
                continue
            return cur, heading

    def push_line(self, first: int, d: int, monster_at: int, events: list) -> None:
        """M6: push the unbroken line of stones and pawns from ``first``, front piece first."""
        w = self.w
        line = []
        s: int | None = first
        while s is not None and (s in w.stones or s in w.pawns):
            line.append(s)
            s = NEIGHBOUR[s * 4 + d]
        for s in reversed(line):
            self.push_piece(s, d, monster_at, events)

    def push_piece(self, s: int, d: int, monster_at: int, events: list) -> None:
        w = self.w
        self.changes += 1
        stone = w.stones.pop(s, None)
        pawn = w.pawns.pop(s) if stone is None else None
        dest = NEIGHBOUR[s * 4 + d]
        if dest is None:   # through a wall: off the board (M6)
            if pawn is not None:
                self.eaten_log.append(pawn)
            events.append(Push(s, "crushed" if pawn is not None else "removed", None, None, wall_letter(s, d),
                               stone, pawn))
            return
        stones, pawns = w.stones, w.pawns
        knocks: list[Push] = []
        if pawn is not None and dest in w.pools:   # B2 ⚖: a pushed pawn slides by the pawn rules
            path, fate = self.pawn_slide(dest, d, monster_at, pawn, knocks)
        else:
            path, fate = pushed_to(dest, d, w.pools, w.tele,
                                   lambda n: n in stones or n in pawns or n == monster_at, stone is not None)
        events.extend(knocks)   # the stones ahead of it first, as a line is pushed front first
        if fate == TELEPORTER:   # T3
            if pawn is not None:
                self.eaten_log.append(pawn)
            events.append(Push(s, "destroyed", None, tuple(path), None, stone, pawn))
        elif fate == CORNER:     # M6, B2
            events.append(Push(s, "removed", None, tuple(path), None, stone, pawn))
        else:
            final = path[-1]
            if stone is not None:
                stones[final] = stone
            else:
                assert pawn is not None     # a push moves a stone or a pawn
                pawns[final] = pawn
            slid = len(path) > 1 or path[0] in w.pools
            events.append(Push(s, "slid" if slid else "moved", final, tuple(path), None, stone, pawn))

    def pawn_slide(self, first: int, d: int, monster_at: int, pawn: str, knocks: list) -> tuple[list[int], str]:
        """B2 ⚖: the pushed ``pawn`` slides by the pawn rules (:func:`~engine.pools.pawn_pushed_to`); each stone it
        pushes on becomes a :class:`Push` ``by`` the pawn, appended to ``knocks``."""
        w = self.w
        path, fate, pushed = pawn_pushed_to(first, d, w.pools, w.tele, w.stones, w.pawns, monster_at)
        for start, kind, spath, sfate in pushed:
            self.changes += 1
            if sfate == KEPT:
                result = "slid" if len(spath) > 1 or spath[0] in w.pools else "moved"
                knocks.append(Push(start, result, spath[-1], tuple(spath), None, kind, None, by=pawn))
            else:   # destroyed on a teleporter (T3) or removed on a corner square (P7)
                knocks.append(Push(start, "destroyed" if sfate == TELEPORTER else "removed", None, tuple(spath),
                                   None, kind, None, by=pawn))
        return path, fate


def resolve(position: Position, tile: str | None = None, *, steps: int | None = None,
            eaten_place: str = WAITING, prey3_variant: bool = False) -> Plan:
    """Resolve a monster move for a tombstone ``tile`` (or exactly ``steps`` steps).

    Eaten pawns go to ``eaten_place``: ``waiting`` beside the entrance in
    round 1, ``gone`` in round 2 (G9).
    """
    if tile is not None:
        want_steps, prey = tile_rule(tile, prey3_variant=prey3_variant)
    elif steps is not None:
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= PREY_STEP_CAP:
            raise InvalidSetupError(Text(N_("steps must be a whole number from 1 to %(most)s, not %(value)s"),
                                         most=PREY_STEP_CAP, value=repr(steps)), "steps")
        want_steps, prey = steps, None
    else:
        raise InvalidSetupError(Text(N_("give a tombstone tile or a number of steps")), "tile")

    crowded = position.crowded()
    if crowded:   # a referee's correction gone wrong: the move needs one piece a square
        words = Join(N_("; "), [w for code, w, _ in position.status_words() if code == "two-pieces"])
        raise InvalidSetupError(Text(N_("the monster cannot move on this board: %(problems)s"), problems=words),
                                "position")
    names = LazyNames(position)
    work = _Work(position, names)
    eaten: list[str] = []
    mover = _Mover(work, eaten)
    at, facing = position.monster, position.facing
    plan_steps = []
    limit = want_steps if want_steps is not None else PREY_STEP_CAP
    stop = "steps"
    for n in range(1, limit + 1):
        lk = look(work, at, facing)
        events: list = []
        before = len(eaten)
        start = at
        at, facing = mover.move(at, lk.new_facing, lk.saw_pawn, events)
        plan_steps.append(Step(n, start, lk, tuple(events), at, facing, tuple(eaten[before:]), names))
        if prey is not None and len(eaten) >= prey:
            stop = "prey"
            break
    else:
        if prey is not None:
            stop = "cap"
    final = look(work, at, facing)
    pawns = position.pawns
    if work.pawns != work.start_pawns:   # pawns eaten or pushed
        eaten_set = set(eaten)
        board = {lab: sq for sq, lab in work.pawns.items()}
        moved = []
        for p in pawns:
            if p.label in eaten_set:
                p = replace(p, place=eaten_place, square=None)
            elif p.place == BOARD and board[p.label] != p.square:
                p = replace(p, square=board[p.label])
            moved.append(p)
        pawns = tuple(moved)
    result = Position(at, final.new_facing, work.stones, position.pools, position.teleporters, pawns)
    return Plan(tile, position, tuple(plan_steps), final, result, tuple(eaten), stop)
