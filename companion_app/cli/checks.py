"""``flure doctor``: is this table ready?  One line per thing checked, ``ok`` or what to do.

Each check opens the real thing the session would open (the camera through the same frame
source, the LED device through pyserial with WLED's own JSON request, the buttons through
gpiozero's pin factory, the database folder, the web port) and says in words what is
wrong.  Nothing here raises: a check that fails unexpectedly reports its exception's text.
Each finding is worded in ``lang`` (the command's language; the errors quoted from other
packages, like pyserial's or the camera's, stay as those packages word them).
"""
from __future__ import annotations

import errno
import json
import os
import re
import socket
import time
from pathlib import Path

from engine.wording import os_reason

from ..i18n import DEFAULT
from ..i18n import gettext as _g
from ..i18n.text import error_text, render
from ..table.setup.checks import MIN_FREE_MB, Finding, calibration_problems, check_board, check_calibration, check_database  # noqa: F401 - re-exported

N_ = lambda s: s   # noqa: E731 - marks a topic for extraction; Finding.line words it

CAMERA_TIMEOUT_S = 10.0     # for the first frame (the Pi camera takes a few seconds to start)
WLED_ANSWER_S = 1.5         # a stock WLED answers {"v":true} within milliseconds


def run_checks(config, *, pin_factory=None, camera_timeout: float = CAMERA_TIMEOUT_S,
               lang: str = DEFAULT) -> list[Finding]:
    """Every check for one TableConfig, in the order a table owner would fix them."""
    findings: list[Finding] = []
    for check in (lambda: check_calibration(config, lang),
                  lambda: check_pieces(config, lang),
                  lambda: check_camera(config, timeout=camera_timeout, lang=lang),
                  lambda: check_leds(config, lang),
                  lambda: check_buttons(config, pin_factory, lang),
                  lambda: check_speaker(config, lang),
                  lambda: check_database(config, lang),
                  lambda: check_port(config, lang)):
        try:
            findings += check()
        except Exception as exc:  # noqa: BLE001 - doctor reports, it never crashes
            findings.append(Finding(N_("check"), False, _g(lang, "unexpected failure: %(why)s", why=exc)))
    return findings


# --- camera ----------------------------------------------------------------------------------------

def check_camera(config, timeout: float = CAMERA_TIMEOUT_S, lang: str = DEFAULT) -> list[Finding]:
    cam = config.camera
    if not cam.enabled:
        return [Finding(N_("camera"), True, _g(lang, "switched off ([camera] source = \"none\"): the referee enters "
                                                     "moves by tapping"))]
    if cam.source == "phone":
        return check_phone(config, lang)
    from vision.sources import SourceError, open_source

    width, height = cam.resolution
    try:
        source = open_source(cam.source, **cam.source_options())
    except SourceError as exc:
        return [Finding(N_("camera"), False, _g(lang, "%(why)s; set [camera] source (a USB index like \"0\", "
                                                      "\"picamera\", or \"synthetic\")", why=render(exc, lang)))]
    exposure = []
    if cam.exposure.locked:
        said = getattr(source, "exposure_note", "")    # a Said: English, with its wording data (vision.sources)
        honoured = getattr(source, "exposure_honoured", False)   # a source without exposure controls: not
        note = render(getattr(said, "text", said), lang) or _g(lang, "this source has no exposure controls")
        exposure = [Finding(N_("exposure"), honoured, note if honoured else
                            _g(lang, "%(note)s: remove what it ignores from [camera.exposure], or set it in the "
                                     "camera's own tool (v4l2-ctl for a USB camera)", note=note))]
    try:
        frame, fps = _first_frames(source, timeout)
    finally:
        source.close()
    if frame is None:
        return [Finding(N_("camera"), False, _g(lang, "%(source)s opened but gave no picture within %(seconds)s s: "
                                                      "check its cable (and for the Pi camera: sudo rpicam-hello)",
                                                source=repr(cam.source), seconds=f"{timeout:.0f}"))]
    out = []
    got = (frame.shape[1], frame.shape[0])
    if got != (width, height):
        out.append(Finding(N_("camera"), False, _g(lang, "%(source)s gives %(got)s, not the configured %(size)s: set "
                                                         "[camera] resolution = %(setting)s or use a camera that "
                                                         "supports it", source=repr(cam.source),
                                                   got=f"{got[0]}×{got[1]}", size=f"{width}×{height}",
                                                   setting=f"[{got[0]}, {got[1]}]")))
    else:
        out.append(Finding(N_("camera"), True, _g(lang, "%(source)s opens and gives %(size)s", source=repr(cam.source),
                                                  size=f"{width}×{height}")))
    if fps is not None:
        if fps + 0.05 < cam.fps:
            out.append(Finding(N_("frame rate"), False, _g(lang, "the camera delivers %(got)s frames a second, fewer "
                                                                 "than [camera] fps = %(fps)s: lower fps or the "
                                                                 "resolution", got=f"{fps:.1f}", fps=f"{cam.fps:g}")))
        else:
            out.append(Finding(N_("frame rate"), True, _g(lang, "%(got)s frames a second (the session reads %(fps)s)",
                                                          got=f"{fps:.1f}", fps=f"{cam.fps:g}")))
    out += exposure + (check_board(frame, config, lang) if cam.pieces is None else _board_by_picture(frame, config, lang))
    return out


