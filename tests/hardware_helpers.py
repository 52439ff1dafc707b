"""Shared pieces for the hardware tests: real plans from the engine, a running emulator,
fast animation settings."""
from __future__ import annotations

import contextlib
import time

from engine.monster import resolve
from engine.position import Position

# The rulebook's two monster examples (scenarios official-monster-basic / -advanced).
BASIC_SETUP = {
    "monster": {"at": "j8", "facing": "E"}, "stones": {"n6": "stone"}, "pools": ["k6", "l6", "k7", "l7"],
    "pawns": {"A": {"at": "j2"}, "B": {"at": "i8"}, "C": {"at": "m6"}, "D": {"at": "m3"}, "E": {"at": "m9"},
              "F": {"at": "o6"}, "G": {"at": "p7"}, "H": {"at": "k5"}},
}
ADVANCED_SETUP = {
    "monster": {"at": "j8", "facing": "E"}, "stones": {"k8": "pivot-right", "m7": "pivot-about", "k5": "crystal"},
    "pools": ["k6", "l6", "k7", "l7"],
    "teleporters": {"j5": {"pair": 1, "arrow": "E"}, "o7": {"pair": 1, "arrow": "N"}},
    "pawns": {"A": {"at": "j3"}, "B": {"at": "i5"}, "C": {"at": "l5"}, "D": {"at": "n7"}, "E": {"at": "m6"}},
}
# Colours for a frame: the wiring test's blue square (00 B4 FF is 576000 baud to WLED) and every other
# byte WLED acts on between frames, so a cut leaves something harmful behind if frame bytes follow it.
HARMFUL = bytes((0x00, 0xB4, 0xFF, ord("{"), ord("v"), ord("l"), ord("L"), ord("o"), ord("O"), ord("I"), 0xC9, 0xB5))


def harmful_rgb(count: int) -> bytes:
    return (HARMFUL * count)[:3 * count]


FAST = {"animation": {"beat_ms": 15, "hold_s": 0.05, "fps": 120},
        "power": {"budget_ma": 100_000}}  # exact colours: the cap has its own tests


def plan(setup: dict = ADVANCED_SETUP, tile: str | None = "8", steps: int | None = None) -> dict:
    position = Position.from_setup(setup)
    return (resolve(position, steps=steps) if steps else resolve(position, tile)).to_json()


@contextlib.contextmanager
def running_emulator(**kw):
    from hardware.emulator import LedEmulator
    emu = LedEmulator(**kw).start()
    try:
        yield emu
    finally:
        emu.stop()


@contextlib.contextmanager
def emulator_and_link(protocol: str = "adalight", transport: str = "pty", emulator: dict | None = None, **link_kw):
    """An emulator with the default layout and a started SerialLink to it."""
    from hardware.link import SerialLink
    from hardware.protocol import make_encoder
    with running_emulator(transport=transport, **(emulator or {})) as emu:
        link = SerialLink(emu.url, make_encoder(protocol, emu.layout.led_count), **link_kw).start()
        try:
            yield emu, link
        finally:
            link.close()


def wait_until(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()
