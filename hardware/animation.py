"""What the LED grid shows: a monster plan as a timed animation, and the idle patterns.

The plan (``Plan.to_json()``) is read, never re-derived: each event of each step becomes
one *beat* (the monster enters a square, pushes, eats, wraps, teleports, is turned by a
pivot stone), so the LEDs show exactly what the phone log says.  A show is a pure function
of time — ``frame_at(t)`` returns a canvas, one RGB row per board cell — which keeps it
testable without a clock and lets the player drop or repeat frames freely.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from engine.geometry import SQUARES, neighbour, parse_direction, parse_square, square_col, square_row
from hardware.config import AnimationConfig
from hardware.layout import CANVAS_SIZE

Rgb = tuple[int, int, int]

PLAYER_COLOURS: dict[str, Rgb] = {
    "blue": (0, 60, 255), "yellow": (255, 170, 0), "red": (255, 0, 0), "green": (0, 210, 30),
    "purple": (150, 0, 255), "black": (70, 70, 110),  # "black" cannot be dark on an LED: a cold grey
    "white": (255, 255, 255),
}
BOARD: Rgb = (3, 2, 2)           # every square faintly lit, so the grid reads as a board
POOL: Rgb = (8, 0, 1)
MONSTER: Rgb = (255, 30, 0)
HEADING: Rgb = (90, 10, 0)
TRAIL: Rgb = (190, 110, 0)
EFFECTS: dict[str, Rgb] = {
    "push": (0, 80, 255), "slide": (0, 200, 200), "wrap": (0, 255, 60),
    "teleport": (255, 0, 200), "pivot": (255, 220, 0),
}
EAT_ON, EAT_OFF = (255, 255, 255), (140, 0, 0)
ERROR: Rgb = (40, 0, 0)
EAT_HZ = 4.0
BORDER = tuple(sq for sq in SQUARES if any(neighbour(sq, d) is None for d in range(4)))


def blank() -> np.ndarray:
    return np.zeros((CANVAS_SIZE, 3), dtype=np.float32)


def board_canvas(setup: Mapping[str, Any] | None = None) -> np.ndarray:
    """Every square faintly lit, pools darker; a setup that is not as expected only loses the pools."""
    canvas = blank()
    canvas[list(SQUARES)] = BOARD
    pools = setup.get("pools") if isinstance(setup, Mapping) else None
    for name in pools if isinstance(pools, list) else []:
        sq = _square_or_none(name)
        if sq is not None:
            canvas[sq] = POOL
    return canvas


def to_uint8(canvas: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(canvas), 0, 255).astype(np.uint8)


def _square_or_none(name: Any) -> int | None:
    try:
        return parse_square(name)
    except ValueError:  # parse_square refuses anything but a square name, text or not
        return None


@dataclass(frozen=True)
class Beat:
    """One moment of the move: where the monster stands and what is highlighted."""

    step: int
    monster: int
    facing: int
    kind: str
    marks: tuple[tuple[int, str], ...] = ()
    trail: tuple[tuple[int, int], ...] = ()       # (square, step number) entered so far
    eaten: tuple[int, ...] = ()                    # squares where pawns were eaten so far


class PlanError(ValueError):
    """The plan JSON cannot be shown; names the step, event and field."""


class _Bad(Exception):
    """A field of the plan is unusable; ``str`` is the plain reason."""


def _get(obj: Any, key: str) -> Any:
    if not isinstance(obj, Mapping):
        raise _Bad(f"expected an object with {key!r}, not {obj!r}")
    if key not in obj or obj[key] is None:
        raise _Bad(f"{key!r} is missing")
    return obj[key]


def _square_at(obj: Any, key: str) -> int:
    try:
        return parse_square(_get(obj, key))
    except ValueError as exc:
        raise _Bad(f"{key}: {exc}") from None


def _facing_at(obj: Any, key: str, default: int | None = None) -> int:
    if default is not None and (not isinstance(obj, Mapping) or obj.get(key) is None):
        return default
    try:
        return parse_direction(_get(obj, key))
    except ValueError as exc:
        raise _Bad(f"{key}: {exc}") from None


def _event_beat(ev: Any, at: int, facing: int, number: int, trail: list, eaten: list) -> tuple | None:
    """One event → (kind, monster square, facing, marks); None for a kind not drawn.
    Updates ``trail`` and ``eaten`` in place."""
    kind = _get(ev, "kind")
    marks: list[tuple[int, str]] = []
    if kind == "enter":
        at = _square_at(ev, "square")
        trail.append((at, number))
        if ev.get("slide"):
            marks.append((at, "slide"))
    elif kind == "push":
        path = ev.get("path") or []
        if not isinstance(path, list):
            raise _Bad(f"path must be a list of squares, not {path!r}")
        origin = _square_at(ev, "from")
        marks += [(origin, "push")] + [(sq, "push") for sq in map(_square_or_none, path) if sq is not None]
        if ev.get("eaten"):  # a pawn crushed through a wall or destroyed on a teleporter: it goes too
            eaten.append(origin)
    elif kind == "eat":
        eaten.append(_square_at(ev, "square"))
    elif kind == "wrap":
        marks += [(_square_at(ev, "from"), "wrap"), (_square_at(ev, "to"), "wrap")]
    elif kind == "teleport":
        src, at = _square_at(ev, "from"), _square_at(ev, "to")
        facing = _facing_at(ev, "facing", facing)
        marks += [(src, "teleport"), (at, "teleport")]
        trail.append((at, number))
    elif kind == "pivot":
        marks.append((_square_at(ev, "square"), "pivot"))
        facing = _facing_at(ev, "facing")
    else:
        return None  # an event kind this renderer does not draw
    return kind, at, facing, tuple(marks)


def plan_beats(plan: Mapping[str, Any]) -> list[Beat]:
    """Turn a plan JSON into beats, one per event (plus the start and each look).

    Raises PlanError naming the step, the event and the field at fault.
    """
    if not isinstance(plan, Mapping):
        raise PlanError("the plan is not a JSON object (expected the output of `flure resolve … --json`)")
    try:
        start = _get(plan, "start")
        at, facing = _square_at(start, "at"), _facing_at(start, "facing")
    except _Bad as exc:
        raise PlanError(f"the plan's start is unusable ({exc}); expected start: {{at: 'a1', facing: 'E'}}") from None
    steps = plan.get("steps", [])
    if not isinstance(steps, list):
        raise PlanError(f"the plan's steps must be a list, not {steps!r:.40}")
    beats = [Beat(0, at, facing, "start")]
    trail: list[tuple[int, int]] = []
    eaten: list[int] = []
    number = 0
    for i, step in enumerate(steps, 1):
        where = f"step {i}"
        try:
            number = _get(step, "number")
            if isinstance(number, bool) or not isinstance(number, int):
                raise _Bad(f"number must be a whole number, not {number!r}")
            where = f"step {number}"
            look = step.get("look") or {}
            facing = _facing_at(look, "new_facing", facing)
            beats.append(Beat(number, at, facing, "look", (), tuple(trail), tuple(eaten)))
            events = step.get("events") or []
            if not isinstance(events, list):
                raise _Bad(f"events must be a list, not {events!r}")
            for j, ev in enumerate(events, 1):
                try:
                    drawn = _event_beat(ev, at, facing, number, trail, eaten)
                except _Bad as exc:
                    kind = ev.get("kind") if isinstance(ev, Mapping) else None
                    raise _Bad(f"event {j}{f' ({kind})' if isinstance(kind, str) else ''}: {exc}") from None
                if drawn is not None:
                    kind, at, facing, marks = drawn
                    beats.append(Beat(number, at, facing, kind, marks, tuple(trail), tuple(eaten)))
            if step.get("to") is not None:
                at = _square_at(step, "to")
            facing = _facing_at(step, "facing", facing)
        except _Bad as exc:
            raise PlanError(f"{where} of the plan is unusable: {exc}") from None
    try:
        end = plan.get("end") or {}
        if isinstance(end, Mapping) and end.get("at") is not None:
            at = _square_at(end, "at")
        facing = _facing_at(end, "facing", facing)
    except _Bad as exc:
        raise PlanError(f"the plan's end is unusable: {exc}") from None
    beats.append(Beat(number, at, facing, "end", (), tuple(trail), tuple(eaten)))
    return beats


class Show:
    """Something the grid displays: ``frame_at(t)`` for t ≥ 0 seconds."""

    fps: float = 10.0
    duration: float | None = None  # None: runs until replaced

    def frame_at(self, t: float) -> np.ndarray:
        raise NotImplementedError

    def frame_count(self) -> int | None:
        """Frames at 0, 1/fps, … and a last one exactly at ``duration`` (the settled picture)."""
        return None if self.duration is None else int(math.ceil(self.duration * self.fps - 1e-9)) + 1

    def frame_time(self, i: int) -> float:
        t = i / self.fps
        return t if self.duration is None else min(t, self.duration)


@dataclass
class PlanShow(Show):
    """The monster's move, beat by beat, then a hold with the eaten squares flashing."""

    plan: Mapping[str, Any]
    config: AnimationConfig = field(default_factory=AnimationConfig)

    def __post_init__(self) -> None:
        self.beats = plan_beats(self.plan)
        self.fps = self.config.fps
        self.beat_s = self.config.beat_ms / 1000.0
        self.total_steps = max(1, self.beats[-1].step)
        self.base = board_canvas(self.plan.get("before"))
        self.duration = self.beat_s * (len(self.beats) - 1) + self.config.hold_s

    def beat_at(self, t: float) -> Beat:
        i = min(int(max(t, 0.0) / self.beat_s), len(self.beats) - 1)
        return self.beats[i]

    def frame_at(self, t: float) -> np.ndarray:
        beat = self.beat_at(t)
        settled = t >= self.duration
        canvas = self.base.copy()
        for sq, number in beat.trail:  # older steps fade: the path reads in order
            age = beat.step - number
            canvas[sq] = np.multiply(TRAIL, max(0.18, 1.0 - 0.14 * age))
        for sq, effect in beat.marks:
            canvas[sq] = EFFECTS[effect]
        flash_on = int(t * EAT_HZ * 2) % 2 == 0
        for sq in beat.eaten:
            canvas[sq] = EAT_ON if settled else EAT_OFF
        ahead = neighbour(beat.monster, beat.facing)
        if ahead is not None and not any(sq == ahead for sq, _ in beat.marks):
            canvas[ahead] = np.maximum(canvas[ahead], HEADING)
        canvas[beat.monster] = MONSTER
        if flash_on and not settled:  # flashes even under the monster while it eats
            for sq in beat.eaten:
                if sq != beat.monster or beat.kind == "eat":
                    canvas[sq] = EAT_ON
        return to_uint8(canvas)


