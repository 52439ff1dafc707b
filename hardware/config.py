"""Hardware configuration: one TOML file (or dict) for the LED grid, the serial link,
the power budget and the buttons.

Why one file: swapping a simulated LED device for a real WLED board, moving a button to
another pin or re-wiring the strip must be an edit in configuration, never in code.
``hardware/default.toml`` documents every key; values missing from a user's file fall
back to it, so a user's file only holds what differs.
"""
from __future__ import annotations

import copy
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from engine.jsontext import MAX_DEPTH, data_depth
from engine.wording import N_, Plural, Text, Worded, os_reason

DEFAULT_PATH = Path(__file__).with_name("default.toml")
PROTOCOLS = ("adalight", "tpm2")
BUTTON_BACKENDS = ("auto", "lgpio", "rpigpio")


class HardwareConfigError(Worded, ValueError):
    """A configuration value is wrong; the message names the key and the bad value (raised with
    wording data where a person reads it in their language: engine.wording.Worded)."""


@dataclass(frozen=True)
class SerialConfig:
    url: str = "emulator"          # "emulator", a device path, /dev/serial/by-id/..., socket://, loop://
    protocol: str = "adalight"
    baud: int = 921600
    switch_from: int | None = None  # open at this baud, send WLED's baud-switch byte, then use ``baud``
    keepalive_s: float = 1.0        # resend the last frame this often (WLED's realtime timeout is 2.5 s)
    reconnect_s: float = 0.25       # how often to retry opening a vanished device


@dataclass(frozen=True)
class PowerConfig:
    budget_ma: float = 400.0           # what the strip may draw in total at 5 V
    ma_per_channel: float = 20.0       # one colour channel at 255 (a WS2812B: ~20 mA)
    idle_ma_per_led: float = 1.0       # quiescent draw of one LED, even when dark
    brightness: float = 1.0            # global scale before the cap, 0..1


@dataclass(frozen=True)
class AnimationConfig:
    fps: float = 30.0
    beat_ms: float = 260.0    # one event of a step (enter, push, eat, …)
    hold_s: float = 4.0       # how long the end of a plan keeps flashing before it settles


@dataclass(frozen=True)
class ButtonConfig:
    pins: dict[str, int] = field(default_factory=lambda: {"monster": 17, "confirm": 27, "undo": 22})
    pull_up: bool = True
    debounce_ms: float = 40.0
    long_press_ms: float = 800.0
    long_press_only: tuple[str, ...] = ("undo",)
    backend: str = "auto"     # gpiozero pin factory: auto (gpiozero's choice), lgpio, rpigpio


@dataclass(frozen=True)
class HardwareConfig:
    layout: dict[str, Any]
    serial: SerialConfig
    power: PowerConfig
    animation: AnimationConfig
    buttons: ButtonConfig
    source: str = "defaults"


