"""The table's devices, each optional and each failing softly, and opening them for ``flure play``.

A missing package, a camera that is not plugged in or a Pi-only GPIO library
on a laptop all give a ``Device`` with ``obj=None`` and a sentence saying why,
which the referee view shows.  Nothing here raises.  A fixed sentence is wording data
(``engine.wording.Text``): ``status()`` gives it as a ``Said`` (its English ``str`` keeping its
wording), said in each reader's language at the edge, and ``flure play`` prints it in the
command's language; an exception's own text stays as its library wrote it.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from engine.actions import Draw
from engine.wording import N_, Join, Said, Term, Text
from vision.problems import problem_words

from ..actors import By, Trigger
from ..camera.frames import MAX_READ_SIDE, KeepLastFrame
from .interfaces import Buttons, Camera, Leds, Speaker

# The devices' names, said in a device's failure ("%(device)s failed: …", Device.call).
DEVICE_NAMES = (N_("camera"), N_("LED grid"), N_("speaker"), N_("buttons"))

if TYPE_CHECKING:
    from ..session.session import TableSession

log = logging.getLogger(__name__)
D = TypeVar("D")   # the device's interface: Camera, Leds, Buttons or Speaker
R = TypeVar("R")


@dataclass
class Device(Generic[D]):
    """A device the session may use; ``obj`` None means absent, with ``why`` saying so.

    ``obj`` is typed by its interface (``interfaces.py``), and the session calls it through
    ``call(lambda leds: leds.show_error())``: a method name lives in code, where a rename shows.
    """

    name: str
    obj: D | None = None
    why: str | Text = Text(N_("not connected"))
    last_error: str | None = None
    note: str | Text | Join = ""   # what the device is (shown while it works)
    startup: str | Text = ""   # a problem seen while opening: printed once by flure play, not a live status
    off: bool = False   # absent on purpose (switched off, not a Raspberry Pi): nothing to fix
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def call(self, use: Callable[[D], R]) -> R | None:
        """``use(obj)``; a failure is recorded for the referee, never raised (None then, or when absent)."""
        if self.obj is None:
            return None
        try:
            with self._lock:   # device objects are not thread-safe; requests come from many threads
                result = use(self.obj)
        except Exception as exc:  # noqa: BLE001 - any device failure must not stop the game
            error = Said(Text(N_("%(device)s failed: %(error)s"), device=Term(self.name), error=exc))
            if error != self.last_error:        # the log gets it once per cause, not at every call
                log.warning(error)
            self.last_error = error
            return None
        if self.last_error is not None:
            log.warning("%s works again", self.name)
        self.last_error = None
        return result

    def status(self) -> dict:
        out: dict = {"present": self.obj is not None}
        if self.obj is None:
            if self.off:
                out["off"] = True
            out["message"] = self.why if isinstance(self.why, str) else Said(self.why)
            return out
        try:
            detail = self.obj.status()
        except Exception as exc:  # noqa: BLE001
            detail = {"error": str(exc)}
        problems = detail.get("problems") or []   # the camera's last problem: its reading's words (vision.problems)
        if detail.get("last_problem") and isinstance(problems[0] if problems else None, dict) \
                and problems[0].get("message") == detail["last_problem"]:
            detail["last_problem"] = Said(problem_words(problems[0]))
        out["detail"] = detail
        # what the frame wrapper did to frames the reader could not use (frames.KeepLastFrame)
        frames_note = getattr(getattr(self.obj, "source", None), "note", "")
        parts = [part for part in (self.note, frames_note) if part]
        if parts:
            out["note"] = Said(Join("; ", parts))
        if self.last_error:
            out["error"] = self.last_error
        return out


def open_camera(spec: str | None, get_state: Callable[[], tuple], camera_config=None,
                stable_frames: int = 3, *, on_update: Callable | None = None, fps: float | None = None,
                read_timeout: float = 3.0, open_frames: Callable | None = None, pieces=None,
                prior: Callable | None = None) -> Device[Camera]:
    """The camera worker watching ``spec`` (None or "synthetic": the digital twin rendering the game's position).

    ``camera_config`` (a table configuration's CameraConfig) brings the resolution, the frame
    rate, the lens calibration, the marker scheme and the reader's thresholds; a calibration
    that cannot be used leaves the camera off with the reason (a wrong lens model would
    misplace pieces).  A source that cannot be opened now (unplugged) is retried by the
    worker; only a spec that names no kind of source at all gives an absent device.
    ``on_update`` receives every update of the worker (the session's ``on_camera``).
    ``open_frames``, when given, opens the frame source instead of ``spec`` (the simulated table).
    With ``prior`` the frames are read without stickers (``camera.nostickers.PiecesReader``), each against
    ``prior()`` (``camera.nostickers.table_prior``: the game's position and what a legal change can leave
    where), with ``pieces`` (a ``vision.nostickers.Pieces``, what ``flure teach`` learned; None: taught
    later through the reader's ``taught``, as the simulated table teaches itself).
    """
    try:
        from vision.pipeline import TableCamera
        from vision.sources import SourceError, UnknownSourceError, open_source

        from ..camera.watcher import CameraWorker

        spec = spec or "synthetic"
        options = {"get_state": get_state} if spec == "synthetic" else {}
        extra, rate = {}, 4.0
        if camera_config is not None:
            options.update(camera_config.source_options())
            rate = camera_config.fps
            calibration = None
            if camera_config.calibration is not None:
                from calibration.store import load_calibration
                calibration = load_calibration(camera_config.calibration)
                if tuple(calibration.image_size) != tuple(camera_config.resolution):
                    (w, h), (cw, ch) = camera_config.resolution, calibration.image_size
                    from ...config import TableConfigError
                    raise TableConfigError(Text(N_("the calibration %(path)s was made at %(made)s but [camera] "
                                                   "resolution is %(size)s; calibrate again at that size (flure "
                                                   "calibrate camera) or set the resolution back"),
                                                path=str(camera_config.calibration), made=f"{cw}×{ch}",
                                                size=f"{w}×{h}"))
            extra = {"scheme": None if camera_config.marker_scheme is None else str(camera_config.marker_scheme),
                     "calibration": calibration, "config": camera_config.reader_config()}
        calibrated = extra.get("calibration")
        size = calibrated.image_size if calibrated is not None else None
        if size is None:
            options["max_side"] = MAX_READ_SIDE   # a folder of big photos decodes them smaller (vision.sources)

        if open_frames is not None:      # the simulated table's camera (it films the simulated players), or a phone's
            make = open_frames
            what = getattr(open_frames, "what", None) or Text(N_("the simulated table's camera"))
            note = getattr(open_frames, "note", None) or \
                Text(N_("simulated table (the synthetic camera films simulated players acting on it)"))
        else:
            def make():
                return open_source(spec, **dict(options))
            what = Text(N_("the synthetic camera")) if spec == "synthetic" else Text(N_("camera %(spec)s"), spec=spec)
            note = Text(N_("digital twin (synthetic camera showing the game's position)")) if spec == "synthetic" \
                else spec

        def opened():
            return KeepLastFrame(make(), calibrated_size=size)

        first = []
        if open_frames is None:
            try:
                first = [opened()]
            except UnknownSourceError:
                raise
            except SourceError:
                first = []          # not there now: the worker says so and tries again

        def source():
            return first.pop() if first else opened()

        parts = [note]
        if first and getattr(first[0].source, "exposure_note", ""):
            note_said = first[0].source.exposure_note     # vision.sources: a Said (its wording data in .text)
            parts.append(getattr(note_said, "text", note_said))
        if extra.get("calibration") is not None:
            parts.append(Text(N_("lens calibration %(path)s"), path=str(camera_config.calibration)))
        note = Join(", ", parts) if len(parts) > 1 else note
        if prior is not None:
            from ..camera.nostickers import PiecesReader

            reader = PiecesReader(pieces, prior, calibration=extra.get("calibration"),
                                  path=getattr(camera_config, "pieces", None))
            taught = str(reader.path) if reader.path is not None else Text(N_("taught by the simulated table"))
            parts.append(Text(N_("pieces read without stickers (%(path)s)"), path=taught))
            note = Join(", ", parts)
        else:
            reader = TableCamera(None, stable_frames=stable_frames, **extra)
        worker = CameraWorker(source, reader.read, on_update or (lambda update: None), fps=fps or rate,
                              stable_frames=stable_frames, read_timeout=read_timeout,
                              what=what)
        worker.reader = reader      # the vision side (calibration, scheme, thresholds), for flure doctor and tests
        return Device("camera", worker.start(), why="", note=note)
    except Exception as exc:  # noqa: BLE001 - a missing camera must not stop the table
        return Device("camera", None, why=Said(Text(N_("camera %(spec)s not available: %(error)s"), spec=repr(spec),
                                                    error=exc)))


def open_leds(url: str | None, config: str | None = None) -> Device[Leds]:
    """``url`` None uses the config's serial URL (the built-in emulator by default)."""
    try:
        from hardware.leds import LedGrid

        grid = LedGrid(config, url=url)
        device = Device("LED grid", grid, why="")
        emulator = getattr(grid, "emulator", None)
        if emulator is not None:
            device.note = Text(N_("simulated LED device at %(url)s"), url=emulator.url)
        else:
            device.note = (Text(N_("LED grid on %(port)s"), port=url) if url else
                           Text(N_("LED grid on the configured port")))
            status = _first_status(grid)
            if not status.get("connected") and status.get("last_error"):
                # Not the note: the referee view reads the live status, which clears once it connects.
                error = status["last_error"]     # a Said (hardware.link.plain_error) keeps its wording data
                device.startup = Text(N_("%(error)s (the session goes on and connects by itself once it is)"),
                                      error=error.text if isinstance(error, Said) else str(error))
        return device
    except Exception as exc:  # noqa: BLE001
        return Device("LED grid", None, why=Text(N_("LED grid not available: %(why)s"), why=str(exc)))


def _first_status(grid, wait_s: float = 1.0) -> dict:
    """The LED link's status once its first attempt to open the port has had a moment."""
    import time

    end = time.monotonic() + wait_s
    while True:
        status = grid.status()
        if status.get("connected") or status.get("last_error") or time.monotonic() >= end:
            return status
        time.sleep(0.05)


def open_speaker(speaker_config, language: str) -> Device[Speaker]:
    """The Pi speaker (``[speaker]``) in the table's language; off, or espeak-ng missing, says why."""
    if not speaker_config.enabled:
        return Device("speaker", None, why=Text(N_("switched off ([speaker] enabled = false)")), off=True)
    try:
        from hardware.speaker import Speaker as EspeakSpeaker
        from hardware.speaker import SpeakerMissing, voice_for

        voice = voice_for(language, speaker_config.voice)
        speaker = EspeakSpeaker(voice, speaker_config.rate)
        return Device("speaker", speaker, why="", note=Text(N_("espeak-ng, voice %(voice)s, %(rate)s words a minute"),
                                                            voice=voice, rate=speaker_config.rate))
    except SpeakerMissing:
        return Device("speaker", None, why=Text(N_("no speaker: %(why)s"), why=Text(
            N_("espeak-ng is not installed: sudo apt install espeak-ng (deploy/install.sh does), or set [speaker] "
               "enabled = false"))))
    except Exception as exc:  # noqa: BLE001 - a speaker must never stop the table
        return Device("speaker", None, why=Text(N_("no speaker: %(why)s"), why=str(exc)))


def open_buttons(session: TableSession, config: str | None = None, pin_factory=None) -> Device[Buttons]:
    """The three table buttons (only on a Raspberry Pi, or with a test pin factory)."""
    import warnings

    try:
        from hardware.buttons import TableButtons

        with warnings.catch_warnings():   # gpiozero warns once per backend it cannot load
            warnings.simplefilter("ignore")
            buttons = TableButtons(config, pin_factory,
                                   on_monster=session.from_table(lambda: session.act(Draw(), by=By.BUTTON)),
                                   on_confirm=session.from_table(lambda: session.confirm_reading(by=Trigger.BUTTON)),
                                   on_undo=session.from_table(session.undo))
        return Device("buttons", buttons, why="")
    except Exception as exc:  # noqa: BLE001
        if type(exc).__name__ == "BadPinFactory":
            return Device("buttons", None, why=Text(N_("no table buttons: this is not a Raspberry Pi (no GPIO)")), off=True)
        return Device("buttons", None, why=Text(N_("no table buttons: %(why)s"), why=exc))   # worded where ours