@dataclass
class IdleShow(Show):
    """Between moves: the board faintly lit, the first player's colour breathing on the
    border, and the monster (if a position is known) with its heading."""

    first_player: str | None = None
    position: Mapping[str, Any] | None = None
    period_s: float = 4.0

    def __post_init__(self) -> None:
        self.fps = 10.0
        self.duration = None
        self.base = board_canvas(self.position)
        self.colour = PLAYER_COLOURS.get((self.first_player or "").lower())
        self.monster = None
        monster = self.position.get("monster") if isinstance(self.position, Mapping) else None
        monster = monster if isinstance(monster, Mapping) else {}
        sq = _square_or_none(monster.get("at"))
        if sq is not None:
            try:
                self.monster = (sq, parse_direction(monster.get("facing", "")))
            except ValueError:
                self.monster = (sq, None)

    def frame_at(self, t: float) -> np.ndarray:
        canvas = self.base.copy()
        if self.colour is not None:
            level = 0.04 + 0.10 * (0.5 - 0.5 * math.cos(2 * math.pi * t / self.period_s))
            canvas[list(BORDER)] = np.multiply(self.colour, level)
        if self.monster is not None:
            sq, facing = self.monster
            ahead = neighbour(sq, facing) if facing is not None else None
            if ahead is not None:
                canvas[ahead] = HEADING
            canvas[sq] = MONSTER
        return to_uint8(canvas)


@dataclass
class ErrorShow(Show):
    """Something is wrong (bad reading, illegal move): the whole board blinks dim red."""

    hz: float = 1.0

    def __post_init__(self) -> None:
        self.fps = 10.0
        self.duration = None

    def frame_at(self, t: float) -> np.ndarray:
        canvas = blank()
        if int(t * self.hz * 2) % 2 == 0:
            canvas[list(SQUARES)] = ERROR
        return to_uint8(canvas)


@dataclass
class SquaresShow(Show):
    """``flure leds test``: each square lit in turn, to check the wiring against the board."""

    squares: tuple[int, ...] = SQUARES
    seconds_each: float = 0.15

    def __post_init__(self) -> None:
        self.fps = 1.0 / self.seconds_each
        self.duration = self.seconds_each * len(self.squares)

    def frame_at(self, t: float) -> np.ndarray:
        canvas = board_canvas()
        i = min(int(t / self.seconds_each), len(self.squares) - 1)
        sq = self.squares[i]
        canvas[sq] = (255, 255, 255) if (square_col(sq) + square_row(sq)) % 2 == 0 else (0, 180, 255)
        return to_uint8(canvas)
