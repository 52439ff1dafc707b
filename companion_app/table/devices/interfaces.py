"""What the table session asks of its devices, as typed interfaces (``typing.Protocol``).

Why: the session calls these methods by name in code (a type checker sees them, and renaming
``LedGrid.show_plan`` cannot break the table silently), the
real devices (``watcher.CameraWorker``, ``hardware.leds.LedGrid``,
``hardware.buttons.TableButtons``, ``hardware.speaker.Speaker``) and the fakes in ``fakes.py`` both have to match
them, and ``tests/test_table_interfaces.py`` checks both against the same Protocols
(method names and parameters), as gpiozero ships ``MockFactory`` beside the real pins.

Only what the session uses is declared: a device may do more (the LED grid's
``show_squares`` is for ``flure leds test``).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class CameraReading(Protocol):
    """One camera reading (``vision.reading.Reading``): the session only needs its JSON (VISION.md)."""

    def to_json(self) -> dict: ...


@runtime_checkable
class Camera(Protocol):
    """The table camera as the session sees it: a worker (``watcher.CameraWorker``) that reads frames
    in its own thread and hands each update to the session; it keeps the last frame for the referee."""

    last_frame: np.ndarray | None

    def status(self) -> dict: ...

    def close(self) -> None: ...


@runtime_checkable
class Leds(Protocol):
    """The LED grid under the board: the monster's plan, the idle position, a moved pawn's mark, the error blink."""

    def show_plan(self, plan_json: Mapping[str, Any]) -> bool: ...

    def show_idle(self, first_player: str | None = None, position_json: Mapping[str, Any] | None = None) -> None: ...

    def show_error(self) -> None: ...

    def show_mark(self, first_player: str | None, position_json: Mapping[str, Any] | None, square: str,
                  colour: str | None = None) -> None: ...

    def show_follow(self, position_json: Mapping[str, Any] | None, empty=(), fill=()) -> None: ...

    def sent_frame(self) -> dict | None: ...

    def wire_frame(self) -> dict | None: ...

    def status(self) -> dict: ...

    def close(self) -> None: ...


@runtime_checkable
class Speaker(Protocol):
    """The Pi's speaker: says the monster's steps as the LEDs animate them, without holding up the caller."""

    def announce(self, lines: Sequence[tuple[float, str]]) -> None: ...

    def status(self) -> dict: ...

    def close(self) -> None: ...


@runtime_checkable
class Buttons(Protocol):
    """The table's buttons: they call the session themselves; the session reports and closes them."""

    def status(self) -> dict: ...

    def close(self) -> None: ...
