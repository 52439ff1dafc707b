"""Errors and warnings reach the log with a level, once per cause, not at every retry.

The café's stall reopened the camera 121 times and wrote nothing to the server's log.  Checked
here: the camera worker, a failing device and the journal each log a trouble once, and once more
when it is over; ``flure play`` sends those records to stderr with their level (and with the
syslog priority journald reads under systemd).
"""
from __future__ import annotations

import io
import logging
import signal
import time

from companion_app.cli.logs import configure
from companion_app.table.camera.watcher import CameraWorker
from companion_app.table.devices.devices import Device
from companion_app.table.devices.fakes import FakeLeds
from engine.position import basic_position
from play_process import start_play, stop_play
from table_helpers import TableSource, wait_for
from vision.pipeline import TableCamera


def test_a_camera_that_cannot_open_is_logged_once_however_often_it_is_retried(caplog):
    caplog.set_level(logging.WARNING)
    tries, source = [], TableSource(basic_position().to_setup())

    def open_source():
        tries.append(1)
        if len(tries) < 8:
            raise OSError("no such device")
        return source

    worker = CameraWorker(open_source, TableCamera(None).feed, lambda u: None, fps=20, backoff=(0.01, 0.02))
    worker.start()
    try:
        wait_for(lambda: worker.status()["state"] == "watching", what="the camera working")
    finally:
        worker.close()
    records = [r for r in caplog.records if r.name == "companion_app.table.camera.watcher"]
    assert len(tries) == 8
    assert [r.levelno for r in records] == [logging.WARNING, logging.WARNING], [r.getMessage() for r in records]
    assert "cannot open it (no such device)" in records[0].getMessage()
    assert "works again" in records[1].getMessage()


def test_a_frame_source_that_fails_at_every_reopening_is_logged_once(caplog):
    caplog.set_level(logging.WARNING)

    class Broken:
        frames = 0

        def read(self):
            raise RuntimeError("a stone on i10: no tile left")

        def close(self):
            pass

    worker = CameraWorker(Broken, TableCamera(None).feed, lambda u: None, fps=20, backoff=(0.01, 0.02),
                          read_timeout=0.5)
    worker.start()
    try:
        wait_for(lambda: worker.reopened >= 5, what="five reopenings")
    finally:
        worker.close()
    records = [r for r in caplog.records if r.name == "companion_app.table.camera.watcher"]
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    assert "a stone on i10" in records[0].getMessage()


def test_a_failing_device_is_logged_once_per_cause(caplog):
    caplog.set_level(logging.WARNING)
    leds = FakeLeds(fail=OSError("serial port gone"))
    device = Device("LED grid", leds)
    for _ in range(20):
        device.call(lambda grid: grid.show_error())
    leds.fail = OSError("permission denied")
    device.call(lambda grid: grid.show_error())
    leds.fail = None
    device.call(lambda grid: grid.show_error())
    messages = [r.getMessage() for r in caplog.records if r.name == "companion_app.table.devices.devices"]
    assert len(messages) == 3, messages
    assert "serial port gone" in messages[0] and "permission denied" in messages[1]
    assert "works again" in messages[2]


def test_log_lines_carry_their_level_and_journald_priority(monkeypatch):
    out = io.StringIO()
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    handler = configure(stream=out)
    try:
        logging.getLogger("companion_app.test").warning("the camera failed")
        logging.getLogger("companion_app.test").info("not shown: below the level")
    finally:
        logging.getLogger().removeHandler(handler)
    assert out.getvalue().strip().endswith("WARNING companion_app.test: the camera failed"), out.getvalue()
    assert "not shown" not in out.getvalue()
    out = io.StringIO()
    monkeypatch.setenv("JOURNAL_STREAM", "8:1234")     # systemd: stderr is the journal
    handler = configure(stream=out)
    try:
        logging.getLogger("companion_app.test").error("the disk is full")
    finally:
        logging.getLogger().removeHandler(handler)
    assert out.getvalue() == "<3>companion_app.test: the disk is full\n"


def test_flure_play_logs_a_camera_it_cannot_open_once_with_its_level(tmp_path):
    proc, start = start_play("--camera", "7", "--no-leds", "--port", "0", "--host",
                         "127.0.0.1", "--pin", "735291", "--db", str(tmp_path / "s.sqlite3"), "--new")
    time.sleep(6)            # the worker retries with back-off: 0.5, 1, 2, 4 s
    out = start + stop_play(proc, signal.SIGINT)
    lines = [line for line in out.splitlines() if "companion_app.table.camera.watcher" in line]
    assert len(lines) == 1, out
    assert " WARNING companion_app.table.camera.watcher: camera " in lines[0] and "cannot open it" in lines[0], out
