"""The same app over HTTPS, beside the plain-HTTP waitress server (server.py, unchanged).

Browsers give a page the camera only in a secure context (HTTPS or localhost), so the phone
that films the board opens ``/camera`` over HTTPS.  waitress has no TLS, so this port is served
by cheroot (CherryPy's WSGI server, kept up to date and with TLS built in through Python's
``ssl``), in its own threads; the players' phones stay on plain HTTP.
"""
from __future__ import annotations

import logging
import socket
import threading

from .server import SERVER_MAX_BODY, Server

log = logging.getLogger(__name__)
THREADS = 24                    # the camera phone, the referee's tablet over HTTPS and a few others
# A camera frame is the largest body (phone_frames.MAX_FRAME_BYTES); cheroot refuses more with 413.
MAX_BODY = 8 * SERVER_MAX_BODY


def _bind_error(host: str, port: int, cheroot_error: OSError) -> None:
    """Raise the system's own error for binding ``host:port`` (errno and all, so the caller words it in the
    reader's language), as cheroot's bind does with SO_REUSEADDR; returns when the bind works now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise exc from cheroot_error


class HttpsServer:
    """cheroot on ``host:port`` with the table's certificate (``port`` 0 picks a free one); binds at once."""

    def __init__(self, app, host: str, port: int, cert: str, key: str, threads: int = THREADS):
        from cheroot import wsgi
        from cheroot.ssl.builtin import BuiltinSSLAdapter

        self.app = app
        self._server = wsgi.Server((host, port), self._wsgi, numthreads=threads, max=threads,
                                   server_name="flure", timeout=30, shutdown_timeout=2)
        self._server.max_request_body_size = MAX_BODY
        self._server.ssl_adapter = BuiltinSSLAdapter(str(cert), str(key))
        # a phone that has not accepted the certificate yet drops each handshake: not worth a line on the console
        self._server.error_log = lambda msg="", level=logging.INFO, traceback=False: log.debug(msg)
        try:
            self._server.prepare()      # binds now: a taken port is an OSError here, not in the thread
        except OSError as exc:
            if exc.errno is None:       # cheroot words it without the errno: the system's own error instead
                _bind_error(host, port, exc)
            raise
        self.host = host
        self.port = self._server.bind_addr[1]
        self._thread: threading.Thread | None = None
        self._closed = False

    _wsgi = Server._wsgi          # the app is given after binding, as with the HTTP server
    set_app = Server.set_app
    __enter__ = Server.__enter__
    __exit__ = Server.__exit__

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"https://{host}:{self.port}/"

    def start(self) -> "HttpsServer":
        self._thread = threading.Thread(target=self._server.serve, name="flure-https", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        """Stops the server and its worker threads (they are not daemon threads); closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._server.stop()
        if self._thread is not None:
            self._thread.join(timeout=5)
