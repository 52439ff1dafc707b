"""The camera worker: one thread that watches the table, so no request ever waits on the camera.

It reads frames at the configured rate, reads each one (vision), and applies the
stable-frame gate (``StableGate``): the recent usable frames that agree where they see
the same square are combined square by square, as ``flure vision explain`` combines its
images (``vision.change.combine``), and the combination counts once ``stable_frames``
frames agree and no square is covered in all of them, so a hand in motion never makes a
move and a hand that moves on hides nothing.  Squares the camera could not see
(``hidden-square``, ``unread-square``, covered in every frame kept) are *unknown*, not
problems: the game decides what stands there.
A teleporter pair seen with one tile (``teleporter-pair``) is no problem of the view
either: during the advanced setup the second tile is simply not placed yet (A2), and
in a game a tile missing from its square is a difference the game finds.

The source is read through a helper thread with a timeout: a camera that stalls,
ends (a video file, a folder) or vanishes is closed and opened again with back-off,
and ``status()`` says what is wrong in words.  Web requests only read the last
published ``CameraUpdate``.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.observation import Observation
from engine.wording import N_, Said, Text
from vision.change import observe, reading_json
from vision.detect import check_frame
from vision.problems import not_located_why, problem_words
from vision.stable import StableGate, split_problems  # noqa: F401 - split_problems: the gate's, named here too

log = logging.getLogger(__name__)

END_AFTER_EMPTY = 3          # consecutive "no frame" answers before the source counts as ended


@dataclass(frozen=True)
class CameraUpdate:
    """What the worker knows after one frame; ``stable`` readings may be acted on, ``serial`` numbers them.

    ``reading`` is the VISION.md JSON (``flure vision read``'s form: what ``GET /api/camera``
    shows) and ``observation`` the same reading as the engine's ``Observation``, made once here
    (``camera_update``): the table judges that value, never the JSON again."""

    status: dict
    reading: dict | None = None       # the VISION.md JSON of the reading (the stable combination once stable)
    unknown: list[str] = field(default_factory=list)
    blocking: list[dict] = field(default_factory=list)
    stable: bool = False              # the stable-frame gate (vision.stable) lets it through
    serial: int = 0                   # grows each time a new reading becomes stable
    count: int = 0                    # agreeing usable frames so far
    needed: int = 3
    frames: tuple | None = None       # (readings, grey frames, scheme) of a stable reading, for a guided look
                                      # (without stickers: (readings, None, None), for ``checked_by_frames``)
    observation: Observation | None = None   # ``reading`` as the engine's Observation (None: board not located)

    @property
    def tile(self) -> str | None:
        """The tombstone tile read in the card zone, or None."""
        return (self.reading or {}).get("tile")


def gated_reading(gate: StableGate, reading, stable: bool) -> tuple[dict, Observation | None]:
    """(reading JSON, Observation) an update carries after ``gate`` answered ``stable`` for ``reading``
    (a vision Reading): once stable the gate's combination and the Observation it made, until then
    this frame's own reading, observed here once."""
    if stable:
        return gate.combined, gate.observation
    data = reading_json(reading)
    return data, observe(data)[0] if data.get("setup") is not None else None


class _Grabber:
    """Reads one frame on request in its own thread, so a stalled ``read()`` only stalls this thread."""

    def __init__(self, source):
        self.source = source
        self._asked = threading.Event()
        self._answers: queue.Queue = queue.Queue(maxsize=1)
        self._stop = False
        threading.Thread(target=self._run, name="camera-read", daemon=True).start()

    def _run(self) -> None:
        while True:
            self._asked.wait()
            self._asked.clear()
            if self._stop:
                return
            try:
                answer = ("frame", self.source.read())
            except Exception as exc:  # noqa: BLE001 - any camera failure is reported, never raised
                answer = ("error", str(exc) or type(exc).__name__)
            if self._stop:
                return
            self._answers.put(answer)

    def grab(self, timeout: float) -> tuple[str, object]:
        """("frame", image or None), ("error", why) or ("timeout", None)."""
        self._asked.set()
        try:
            return self._answers.get(timeout=timeout)
        except queue.Empty:
            return "timeout", None

    def abandon(self) -> None:
        """Stop asking; close the source in the background (closing a stalled camera may block too)."""
        self._stop = True
        self._asked.set()

        def close():
            try:
                self.source.close()
            except Exception:  # noqa: BLE001
                pass
        threading.Thread(target=close, name="camera-close", daemon=True).start()


