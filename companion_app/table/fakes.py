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

from .frames import KeepLastFrame


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


@dataclass
class FakeCamera:
    """A camera (``interfaces.Camera``): each poll reads ``source`` and returns ``reading``, or raises ``fail``."""

    reading: FakeReading | None = None
    fail: Exception | None = None
    polls: int = 0
    source: KeepLastFrame = field(default_factory=lambda: KeepLastFrame(StillFrames()))

    def poll(self) -> FakeReading | None:
        self.polls += 1
        if self.fail is not None:
            raise self.fail
        self.source.read()
        return self.reading

    def status(self) -> dict:
        return {"located": bool(self.reading and self.reading.located), "frames": self.polls}

    def close(self) -> None:
        self.source.close()


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

    def status(self) -> dict:
        return {"connected": self.fail is None, "frames_sent": len(self.calls)}

    def close(self) -> None:
        self.calls.append(("close", None))

    def _record(self, kind: str, data) -> None:
        if self.fail is not None:
            raise self.fail
        self.calls.append((kind, data))

