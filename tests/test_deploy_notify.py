"""Readiness and watchdog notifications (Type=notify, WatchdogSec=) against a real AF_UNIX
datagram socket standing in for systemd's $NOTIFY_SOCKET."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion_app.web import systemd
from play_process import START_TIMEOUT_S, STOP_TIMEOUT_S

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def notify_socket(tmp_path):
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(10)
    yield str(path), sock
    sock.close()


def receive(sock, count=1, timeout=10.0, sender=None) -> list[str]:
    """Up to ``count`` datagrams within ``timeout`` s; sooner when the ``sender`` process has exited."""
    out, end = [], time.monotonic() + timeout
    while len(out) < count and time.monotonic() < end:
        sock.settimeout(max(0.01, min(end - time.monotonic(), 0.5 if sender is not None else timeout)))
        try:
            out.append(sock.recv(4096).decode())
        except socket.timeout:
            if sender is None or sender.poll() is not None:
                break
    return out


def test_notify_sends_one_datagram_to_the_named_socket(notify_socket):
    path, sock = notify_socket
    assert systemd.notify("READY=1\nSTATUS=serving", {"NOTIFY_SOCKET": path})
    assert receive(sock) == ["READY=1\nSTATUS=serving"]


def test_an_abstract_socket_name_works_too():
    name = f"flure-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        assert systemd.notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        sock.settimeout(5)
        assert sock.recv(100) == b"WATCHDOG=1"


def test_outside_systemd_nothing_is_sent(tmp_path):
    assert not systemd.notify("READY=1", {})
    assert not systemd.notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")})   # nobody listening
    assert systemd.watchdog_interval({}) is None
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None   # not ours
    assert systemd.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 15.0


def test_the_watchdog_is_fed_only_while_the_check_passes(notify_socket):
    path, sock = notify_socket
    healthy = [True]
    dog = systemd.Watchdog(lambda: healthy[0], interval=0.05, environ={"NOTIFY_SOCKET": path}).start()
    try:
        assert receive(sock, 3) == ["WATCHDOG=1"] * 3
        healthy[0] = False
        time.sleep(0.2)
        while True:                       # drain what was sent before the switch
            sock.settimeout(0.2)
            try:
                sock.recv(100)
            except socket.timeout:
                break
        fed = dog.fed
        time.sleep(0.3)
        assert dog.fed == fed             # no feed while the server does not answer
    finally:
        dog.stop()


def test_the_health_check_asks_the_real_server(tmp_path):
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store
    from companion_app.web.app import create_app
    from companion_app.web.server import Server

    session = TableSession(Store(tmp_path / "db.sqlite3"))
    with Server(create_app(session, token="2468")) as server:
        assert systemd.health_check(systemd.local_url("0.0.0.0", server.port))()
    session.close()
    assert not systemd.health_check(systemd.local_url("127.0.0.1", server.port), timeout=1)()


def test_flure_play_says_ready_feeds_the_watchdog_and_says_stopping(notify_socket, tmp_path):
    path, sock = notify_socket
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "play", "--host", "127.0.0.1", "--port", "0",
                             "--db", str(tmp_path / "t.db"), "--pin", "2468", "--no-camera", "--no-leds"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        # start-up may take long on a loaded machine (play_process.START_TIMEOUT_S); a process that died says so
        messages = receive(sock, 1, timeout=START_TIMEOUT_S, sender=proc)
        if not messages:
            proc.kill()
            raise AssertionError(f"flure play never said READY=1 (exit status {proc.wait()}):\n{proc.stdout.read()}")
        messages += receive(sock, 2, timeout=30)
        assert messages[0].startswith("READY=1\nSTATUS=serving http://127.0.0.1:")
        assert messages[1:] == ["WATCHDOG=1", "WATCHDOG=1"]
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=STOP_TIMEOUT_S)
        assert proc.returncode == 0, out
        rest = receive(sock, 20, timeout=1)
        assert "STOPPING=1" in rest
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
