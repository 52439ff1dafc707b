"""The camera's picture for the referee: the last frame kept, and as a JPEG.

Kept apart from the session: it is image handling (OpenCV, imported only when a
picture is asked for), not game state.
"""
from __future__ import annotations

import numpy as np

from vision.sources import FrameSource

from .interfaces import Camera

JPEG_QUALITY = 80
MAX_WIDTH = 960       # the referee's tablet; a 1920 px frame would only cost Wi-Fi time


class KeepLastFrame:
    """A frame source wrapper that keeps the last frame, so the referee can see what the camera sees."""

    def __init__(self, source: FrameSource):
        self.source = source
        self.last_frame: np.ndarray | None = None

    def read(self) -> np.ndarray | None:
        frame = self.source.read()
        if frame is not None:
            self.last_frame = frame
        return frame

    def close(self) -> None:
        self.source.close()


def last_frame(camera: Camera | None) -> np.ndarray | None:
    """The camera's last frame, when its source keeps one (``open_camera`` wraps every source so)."""
    source = camera.source if camera is not None else None
    return source.last_frame if isinstance(source, KeepLastFrame) else None


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
