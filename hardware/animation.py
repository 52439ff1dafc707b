"""What the LED grid shows: a monster plan as a timed animation, and the idle patterns.

The plan is read through the engine's own ``Plan.from_json`` (which checks it), never
re-derived: each event of each step becomes
one *beat* (the monster enters a square, pushes, eats, wraps, teleports, is turned by a
pivot stone), so the LEDs show exactly what the phone log says.  A show is a pure function
of time — ``frame_at(t)`` returns a canvas, one RGB row per board cell — which keeps it
testable without a clock and lets the player drop or repeat frames freely.

A show whose squares change by a rule of time (the idle border breathing, a pawn's square
pulsing, the follow-up's and the error's blinking) also says so as data (``Show.wire``): the
web pages animate those squares themselves (static/board.js ``LedPanel``) instead of being
sent every frame.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from engine.errors import InvalidSetupError
from engine.geometry import SQUARES, neighbour, parse_direction, parse_square, square_col, square_name, square_row
from engine.plan import Eat, Enter, Pivot, Plan, Push, Slide, Teleport, Wrap
from engine.wording import N_, Text, Worded
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
# Each meaning has its pattern as well as its colour, for players who cannot tell red from green:
# the monster the brightest square, steady, with its heading dim just ahead; its path steady, blue (apart
# from the red monster on the blue-yellow axis every colour vision keeps) and dimmer the older the step;
# an eaten pawn flashing; a square to empty blinking, a square to fill steady; a pawn's move pulsing;
# a fault blinking the whole grid.  The web pages' legend (templates/_led_legend.html) says so.
TRAIL: Rgb = (70, 40, 255)
EFFECTS: dict[str, Rgb] = {
    "push": (150, 210, 255), "slide": (0, 200, 200), "wrap": (0, 255, 60),
    "teleport": (255, 0, 200), "pivot": (255, 220, 0),
}
EAT_ON, EAT_OFF = (255, 255, 255), (140, 0, 0)
ERROR: Rgb = (40, 0, 0)
TO_EMPTY: Rgb = (0, 90, 255)     # follow-up: take the piece off this square
TO_FILL: Rgb = (0, 220, 60)      # follow-up: put a piece (or the monster) on this square
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


class PlanError(Worded, ValueError):
    """The plan JSON cannot be shown; names the path at fault (``steps[3].events[1].square``), as
    wording data (engine.wording.Worded)."""


def _event_beat(ev, at: int, facing: int, number: int, trail: list, eaten: list) -> tuple | None:
    """One event → (kind, monster square, facing, marks); None for a kind not drawn.
    Updates ``trail`` and ``eaten`` in place."""
    marks: list[tuple[int, str]] = []
    kind = type(ev)
    if kind in (Enter, Slide):
        at = ev.square
        trail.append((at, number))
        if kind is Slide:
            marks.append((at, "slide"))
    elif kind is Push:
        marks += [(ev.start, "push")] + [(sq, "push") for sq in ev.path or ()]
        if ev.eaten:  # a pawn crushed through a wall or destroyed on a teleporter: it goes too
            eaten.append(ev.start)
    elif kind is Eat:
        eaten.append(ev.square)
    elif kind is Wrap:
        marks += [(ev.start, "wrap"), (ev.to, "wrap")]
    elif kind is Teleport:
        at, facing = ev.to, ev.facing
        marks += [(ev.start, "teleport"), (at, "teleport")]
        trail.append((at, number))
    elif kind is Pivot:
        marks.append((ev.square, "pivot"))
        facing = ev.facing
    else:
        return None  # an event kind this renderer does not draw (the endless-slide stop)
    return ev.kind, at, facing, tuple(marks)


def read_plan(plan: Plan | Mapping[str, Any]) -> Plan:
    """The engine's plan from its JSON form (the engine checks it); PlanError if it is unusable."""
    if isinstance(plan, Plan):
        return plan
    try:
        return Plan.from_json(plan)
    except InvalidSetupError as exc:
        raise PlanError(Text(N_("the plan is unusable: %(error)s"), error=exc)) from None


