"""An IP camera (an MJPEG ``http://`` or ``rtsp://`` stream, e.g. a phone's IP-camera app) read without lag.

OpenCV's capture of a network stream buffers frames: read at the session's few frames a second
from a stream sent at 30, ``VideoCapture.read`` hands out frames seconds old, further behind the
longer it runs.  Here a grabber thread reads the stream as fast as it comes and keeps only the
newest frame; ``read()`` gives a frame newer than the last one it gave (waiting a moment for it),
or None when the stream has sent nothing for that long.  A dropped stream is opened again by the
grabber itself (with back-off) until ``close()``; the camera worker sees a few None answers
meanwhile and says the camera is gone, as TABLE.md's faults want.
"""
from __future__ import annotations

import threading
import time

import numpy as np

from engine.wording import N_, Text

READ_WAIT_S = 1.5          # read() waits this long for a new frame (under the worker's 3 s read timeout)
REOPEN_S = (0.5, 4.0)      # back-off between attempts to open a dropped stream again


def is_stream_url(spec: str) -> bool:
    return spec.split("://", 1)[0].lower() in ("http", "https", "rtsp", "rtsps", "rtmp", "udp", "tcp")


class LatestFrameSource:
    """The newest frame of a network stream; opening raises SourceError when the stream cannot be opened now."""

    def __init__(self, url: str, wait_s: float = READ_WAIT_S, open_capture=None):
        from .sources import SourceError

        self.url = url
        self.wait_s = wait_s
        self._open_capture = open_capture or _open_capture
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._serial = 0
        self._given = 0
        self._closed = False
        self.reopened = 0
        self.exposure_note = ""
        cap = self._open_capture(url)
        if cap is None:
            raise SourceError(Text(N_("cannot open %(spec)s (not connected, or not a video OpenCV can read)"),
                                   spec=repr(url)))
        self._thread = threading.Thread(target=self._grab, args=(cap,), name="camera-stream", daemon=True)
        self._thread.start()

    def _grab(self, cap) -> None:
        delay = REOPEN_S[0]
        while not self._closed:
            if cap is None:
                time.sleep(delay)
                delay = min(delay * 2, REOPEN_S[1])
                cap = None if self._closed else self._open_capture(self.url)
                if cap is not None:
                    self.reopened += 1
                continue
            try:
                ok, frame = cap.read()
            except Exception:  # noqa: BLE001 - a broken stream is a dropped one
                ok, frame = False, None
            if not ok or frame is None or not frame.size:
                cap.release()
                cap = None
                continue
            delay = REOPEN_S[0]
            with self._cond:
                self._frame = frame
                self._serial += 1
                self._cond.notify_all()
        if cap is not None:
            cap.release()

    def read(self) -> np.ndarray | None:
        end = time.monotonic() + self.wait_s
        with self._cond:
            while self._serial <= self._given and not self._closed:
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(left)
            if self._closed:
                return None
            self._given = self._serial
            return self._frame

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()


def _open_capture(url: str):
    """An opened cv2.VideoCapture of ``url`` with the smallest buffer the backend allows, or None."""
    import cv2

    cap = cv2.VideoCapture(url)
    if not cap.isOpened():
        cap.release()
        return None
    cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)      # honoured by some backends; the grabber thread does the rest
    return cap
