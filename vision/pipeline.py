"""Stage 4: from a stream of frames to an accepted position.

A single frame may be wrong (a hand moving in, a sticker caught mid-flip), so a
reading is *accepted* only when the one stable-frame gate (``vision.stable.StableGate``,
the table's own) says so: ``stable_frames`` recent frames agree, combined square by square,
and nothing blocks.  The last good board location is kept while corner markers are hidden,
and a bumped camera resets the count.  ``flure vision watch`` and ``flure vision eval`` use
``accepted``; the table's camera worker calls ``read`` and keeps the gate itself.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

from engine.errors import FlureError
from engine.geometry import parse_square
from engine.position import Position

from .config import DEFAULT_CONFIG, ReaderConfig
from .locate import BoardLocation, LensCalibration, lens_calibration
from .problems import CAMERA_FAILED, NO_FRAME, board_not_located
from .reader import read_frame
from .reading import Reading, not_located
from .scheme import Scheme, load_scheme
from .stable import StableGate


@dataclass
class _State:
    frames: int = 0
    bumped: bool = False
    occluded: bool = False
    last_problem: str | None = None
    last_time_ms: float = 0.0


class TableCamera:
    """Polls a FrameSource, reads each frame, accepts stable readings (``StableGate``).

    ``source`` is anything with ``read() -> image | None`` (vision.sources).  ``calibration``
    is a loaded one (or None): whoever builds the camera reads the file.
    """

    def __init__(self, source, scheme: Scheme | str | None = None, calibration: LensCalibration | None = None,
                 stable_frames: int = 3, config: ReaderConfig | None = None):
        if stable_frames < 1:
            raise ValueError("stable_frames must be at least 1")
        self.source = source
        self.scheme = scheme if isinstance(scheme, Scheme) else load_scheme(scheme)
        self.calibration = lens_calibration(calibration)
        self.stable_frames = stable_frames
        self.gate = StableGate(stable_frames)
        self.config = config or DEFAULT_CONFIG
        self.accepted: Reading | None = None     # the gate's last stable combination, as a Reading
        self.last: Reading | None = None
        self.location: BoardLocation | None = None
        self._s = _State()

    def poll(self) -> Reading:
        """Read one frame from the source and update the acceptance state."""
        try:
            frame = self.source.read()
        except Exception as exc:  # noqa: BLE001 — a camera hiccup must not stop the app
            frame, err = None, CAMERA_FAILED(error=str(exc))
        else:
            err = NO_FRAME() if frame is None else None
        if err:
            return self._update(not_located(board_not_located(err)))
        return self.feed(frame)

    def feed(self, frame) -> Reading:
        """Process a frame obtained elsewhere (tests, eval, the web app's upload): read it, then the gate."""
        return self._update(self.read(frame))

    def read(self, frame) -> Reading:
        """Read one frame, keeping the board's location from frame to frame; no gate (the caller has it)."""
        t0 = time.perf_counter()
        reading, loc = read_frame(frame, self.scheme, self.calibration, config=self.config,
                                  previous=self.location)
        self._s.last_time_ms = (time.perf_counter() - t0) * 1000.0
        if loc is not None and loc.location is not None and not loc.location.kept:
            self.location = loc.location
        if loc is not None and loc.bumped:
            self._s.bumped = True
            if loc.location is None:
                self.location = None   # the old mapping is wrong now; wait for a fresh fit
        return reading

    def _update(self, reading: Reading) -> Reading:
        s = self._s
        s.frames += 1
        s.occluded = reading.occluded
        if reading.located and not reading.bumped and reading.location is not None:
            s.bumped = False
        stable, _unknown, _blocking = self.gate.feed(reading)
        s.last_problem = None if reading.ok else reading.reason
        if stable:
            self.accepted = combined_reading(self.gate.combined)
        self.last = reading
        return reading

    def status(self) -> dict:
        """For the web app: is the board seen, is anything wrong, what was accepted."""
        s = self._s
        last = self.last
        return {
            "located": bool(last and last.located),
            "bumped": s.bumped,
            "occluded": s.occluded,
            "frames": s.frames,
            "stable": self.gate.count,
            "stable_needed": self.stable_frames,
            "accepted": self.accepted is not None,
            "last_problem": s.last_problem,
            "problems": list(last.problems) if last else [],
            "frame_ms": round(s.last_time_ms, 1),
            # Corner markers hidden while the last good board location is kept.
            "corners_hidden": list(last.location.markers_missing)
            if last is not None and last.location is not None else [],
        }

    def close(self) -> None:
        close = getattr(self.source, "close", None)
        if close:
            close()


def combined_reading(data: dict) -> Reading:
    """The gate's combination (reading JSON) as a ``Reading``: its position when it makes one, its
    unseen squares (the game decides what stands there) under ``unseen``."""
    setup = data.get("setup")
    try:
        position = Position.from_setup(setup, strict=False) if setup and setup.get("monster") else None
    except FlureError:
        position = None
    return Reading(True, position, data.get("tile"), list(data.get("problems") or []), setup=setup,
                   unseen={parse_square(name): why for name, why in (data.get("unseen") or {}).items()})
