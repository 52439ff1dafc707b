"""``flure doctor``: is this table ready?  One line per thing checked, ``ok`` or what to do.

Each check opens the real thing the session would open (the camera through the same frame
source, the LED device through pyserial with WLED's own JSON request, the buttons through
gpiozero's pin factory, the database folder, the web port) and says in words what is
wrong.  Nothing here raises: a check that fails unexpectedly reports its exception's text.
"""
from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from ..table.checks import (MIN_FREE_MB, Finding, calibration_problems, check_board,  # noqa: F401 - re-exported
                            check_calibration, check_database)

CAMERA_TIMEOUT_S = 10.0     # for the first frame (the Pi camera takes a few seconds to start)
WLED_ANSWER_S = 1.5         # a stock WLED answers {"v":true} within milliseconds


def run_checks(config, *, pin_factory=None, camera_timeout: float = CAMERA_TIMEOUT_S) -> list[Finding]:
    """Every check for one TableConfig, in the order a table owner would fix them."""
    findings: list[Finding] = []
    for check in (lambda: check_calibration(config),
                  lambda: check_camera(config, timeout=camera_timeout),
                  lambda: check_leds(config),
                  lambda: check_buttons(config, pin_factory),
                  lambda: check_database(config),
                  lambda: check_port(config)):
        try:
            findings += check()
        except Exception as exc:  # noqa: BLE001 - doctor reports, it never crashes
            findings.append(Finding("check", False, f"unexpected failure: {exc}"))
    return findings


# --- camera ----------------------------------------------------------------------------------------

def check_camera(config, timeout: float = CAMERA_TIMEOUT_S) -> list[Finding]:
    cam = config.camera
    if not cam.enabled:
        return [Finding("camera", True, "switched off ([camera] source = \"none\"): the referee enters moves by tapping")]
    from vision.sources import SourceError, open_source

    width, height = cam.resolution
    try:
        source = open_source(cam.source, **cam.source_options())
    except SourceError as exc:
        return [Finding("camera", False, f"{exc}; set [camera] source (a USB index like \"0\", \"picamera\", "
                                         "or \"synthetic\")")]
    exposure = []
    if cam.exposure.locked:
        note = getattr(source, "exposure_note", "") or "this source has no exposure controls"
        honoured = note.startswith("exposure locked") and "not honoured" not in note
        exposure = [Finding("exposure", honoured, note if honoured else
                            f"{note}: remove what it ignores from [camera.exposure], or set it in the camera's "
                            "own tool (v4l2-ctl for a USB camera)")]
    try:
        frame, fps = _first_frames(source, timeout)
    finally:
        source.close()
    if frame is None:
        return [Finding("camera", False, f"{cam.source!r} opened but gave no picture within {timeout:.0f} s: "
                                         "check its cable (and for the Pi camera: sudo rpicam-hello)")]
    out = []
    got = (frame.shape[1], frame.shape[0])
    if got != (width, height):
        out.append(Finding("camera", False, f"{cam.source!r} gives {got[0]}×{got[1]}, not the configured "
                                            f"{width}×{height}: set [camera] resolution = [{got[0]}, {got[1]}] "
                                            "or use a camera that supports it"))
    else:
        out.append(Finding("camera", True, f"{cam.source!r} opens and gives {width}×{height}"))
    if fps is not None:
        if fps + 0.05 < cam.fps:
            out.append(Finding("frame rate", False, f"the camera delivers {fps:.1f} frames a second, fewer than "
                                                    f"[camera] fps = {cam.fps:g}: lower fps or the resolution"))
        else:
            out.append(Finding("frame rate", True, f"{fps:.1f} frames a second (the session reads {cam.fps:g})"))
    out += exposure + check_board(frame, config)
    return out


def _first_frames(source, timeout: float, count: int = 4):
    """(first frame, measured frames per second over ``count`` more) or (None, None)."""
    end = time.monotonic() + timeout
    frame = None
    while frame is None and time.monotonic() < end:
        frame = source.read()
        if frame is None:
            time.sleep(0.1)
    if frame is None:
        return None, None
    start = time.monotonic()
    got = 0
    while got < count and time.monotonic() < end:
        if source.read() is not None:
            got += 1
    elapsed = time.monotonic() - start
    return frame, (got / elapsed if got and elapsed > 0 else None)


# --- LED device ---------------------------------------------------------------------------------------

def check_leds(config) -> list[Finding]:
    serial_cfg = config.hardware.serial
    url = serial_cfg.url
    if url == "emulator":
        return [Finding("LED device", True, "the simulated device ([serial] url = \"emulator\"); "
                                            "set url = \"/dev/flure-leds\" for the real LED controller")]
    if "://" not in url:
        path = Path(url)
        if not path.exists():
            hint = (" (deploy/install.sh's udev rule names a CP210x, CH340, CH9102 or FTDI board so)"
                    if url == "/dev/flure-leds" else "")
            return [Finding("LED device", False, f"{url} is not there: plug in the LED controller's USB cable"
                                                 f"{hint}; ls /dev/serial/by-id/ lists serial devices")]
        if not os.access(path, os.R_OK | os.W_OK):
            group = _group_of(path)
            return [Finding("LED device", False, f"{url}: no permission to use it; add this user to the "
                                                 f"'{group}' group (sudo usermod -aG {group} $USER, then log in "
                                                 "again; the service's user flure is in dialout)")]
    from hardware.layout import LedLayout
    return [_wled_answer(url, serial_cfg, LedLayout.from_config(config.hardware.layout).led_count)]


