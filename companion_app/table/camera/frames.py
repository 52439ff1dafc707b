"""The camera's picture for the referee: the last frame kept, and as a JPEG.

Kept apart from the session: it is image handling (OpenCV, imported only when a
picture is asked for), not game state.
"""
from __future__ import annotations

import numpy as np

from engine.wording import N_, Text
from vision.sources import FrameSource

from ..devices.interfaces import Camera

JPEG_QUALITY = 80
MAX_WIDTH = 960       # the referee's tablet; a 1920 px frame would only cost Wi-Fi time
# The longest side the reader is given.  The stickers need 14 px per 15 mm (deploy/README.md): a
# 4K frame of the board has several times that, and an 8000×6000 frame took the reader 2 s.
MAX_READ_SIDE = 3840


class KeepLastFrame:
    """A frame source wrapper that keeps the last frame, so the referee can see what the camera sees,
    and gives the reader no more pixels than it can use.

    A frame whose longer side exceeds ``max_side`` is scaled down (the reader finds the board by its
    markers, at any size).  With a lens calibration (``calibrated_size``) a frame of another size is
    refused instead: the calibration describes pixels of that size only, and scaling would misplace
    pieces.  ``note`` says which, for the referee's device status.
    """

    def __init__(self, source: FrameSource, max_side: int = MAX_READ_SIDE,
                 calibrated_size: tuple[int, int] | None = None):
        self.source = source
        self.max_side = max_side
        self.calibrated_size = tuple(calibrated_size) if calibrated_size is not None else None
        self.last_frame: np.ndarray | None = None
        self.note = ""          # what was done to frames the reader could not use, as wording data

    def read(self) -> np.ndarray | None:
        frame = self.source.read()
        if frame is not None:
            frame = self._usable(frame)
        if frame is not None:
            self.last_frame = frame
        return frame

    def _usable(self, frame: np.ndarray) -> np.ndarray | None:
        h, w = frame.shape[:2]
        if self.calibrated_size is not None:
            if (w, h) != self.calibrated_size:
                cw, ch = self.calibrated_size
                self.note = Text(N_("the camera gives %(size)s frames but the lens calibration is for %(made)s: "
                                    "frames refused (set [camera] resolution, or calibrate again)"),
                                 size=f"{w}×{h}", made=f"{cw}×{ch}")
                return None
            return frame
        pw, ph = getattr(self.source, "picture_size", None) or (w, h)   # a folder decodes big JPEGs smaller
        if max(pw, ph) <= self.max_side:
            return frame
        scale = min(1.0, self.max_side / max(w, h))
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        self.note = Text(N_("the camera gives %(size)s frames; the reader gets them scaled to %(scaled)s "
                            "(it cannot use more)"), size=f"{pw}×{ph}", scaled=f"{size[0]}×{size[1]}")
        return shrink(frame, size) if size != (w, h) else frame

    def close(self) -> None:
        self.source.close()


def shrink(frame: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``frame`` scaled down to ``size`` (width, height) quickly: first by the largest whole factor
    that stays at or above it (OpenCV's area average over whole blocks is its fast path), then
    linearly for the rest, which is less than 2× and so does not alias.  One area resize by a
    fraction took 1–2 s for an 8000×6000 frame, most of the camera's 3 s read timeout; this takes 0.1 s."""
    import cv2

    h, w = frame.shape[:2]
    k = int(min(w / size[0], h / size[1]))
    if k >= 2:
        frame = cv2.resize(frame, None, fx=1 / k, fy=1 / k, interpolation=cv2.INTER_AREA)
    if (frame.shape[1], frame.shape[0]) != tuple(size):
        frame = cv2.resize(frame, tuple(size), interpolation=cv2.INTER_LINEAR)
    return frame


def last_frame(camera: Camera | None) -> np.ndarray | None:
    """The camera's last frame (the worker keeps it), or None before the first one or without a camera."""
    return getattr(camera, "last_frame", None) if camera is not None else None


def jpeg(frame: np.ndarray | None, max_width: int = MAX_WIDTH) -> bytes | None:
    """``frame`` scaled down to ``max_width`` and encoded as JPEG; None without a frame."""
    if frame is None:
        return None
    import cv2

    if frame.shape[1] > max_width:
        scale = max_width / frame.shape[1]
        frame = cv2.resize(frame, (max_width, round(frame.shape[0] * scale)), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    return data.tobytes() if ok else None