# --- without stickers (NOSTICKERS.md) ----------------------------------------------------------------

def _pieces(config):
    from vision.nostickers import Pieces

    return Pieces.load(config.camera.pieces)


def check_pieces(config, lang: str = DEFAULT) -> list[Finding]:
    """``[camera] pieces`` (``--pieces``): the file flure teach wrote, read whole; nothing when it is not set."""
    path = config.camera.pieces
    if path is None:
        return []
    from vision.nostickers import PiecesError

    try:
        pieces = _pieces(config)
    except PiecesError as exc:
        return [Finding(N_("pieces"), False, _g(lang, "%(why)s; teach again with flure teach or remove [camera] pieces",
                                                why=error_text(exc, lang)))]
    return [Finding(N_("pieces"), True, _g(lang, "%(path)s: %(faces)s piece faces and %(tiles)s tombstone tiles taught; "
                                                 "the camera reads the pieces without stickers", path=path,
                                           faces=len(pieces.faces), tiles=len(pieces.tiles)))]


def _board_by_picture(frame, config, lang: str) -> list[Finding]:
    """Without stickers the board is located by its printed picture, as taught (``BoardReference.locate``)."""
    from vision.nostickers import PiecesError
    from vision.nostickers.board import Lens

    try:
        pieces = _pieces(config)
    except PiecesError:
        return []     # said under "pieces"
    calibration = None
    if config.camera.calibration is not None:
        from calibration.store import CalibrationError, load_calibration
        try:
            calibration = load_calibration(config.camera.calibration)
        except CalibrationError:
            pass      # said under "calibration"
    lens = Lens(calibration)
    location, why = pieces.board.locate(lens.undistort(frame), lens)
    if location is None:
        return [Finding(N_("board"), False, _g(lang, "%(why)s: put the whole board in view, as when it was taught",
                                               why=render(why, lang)))]
    return [Finding(N_("board"), True, _g(lang, "located by its picture"))]


def check_phone(config, lang: str = DEFAULT) -> list[Finding]:
    """A phone as the camera: it sends frames to the running session only, so the doctor checks
    what the phone needs from this machine, the HTTPS certificate; the live state is on the Devices card."""
    from ..tls import TlsError, default_folder, ensure_certificate, table_addresses, table_names

    out = [Finding(N_("camera"), True, _g(lang, "a phone's camera page sends the frames while flure play runs "
                                                "(https://…:%(port)s/camera); the referee's Devices card and the "
                                                "Setup page show whether it is connected", port=config.web.https_port))]
    try:
        files = ensure_certificate(default_folder(config.web.database_path()), table_names(config.web.public_host),
                                   table_addresses())
    except TlsError as exc:
        return out + [Finding(N_("HTTPS"), False, render(exc.text or str(exc), lang))]
    return out + [Finding(N_("HTTPS"), True, _g(lang, "certificate %(path)s (authority SHA-256 %(fingerprint)s)",
                                                path=files.cert, fingerprint=files.fingerprint[:23] + "…"))]


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

