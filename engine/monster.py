"""The monster move (M1–M11, T1–T3, B1–B2) as a plan of steps.

``resolve(position, card)`` returns a :class:`Plan`: for each step the look
(what was seen in each direction and how far), the decision with its rule,
every square entered, push, slide, wrap, pivot and teleport, the pawns
eaten; then the final look and the resulting position.  The plan's JSON form
is what the LEDs, the web views and the CLI render.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import InvalidSetupError
from .geometry import (
    CORNERS, NEIGHBOUR, direction_name, monster_next, square_name, turn_about, turn_left,
    turn_right, wall_letter,
)
from .position import BOARD, GONE, WAITING, Position

CARDS = ("5", "7", "8", "10", "prey-1", "prey-2", "prey-3")
DECK = ("5", "7", "7", "8", "8", "10", "prey-1", "prey-2")
PREY_STEP_CAP = 20
MAX_PIVOT_TURNS = 4
SIDES = ("ahead", "left", "right")


def card_rule(card: str, *, five_is_prey_3: bool = False) -> tuple[int | None, int | None]:
    """(exact steps, prey count) for a tombstone tile (M1, G11)."""
    if card not in CARDS:
        raise InvalidSetupError(f"unknown tombstone tile {card!r} (one of {', '.join(CARDS)})", "card")
    if card == "5" and five_is_prey_3:
        return None, 3
    if card.startswith("prey-"):
        return None, int(card[5:])
    return int(card), None


@dataclass(frozen=True)
class Sighting:
    side: str            # ahead / left / right
    direction: int
    pawn: str | None     # label of the first pawn seen, if any
    square: int | None   # where that pawn, or the sight-stopper, is
    distance: int | None
    stopped_by: str | None  # "wall X", "stone", "pivot-right", ... when nothing was seen

    def to_json(self) -> dict:
        return {"side": self.side, "direction": direction_name(self.direction), "pawn": self.pawn,
                "square": square_name(self.square) if self.square is not None else None,
                "distance": self.distance, "stopped_by": self.stopped_by}


@dataclass(frozen=True)
class Look:
    at: int
    facing: int          # heading before the look
    sightings: tuple[Sighting, ...]
    case: str            # "nearest" | "tie" | "nothing seen"
    turn: str            # "none" | "left" | "right"
    new_facing: int
    text: str

    @property
    def rule(self) -> str:
        return f"M4 {self.case}"

    @property
    def saw_pawn(self) -> bool:
        return self.case != "nothing seen"

    def to_json(self) -> dict:
        return {"at": square_name(self.at), "facing": direction_name(self.facing),
                "sightings": [s.to_json() for s in self.sightings], "rule": self.rule,
                "decision": self.case, "turn": self.turn, "new_facing": direction_name(self.new_facing),
                "text": self.text}


@dataclass(frozen=True)
class Step:
    number: int
    start: int
    look: Look
    events: tuple[dict, ...]
    end: int
    facing: int
    eaten: tuple[str, ...]
    text: str

    def to_json(self) -> dict:
        return {"number": self.number, "from": square_name(self.start), "look": self.look.to_json(),
                "events": list(self.events), "to": square_name(self.end),
                "facing": direction_name(self.facing), "eaten": list(self.eaten), "text": self.text}


@dataclass(frozen=True)
class Plan:
    card: str | None
    start: Position
    steps: tuple[Step, ...]
    final_look: Look
    result: Position
    eaten: tuple[str, ...]
    stop: str            # why the move ended
    stop_rule: str

    @property
    def path(self) -> list[str]:
        return [square_name(s.end) for s in self.steps]

    def to_json(self) -> dict:
        return {
            "format": "flure-plan/1",
            "card": self.card,
            "start": {"at": square_name(self.start.monster), "facing": direction_name(self.start.facing)},
            "steps": [s.to_json() for s in self.steps],
            "final_look": self.final_look.to_json(),
            "end": {"at": square_name(self.result.monster), "facing": direction_name(self.result.facing)},
            "path": self.path,
            "eaten": list(self.eaten),
            "stop": {"reason": self.stop, "rule": self.stop_rule},
            "before": self.start.to_setup(),
            "position": self.result.to_setup(),
        }

    def text_lines(self) -> list[str]:
        """The step list a player can follow at the table."""
        lines = [s.text for s in self.steps]
        lines.append("Final look: " + self.final_look.text)
        return lines


class _Work:
    """Mutable scratch board used while resolving."""

    __slots__ = ("stones", "pawns", "pools", "tele", "names", "position")

    def __init__(self, pos: Position):
        self.position = pos
        self.stones = dict(pos.stones)
        self.pawns = {p.square: p.label for p in pos.pawns if p.place == BOARD}
        self.pools = pos.pools
        self.tele = pos.teleporters
        self.names = {p.label: p.name for p in pos.pawns}


def look(work: _Work, at: int, facing: int) -> Look:
    """M3 + M4: look ahead, left and right, and decide the heading."""
    sightings = []
    stones, pawns, names = work.stones, work.pawns, work.names
    for side, d in (("ahead", facing), ("left", turn_left(facing)), ("right", turn_right(facing))):
        prev, t, dist = at, NEIGHBOUR[at * 4 + d], 0
        seen = None
        while True:
            if t is None:
                letter = wall_letter(prev, d)
                seen = Sighting(side, d, None, None, None, f"wall {letter}")
                break
            dist += 1
            label = pawns.get(t)
            if label is not None:
                seen = Sighting(side, d, label, t, dist, None)
                break
            kind = stones.get(t)
            if kind is not None and kind != "crystal":
                seen = Sighting(side, d, None, t, dist, kind)
                break
            prev, t = t, NEIGHBOUR[t * 4 + d]
        sightings.append(seen)
    seen_pawns = [s for s in sightings if s.pawn is not None]
    if not seen_pawns:
        case, turn, new = "nothing seen", "none", facing
    else:
        best = min(s.distance for s in seen_pawns)
        nearest = [s for s in seen_pawns if s.distance == best]
        if len(nearest) == 1:
            case, turn, new = "nearest", nearest[0].side, nearest[0].direction
            turn = "none" if turn == "ahead" else turn
        else:
            case, turn, new = "tie", "none", facing
    return Look(at, facing, tuple(sightings), case, turn, new, _look_text(at, facing, sightings, case, turn, new, names))


def _look_text(at, facing, sightings, case, turn, new, names) -> str:
    seen = [f"{names.get(s.pawn, s.pawn)} on {square_name(s.square)} ({s.distance} {s.side})"
            for s in sightings if s.pawn is not None]
    where = f"from {square_name(at)} facing {direction_name(facing)}"
    if case == "nothing seen":
        return f"{where} it sees no pawn and keeps facing {direction_name(facing)} (M4 nothing seen)"
    if case == "tie":
        return (f"{where} it sees {' and '.join(seen)}: equally near, so it keeps facing "
                f"{direction_name(facing)} (M4 tie)")
    target = next(s for s in sightings if s.pawn is not None and s.direction == new)
    what = f"{names.get(target.pawn, target.pawn)} on {square_name(target.square)}"
    others = [x for x in seen if not x.startswith(f"{names.get(target.pawn, target.pawn)} on")]
    also = f"; it also sees {', '.join(others)}" if others else ""
    if turn == "none":
        return f"{where} it sees {what}, {target.distance} ahead, the nearest, and keeps facing {direction_name(new)} (M4 nearest{also})"
    return (f"{where} it sees {what}, {target.distance} to its {turn}, the nearest, and turns {turn} to face "
            f"{direction_name(new)} (M4 nearest{also})")


class _Mover:
    """Carries out one step's move (M5–M9, T2, T3, B2) on a _Work board."""

    def __init__(self, work: _Work, eaten_log: list[str]):
        self.w = work
        self.eaten_log = eaten_log
        self.changes = 0  # pieces pushed or eaten so far: a slide can only repeat itself on an unchanged board

    def name(self, label: str) -> str:
        return self.w.names.get(label, label)

    def move(self, at: int, heading: int, saw_pawn: bool, events: list[dict]) -> tuple[int, int]:
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
                how = "right" if kind == "pivot-right" else "about"
                events.append({"kind": "pivot", "rule": "M9", "at": square_name(cur),
                               "square": square_name(target), "stone": kind,
                               "from_facing": direction_name(heading), "facing": direction_name(new),
                               "text": f"the {kind} stone on {square_name(target)} turns it {how} to face "
                                       f"{direction_name(new)} (M9)"})
                heading = new
                continue
            if letter is not None:
                events.append({"kind": "wrap", "rule": "M7", "from": square_name(cur), "to": square_name(target),
                               "wall": letter, "text": f"walks through wall {letter} from {square_name(cur)} "
                                                       f"to {square_name(target)} (M7)"})
            events.append({"kind": "enter", "rule": "M8" if sliding else "M2", "square": square_name(target),
                           "slide": sliding,
                           "text": f"{'slides onto' if sliding else 'enters'} {square_name(target)}"})
            label = w.pawns.get(target)
            if kind is not None:
                self.push_line(target, heading, cur, events)
            elif label is not None:
                del w.pawns[target]
                self.changes += 1
                self.eaten_log.append(label)
                events.append({"kind": "eat", "rule": "M5", "pawn": label, "square": square_name(target),
                               "how": "eaten", "text": f"eats {self.name(label)} on {square_name(target)} (M5)"})
            cur = target
            dest = w.position.teleporter_partner(target) if target in w.tele else None
            if dest is not None:
                heading = w.tele[dest].arrow
                events.append({"kind": "teleport", "rule": "T2", "from": square_name(target),
                               "to": square_name(dest), "facing": direction_name(heading),
                               "text": f"steps on the teleporter on {square_name(target)} and jumps to "
                                       f"{square_name(dest)}, facing {direction_name(heading)} (T2)"})
                return dest, heading
            if target in w.pools:
                key = (target, heading, self.changes)
                if key in slid_over:
                    # Pools all the way round through the walls (only in a made-up position):
                    # the slide would never end, so the monster stops here.
                    events.append({"kind": "stop", "rule": "M8", "square": square_name(target),
                                   "text": f"the pools run all the way round through the walls, so the slide "
                                           f"would never end: it stops on {square_name(target)} (M8)"})
                    return cur, heading
                slid_over.add(key)
                sliding = True
                continue
            return cur, heading

    def push_line(self, first: int, d: int, monster_at: int, events: list[dict]) -> None:
        """M6: push the unbroken line of stones and pawns from ``first``, front piece first."""
        w = self.w
        line = []
        s = first
        while s is not None and (s in w.stones or s in w.pawns):
            line.append(s)
            s = NEIGHBOUR[s * 4 + d]
        for s in reversed(line):
            self.push_piece(s, d, monster_at, events, "M6")

    def push_piece(self, s: int, d: int, monster_at: int, events: list[dict], rule: str) -> None:
        w = self.w
        self.changes += 1
        if s in w.stones:
            piece = {"type": "stone", "kind": w.stones.pop(s)}
            what = f"the {piece['kind']}" if piece["kind"] != "stone" else "the stone"
        else:
            label = w.pawns.pop(s)
            piece = {"type": "pawn", "label": label}
            what = self.name(label)
        ev = {"kind": "push", "rule": rule, "piece": piece, "from": square_name(s)}
        dest = NEIGHBOUR[s * 4 + d]
        if dest is None:
            letter = wall_letter(s, d)
            self._destroy(piece, ev, "M6", f"pushed through wall {letter}", s, wall=letter)
            ev["text"] = (f"pushes {what} from {square_name(s)} off the board through wall {letter}: "
                          f"{'crushed' if piece['type'] == 'pawn' else 'removed'} (M6)")
            events.append(ev)
            return
        path = [dest]
        end = self._travel(piece, dest, d, path, monster_at)
        ev["path"] = [square_name(x) for x in path]
        if end == "teleporter":
            self._destroy(piece, ev, "T3", "pushed onto a teleporter", path[-1])
            ev["text"] = f"pushes {what} from {square_name(s)} onto the teleporter on {square_name(path[-1])}: destroyed (T3)"
        elif end == "corner":
            ev.update(to=None, result="removed", rule="M6")
            ev["text"] = f"pushes {what} from {square_name(s)} onto the corner {square_name(path[-1])}: removed (M6)"
        else:
            final = path[-1]
            self._place(piece, final)
            slid = len(path) > 1 or path[0] in w.pools
            ev.update(to=square_name(final), result="slid" if slid else "moved")
            if slid:
                ev["rule"] = f"{rule} B2"
                ev["text"] = f"pushes {what} from {square_name(s)}; it slides across the pool to {square_name(final)} (B2)"
            else:
                ev["text"] = f"pushes {what} from {square_name(s)} to {square_name(final)} ({rule})"
        events.append(ev)

    def _travel(self, piece: dict, dest: int, d: int, path: list[int], monster_at: int) -> str:
        """Where a pushed piece ends: 'ok' (path[-1]), 'teleporter' or 'corner' (B2, T3, M6)."""
        w = self.w
        if dest in w.tele:
            return "teleporter"
        if dest in CORNERS and piece["type"] == "stone":
            return "corner"
        if dest not in w.pools:
            return "ok"
        cur = dest
        while True:  # B2 slide
            n = NEIGHBOUR[cur * 4 + d]
            if n is None or n in w.stones or n in w.pawns or n == monster_at:
                return "ok"
            if n in w.pools:
                cur = n
                path.append(n)
                continue
            path.append(n)
            if n in w.tele:
                return "teleporter"
            if n in CORNERS and piece["type"] == "stone":
                return "corner"
            return "ok"

    def _destroy(self, piece, ev, rule, why, sq, wall=None):
        ev.update(to=None, rule=rule)
        if wall is not None:
            ev["wall"] = wall
        if piece["type"] == "pawn":
            ev["result"] = "crushed" if rule == "M6" else "destroyed"
            self.eaten_log.append(piece["label"])
            ev["eaten"] = True
        else:
            ev["result"] = "removed" if rule == "M6" else "destroyed"

    def _place(self, piece, sq):
        if piece["type"] == "stone":
            self.w.stones[sq] = piece["kind"]
        else:
            self.w.pawns[sq] = piece["label"]


