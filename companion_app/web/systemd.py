"""Telling systemd that the table session is up, and proving it stays up (``Type=notify``,
``WatchdogSec=`` in deploy/flure.service).

The protocol is one datagram of ``KEY=VALUE`` lines to the AF_UNIX socket named in
``$NOTIFY_SOCKET`` (sd_notify(3)); a few lines with the socket module, no library needed.
Outside systemd ``$NOTIFY_SOCKET`` is unset and every call does nothing.

The watchdog is fed only while the web server answers its own ``/api/health``: a process
that is alive but no longer serves phones stops feeding it, systemd kills it and
``Restart=on-failure`` starts a fresh one (the game resumes from the journal).
"""
from __future__ import annotations

import os
import socket
import threading
import urllib.request
from collections.abc import Callable, Mapping


def notify(state: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send ``state`` (e.g. ``"READY=1"``) to systemd; False when not run by systemd or it failed."""
    env = os.environ if environ is None else environ
    address = env.get("NOTIFY_SOCKET", "")
    if not address or address[0] not in "/@":
        return False
    if address[0] == "@":                      # an abstract socket (Linux)
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode("utf-8"))
        return True
    except OSError:
        return False


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between feeds (half of ``WatchdogSec=``), or None when no watchdog is asked for."""
    env = os.environ if environ is None else environ
    usec, pid = env.get("WATCHDOG_USEC", ""), env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) <= 0:
        return None
    if pid and pid != str(os.getpid()):        # meant for another process (e.g. our parent)
        return None
    return int(usec) / 2e6


def health_check(url: str, timeout: float = 5.0) -> Callable[[], bool]:
    """A check that the server at ``url`` answers ``api/health``."""
    def check() -> bool:
        try:
            with urllib.request.urlopen(url.rstrip("/") + "/api/health", timeout=timeout) as response:
                return response.status == 200
        except OSError:
            return False
    return check


class Watchdog:
    """Feeds systemd's watchdog from a thread while ``healthy()`` is true."""

    def __init__(self, healthy: Callable[[], bool], interval: float | None = None,
                 environ: Mapping[str, str] | None = None):
        self.environ = os.environ if environ is None else environ
        self.interval = interval if interval is not None else watchdog_interval(self.environ)
        self.healthy = healthy
        self.fed = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> "Watchdog":
        if self.interval:
            self._thread = threading.Thread(target=self._run, name="flure-watchdog", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.healthy() and notify("WATCHDOG=1", self.environ):
                self.fed += 1
            self._stop.wait(self.interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)


def local_url(host: str, port: int) -> str:
    """Where this process reaches its own server (loopback when it listens everywhere)."""
    if host in ("0.0.0.0", "", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def announce(server, status: str) -> Watchdog:
    """Tell systemd the server is ready (with a status line) and start feeding the watchdog."""
    notify(f"READY=1\nSTATUS={status}")
    return Watchdog(health_check(local_url(server.host, server.port))).start()


def stopping() -> None:
    notify("STOPPING=1")
