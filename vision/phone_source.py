"""A phone or tablet as the overhead camera: the newest frame its camera page sent.

The phone's page (``/camera``, companion_app/web/camera_page.py) posts a JPEG or PNG a few times
a second; ``PhoneFrames.put`` checks it and keeps the newest only.  The camera worker reads it
through ``PhoneFrames.open()``, a frame source like the others (vision/sources.py): ``read()``
waits a moment for a frame newer than the last one it gave and answers None when none came,
so a phone that goes away (Wi-Fi lost, screen locked, page closed) is a camera that stopped:
the worker says so and opens it again, which succeeds as soon as the phone sends again.

Nothing here blocks on the phone: ``put`` runs in the web request's thread and holds the lock
only to swap the newest frame; a refused frame is a ``FrameRefused`` with an HTTP status and a
sentence (too big: 413, not JPEG/PNG: 415, too frequent: 429, unreadable: 400).
"""
from __future__ import annotations

import threading
import time
from collections import deque

import numpy as np

from engine.wording import N_, Said, Text, Worded

MAX_FRAME_BYTES = 6 * 1024 * 1024     # a 4K JPEG is about 2 MB; a PNG of 1080p about 3 MB
MAX_SIDE = 4096                       # pixels on the longer side (the reader uses at most 3840)
MAX_FPS = 10.0                        # frames a second from one phone; the reader needs a few (TABLE.md)
READ_WAIT_S = 1.5                     # read() waits this long for a new frame (the worker's timeout is 3 s)
CONNECTED_S = 3.0                     # a phone whose last frame is older is not connected
KINDS = {"image/jpeg": b"\xff\xd8\xff", "image/png": b"\x89PNG\r\n\x1a\n"}


class FrameRefused(Worded, ValueError):
    """A frame the phone source does not take; ``status`` is the HTTP answer, ``code`` what programs test."""

    def __init__(self, message, status: int, code: str, retry_after: float | None = None):
        super().__init__(message)
        self.status, self.code, self.retry_after = status, code, retry_after


