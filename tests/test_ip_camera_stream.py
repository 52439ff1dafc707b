"""IP-camera apps: an MJPEG stream over HTTP, served here by a local server at 20 frames a
second, is read newest-frame-first (vision/stream_source.py): a reader that asks only twice a second
sees the frame being sent now, not one OpenCV buffered seconds ago, and the stream is opened again
after the server drops it."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

BITS = 10


def numbered(n: int) -> np.ndarray:
    """A 320×240 picture whose ten bars show ``n`` in binary (white = 1), readable after JPEG."""
    image = np.zeros((240, 320, 3), np.uint8)
    for bit in range(BITS):
        if n >> bit & 1:
            image[:, bit * 32:(bit + 1) * 32] = 255
    return image


def number_of(image: np.ndarray) -> int:
    return sum(1 << bit for bit in range(BITS) if image[120, bit * 32 + 16].mean() > 128)


class MjpegStream:
    """A local MJPEG server (multipart/x-mixed-replace, as IP Webcam and similar apps send): frame n at n/fps s."""

    def __init__(self, fps: float = 20.0):
        import cv2

        self.fps, self.started, self.drop = fps, time.monotonic(), threading.Event()
        stream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
                self.end_headers()
                try:
                    while not stream.drop.is_set():
                        ok, data = cv2.imencode(".jpg", numbered(stream.now()))
                        self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                         + str(len(data)).encode() + b"\r\n\r\n" + data.tobytes() + b"\r\n")
                        time.sleep(1 / stream.fps)
                except OSError:
                    return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/video"

    def now(self) -> int:
        return int((time.monotonic() - self.started) * self.fps) % (1 << BITS)

    def close(self):
        self.drop.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stream():
    s = MjpegStream()
    yield s
    s.close()


def test_the_reader_sees_the_latest_frame_not_a_buffered_one(stream):
    from vision.sources import open_source
    from vision.stream_source import LatestFrameSource

    source = open_source(stream.url)
    assert isinstance(source, LatestFrameSource)
    try:
        lags = []
        for _ in range(6):
            time.sleep(0.5)                      # the session reads a few frames a second; the stream sends 20
            frame = source.read()
            assert frame is not None
            lags.append(stream.now() - number_of(frame))
        assert max(lags) <= 4, lags               # at most 0.2 s behind the frame being sent
    finally:
        source.close()


def test_a_dropped_stream_is_opened_again(stream):
    from vision.stream_source import LatestFrameSource

    source = LatestFrameSource(stream.url, wait_s=0.5)
    try:
        assert source.read() is not None
        stream.drop.set()                        # the app stops: the connection ends
        time.sleep(1.0)
        while source.read() is not None:         # what was already on its way
            pass
        stream.drop.clear()
        end = time.monotonic() + 15
        frame = None
        while frame is None and time.monotonic() < end:
            frame = source.read()
        assert frame is not None and source.reopened >= 1
        assert abs(stream.now() - number_of(frame)) <= 4
    finally:
        source.close()


def test_a_stream_that_is_not_there_cannot_be_opened():
    import socket

    from vision.sources import SourceError, open_source

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SourceError, match="cannot open"):
        open_source(f"http://127.0.0.1:{port}/video")
