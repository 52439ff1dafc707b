"""Serving the app with waitress in one process (the camera, serial port and GPIO are shared).

Each Server-Sent Events stream holds one waitress worker thread for as long as
the phone is connected, so the pool is sized for a busy table: 100 phones,
spectators' and a café's screens (``STREAM_LIMIT``), the referee's reserved
streams, and threads left over for ordinary requests.  An idle thread waiting on
its queue costs little (its stack is virtual memory until used).

Two waitress settings make long streams safe (measured in benchmarks/bench_web.py):
- ``outbuf_high_watermark``: waitress keeps appending a response's bytes to one
  output buffer and drops the bytes already sent only when it starts a new buffer,
  which it does once ``outbuf_high_watermark`` bytes (16 MB by default) went into
  the current one (Pylons/waitress #265, #300).  A stream that lives for minutes
  thus kept every message sent to it: 0.65 MB more per action with 48 phones.
  A 64 KB watermark bounds what each stream holds; a phone that stops reading
  blocks only its own thread, then the broker drops it.
- ``channel_request_lookahead``: with 0, waitress does not read a connection while
  its request runs, so it never sees a phone that closed its stream; with 1 it does,
  and ``environ["waitress.client_disconnected"]`` tells the stream to end.

A phone that vanishes (Wi-Fi gone: no FIN, no RST) is found by the kernel instead: every
accepted socket gets ``TCP_USER_TIMEOUT`` (bytes unacknowledged, or stuck behind a closed
window, for 4 s end the connection) and fast keepalive probes (an idle connection is probed
after 2 s).  The stream sends a comment every 2 s (events.NUDGE), so there are always bytes
in flight; waitress then sees the socket error, the stream ends and its slot is free within
about 5 s instead of waitress's 120 s channel timeout.
"""
from __future__ import annotations

import signal
import threading
import time

THREADS = 160              # streams plus the referee's reserve plus ordinary requests
STREAM_LIMIT = 128         # live streams allowed at once (the referee has 4 more: events.REFEREE_RESERVE)
OUTBUF_HIGH_WATERMARK = 64 * 1024
# waitress reads a body up to this size before the app sees it (its default is 1 GB, spooled to a
# temporary file); above it waitress itself answers 413 without reading.  The app's own limit
# (app.MAX_BODY, 16 KB) answers 413 in JSON for bodies between the two.
SERVER_MAX_BODY = 1024 * 1024
USER_TIMEOUT_MS = 4000     # a connection whose bytes stay unacknowledged this long is dropped
KEEPALIVE = (2, 1, 2)      # probe an idle connection after 2 s, every 1 s, give up after 2 unanswered


def socket_options() -> list[tuple[int, int, int]]:
    """waitress's own options plus the ones that find a vanished phone (those the platform has: Linux has all)."""
    import socket

    from waitress.adjustments import Adjustments

    options = list(Adjustments.socket_options) + [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    wanted = [("TCP_USER_TIMEOUT", USER_TIMEOUT_MS), ("TCP_KEEPIDLE", KEEPALIVE[0]),
              ("TCP_KEEPINTVL", KEEPALIVE[1]), ("TCP_KEEPCNT", KEEPALIVE[2])]
    options += [(socket.IPPROTO_TCP, getattr(socket, name), value) for name, value in wanted if hasattr(socket, name)]
    return options


def _safe_channel():
    """A waitress channel whose own error answers (400 for a garbage request line, 413 for a huge
    Content-Length, 431, 500 before the app wrote) carry the same security headers as the app's.

    waitress builds those responses in ``ErrorTask`` without calling the WSGI app, so no
    middleware can add headers to them; its channel names the task class to use, so ours does.
    """
    from waitress.channel import HTTPChannel
    from waitress.task import ErrorTask

    from .security import SAFE_HEADERS

    class SafeErrorTask(ErrorTask):
        def execute(self):
            self.response_headers.extend(SAFE_HEADERS.items())
            super().execute()

    class SafeChannel(HTTPChannel):
        error_task_class = SafeErrorTask

    return SafeChannel


class Server:
    """A waitress server on ``host:port`` (port 0 picks a free one), runnable in a thread."""

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, threads: int = THREADS):
        from waitress.server import create_server

        self.app = app
        self._server = create_server(self._wsgi, host=host, port=port, threads=threads,
                                     channel_timeout=120, connection_limit=300, ident="flure",
                                     max_request_body_size=SERVER_MAX_BODY,
                                     outbuf_high_watermark=OUTBUF_HIGH_WATERMARK,
                                     outbuf_overflow=4 * OUTBUF_HIGH_WATERMARK, channel_request_lookahead=1)
        from waitress.server import MultiSocketServer

        channel = _safe_channel()
        listeners = self._server.map.values() if isinstance(self._server, MultiSocketServer) else [self._server]
        for listener in listeners:
            listener.channel_class = channel
            listener.adj.socket_options = socket_options()   # not a create_server() keyword; read per accept
        self.host = host
        self.port = self._server.effective_port
        self._thread: threading.Thread | None = None

    def _wsgi(self, environ, start_response):
        return self.app(environ, start_response)

    def set_app(self, app) -> None:
        """Give the app after binding (``flure play`` needs the port to write the app's public URL)."""
        self.app = app

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def run(self) -> None:
        """Serve until close() (blocks), or until Ctrl+C or SIGTERM raise KeyboardInterrupt here.

        waitress answers that interrupt itself, inside its loop, by waiting a few seconds for its threads:
        the live streams are ended first (in the signal handler, before the interrupt is raised), so the
        threads that serve them finish instead of being left running."""
        if threading.current_thread() is not threading.main_thread():
            self._server.run()
            return
        before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
        for signum, handler in before.items():
            if callable(handler):
                signal.signal(signum, self._ending_streams(handler))
        try:
            self._server.run()
        finally:
            for signum, handler in before.items():
                if callable(handler):
                    signal.signal(signum, handler)

    def _ending_streams(self, handler):
        def on_signal(signum, frame):
            self._end_streams()
            handler(signum, frame)
        return on_signal

    def _end_streams(self) -> None:
        session = self.app.extensions.get("flure_session") if self.app is not None else None
        if session is not None:
            session.broker.close_all()   # let every stream thread finish before the sockets go

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self.run, name="flure-web", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        session = self.app.extensions.get("flure_session") if self.app is not None else None
        if session is not None:
            self._end_streams()
            deadline = time.monotonic() + 3
            while session.broker.clients and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(0.05)
        self._server.close()
        self._server.task_dispatcher.shutdown(timeout=2)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