class PhoneFrames:
    """The newest frame of the phone camera, and what the Devices card says about the phone."""

    def __init__(self, max_bytes: int = MAX_FRAME_BYTES, max_fps: float = MAX_FPS, max_side: int = MAX_SIDE,
                 clock=time.monotonic):
        self.max_bytes, self.max_fps, self.max_side = max_bytes, max_fps, max_side
        self._clock = clock
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._serial = 0
        self._at: float | None = None
        self._accepted = deque(maxlen=12)       # arrival times, for the frame rate shown
        self._last_try: float | None = None     # the last frame offered, taken or not (flood check)
        self.address: str | None = None
        self.size: tuple[int, int] | None = None
        self.refused = 0
        self.last_refusal: Text | None = None
        self.closed = False
        # what the worker calls this source (open_camera: the device's note and its messages)
        self.what = Text(N_("the phone camera"))
        self.note = Text(N_("a phone's camera page (/camera over HTTPS)"))

    # -- the web side ----------------------------------------------------------------------
    def check_size(self, length: int | None) -> None:
        """Before the body is read: refuse one announced too big (413)."""
        if length is not None and length > self.max_bytes:
            self._refuse(Text(N_("the frame is %(size)s MB; at most %(most)s MB is taken: send the camera's "
                                 "picture at the reader's resolution"), size=f"{length / 2**20:.1f}",
                              most=f"{self.max_bytes / 2**20:.1f}"), 413, "too-big")

    def put(self, data: bytes, content_type: str | None, address: str | None = None) -> tuple[int, int]:
        """Keep ``data`` (a JPEG or PNG) as the newest frame; returns its (width, height) or raises FrameRefused."""
        now = self._clock()
        with self._cond:
            last, self._last_try = self._last_try, now
        if last is not None and now - last < 1.0 / self.max_fps:
            wait = 1.0 / self.max_fps - (now - last)
            self._refuse(Text(N_("frames come too often: at most %(fps)s a second are taken"),
                              fps=f"{self.max_fps:g}"), 429, "too-frequent", retry_after=wait)
        self.check_size(len(data))
        kind = (content_type or "").split(";")[0].strip().lower()
        if kind not in KINDS or not data.startswith(KINDS[kind]):
            self._refuse(Text(N_("a frame must be a JPEG or PNG picture (Content-Type image/jpeg or image/png), "
                                 "not %(kind)s"), kind=kind or "?"), 415, "wrong-type")
        size = _picture_size(data)
        if size is None:
            self._refuse(Text(N_("the frame is not a picture that can be read")), 400, "unreadable")
        if max(size) > self.max_side:
            self._refuse(Text(N_("the frame is %(size)s; at most %(most)s pixels on the longer side are taken"),
                              size=f"{size[0]}×{size[1]}", most=self.max_side), 413, "too-big")
        frame = _decode(data)
        if frame is None:
            self._refuse(Text(N_("the frame is not a picture that can be read")), 400, "unreadable")
        with self._cond:
            self._frame, self._at = frame, self._clock()
            self._serial += 1
            self._accepted.append(self._at)
            self.address, self.size = address, (int(frame.shape[1]), int(frame.shape[0]))
            self.last_refusal = None
            self._cond.notify_all()
        return self.size

    def _refuse(self, why: Text, status: int, code: str, retry_after: float | None = None):
        with self._cond:
            self.refused += 1
            self.last_refusal = why
        raise FrameRefused(why, status, code, retry_after)

    @property
    def latest(self) -> np.ndarray | None:
        with self._cond:
            return self._frame

    def connected(self) -> bool:
        with self._cond:
            return self._at is not None and self._clock() - self._at < CONNECTED_S

    def status(self) -> dict:
        """The phone's state in words (``message``, a Said) and numbers, for the Devices card and flure doctor."""
        with self._cond:
            now = self._clock()
            age = None if self._at is None else now - self._at
            times = list(self._accepted)
            fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 and times[-1] > times[0] else 0.0
            connected = age is not None and age < CONNECTED_S
            out = {"connected": connected, "address": self.address, "frames": self._serial,
                   "size": list(self.size) if self.size else None, "fps": round(fps, 1),
                   "age_s": None if age is None else round(age, 1), "refused": self.refused}
            if connected:
                message = Text(N_("phone camera: connected from %(address)s, %(size)s, %(fps)s frames/s, last frame "
                                  "%(age)s s ago"), address=self.address or "?",
                               size=f"{self.size[0]}×{self.size[1]}", fps=f"{fps:.0f}", age=f"{age:.1f}")
            elif age is not None:
                message = Text(N_("phone camera: no frame for %(age)s s (the phone went away, its screen is off or "
                                  "its page is closed); it reconnects by itself"), age=f"{age:.0f}")
            else:
                message = Text(N_("phone camera: no phone is sending yet; open the camera page from the referee "
                                  "view's QR code on the phone"))
            if self.last_refusal is not None:
                out["last_error"] = Said(Text(N_("the last frame was refused: %(why)s"), why=self.last_refusal))
        out["message"] = Said(message)
        return out

    # -- the camera worker's side ------------------------------------------------------------
    def open(self) -> "PhoneSource":
        return PhoneSource(self)

    def __call__(self) -> "PhoneSource":
        """``open_camera(open_frames=...)`` calls the opener; ``what`` and ``note`` name it."""
        return self.open()

    def wait_newer(self, serial: int, timeout: float) -> tuple[int, np.ndarray | None]:
        """(serial, frame) of a frame newer than ``serial``, or (serial, None) after ``timeout``."""
        end = self._clock() + timeout
        with self._cond:
            while self._serial <= serial and not self.closed:
                left = end - self._clock()
                if left <= 0:
                    return serial, None
                self._cond.wait(min(left, 0.25))
            if self.closed:
                return serial, None
            return self._serial, self._frame

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()


class PhoneSource:
    """A frame source on ``PhoneFrames``: each frame once, None when the phone sent nothing new for a while."""

    def __init__(self, frames: PhoneFrames, wait_s: float = READ_WAIT_S):
        self.frames = frames
        self.wait_s = wait_s
        with frames._cond:
            # a frame already there counts only if it is fresh (the phone is sending now)
            self._serial = frames._serial - 1 if frames.connected() else frames._serial

    def read(self) -> np.ndarray | None:
        self._serial, frame = self.frames.wait_newer(self._serial, self.wait_s)
        return frame

    def close(self) -> None:
        pass       # the phone keeps sending to PhoneFrames; a reopened source reads on


def _picture_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header alone, before any pixel is decoded (a tiny file may claim a huge picture)."""
    import io

    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None


def _decode(data: bytes) -> np.ndarray | None:
    import cv2
    try:
        frame = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        return None
    return frame if frame is not None and frame.size else None
