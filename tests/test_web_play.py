"""`flure play` as a user runs it: a real process, its printed addresses, Ctrl+C, and resuming the game."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from play_process import start_play, stop_play

REPO = Path(__file__).resolve().parent.parent


def start(tmp_path, *extra):
    return start_play("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "table.db"), "--pin", "9876",
                      "--no-camera", "--no-leds", *extra)


def stop(proc, how=signal.SIGINT) -> str:
    out = stop_play(proc, how)
    assert proc.returncode == 0, out
    return out


def call(url, body=None):
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer 9876", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_flure_play_prints_the_addresses_and_resumes_after_a_restart(tmp_path):
    proc, out = start(tmp_path)
    try:
        phone = re.search(r"open (http://127\.0\.0\.1:\d+/) on your phones", out).group(1)
        assert f"open {phone}referee on the tablet and enter the PIN 9876" in out
        assert "Camera: switched off (--no-camera)" in out and "LED grid: switched off (--no-leds)" in out
        assert "█" in out or "▀" in out                      # the QR code
        call(phone + "api/game", {"players": ["red", "blue"], "first_player": "blue", "seed": 3})
        call(phone + "api/action", {"type": "move", "pawn": "blue-6/1", "moves": "I"})
    finally:
        assert "the game is saved" in stop(proc)

    proc, out = start(tmp_path)
    try:
        assert "resumed: Round 1, turn 1: red moves" in out
        phone = re.search(r"open (http://127\.0\.0\.1:\d+/)", out).group(1)
        state = call(phone + "api/state")
        assert state["position"]["pawns"]["blue-6/1"]["at"] == "p11" and state["to_move"] == "red"
    finally:
        assert "the game is saved" in stop(proc, signal.SIGTERM)     # as systemd stops it


def _play(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "companion_app.cli", "--lang", "en", "play", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=60)


def test_flure_play_on_a_busy_port_says_so_and_starts_no_game(tmp_path):
    import socket
    import sqlite3

    db = tmp_path / "t.db"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        proc = _play("--host", "127.0.0.1", "--port", str(port), "--db", str(db), "--no-camera", "--no-leds")
        demo = _play("--host", "127.0.0.1", "--port", str(port), "--db", str(db), "--demo", "--no-leds")
    for done in (proc, demo):    # a port may free itself: status 1, so systemd tries again (flure.service)
        assert done.returncode == 1, done
        assert done.stderr.startswith(f"flure: Cannot listen on 127.0.0.1:{port}") and "Traceback" not in done.stderr
    if db.exists():              # nothing was written: the demo did not start a game it could not show
        with sqlite3.connect(db) as con:
            tables = [r[0] for r in con.execute("select name from sqlite_master where type = 'table'")]
            assert all(con.execute(f'select count(*) from "{t}"').fetchone()[0] == 0 for t in tables)


def test_flure_play_with_a_file_that_is_not_a_database_says_so(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("shopping list: dice, sleeves\n" * 100)
    proc = _play("--host", "127.0.0.1", "--port", "0", "--db", str(bad), "--no-camera", "--no-leds")
    assert proc.returncode == 2         # input it cannot use: systemd does not restart it
    assert proc.stderr.startswith(f"flure: Cannot use {bad} as the session database") and "Traceback" not in proc.stderr
    assert bad.read_text() == "shopping list: dice, sleeves\n" * 100


def test_a_second_flure_play_on_the_same_database_is_refused(tmp_path):
    proc, _ = start(tmp_path)
    try:
        second = _play("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "table.db"), "--no-camera",
                       "--no-leds")
        assert second.returncode == 1
        assert second.stderr.strip() == f"flure: {tmp_path / 'table.db'} is in use by another flure play: stop it " \
                                        "first, or give another --db."
        other = _play("--host", "127.0.0.1", "--port", "0", "--db", str(tmp_path / "other.db"), "--no-leds",
                      "--demo", "--camera", "usb:0")
        assert other.returncode == 2 and "--demo plays on the simulated table" in other.stderr   # input: status 2
    finally:
        stop(proc)
    proc, out = start(tmp_path)          # the lock goes with the process that held it
    stop(proc)


def test_ctrl_c_during_start_up_leaves_no_thread_that_keeps_flure_play_running(tmp_path, monkeypatch):
    """Ctrl+C can land anywhere in start-up, not only while serving: the HTTPS server's worker threads (not
    daemon threads) must be stopped then too, or the interpreter waits for them for ever."""
    import threading

    from companion_app.cli import main as flure
    from companion_app.cli import play as play_command

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(play_command, "_print_startup", interrupted)   # Ctrl+C while it prints its addresses
    before = set(threading.enumerate())
    status = flure(["--lang", "en", "play", "--host", "127.0.0.1", "--port", "0", "--https-port", "0", "--pin", "2468",
                    "--db", str(tmp_path / "s.sqlite3"), "--no-camera", "--no-leds"])
    assert status == 130
    left = [t.name for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    assert left == []


def test_ctrl_c_with_phones_following_stops_without_leaving_threads(tmp_path):
    """waitress answers Ctrl+C inside its own loop by waiting for its threads: the live streams end first."""
    import threading
    import time

    proc, out = start(tmp_path)
    phone = re.search(r"open (http://127\.0\.0\.1:\d+/) on your phones", out).group(1)
    opened = threading.Semaphore(0)

    def follow():
        try:
            with urllib.request.urlopen(phone + "api/stream", timeout=30) as r:
                r.read(10)
                opened.release()
                while r.read(100):
                    pass
        except OSError:
            pass

    for _ in range(3):
        threading.Thread(target=follow, daemon=True).start()
    for _ in range(3):
        assert opened.acquire(timeout=20)
    begun = time.monotonic()
    said = stop(proc)
    assert "still running" not in said and "the game is saved" in said, said
    assert time.monotonic() - begun < 4.5      # waitress waits 5 s for a thread that does not end