def _group_of(path: Path) -> str:
    import grp
    try:
        return grp.getgrgid(path.stat().st_gid).gr_name
    except (KeyError, OSError):
        return "dialout"


def _wled_answer(url: str, serial_cfg, need: int) -> Finding:
    """Send WLED's JSON state request ``{"v":true}`` and wait for its JSON answer."""
    import serial

    from hardware.link import plain_error

    bauds = [serial_cfg.baud] + ([serial_cfg.switch_from] if serial_cfg.switch_from else [])
    for baud in bauds:
        try:
            port = serial.serial_for_url(url, baudrate=baud, timeout=0.1, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            return Finding("LED device", False, plain_error(url, exc, baud))
        try:
            port.reset_input_buffer()
            port.write(b'{"v":true}')
            reply = _read_json(port, WLED_ANSWER_S)
        except (serial.SerialException, OSError) as exc:
            return Finding("LED device", False, plain_error(url, exc, baud))
        finally:
            port.close()
        if reply is not None:
            info = reply.get("info", {}) if isinstance(reply, dict) else {}
            leds = info.get("leds", {}).get("count") if isinstance(info.get("leds"), dict) else None
            text = f"{url} answers: WLED {info.get('ver', '?')}" + (f", {leds} LEDs configured" if leds else "")
            if leds and leds < need:
                return Finding("LED device", False, text + f", but the grid needs {need}: set the LED count in "
                                                           "WLED's LED preferences")
            return Finding("LED device", True, text + f" at {baud} baud")
    return Finding("LED device", False, f"{url} is there but does not answer WLED's state request at "
                                        f"{' or '.join(map(str, bauds))} baud: is it running WLED, with the same "
                                        "baud rate in Config > Sync interfaces > Serial?")


def _read_json(port, wait_s: float):
    """The first complete JSON object read within ``wait_s`` (WLED ends it without a newline)."""
    buf = b""
    end = time.monotonic() + wait_s
    decoder = json.JSONDecoder()
    while time.monotonic() < end:
        chunk = port.read(4096)
        if chunk:
            buf += chunk
            start = buf.find(b"{")
            if start >= 0:
                try:
                    obj, _ = decoder.raw_decode(buf[start:].decode("utf-8", "replace"))
                    return obj
                except ValueError:
                    continue
    return None


# --- buttons -------------------------------------------------------------------------------------------

def check_buttons(config, pin_factory=None) -> list[Finding]:
    import warnings

    cfg = config.hardware.buttons
    pins = ", ".join(f"{name} GPIO{pin}" for name, pin in cfg.pins.items())
    from gpiozero import Button, Device
    from gpiozero.exc import BadPinFactory, GPIOZeroError

    from hardware.buttons import make_pin_factory

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factory = pin_factory
            if factory is None and cfg.backend != "auto":
                factory = make_pin_factory(cfg.backend)
            if factory is None:
                factory = Device.pin_factory or Device._default_pin_factory()
    except (BadPinFactory, RuntimeError) as exc:
        text = str(exc) if isinstance(exc, RuntimeError) else "no GPIO pin library works here"
        if not is_raspberry_pi():
            return [Finding("buttons", True, f"off: this is not a Raspberry Pi (no GPIO); the referee view "
                                             f"does what the buttons ({pins}) would")]
        return [Finding("buttons", False, f"{text}: on a Raspberry Pi install python3-lgpio (deploy/install.sh "
                                          "does); elsewhere the buttons stay off and the referee view does the same")]
    name = type(factory).__name__
    opened = []
    try:
        for button, pin in cfg.pins.items():
            try:
                opened.append(Button(pin, pull_up=cfg.pull_up, pin_factory=factory))
            except (GPIOZeroError, OSError, RuntimeError) as exc:
                return [Finding("buttons", False, f"{button} button on GPIO{pin}: {exc}; pick a free pin in "
                                                  "[buttons] pins (hardware/README.md)")]
    finally:
        for btn in opened:
            btn.close()
    return [Finding("buttons", True, f"{pins} open ({name})")]


def is_raspberry_pi(model_file: str = "/proc/device-tree/model") -> bool:
    try:
        return "Raspberry Pi" in Path(model_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


# --- port ---------------------------------------------------------------------------------------------

def check_port(config) -> list[Finding]:
    host, port = config.web.host, config.web.port
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == 98:      # EADDRINUSE
                from ..web.systemd import health_check, local_url
                if health_check(local_url(host, port), timeout=2)():
                    return [Finding("web port", False, f"{host}:{port} is in use by a running flure session: stop "
                                                       "it (sudo systemctl stop flure) to check the devices it holds")]
                return [Finding("web port", False, f"{host}:{port} is in use by another program: stop it or set "
                                                   "[web] port")]
            if exc.errno == 13:
                return [Finding("web port", False, f"port {port} needs root: use a port above 1023")]
            return [Finding("web port", False, f"cannot listen on {host}:{port} ({exc.strerror}): set [web] host")]
    return [Finding("web port", True, f"{host}:{port} is free")]
