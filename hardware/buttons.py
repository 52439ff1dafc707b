"""The table's physical buttons: "monster" (resolve), "confirm" and "undo".

gpiozero does the GPIO work (RPi.GPIO or lgpio on the Pi, ``MockFactory`` in tests); the
backend is passed in as ``pin_factory`` rather than set process-wide.  What a press *means*
is decided here, in one place, the same on every backend: mechanical switches chatter, and
gpiozero's ``bounce_time`` is honoured differently by each backend (the mock ignores it),
so a press counts only when the contact stayed closed for ``debounce_ms``, and a contact that
closes again within ``debounce_ms`` of a counted release is chatter, not a second press.  A
short press acts on release; a long press acts as soon as it has been held ``long_press_ms``, and the
buttons in ``long_press_only`` (undo, by default) act only then — a bumped undo button
does nothing.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Callable, Mapping

from engine.wording import N_, Said, Text, Worded
from hardware.config import ButtonConfig, HardwareConfig, load_config

log = logging.getLogger(__name__)
Callback = Callable[[], object] | None


@dataclass(frozen=True)
class PressEvent:
    button: str
    kind: str         # "short", "long", "bounce" (too brief, or chatter right after a release),
                      # "ignored" (a short press on a long-press-only button)
    duration_s: float


class _OneButton:
    def __init__(self, name: str, pin: int, cfg: ButtonConfig, factory, action: Callable[[str, str, float], None],
                 clock: Callable[[], float] = time.monotonic):
        from gpiozero import Button
        self.name = name
        self.action = action
        self.clock = clock
        self.debounce_s = cfg.debounce_ms / 1000.0
        self.long_only = name in cfg.long_press_only
        self._down_at: float | None = None
        self._held_fired = False
        self._chatter = False                  # this press began in the chatter after a release
        self._released_at: float | None = None  # the last release of a press that counted
        self._lock = threading.Lock()
        self.device = Button(pin, pull_up=cfg.pull_up, bounce_time=None, hold_time=cfg.long_press_ms / 1000.0,
                             pin_factory=factory)
        self.device.when_pressed = self._pressed
        self.device.when_released = self._released
        self.device.when_held = self._held

    def _pressed(self) -> None:
        with self._lock:
            now = self.clock()
            self._chatter = self._released_at is not None and now - self._released_at < self.debounce_s - 1e-6
            self._down_at = now
            self._held_fired = False

    def _held(self) -> None:
        with self._lock:
            if self._down_at is None or self._held_fired or self._chatter:
                return
            self._held_fired = True
            duration = self.clock() - self._down_at
        self.action(self.name, "long", duration)

    def _released(self) -> None:
        with self._lock:
            if self._down_at is None:
                return
            now = self.clock()
            duration = now - self._down_at
            self._down_at = None
            held, chatter = self._held_fired, self._chatter
            bounce = chatter or duration < self.debounce_s - 1e-6  # "at least debounce_ms", float-safe
            if not bounce or chatter:
                # contacts chatter after a release: a new press within debounce_ms of it (or of
                # the chatter that follows it) is part of the same press, however long it lasts
                self._released_at = now
        if held:
            return
        if bounce:
            self.action(self.name, "bounce", duration)
        elif self.long_only:
            self.action(self.name, "ignored", duration)
        else:
            self.action(self.name, "short", duration)

    def close(self) -> None:
        self.device.close()


class BackendMissing(Worded, RuntimeError):
    """The configured GPIO backend cannot be used on this machine (wording data: the devices card and
    flure play say it in their language)."""


def make_pin_factory(backend: str):
    """The gpiozero backend named in ``[buttons] backend`` (on a Pi 5 only lgpio works)."""
    try:
        if backend == "lgpio":
            from gpiozero.pins.lgpio import LGPIOFactory
            return LGPIOFactory()
        if backend == "rpigpio":
            from gpiozero.pins.rpigpio import RPiGPIOFactory
            return RPiGPIOFactory()
    except Exception as exc:  # ImportError off the Pi, or the chip cannot be opened
        raise BackendMissing(Text(N_("the %(backend)s GPIO backend is not available here (%(why)s); install the "
                                     "'pi' extra on a Raspberry Pi"), backend=backend, why=exc)) from None
    raise ValueError(f"unknown GPIO backend {backend!r}")


class TableButtons:
    """Wire the configured pins to callbacks; each callback is called with no arguments.

    ``clock`` measures press durations (debounce, short press); tests pass a hand-wound one
    so a script's "held 50 ms" does not depend on the machine's load.  Long presses are
    gpiozero's ``when_held``, on real time.
    """

    def __init__(self, config: HardwareConfig | Mapping | str | None = None, pin_factory=None, *,
                 on_monster: Callback = None, on_confirm: Callback = None, on_undo: Callback = None,
                 on_event: Callable[[PressEvent], object] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        cfg = load_config(config).buttons
        if pin_factory is None and cfg.backend != "auto":
            pin_factory = make_pin_factory(cfg.backend)
        self.callbacks = {"monster": on_monster, "confirm": on_confirm, "undo": on_undo}
        self.on_event = on_event
        self.events: list[PressEvent] = []
        self.last_error: str | None = None
        self.buttons = [_OneButton(name, pin, cfg, pin_factory, self._act, clock) for name, pin in cfg.pins.items()]

    def _act(self, name: str, kind: str, duration: float) -> None:
        event = PressEvent(name, kind, duration)
        self.events.append(event)
        callbacks = [self.on_event and (lambda: self.on_event(event))]
        if kind in ("short", "long"):
            callbacks.append(self.callbacks.get(name))
        for cb in callbacks:
            if not cb:
                continue
            try:
                cb()
            except Exception as exc:  # a failing action must not kill the GPIO thread
                self.last_error = Said(Text(N_("the %(name)s button's action failed: %(error)s"), name=name, error=exc))
                log.exception("button %s", name)

    def status(self) -> dict:
        return {"buttons": {b.name: b.device.pin.info.name if hasattr(b.device.pin, "info") else str(b.device.pin)
                            for b in self.buttons},
                "last_press": self.events[-1].__dict__ if self.events else None,
                "last_error": self.last_error}

    def close(self) -> None:
        for b in self.buttons:
            b.close()
        self.buttons = []
