"""``flure play --camera phone --pieces pieces.json`` end to end (issue 27): the phone's camera page posts
frames of the unmodified box (no sticker, no corner marker) to the real server; the real camera worker
reads them without stickers against the game's prior, and a move is applied.  A frame that is no
picture, or one the board cannot be found in, is a clear answer, never a 500; a pieces file that is
not there stops ``flure play`` with one plain line."""
from __future__ import annotations

import http.client
import json
import threading
import time
from contextlib import contextmanager
from urllib.parse import urlsplit

import numpy as np
import pytest

from phone_helpers import jpeg_of, phone_table
from table_helpers import wait_for
from test_phone_camera_source import post_frame
from web_helpers import AUTH

SEED = 3          # phone_table's game
LOOK = 6          # the box's looks (vision.twin: colours, pictures, board art)


@pytest.fixture(scope="module")
def taught():
    from types import SimpleNamespace

    from companion_app.table.simulated.demo import SimulatedRig
    from engine.game import Game

    return SimulatedRig(SimpleNamespace(game=Game.new(["red", "blue"], seed=SEED)), seed=SEED, stickers=False,
                        look_seed=LOOK).teach()


def _get(url: str, path: str, auth: dict = AUTH) -> tuple[int, dict]:
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", path, headers=auth)
    r = conn.getresponse()
    answer = r.status, json.loads(r.read() or b"{}")
    conn.close()
    return answer


@contextmanager
def sending(url: str, frame):
    """The phone's page posting ``frame()`` (a JPEG) about four times a second meanwhile."""
    stop, answers = threading.Event(), []

    def send():
        while not stop.is_set():
            answers.append(post_frame(url, frame()))
            time.sleep(0.25)
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        yield answers
    finally:
        stop.set()
        thread.join()


def test_a_phone_without_stickers_reads_the_table_and_a_move_is_applied(tmp_path, taught):
    from vision.twin.table import PhysicalTable, SimulatedCamera

    with phone_table(tmp_path, https=False, pieces=taught) as (session, phone, server, _):
        session.loop.mode = "auto"
        game = session.game
        table = PhysicalTable(game.position, seed=SEED)
        camera = SimulatedCamera(table, seed=SEED, stickers=False, look_seed=LOOK)
        with sending(server.url, lambda: jpeg_of(camera.read())) as answers:
            wait_for(lambda: session.follow is None, 60, "the set-up table seen through the phone")
            label, target = next((label, t) for label in sorted(game.unmoved)
                                 if game.position.pawn(label).colour == game.to_move
                                 for t in game.targets(label) if t["square"] not in (None, "out"))
            table.arrange(game.apply({"type": "move", "pawn": label, "moves": target["moves"]}).position)
            wait_for(lambda: session.seq == 1, 60, f"{label} to {target['square']} read through the phone")
            status, state = _get(server.url, "/api/camera/phone")     # what the camera page shows meanwhile
            setup_status, setup_look = _get(server.url, "/api/setup/look")   # the Setup page's look: no 500
        assert all(a[0] in (200, 429) for a in answers), [a for a in answers if a[0] not in (200, 429)]
        step = session.store.history(session.game_id)[-1]
        assert step.action["type"] == "move" and step.action["pawn"] == label and step.action["by"] == "camera"
        assert setup_status == 200 and setup_look["picture"], setup_look
        look = state["look"]                 # the board found by its picture, outlined over the live picture
        assert status == 200 and look["located"] and look["verdict"] == "good" and look["markers"] == [], look
        assert all(0 <= x <= 1 and 0 <= y <= 1 for x, y in look["outline"]), look["outline"]


def test_a_phone_frame_without_the_board_or_no_picture_gets_a_clear_answer(tmp_path, taught):
    with phone_table(tmp_path, https=False, pieces=taught) as (session, phone, server, _):
        status, body, _ = post_frame(server.url, b"\xff\xd8\xff" + bytes(500))      # a JPEG's start, then nothing
        assert status == 400 and body["code"] == "unreadable" and body["error"], body
        blank = jpeg_of(np.full((720, 1280, 3), 150, np.uint8))                     # a wall, not the board
        with sending(server.url, lambda: blank) as answers:
            detail = wait_for(lambda: (lambda d: d if d.get("frames", 0) >= 2 else None)(
                session.camera.status()["detail"]), 30, "the blank frames read")
            status, state = _get(server.url, "/api/camera/phone")
        assert all(a[0] in (200, 429) for a in answers), answers
        assert "board is not located" in str(detail["message"]), detail
        assert status == 200 and not state["look"]["located"], state
        advice = str(state["look"]["advice"])
        assert "whole board" in advice and "marker" not in advice, advice    # no sticker to look for
        assert session.seq == 0


@pytest.mark.parametrize("argv, words", [
    (["--pieces", "{missing}"], ["pieces", "missing.json"]),
    (["--no-stickers"], ["--pieces"]),
])
def test_flure_play_with_a_phone_and_no_usable_pieces_file_says_so_in_one_line(tmp_path, capsys, argv, words):
    from companion_app.cli import main
    from test_cli_bad_files import one_plain_line

    status = main(["--lang", "en", "play", "--camera", "phone",
                   *[a.format(missing=tmp_path / "missing.json") for a in argv],
                   "--db", str(tmp_path / "s.db"), "--port", "0", "--https-port", "0"])
    assert status == 2
    one_plain_line(capsys, *words)
    assert not (tmp_path / "s.db").exists()


def test_flure_play_with_a_phone_and_a_pieces_file_reads_the_phones_frames_without_stickers(tmp_path, taught):
    """The real ``flure play --camera phone --pieces FILE`` process: it says where the pieces come from, and
    a frame posted as the camera page posts it is read without stickers (the board found by its picture)."""
    import re
    import signal

    from engine.game import Game
    from play_process import start_play, stop_play
    from vision.twin.table import PhysicalTable, SimulatedCamera

    pin = "2468"
    path = tmp_path / "pieces.json"
    taught.save(path)
    proc, out = start_play("--camera", "phone", "--pieces", str(path), "--port", "0", "--https-port", "0",
                           "--pin", pin, "--db", str(tmp_path / "s.sqlite3"), "--no-leds", "--new")
    try:
        url = re.sub(r"//[^/:]+:", "//127.0.0.1:", re.search(r"Players: open (http://\S+/) on your phones",
                                                             out).group(1))
        frame = jpeg_of(SimulatedCamera(PhysicalTable(Game.new(["red", "blue"], seed=SEED).position, seed=SEED),
                                        seed=SEED, stickers=False, look_seed=LOOK).read())
        status, body, _ = post_frame(url, frame, headers={"Authorization": f"Bearer {pin}"})
        assert status == 200 and body["look"]["located"] and body["look"]["markers"] == [], body
        auth = {"Authorization": f"Bearer {pin}"}
        status, devices = _get(url, "/api/status", auth)
        assert status == 200 and str(path) in json.dumps(devices["camera"], ensure_ascii=False), devices["camera"]
        detail = wait_for(lambda: (lambda d: d if d.get("frames", 0) >= 1 else None)(
            _get(url, "/api/status", auth)[1]["camera"]["detail"]), 30, "the phone's frame read")
        assert detail["state"] == "watching", detail
    finally:
        stop_play(proc, signal.SIGINT)
