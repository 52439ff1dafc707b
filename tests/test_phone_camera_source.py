"""The phone frame source (vision/phone_source.py) behind the real server and camera worker:
frames too big, of the wrong type or too frequent are refused with a clear error and never stall the
session; a phone that goes away is a camera that stopped, and one that comes back is read again."""
from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

import numpy as np

from phone_helpers import jpeg_of, phone_table, render_position
from table_helpers import wait_for
from web_helpers import AUTH


def post_frame(url: str, data: bytes, kind: str = "image/jpeg", headers: dict | None = None):
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("POST", "/api/camera/phone/frame", body=data,
                 headers={**AUTH, "Content-Type": kind, **(headers or {})})
    r = conn.getresponse()
    answer = r.status, json.loads(r.read() or b"{}"), r.getheader("Retry-After")
    conn.close()
    return answer


def camera_state(url: str) -> dict:
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", "/api/status", headers=AUTH)
    state = json.loads(conn.getresponse().read())
    conn.close()
    return state


def test_refusals_say_why_and_leave_the_newest_frame(tmp_path):
    with phone_table(tmp_path, https=False, max_bytes=300_000, max_fps=5) as (session, phone, server, _):
        board = render_position(session.game.position)
        good = jpeg_of(board)
        status, body, _ = post_frame(server.url, good)
        assert status == 200 and body["phone"]["size"] == [1280, 720], body
        time.sleep(0.25)
        status, body, _ = post_frame(server.url, b"GIF89a" + bytes(100), "image/gif")
        assert status == 415 and body["code"] == "wrong-type" and "JPEG or PNG" in body["error"], body
        time.sleep(0.25)
        status, body, _ = post_frame(server.url, good[:200] + b"x" * 100, "image/png")     # says PNG, is JPEG
        assert status == 415 and body["code"] == "wrong-type", body
        time.sleep(0.25)
        big = jpeg_of(np.random.default_rng(1).integers(0, 255, (640, 640, 3), dtype=np.uint8))
        assert 300_000 < len(big) < 1_000_000, len(big)   # under waitress's own 1 MB limit: the app answers
        status, body, _ = post_frame(server.url, big)
        assert status == 413 and body["code"] == "too-big" and "at most 0 MB" not in body["error"], body
        time.sleep(0.25)
        status, body, _ = post_frame(server.url, b"\xff\xd8\xff" + bytes(500))        # a JPEG's start, then nothing
        assert status == 400 and body["code"] == "unreadable", body
        time.sleep(0.25)
        # a flood: frames faster than 5 a second get 429 with Retry-After, the session goes on
        answers = [post_frame(server.url, good) for _ in range(6)]
        assert any(a[0] == 429 and a[1]["code"] == "too-frequent" and a[2] for a in answers), answers
        assert phone.latest is not None and phone.latest.shape == board.shape
        line = camera_state(server.url)["phone_camera"]["detail"]
        assert line["refused"] >= 5 and line["last_error"].startswith("the last frame was refused: frames come too often")
        assert session.state()["version"] >= 0          # the session answers at once


def test_a_phone_that_goes_away_is_a_camera_that_stopped_then_comes_back(tmp_path):
    with phone_table(tmp_path, https=False) as (session, phone, server, _):
        good = jpeg_of(render_position(session.game.position))
        stop = threading.Event()

        def send():
            while not stop.is_set():
                post_frame(server.url, good)
                time.sleep(0.25)

        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        wait_for(lambda: session.camera.status()["detail"]["state"] == "watching", 30, "the phone's frames read")
        placement, picture = server.app.extensions["flure_setup"].look(max_age=0)     # the Setup page's check
        assert placement["located"] and placement["verdict"] == "good" and picture, placement
        stop.set()
        sender.join()
        # no frame for a few seconds: the worker says the camera stopped, the Devices card says the phone went away
        detail = wait_for(lambda: (lambda d: d if d["state"] in ("lost", "failed") else None)(
            session.camera.status()["detail"]), 20, "the camera counted as stopped")
        assert "phone camera" in detail["message"], detail
        line = camera_state(server.url)["phone_camera"]["detail"]
        assert not line["connected"] and "went away" in line["message"], line
        checks = server.app.extensions["flure_setup"].doctor("en")      # the Setup page's check card
        phone_check = next(c for c in checks if c["topic"] == "phone camera (in this session)")
        assert not phone_check["ok"] and "went away" in phone_check["text"], checks
        # the phone sends again: the worker reads it again by itself
        stop.clear()
        sender = threading.Thread(target=send, daemon=True)
        sender.start()
        try:
            wait_for(lambda: session.camera.status()["detail"]["state"] == "watching", 30, "the phone read again")
            assert session.camera.status()["detail"]["reopened"] >= 1
            assert camera_state(server.url)["phone_camera"]["detail"]["connected"]
        finally:
            stop.set()
            sender.join()


def test_a_stalled_page_never_stalls_the_session(tmp_path):
    """A page that announces a frame and then sends it one byte at a time holds only its own request."""
    import socket

    with phone_table(tmp_path, https=False) as (session, phone, server, _):
        u = urlsplit(server.url)
        slow = socket.create_connection((u.hostname, u.port), timeout=10)
        slow.sendall((f"POST /api/camera/phone/frame HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\n"
                      f"Authorization: {AUTH['Authorization']}\r\nContent-Type: image/jpeg\r\n"
                      "Content-Length: 200000\r\n\r\n").encode() + b"\xff\xd8\xff")
        try:
            t0 = time.monotonic()
            status, body, _ = post_frame(server.url, jpeg_of(render_position(session.game.position)))
            assert status == 200, body
            assert time.monotonic() - t0 < 5
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
            conn.request("GET", "/api/state")
            assert conn.getresponse().status == 200
            assert session.camera.status()["present"]
        finally:
            slow.close()


def test_phone_source_reads_each_frame_once_and_none_when_nothing_new():
    from vision.phone_source import PhoneFrames

    phone = PhoneFrames(max_fps=1000)
    source = phone.open()
    source.wait_s = 0.2
    assert source.read() is None
    image = np.full((240, 320, 3), 120, np.uint8)
    phone.put(jpeg_of(image), "image/jpeg", "10.0.0.5")
    frame = source.read()
    assert frame is not None and frame.shape == (240, 320, 3)
    assert source.read() is None                      # the same frame is not given twice
    assert phone.status()["address"] == "10.0.0.5"
