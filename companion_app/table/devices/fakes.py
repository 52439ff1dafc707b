"""Fakes of the table's devices, shipped beside their interfaces (as gpiozero ships MockFactory).

They implement the Protocols in ``interfaces.py`` and ``tests/test_table_interfaces.py``
checks them against those Protocols and against the real devices, so a fake cannot
drift from what the session calls.  Tests use them to script a camera reading, a
failing LED grid or a vanished camera without hardware; everything else in such a
test (session, SQLite, Flask, engine) is real.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.position import Position

from ..camera.watcher import CameraUpdate, StableGate, gated_reading


@dataclass
class FakeReading:
    """A camera reading (``vision.reading.Reading``) with the fields a test chooses."""

    located: bool
    setup: dict | None = None
    tile: str | None = None
    problems: list = field(default_factory=list)

    @property
    def position(self):
        return Position.from_setup(self.setup, strict=False) if self.setup else None

    @property
    def reason(self) -> str | None:
        return self.problems[0]["message"] if self.problems else None

    def key(self):
        """What must stay identical over frames (``vision.reading.Reading.key``)."""
        return json.dumps([self.setup, self.tile], sort_keys=True) if self.located and self.setup else None

    def to_json(self) -> dict:
        out = {"located": self.located, "tile": self.tile, "problems": list(self.problems)}
        if self.setup is not None:
            out["setup"] = json.loads(json.dumps(self.setup))
        return out


@dataclass
class StillFrames:
    """A frame source (``vision.sources.FrameSource``) giving the same picture each time (None: no picture)."""

    frame: np.ndarray | None = None

    def read(self) -> np.ndarray | None:
        return self.frame

    def close(self) -> None:
        pass


class FakeCamera:
    """A camera (``interfaces.Camera``) in place of the worker: each reading shown is fed ``frames``
    times through the worker's real stable-frame gate and handed to ``on_update`` (the session's
    ``on_camera``) as the worker's update (``watcher.gated_reading``), as a still table filmed
    at the frame rate would be."""

    def __init__(self, stable_frames: int = 3):
        self.gate = StableGate(stable_frames)
        self.on_update = None
        self.last_frame: np.ndarray | None = None
        self.frames = 0
        self._reading: FakeReading | None = None

    @property
    def reading(self) -> FakeReading | None:
        return self._reading

    @reading.setter
    def reading(self, reading: FakeReading) -> None:
        """Setting the reading shows it (a still table for ``stable_frames`` frames)."""
        self.show(reading)

    def show(self, reading: FakeReading, frames: int | None = None) -> None:
        if reading != self._reading:    # a hand changed the table in between: the frames before do not count
            self.gate.reset()
        self._reading = reading
        for _ in range(self.gate.needed if frames is None else frames):
            self.frames += 1
            stable, unknown, blocking = self.gate.feed(reading)
            data, observation = gated_reading(self.gate, reading, stable)
            update = CameraUpdate(self.status(), data, unknown, blocking, stable, self.gate.serial,
                                  self.gate.count, self.gate.needed, observation=observation)
            if self.on_update is not None:
                self.on_update(update)

    def status(self) -> dict:
        return {"state": "watching", "message": "watching (test camera)", "frames": self.frames}

    def close(self) -> None:
        pass


@dataclass
class FakeLeds:
    """An LED grid (``interfaces.Leds``) that records what it was asked to show, or raises ``fail``."""

    calls: list = field(default_factory=list)
    fail: Exception | None = None

    def show_plan(self, plan_json: Mapping[str, Any]) -> bool:
        self._record("plan", plan_json)
        return True

    def show_idle(self, first_player: str | None = None, position_json: Mapping[str, Any] | None = None) -> None:
        self._record("idle", first_player)

    def show_error(self) -> None:
        self._record("error", None)

    def show_mark(self, first_player: str | None, position_json: Mapping[str, Any] | None, square: str,
                  colour: str | None = None) -> None:
        self._record("mark", {"square": square, "colour": colour})

    def show_follow(self, position_json: Mapping[str, Any] | None, empty=(), fill=()) -> None:
        self._record("follow", {"empty": list(empty), "fill": list(fill)})

    def sent_frame(self) -> dict | None:
        return None

    def wire_frame(self) -> dict | None:
        return None

    def status(self) -> dict:
        return {"connected": self.fail is None, "frames_sent": len(self.calls)}

    def close(self) -> None:
        self.calls.append(("close", None))

    def _record(self, kind: str, data) -> None:
        if self.fail is not None:
            raise self.fail
        self.calls.append((kind, data))

