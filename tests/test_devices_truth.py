"""Devices tell the truth: a hung LED device is not "connected", loop:// works, a sender that fails
is reported and started again (real pseudo-terminals and pyserial URLs); a camera gives the reader
no more pixels than it can use."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import tty

from companion_app.i18n.text import render
from hardware.layout import LedLayout
from hardware.link import SerialLink
from hardware.protocol import make_encoder
from tests.hardware_helpers import plan, wait_until

LAYOUT = LedLayout.from_config(None)
FRAME = bytes(range(90)) * (LAYOUT.led_count * 3 // 90) + bytes(LAYOUT.led_count * 3 % 90)


def test_loop_url_takes_every_frame_and_stays_connected():
    """loop:// hands every byte back; unread, pyserial's 4 KB queue would fill after 8 frames and
    end the sender with queue.Full while the status said connected: the link drains it."""
    link = SerialLink("loop://", make_encoder("adalight", LAYOUT.led_count)).start()
    try:
        for _ in range(40):
            link.submit(FRAME)
            assert link.wait_sent(2)
        status = link.status()
        assert status["frames_sent"] >= 40 and status["connected"] and status["last_error"] is None
        assert status["sender_restarts"] == 0 and status["write_errors"] == 0
    finally:
        link.close()


def test_a_hung_device_is_never_shown_as_connected_once_a_write_timed_out():
    """The port opens (a real pty) but nothing reads it: after the first timed-out write, every status
    sample says not connected with the reason, though the link keeps reopening the port."""
    master, slave = os.openpty()
    tty.setraw(slave)
    link = SerialLink(os.ttyname(slave), make_encoder("adalight", LAYOUT.led_count), keepalive_s=0.01,
                      write_timeout_s=0.1, reconnect_s=0.02).start()
    try:
        link.submit(FRAME)
        assert wait_until(lambda: link.counters.write_errors >= 1, 10)
        samples = []
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            samples.append(link.status())
            time.sleep(0.005)
        assert link.counters.reconnects >= 1          # the port did open again meanwhile
        assert not any(s["connected"] for s in samples), sum(s["connected"] for s in samples)
        assert all("takes no data" in s["last_error"] for s in samples)
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_a_sender_that_fails_unexpectedly_is_reported_and_started_again():
    link = SerialLink("loop://", make_encoder("adalight", LAYOUT.led_count), reconnect_s=0.02)
    real_open, calls = link._open, []

    def open_once_broken():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("driver bug")
        return real_open()

    link._open = open_once_broken
    link.start()
    try:
        assert wait_until(lambda: link.counters.sender_restarts == 1, 5)
        link.submit(FRAME)
        assert wait_until(lambda: link.status()["connected"] and link.status()["frames_sent"] >= 1, 5)
        assert link.status()["sender_restarts"] == 1
    finally:
        link.close()


def test_a_sender_thread_that_ended_is_reported_and_started_again():
    link = SerialLink("loop://", make_encoder("adalight", LAYOUT.led_count)).start()
    try:
        link.submit(FRAME)
        assert link.wait_sent(2)
        dead = threading.Thread(target=lambda: None)
        dead.start()
        dead.join()
        link._thread = dead                       # as if the sender had ended
        status = link.status()
        assert status["sender_restarts"] == 1 and not status["connected"]
        assert "sending thread had stopped" in status["last_error"]
        from companion_app.i18n.text import render
        assert render(status["last_error"].text, "de").startswith("LED-Gerät loop://: der Sende-Thread war angehalten")
        link.submit(FRAME)
        assert wait_until(lambda: link.status()["connected"] and link.status()["last_error"] is None, 5)
    finally:
        link.close()


def test_a_device_that_was_not_there_is_fine_once_its_port_opens_even_before_a_frame(tmp_path):
    """'is not there' is answered by the port opening; a write error waits for a delivered frame."""
    port = tmp_path / "ttyLATE"
    master, slave = os.openpty()
    tty.setraw(slave)
    link = SerialLink(str(port), make_encoder("adalight", LAYOUT.led_count), reconnect_s=0.02).start()
    try:
        assert wait_until(lambda: "is not there" in (link.status()["last_error"] or ""), 5)
        port.symlink_to(os.ttyname(slave))
        assert wait_until(lambda: link.status()["connected"] and link.status()["last_error"] is None, 5)
        assert link.status()["frames_sent"] == 0
    finally:
        link.close()
        os.close(master)
        os.close(slave)


def test_flure_leds_show_to_loop_url_ends(tmp_path):
    """It ends: it does not wait forever on a sender that died after 8 frames."""
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan(steps=2)))
    config = tmp_path / "fast.toml"
    config.write_text("[animation]\nhold_s = 0\n")   # about 70 frames
    r = subprocess.run([sys.executable, "-m", "companion_app.cli", "leds", "show", str(path), "--url", "loop://",
                        "--config", str(config)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "frames sent to loop://" in r.stdout, r.stdout + r.stderr
    assert "Traceback" not in r.stderr


# -- the camera: no more pixels than the reader can use ------------------------------------------
def test_an_8000_by_6000_camera_is_scaled_down_for_the_reader_and_says_so(tmp_path):
    """A real folder source with one 8000×6000 picture, wired as flure play wires a camera."""
    import cv2
    import numpy as np

    from companion_app.table.devices.devices import open_camera
    from engine.position import basic_position

    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "big.jpg"), np.full((6000, 8000, 3), 120, np.uint8))
    device = open_camera(str(folder), lambda: (basic_position(), None))
    assert device.obj is not None, device.why
    try:
        from table_helpers import wait_for

        # What must be quick is each read: one that takes longer than the worker's read timeout (3 s)
        # counts as a stalled camera, is dropped and the folder reopened, so a slow read never gives a
        # frame (it took 2.7 s of CPU before the folder decoded big photos smaller).  The wait itself
        # only bounds a loaded machine's scheduling: generous, and over as soon as the frame is there.
        try:
            wait_for(lambda: device.obj.last_frame is not None, timeout=120, what="the folder's picture read")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the camera says: {device.status()}") from None
        frame = device.obj.last_frame
        assert frame.shape[:2] == (2880, 3840)
        assert "8000×6000" in device.status()["note"] and "3840×2880" in device.status()["note"]
        assert "des images de 8000×6000" in render(device.status()["note"], "fr")    # the devices card's language
    finally:
        device.obj.close()


def test_a_big_photo_in_a_camera_folder_is_decoded_no_larger_than_the_reader_can_use(tmp_path):
    """JPEG's decoder scales by 1/2, 1/4 or 1/8 as it decodes: a folder picture at least twice the
    reader's size is decoded smaller, never below it; the note still names the picture's own size.
    (Small pictures and limits here: the choice is the same at 8000×6000 against 3840.)"""
    import cv2
    import numpy as np

    from companion_app.table.camera.frames import KeepLastFrame, shrink
    from vision.sources import FolderSource

    rng = np.random.default_rng(5)
    photo = cv2.resize(rng.integers(0, 255, (60, 80, 3), dtype=np.uint8), (800, 600), interpolation=cv2.INTER_CUBIC)
    for name, image in (("big", photo), ("smaller", photo[:500, :700])):
        (tmp_path / name).mkdir()
        cv2.imwrite(str(tmp_path / name / "p.jpg"), image)
    assert FolderSource(tmp_path / "big", max_side=384).read().shape == (300, 400, 3)      # 1/2
    assert FolderSource(tmp_path / "big", max_side=100).read().shape == (75, 100, 3)       # 1/8
    assert FolderSource(tmp_path / "big").read().shape == (600, 800, 3)                    # no limit given
    assert FolderSource(tmp_path / "smaller", max_side=384).read().shape == (500, 700, 3)  # half is too small
    frames = KeepLastFrame(FolderSource(tmp_path / "big", max_side=384), max_side=384)
    assert frames.read().shape == (288, 384, 3)
    assert str(frames.note).startswith("the camera gives 800×600 frames; the reader gets them scaled to 384×288")
    # the quick scaling (whole blocks averaged, then linear) gives what one area resize gives
    full = cv2.imread(str(tmp_path / "big" / "p.jpg"))
    quick, area = shrink(full, (384, 288)), cv2.resize(full, (384, 288), interpolation=cv2.INTER_AREA)
    assert quick.shape == area.shape and np.abs(quick.astype(int) - area.astype(int)).mean() < 2


def test_with_a_lens_calibration_frames_of_another_size_are_refused_not_scaled():
    import numpy as np

    from companion_app.table.camera.frames import KeepLastFrame
    from companion_app.table.devices.fakes import StillFrames

    frames = KeepLastFrame(StillFrames(np.zeros((6000, 8000, 3), np.uint8)), calibrated_size=(1920, 1080))
    assert frames.read() is None and frames.last_frame is None
    assert "lens calibration is for 1920×1080" in str(frames.note)
    from companion_app.i18n.text import render  # the referee's devices card says it in its language
    assert render(frames.note, "fr") == ("la caméra donne des images de 8000×6000 mais la calibration de l'objectif "
                                         "est faite pour 1920×1080\u00a0: images refusées (réglez [camera] resolution "
                                         "ou calibrez à nouveau)")
    frames = KeepLastFrame(StillFrames(np.zeros((1080, 1920, 3), np.uint8)), calibrated_size=(1920, 1080))
    assert frames.read().shape == (1080, 1920, 3) and frames.note == ""