def check_leds(config, lang: str = DEFAULT) -> list[Finding]:
    serial_cfg = config.hardware.serial
    url = serial_cfg.url
    if url == "emulator":
        return [Finding(LED_DEVICE, True, _g(lang, "the simulated device ([serial] url = \"emulator\"); set url = "
                                                   "\"/dev/flure-leds\" for the real LED controller"))]
    if "://" not in url:
        path = Path(url)
        if not path.exists():
            hint = (_g(lang, " (deploy/install.sh's udev rule names a CP210x, CH340, CH9102 or FTDI board so)")
                    if url == "/dev/flure-leds" else "")
            return [Finding(LED_DEVICE, False, _g(lang, "%(url)s is not there: plug in the LED controller's USB "
                                                        "cable%(hint)s; ls /dev/serial/by-id/ lists serial devices",
                                                  url=url, hint=hint))]
        if not os.access(path, os.R_OK | os.W_OK):
            group = _group_of(path)
            return [Finding(LED_DEVICE, False, _g(lang, "%(url)s: no permission to use it; add this user to the "
                                                        "'%(group)s' group (sudo usermod -aG %(group)s $USER, then "
                                                        "log in again; the service's user flure is in dialout)",
                                                  url=url, group=group))]
    from hardware.layout import LedLayout
    return [_wled_answer(url, serial_cfg, LedLayout.from_config(config.hardware.layout).led_count, lang)]


def _group_of(path: Path) -> str:
    import grp
    try:
        return grp.getgrgid(path.stat().st_gid).gr_name
    except (KeyError, OSError):
        return "dialout"


LED_DEVICE = N_("LED device")