def plan_beats(plan: Plan | Mapping[str, Any]) -> list[Beat]:
    """Turn a plan into beats, one per event (plus the start and each look).

    Raises PlanError naming the path at fault when given JSON that is not a plan.
    """
    plan = read_plan(plan)
    at, facing = plan.start.monster, plan.start.facing
    beats = [Beat(0, at, facing, "start")]
    trail: list[tuple[int, int]] = []
    eaten: list[int] = []
    number = 0
    for step in plan.steps:
        number = step.number
        facing = step.look.new_facing
        beats.append(Beat(number, at, facing, "look", (), tuple(trail), tuple(eaten)))
        for ev in step.events:
            drawn = _event_beat(ev, at, facing, number, trail, eaten)
            if drawn is not None:
                kind, at, facing, marks = drawn
                beats.append(Beat(number, at, facing, kind, marks, tuple(trail), tuple(eaten)))
        at, facing = step.end, step.facing
    beats.append(Beat(number, plan.result.monster, plan.result.facing, "end", (), tuple(trail), tuple(eaten)))
    return beats


def step_times(plan: Plan | Mapping[str, Any], beat_ms: float) -> list[float]:
    """Seconds after the move starts at which each step's first beat (its look) is shown: when the
    Pi speaker may start saying that step, so the voice never runs ahead of the LEDs."""
    return [i * beat_ms / 1000.0 for i, beat in enumerate(plan_beats(plan)) if beat.kind == "look"]


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

    def frame(self, i: int) -> np.ndarray:
        """Frame ``i`` of ``frame_count()``, what the player sends at ``i / fps``."""
        return self.frame_at(self.frame_time(i))

    def wire(self) -> list[dict]:
        """The squares this show changes by a rule of time, as data a screen animates by itself: each part
        a ``pulse`` (colour × (low + depth·(½ − ½·cos(2π·t/period_s + phase))), until ``until`` seconds
        when given) or a ``blink`` (``on`` while ⌊t·hz·2⌋ is even, else each square's ``off``), colours as
        RGB lists before the power cap; later parts win.  Every other square keeps its colour for the
        whole show.  [] for a show a screen is sent frame by frame."""
        return []


@dataclass
class PlanShow(Show):
    """The monster's move, beat by beat, then a hold with the eaten squares flashing."""

    plan: Mapping[str, Any]
    config: AnimationConfig = field(default_factory=AnimationConfig)

    def __post_init__(self) -> None:
        typed = read_plan(self.plan)
        self.beats = plan_beats(typed)
        self.fps = self.config.fps
        self.beat_s = self.config.beat_ms / 1000.0
        self.total_steps = max(1, self.beats[-1].step)
        self.base = board_canvas(typed.start.to_setup())
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

    LOW, DEPTH = 0.04, 0.10     # the border's level: from LOW to LOW + DEPTH and back, every period_s

    def wire(self) -> list[dict]:
        if self.colour is None:
            return []
        still = set()       # the monster and its heading, drawn over the border
        if self.monster is not None:
            sq, facing = self.monster
            still = {sq, neighbour(sq, facing) if facing is not None else None}
        return [{"kind": "pulse", "squares": [square_name(sq) for sq in BORDER if sq not in still],
                 "rgb": list(self.colour),
                 "low": self.LOW, "depth": self.DEPTH, "period_s": self.period_s, "phase": 0.0}]

    def frame_at(self, t: float) -> np.ndarray:
        canvas = self.base.copy()
        if self.colour is not None:
            level = self.LOW + self.DEPTH * (0.5 - 0.5 * math.cos(2 * math.pi * t / self.period_s))
            canvas[list(BORDER)] = np.multiply(self.colour, level)
        if self.monster is not None:
            sq, facing = self.monster
            ahead = neighbour(sq, facing) if facing is not None else None
            if ahead is not None:
                canvas[ahead] = HEADING
            canvas[sq] = MONSTER
        return to_uint8(canvas)