def resolve(position: Position, card: str | None = None, *, steps: int | None = None,
            eaten_place: str = WAITING, five_is_prey_3: bool = False) -> Plan:
    """Resolve a monster move for a tombstone ``card`` (or exactly ``steps`` steps).

    Eaten pawns go to ``eaten_place``: ``waiting`` beside the entrance in
    round 1, ``gone`` in round 2 (G9).
    """
    if card is not None:
        want_steps, prey = card_rule(card, five_is_prey_3=five_is_prey_3)
    elif steps is not None:
        if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= PREY_STEP_CAP:
            raise InvalidSetupError(f"steps must be a whole number from 1 to {PREY_STEP_CAP}, not {steps!r}", "steps")
        want_steps, prey = steps, None
    else:
        raise InvalidSetupError("give a tombstone tile or a number of steps", "card")

    crowded = [p["message"] for p in position.status() if p["code"] == "two-pieces"]
    if crowded:   # a referee's correction gone wrong: the move needs one piece a square
        raise InvalidSetupError(f"the monster cannot move on this board: {'; '.join(crowded)}", "position")
    work = _Work(position)
    eaten: list[str] = []
    mover = _Mover(work, eaten)
    at, facing = position.monster, position.facing
    plan_steps = []
    limit = want_steps if want_steps is not None else PREY_STEP_CAP
    stop, stop_rule = ("steps", "M1")
    for n in range(1, limit + 1):
        lk = look(work, at, facing)
        events: list[dict] = []
        before = len(eaten)
        start = at
        at, facing = mover.move(at, lk.new_facing, lk.saw_pawn, events)
        step_eaten = tuple(eaten[before:])
        plan_steps.append(Step(n, start, lk, tuple(events), at, facing, step_eaten,
                               _step_text(n, lk, events, at)))
        if prey is not None and len(eaten) >= prey:
            stop, stop_rule = "prey", "M1"
            break
    else:
        if prey is not None:
            stop, stop_rule = "cap", "M1"
    final = look(work, at, facing)
    eaten_set = set(eaten)
    board = {lab: sq for sq, lab in work.pawns.items()}
    pawns = []
    for p in position.pawns:
        if p.label in eaten_set:
            pawns.append(replace(p, place=eaten_place, square=None))
        elif p.place == BOARD and board.get(p.label) != p.square:
            pawns.append(replace(p, square=board[p.label]))
        else:
            pawns.append(p)
    result = Position(at, final.new_facing, work.stones, position.pools, position.teleporters, tuple(pawns))
    return Plan(card, position, tuple(plan_steps), final, result, tuple(eaten), stop, stop_rule)


def _step_text(n: int, lk: Look, events: list[dict], end: int) -> str:
    parts = []
    for e in events:
        if e["kind"] == "enter" and not e["slide"]:
            parts.append(f"moves to {e['square']}")
        else:
            parts.append(e["text"])
    return f"Step {n}: {lk.text}; {'; '.join(parts)}; ends on {square_name(end)}."