class CameraWorker:
    """Watches a frame source in a thread and hands each ``CameraUpdate`` to ``on_update``.

    ``open_source()`` returns a new source (``read() -> frame | None``, ``close()``) or raises;
    ``read_frame(frame)`` returns a vision ``Reading``, or None when it cannot read yet (``self.reader.waiting``
    says why: the camera without stickers before it is taught).  ``on_update`` runs in the worker thread.
    """

    def __init__(self, open_source: Callable[[], object], read_frame: Callable[[object], object],
                 on_update: Callable[[CameraUpdate], None], *, fps: float = 4.0, stable_frames: int = 3,
                 read_timeout: float = 3.0, backoff: tuple[float, float] = (0.5, 8.0), what=None):
        if fps <= 0:
            raise ValueError("fps must be above 0")
        self.open_source = open_source
        self.read_frame = read_frame
        self.on_update = on_update
        self.fps = fps
        self.read_timeout = read_timeout
        self.backoff = backoff
        self.what = what if what is not None else Text(N_("the camera"))   # wording data (engine.wording) or text
        self.gate = StableGate(stable_frames)
        self.reader = None          # what reads the frames (a vision TableCamera), when the opener records it
        self.last_frame = None
        self.frames = 0
        self.reopened = 0
        self.frame_ms = 0.0
        self._lock = threading.Lock()
        self._state = "starting"
        self._message = Text(N_("opening %(what)s"), what=self.what)
        self._update = CameraUpdate(self._status_locked(), needed=stable_frames)
        self._logged = None         # the trouble last written to the log (once per cause, not per retry)
        self._update_failed = None  # the session's last failure on an update, logged once
        self._stop = threading.Event()
        self._grabber: _Grabber | None = None
        self._source = None
        self._thread = threading.Thread(target=self._run, name="camera-worker", daemon=True)

    # -- public, thread-safe -------------------------------------------------------------
    def start(self) -> "CameraWorker":
        self._thread.start()
        return self

    def close(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if self._grabber is not None:
            self._grabber.abandon()
            self._grabber = None

    @property
    def source(self):
        """The source read last (None before one opened), e.g. for what it says about its frames."""
        return self._source

    @property
    def update(self) -> CameraUpdate:
        with self._lock:
            return self._update

    def status(self) -> dict:
        with self._lock:
            return self._status_locked()

    # -- the thread ----------------------------------------------------------------------
    def _status_locked(self) -> dict:
        return {"state": self._state, "message": self._message if isinstance(self._message, str) else Said(self._message),
                "frames": self.frames, "reopened": self.reopened,
                "fps": self.fps, "frame_ms": round(self.frame_ms, 1), "stable": self.gate.count,
                "stable_needed": self.gate.needed}

    def _log(self, state: str, cause=None) -> None:
        """A failure goes to the log once per cause (the same error at every reopening: once), and the
        camera working again once after it."""
        if state in ("failed", "lost", "error"):
            key = (state, str(cause))
            if key != self._logged:
                self._logged = key
                log.warning("%s: %s", self.what, cause)
        elif state == "watching" and self._logged is not None:
            self._logged = None
            log.warning("%s works again (reopened %s time(s))", self.what, self.reopened)

    def _set(self, state: str, message, **update) -> None:
        """A new state; ``message`` is wording data (engine.wording) or plain English."""
        self._log(state, message if state == "error" else update.pop("cause", message))
        with self._lock:
            self._state, self._message = state, message
            self._update = CameraUpdate(self._status_locked(), needed=self.gate.needed, serial=self.gate.serial,
                                        **update)
            out = self._update
        try:
            self.on_update(out)
        except Exception as exc:  # noqa: BLE001 - the session's trouble must not kill the camera thread
            if self._update_failed != repr(exc):     # once per cause, not at every frame
                self._update_failed = repr(exc)
                log.exception("camera update failed")
        else:
            self._update_failed = None

    def _run(self) -> None:
        delay = self.backoff[0]
        empty = 0
        while not self._stop.is_set():
            if self._grabber is None:
                try:
                    self._source = self.open_source()
                    self._grabber = _Grabber(self._source)
                except Exception as exc:  # noqa: BLE001 - a missing camera is a status, not a crash
                    self._set("failed", Text(N_("cannot open %(what)s (%(error)s); trying again in %(delay)s s"),
                                             what=self.what, error=exc, delay=f"{delay:g}"),
                              cause=f"cannot open it ({exc})")
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
                empty = 0
            started = time.monotonic()
            kind, value = self._grabber.grab(self.read_timeout)
            if kind == "frame" and value is not None:
                empty = 0
                delay = self.backoff[0]
                self._read(value)
            else:
                empty = empty + 1 if kind == "frame" else END_AFTER_EMPTY
                if empty >= END_AFTER_EMPTY:
                    template = {"timeout": N_("%(what)s has given no frame for %(timeout)s s (stalled); reopening it "
                                              "in %(delay)s s"),
                                "error": N_("%(what)s failed (%(error)s); reopening it in %(delay)s s")}.get(
                        kind, N_("%(what)s gives no more frames (ended or unplugged); reopening it in %(delay)s s"))
                    self._drop(Text(template, what=self.what, timeout=f"{self.read_timeout:g}", error=value,
                                    delay=f"{delay:g}"),
                               cause=f"{kind}: {value}" if value is not None
                               else {"frame": "no more frames", "timeout": "stalled"}.get(kind, kind))
                    self._stop.wait(delay)
                    delay = min(delay * 2, self.backoff[1])
                    continue
            self._stop.wait(max(0.0, started + 1.0 / self.fps - time.monotonic()))
        if self._grabber is not None:
            self._grabber.abandon()
            self._grabber = None
        self._set("stopped", Text(N_("%(what)s is switched off"), what=self.what))

    def _drop(self, message, cause=None) -> None:
        self._grabber.abandon()
        self._grabber = None
        self.reopened += 1
        self.gate.reset()
        self._set("lost", message, cause=cause if cause is not None else message)

    def _read(self, frame) -> None:
        self.last_frame = frame
        t0 = time.perf_counter()
        try:
            reading = self.read_frame(frame)
        except Exception as exc:  # noqa: BLE001 - a reader bug is shown, the table goes on
            message = Text(N_("a frame could not be read (%(error)s)"), error=exc)
            if self._logged != ("error", str(message)):     # with its traceback, once per cause
                self._logged = ("error", str(message))
                log.exception("%s: %s", self.what, message)
            self.gate.reset()
            self._set("error", message)
            return
        self.frame_ms = (time.perf_counter() - t0) * 1000.0
        self.frames += 1
        if reading is None:      # the reader has nothing to read with yet (a table teaching itself): it says why
            self.gate.reset()
            self._set("watching", getattr(self.reader, "waiting", None) or Text(N_("waiting for the reader")))
            return
        scheme = getattr(self.reader, "scheme", None)    # the frames are kept only with the scheme that reads them
        stable, unknown, blocking = self.gate.feed(reading, check_frame(frame)[0] if scheme is not None else None)
        # once steady, the recent frames combined (vision.change.combine, as ``flure vision explain``);
        # until then this frame's own reading; "unseen" lists what they could not establish
        data, observation = gated_reading(self.gate, reading, stable)
        if not reading.located:
            why = not_located_why(problem_words(reading.problems[0])) if reading.problems else None
            message = Text(N_("the board is not located: %(why)s"),   # the problem says "board not located" too:
                           why=why if why is not None else Text(N_("no board markers seen")))   # say it once
        elif blocking:
            message = Text(N_("waiting for a clear view: %(why)s"), why=problem_words(blocking[0]))
        elif stable:
            message = Text(N_("watching: the reading is steady"))
        else:
            message = Text(N_("waiting for a steady view (%(count)s of %(needed)s frames)"), count=self.gate.count,
                           needed=self.gate.needed)
        kept = self.gate.looks() if stable and scheme is not None else None
        frames = (*kept, scheme) if kept else None
        if stable and frames is None and getattr(self.reader, "keeps_readings", False):   # (without stickers)
            frames = ([r for r, _o, _g in self.gate.frames], None, None)
        self._set("watching", message, reading=data, unknown=unknown, blocking=blocking, stable=stable,
                  count=self.gate.count, frames=frames, observation=observation)
