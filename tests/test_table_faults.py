"""The camera failing mid-game, with the real worker, reader and session: the session says so in
words, requests never wait on the camera, and once the camera is back a move is read and applied."""
from __future__ import annotations

import time

from companion_app.table.camera.watcher import CameraWorker
from companion_app.table.devices.devices import Device
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from table_helpers import TableSource, frame_of, wait_for
from vision.pipeline import TableCamera


def test_a_camera_that_stalls_and_comes_back_mid_game(tmp_path):
    session = TableSession(Store(tmp_path / "s.db"))
    session.loop.mode = "auto"
    session.new_game(["red", "blue"], "red", seed=2)
    start = session.game.position.to_setup()
    entered = session.game.position.to_setup()
    entered["pawns"]["red-6/1"].update(at="p11", face="black")
    frame_of(entered)                                    # rendered before the clock matters
    sources: list[TableSource] = []

    def open_source():
        sources.append(TableSource(sources[-1].scene[0] if sources else start))
        return sources[-1]

    worker = CameraWorker(open_source, TableCamera(None).feed, session.on_camera, fps=8,
                          read_timeout=0.5, backoff=(0.1, 0.4))
    session.camera = Device("camera", worker.start(), why="")
    try:
        wait_for(lambda: session.follow is None, what="the set-up board seen")
        sources[0].stall.set()                           # the camera hangs mid-game
        wait_for(lambda: "stalled" in session.device_status()["camera"]["detail"]["message"], what="stall said")
        t0 = time.perf_counter()
        view = session.camera_view()                     # a referee request while the camera hangs
        assert time.perf_counter() - t0 < 0.2
        assert not view["can_confirm"]
        first = sources[0]
        first.show(entered)                              # red moves while the camera is stuck
        wait_for(lambda: len(sources) >= 2, what="the camera opened again")
        sources[-1].show(entered)
        wait_for(lambda: session.game.position.pawn("red-6/1").where() == "p11", timeout=30,
                 what="the move read once the camera is back")
        status = session.device_status()["camera"]["detail"]
        assert status["reopened"] >= 1 and status["state"] == "watching"
        assert session.store.history(session.game_id)[-1].action["by"] == "camera"
    finally:
        sources[0].stall.clear()
        session.close()