def _wled_answer(url: str, serial_cfg, need: int, lang: str = DEFAULT) -> Finding:
    """Send WLED's JSON state request ``{"v":true}`` and wait for its JSON answer.  The request follows the
    protocol's flush, so a board left inside a frame cut earlier (the table session stopped mid-write) reads it
    as a request, not as pixels."""
    import serial

    from hardware.link import plain_error
    from hardware.protocol import make_encoder

    bauds = [serial_cfg.baud] + ([serial_cfg.switch_from] if serial_cfg.switch_from else [])
    for baud in bauds:
        try:
            port = serial.serial_for_url(url, baudrate=baud, timeout=0.1, write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            return Finding(LED_DEVICE, False, render(plain_error(url, exc, baud).text, lang))
        try:
            port.reset_input_buffer()
            port.write(make_encoder(serial_cfg.protocol, need).flush + b'{"v":true}')
            reply = _read_json(port, WLED_ANSWER_S)
        except (serial.SerialException, OSError) as exc:
            return Finding(LED_DEVICE, False, render(plain_error(url, exc, baud).text, lang))
        finally:
            port.close()
        if reply is not None:
            info = reply.get("info", {}) if isinstance(reply, dict) else {}
            leds = info.get("leds", {}).get("count") if isinstance(info.get("leds"), dict) else None
            text = _g(lang, "%(url)s answers: WLED %(version)s", url=url, version=info.get("ver", "?")) + (
                _g(lang, ", %(count)s LEDs configured", count=leds) if leds else "")
            if leds and leds < need:
                return Finding(LED_DEVICE, False, text + _g(lang, ", but the grid needs %(need)s: set the LED count "
                                                                  "in WLED's LED preferences", need=need))
            return Finding(LED_DEVICE, True, text + _g(lang, " at %(baud)s baud", baud=baud))
    return Finding(LED_DEVICE, False, _g(lang, "%(url)s is there but does not answer WLED's state request at "
                                               "%(bauds)s baud: is it running WLED, with the same baud rate in "
                                               "Config > Sync interfaces > Serial?", url=url,
                                         bauds=_g(lang, " or ").join(map(str, bauds))))


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

def check_buttons(config, pin_factory=None, lang: str = DEFAULT) -> list[Finding]:
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
        text = str(exc) if isinstance(exc, RuntimeError) else _g(lang, "no GPIO pin library works here")
        if not is_raspberry_pi():
            return [Finding(N_("buttons"), True, _g(lang, "off: this is not a Raspberry Pi (no GPIO); the referee view "
                                                          "does what the buttons (%(pins)s) would", pins=pins))]
        return [Finding(N_("buttons"), False, _g(lang, "%(why)s: on a Raspberry Pi install python3-lgpio "
                                                       "(deploy/install.sh does); elsewhere the buttons stay off and "
                                                       "the referee view does the same", why=text))]
    name = type(factory).__name__
    opened = []
    try:
        for button, pin in cfg.pins.items():
            try:
                opened.append(Button(pin, pull_up=cfg.pull_up, pin_factory=factory))
            except (GPIOZeroError, OSError, RuntimeError) as exc:
                return [Finding(N_("buttons"), False, _g(lang, "%(button)s button on GPIO%(pin)s: %(why)s; pick a "
                                                               "free pin in [buttons] pins (hardware/README.md)",
                                                         button=button, pin=pin, why=exc))]
    finally:
        for btn in opened:
            btn.close()
    return [Finding(N_("buttons"), True, _g(lang, "%(pins)s open (%(name)s)", pins=pins, name=name))]


def is_raspberry_pi(model_file: str = "/proc/device-tree/model") -> bool:
    try:
        return "Raspberry Pi" in Path(model_file).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


# --- speaker -------------------------------------------------------------------------------------------

SPEAKER = N_("speaker")


def check_speaker(config, lang: str = DEFAULT) -> list[Finding]:
    """espeak-ng installed and speaking the configured voice (quietly: ``-q`` makes no sound)."""
    import shutil
    import subprocess

    from hardware.speaker import COMMAND, command_line, voice_for

    cfg = config.speaker
    if not cfg.enabled:
        return [Finding(SPEAKER, True, _g(lang, "off ([speaker] enabled = false): the steps are not read aloud on "
                                                "the table (the phones can read them)"))]
    voice = voice_for(config.table.language, cfg.voice)
    executable = shutil.which(COMMAND)
    if executable is None:
        return [Finding(SPEAKER, False, _g(lang, "espeak-ng is not installed: sudo apt install espeak-ng "
                                                 "(deploy/install.sh does), or set [speaker] enabled = false"))]
    if not _sound_card():
        return [Finding(SPEAKER, False, _g(lang, "no sound card: plug in a USB speaker, or turn the Pi's own audio "
                                                 "on (dtparam=audio=on in /boot/firmware/config.txt)"))]
    argv = command_line(executable, "ok", voice, cfg.rate)
    try:
        done = subprocess.run([argv[0], "-q", *argv[1:]], capture_output=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [Finding(SPEAKER, False, _g(lang, "espeak-ng could not be run: %(why)s", why=exc))]
    said = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode != 0 or said:
        return [Finding(SPEAKER, False, _g(lang, "espeak-ng cannot speak with the voice %(voice)s (%(why)s): set "
                                                 "[speaker] voice to one that espeak-ng --voices lists",
                                           voice=repr(voice), why=said.splitlines()[0] if said else
                                           _g(lang, "exit status %(code)s", code=done.returncode)))]
    return [Finding(SPEAKER, True, _g(lang, "espeak-ng speaks with the voice %(voice)s, %(rate)s words a minute",
                                      voice=repr(voice), rate=cfg.rate))]


def _sound_card(cards: str = "/proc/asound/cards") -> bool:
    """ALSA lists a sound card (a machine without /proc/asound is not judged: True).  Judged by the file's
    form (each card is a line ``<index> [<id>]: <driver> - <name>``), not by ALSA's wording for none."""
    try:
        text = Path(cards).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return any(re.match(r"\s*\d+\s+\[", line) for line in text.splitlines())


# --- port ---------------------------------------------------------------------------------------------

def check_port(config, lang: str = DEFAULT) -> list[Finding]:
    """The web port, and the HTTPS port the camera page needs (unless ``https_port`` is 0: any free one)."""
    host, port = config.web.host, config.web.port
    findings = [_check_one_port(WEB_PORT, host, port, port, lang)]
    if config.web.https_port:
        findings.append(_check_one_port(HTTPS_PORT, host, config.web.https_port, port, lang))
    return findings


def _check_one_port(topic: str, host: str, port: int, web_port: int, lang: str) -> Finding:
    """One port free to listen on; a busy one names what holds it (a running session answers on ``web_port``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                from ..web.systemd import health_check, local_url
                if health_check(local_url(host, web_port), timeout=2)():
                    return Finding(topic, False, _g(lang, "%(address)s is in use by a running flure session: "
                                                          "stop it (sudo systemctl stop flure) to check the "
                                                          "devices it holds", address=f"{host}:{port}"))
                busy = (N_("%(address)s is in use by another program: stop it or set [web] port") if topic == WEB_PORT
                        else N_("%(address)s is in use by another program: stop it or set [web] https_port"))
                return Finding(topic, False, _g(lang, busy, address=f"{host}:{port}"))
            if exc.errno == errno.EACCES:
                return Finding(topic, False, _g(lang, "port %(port)s needs root: use a port above 1023",
                                                port=port))
            return Finding(topic, False, _g(lang, "cannot listen on %(address)s (%(why)s): set [web] host",
                                            address=f"{host}:{port}", why=render(os_reason(exc), lang)))
    return Finding(topic, True, _g(lang, "%(address)s is free", address=f"{host}:{port}"))


WEB_PORT = N_("web port")
HTTPS_PORT = N_("HTTPS port")