def _merge(base: dict, over: Mapping) -> dict:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict) and key != "squares":
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _read_toml(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
        if data_depth(data) > MAX_DEPTH:   # merging and checking walk the data recursively
            raise RecursionError
        return data
    except RecursionError:
        raise HardwareConfigError(Text(N_("%(path)s: lists or tables are nested too deeply (at most %(depth)s levels)"),
                                       path=str(path), depth=MAX_DEPTH))
    except OSError as exc:
        raise HardwareConfigError(Text(N_("%(path)s: cannot read the hardware configuration (%(why)s)"),
                                       path=str(path), why=os_reason(exc)))
    except tomllib.TOMLDecodeError as exc:
        raise HardwareConfigError(Text(N_("%(path)s: not valid TOML (%(why)s)"), path=str(path), why=exc))
    except UnicodeDecodeError:
        raise HardwareConfigError(Text(N_("%(path)s: not a TOML text file (it holds bytes that are not UTF-8 text)"),
                                       path=str(path)))


def check_number(section: str, key: str, value: Any, lo: float, hi: float) -> float:
    """``value`` if it is a finite number within [lo, hi]; else an error naming ``[section] key``.

    Every number has both bounds: TOML reads ``nan``, ``inf`` and ``1e300`` as numbers, and
    none of them is a sensible baud rate or budget.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise HardwareConfigError(Text(N_("[%(section)s] %(key)s must be a number, not %(value)s"),
                                       section=section, key=key, value=repr(value)))
    if not math.isfinite(value) or not lo <= value <= hi:
        raise HardwareConfigError(Text(N_("[%(section)s] %(key)s = %(value)s must be between %(lo)s and %(hi)s"),
                                       section=section, key=key, value=value, lo=lo, hi=hi))
    return value


def only_keys(section: str, data: Mapping, allowed: set[str]) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise HardwareConfigError(Plural("[%(section)s] has an unknown key %(unknown)s; known keys: %(known)s",
                                         "[%(section)s] has unknown keys %(unknown)s; known keys: %(known)s",
                                         len(unknown), section=section, unknown=", ".join(unknown),
                                         known=", ".join(sorted(allowed))))


def not_a_section(name: str, value: Any) -> Text:
    """``serial = 5`` where ``[serial]`` belongs (the table's file says it the same way)."""
    return Text(N_("%(name)s must be a section [%(name)s], not %(value)s"), name=name, value=repr(value))


def not_a_switch(section: str, key: str, value: Any) -> Text:
    return Text(N_("[%(section)s] %(key)s must be true or false, not %(value)s"), section=section, key=key,
                value=repr(value))


def _serial(d: Mapping) -> SerialConfig:
    only_keys("serial", d, {"url", "protocol", "baud", "switch_from", "keepalive_s", "reconnect_s"})
    url = d.get("url", "emulator")
    if not isinstance(url, str) or not url.strip():
        raise HardwareConfigError(Text(N_("[serial] url must be text like '/dev/ttyUSB0' or 'emulator', not %(value)s"),
                                       value=repr(url)))
    protocol = str(d.get("protocol", "adalight")).lower()
    if protocol not in PROTOCOLS:
        raise HardwareConfigError(Text(N_("[serial] protocol %(protocol)s is not supported (use adalight or tpm2)"),
                                       protocol=repr(protocol)))
    baud = int(check_number("serial", "baud", d.get("baud", 921600), 300, 4_000_000))
    switch = d.get("switch_from")
    if switch in (0, "", False):
        switch = None
    if switch is not None:
        from hardware.protocol import BAUD_SWITCH
        switch = int(check_number("serial", "switch_from", switch, 300, 4_000_000))
        if baud not in BAUD_SWITCH:
            raise HardwareConfigError(Text(N_("[serial] baud = %(baud)s has no WLED baud-switch byte; with switch_from "
                                              "use one of %(choices)s"), baud=baud,
                                           choices=", ".join(str(b) for b in sorted(BAUD_SWITCH))))
    return SerialConfig(url=url.strip(), protocol=protocol, baud=baud, switch_from=switch,
                        keepalive_s=check_number("serial", "keepalive_s", d.get("keepalive_s", 1.0), 0.05, 60),
                        reconnect_s=check_number("serial", "reconnect_s", d.get("reconnect_s", 0.25), 0.01, 60))


def _power(d: Mapping) -> PowerConfig:
    only_keys("power", d, {"budget_ma", "ma_per_channel", "idle_ma_per_led", "brightness"})
    return PowerConfig(budget_ma=check_number("power", "budget_ma", d.get("budget_ma", 400.0), 1, 100_000),
                       ma_per_channel=check_number("power", "ma_per_channel", d.get("ma_per_channel", 20.0), 0.01, 1000),
                       idle_ma_per_led=check_number("power", "idle_ma_per_led", d.get("idle_ma_per_led", 1.0), 0, 100),
                       brightness=check_number("power", "brightness", d.get("brightness", 1.0), 0, 1))


def _animation(d: Mapping) -> AnimationConfig:
    only_keys("animation", d, {"fps", "beat_ms", "hold_s"})
    return AnimationConfig(fps=check_number("animation", "fps", d.get("fps", 30.0), 1, 240),
                           beat_ms=check_number("animation", "beat_ms", d.get("beat_ms", 260.0), 10, 10_000),
                           hold_s=check_number("animation", "hold_s", d.get("hold_s", 4.0), 0, 600))


def _buttons(d: Mapping) -> ButtonConfig:
    only_keys("buttons", d, {"pins", "pull_up", "debounce_ms", "long_press_ms", "long_press_only", "backend"})
    backend = d.get("backend", "auto")
    if backend not in BUTTON_BACKENDS:
        raise HardwareConfigError(Text(N_("[buttons] backend %(backend)s is not known (use %(choices)s)"),
                                       backend=repr(backend), choices=", ".join(BUTTON_BACKENDS)))
    pins = d.get("pins", {})
    if not isinstance(pins, Mapping):
        raise HardwareConfigError(Text(N_("[buttons] pins must be a table like {monster = 17, confirm = 27, undo = 22}")))
    known = ("monster", "confirm", "undo")
    clean: dict[str, int] = {}
    for name, pin in pins.items():
        if name not in known:
            raise HardwareConfigError(Text(N_("[buttons.pins] %(name)s is not a button (use %(choices)s)"),
                                           name=repr(name), choices=", ".join(known)))
        if isinstance(pin, bool) or not isinstance(pin, int) or not 0 <= pin <= 27:
            raise HardwareConfigError(Text(N_("[buttons.pins] %(name)s = %(pin)s is not a BCM GPIO number (0–27)"),
                                           name=name, pin=repr(pin)))
        if pin in clean.values():
            other = next(k for k, v in clean.items() if v == pin)
            raise HardwareConfigError(Text(N_("[buttons.pins] %(name)s and %(other)s are both on GPIO%(pin)s (a button "
                                              "your file does not list keeps its default pin: monster 17, confirm 27, "
                                              "undo 22)"), name=name, other=other, pin=pin))
        clean[name] = pin
    only = d.get("long_press_only", ["undo"])
    if not isinstance(only, (list, tuple)):
        raise HardwareConfigError(Text(N_("[buttons] long_press_only must be a list like [\"undo\"], not %(value)s"),
                                       value=repr(only)))
    bad = [n for n in only if n not in known]
    if bad:
        raise HardwareConfigError(Plural("[buttons] long_press_only names an unknown button %(names)s",
                                         "[buttons] long_press_only names unknown buttons %(names)s", len(bad),
                                         names=", ".join(map(str, bad))))
    pull_up = d.get("pull_up", True)
    if not isinstance(pull_up, bool):
        raise HardwareConfigError(not_a_switch("buttons", "pull_up", pull_up))
    return ButtonConfig(pins=clean, pull_up=pull_up,
                        debounce_ms=check_number("buttons", "debounce_ms", d.get("debounce_ms", 40.0), 0, 1000),
                        long_press_ms=check_number("buttons", "long_press_ms", d.get("long_press_ms", 800.0), 50, 10_000),
                        long_press_only=tuple(only), backend=backend)


def default_dict() -> dict:
    return _read_toml(DEFAULT_PATH)


def load_config(source: str | Path | Mapping | HardwareConfig | None = None) -> HardwareConfig:
    """Read a configuration from a TOML path, a dict (same shape) or None (the defaults).

    Raises HardwareConfigError naming the section and key at fault.
    """
    if isinstance(source, HardwareConfig):
        return source
    base = default_dict()
    label = "defaults"
    if source is None:
        data = base
    elif isinstance(source, Mapping):
        data, label = _merge(base, source), "dict"
    else:
        data, label = _merge(base, _read_toml(Path(source))), str(source)
    only_keys("top level", data, {"layout", "serial", "power", "animation", "buttons"})
    for section in ("layout", "serial", "power", "animation", "buttons"):   # `serial = 5`: one plain line
        if not isinstance(data.get(section, {}), Mapping):
            raise HardwareConfigError(not_a_section(section, data[section]))
    cfg = HardwareConfig(layout=dict(data.get("layout", {})), serial=_serial(data.get("serial", {})),
                         power=_power(data.get("power", {})), animation=_animation(data.get("animation", {})),
                         buttons=_buttons(data.get("buttons", {})), source=label)
    from hardware.layout import LedLayout
    layout = LedLayout.from_config(cfg.layout)  # refuse a bad layout now, with its message
    from hardware.protocol import MOST_LEDS
    if layout.led_count > MOST_LEDS[cfg.serial.protocol]:   # the protocol was checked above
        raise HardwareConfigError(Text(N_("[layout] needs %(count)s LEDs, too many for [serial] protocol "
                                          "%(protocol)s (a frame carries at most %(most)s)"), count=layout.led_count,
                                       protocol=cfg.serial.protocol, most=MOST_LEDS[cfg.serial.protocol]))
    return cfg