@dataclass
class FollowShow(Show):
    """The follow-up after a monster move (TABLE.md): the monster where it now stands with its heading,
    the squares to empty blinking blue, the squares to fill lit green, until the table matches."""

    position: Mapping[str, Any] | None = None
    empty: tuple = ()
    fill: tuple = ()
    hz: float = 1.5

    def __post_init__(self) -> None:
        self.fps = 10.0
        self.duration = None
        self.idle = IdleShow(None, self.position)
        self.empty_sq = [sq for sq in map(_square_or_none, self.empty) if sq is not None]
        self.fill_sq = [sq for sq in map(_square_or_none, self.fill) if sq is not None]

    def wire(self) -> list[dict]:
        squares = [sq for sq in self.empty_sq if sq not in self.fill_sq]
        off = self.idle.frame_at(0.0)
        return [{"kind": "blink", "squares": [square_name(sq) for sq in squares], "on": list(TO_EMPTY),
                 "off": [[int(v) for v in off[sq]] for sq in squares], "hz": self.hz}] if squares else []

    def frame_at(self, t: float) -> np.ndarray:
        canvas = self.idle.frame_at(0.0).astype(np.float32)
        if int(t * self.hz * 2) % 2 == 0:
            canvas[self.empty_sq] = TO_EMPTY
        canvas[self.fill_sq] = TO_FILL
        return to_uint8(canvas)


@dataclass
class MarkShow(Show):
    """A pawn move the camera applied in auto mode (TABLE.md "Modes"): the idle picture with the moved
    pawn's square pulsing in its colour for ``seconds``, so the players see what was taken; then idle."""

    first_player: str | None = None
    position: Mapping[str, Any] | None = None
    square: str | None = None
    colour: str | None = None
    seconds: float = 2.0
    hz: float = 2.0

    def __post_init__(self) -> None:
        self.fps = 10.0
        self.duration = self.seconds
        self.idle = IdleShow(self.first_player, self.position)
        self.sq = _square_or_none(self.square)
        self.rgb = PLAYER_COLOURS.get((self.colour or "").lower(), (255, 255, 255))

    def wire(self) -> list[dict]:
        if self.sq is None:
            return self.idle.wire()
        return self.idle.wire() + [{"kind": "pulse", "squares": [square_name(self.sq)], "rgb": list(self.rgb),
                                    "low": 0.35, "depth": 0.65, "period_s": 1.0 / self.hz, "phase": math.pi,
                                    "until": self.duration}]

    def frame_at(self, t: float) -> np.ndarray:
        canvas = self.idle.frame_at(t).astype(np.float32)
        if self.sq is not None and t < self.duration:
            level = 0.35 + 0.65 * (0.5 + 0.5 * math.cos(2 * math.pi * self.hz * t))
            canvas[self.sq] = np.multiply(self.rgb, level)
        return to_uint8(canvas)


@dataclass
class ErrorShow(Show):
    """Something is wrong (bad reading, illegal move): the whole board blinks dim red."""

    hz: float = 1.0

    def __post_init__(self) -> None:
        self.fps = 10.0
        self.duration = None

    def wire(self) -> list[dict]:
        return [{"kind": "blink", "squares": [square_name(sq) for sq in SQUARES], "on": list(ERROR),
                 "off": [[0, 0, 0]] * len(SQUARES), "hz": self.hz}]

    def frame_at(self, t: float) -> np.ndarray:
        canvas = blank()
        if int(t * self.hz * 2) % 2 == 0:
            canvas[list(SQUARES)] = ERROR
        return to_uint8(canvas)


@dataclass
class SquaresShow(Show):
    """``flure leds test``: each square lit in turn, to check the wiring against the board.

    One frame per square, ``seconds_each`` apart, counted in frames: frame ``i`` is square ``i``
    (a square worked out from the time, ``int(t / seconds_each)``, came out one short now and then
    and that square was never lit).  No settled extra frame: the player holds the last one for its
    time too, then the link keeps it up."""

    squares: tuple[int, ...] = SQUARES
    seconds_each: float = 0.15

    def __post_init__(self) -> None:
        self.fps = 1.0 / self.seconds_each
        self.duration = self.seconds_each * len(self.squares)

    def frame_count(self) -> int:
        return len(self.squares)

    def frame_at(self, t: float) -> np.ndarray:
        return self.frame(math.floor(t * self.fps + 1e-6))   # t = i / fps gives i back whatever the rounding

    def frame(self, i: int) -> np.ndarray:
        canvas = board_canvas()
        sq = self.squares[min(max(i, 0), len(self.squares) - 1)]
        canvas[sq] = (255, 255, 255) if (square_col(sq) + square_row(sq)) % 2 == 0 else (0, 180, 255)
        return to_uint8(canvas)
