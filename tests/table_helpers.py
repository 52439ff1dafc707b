"""Helpers for the camera-loop tests: rendered frames with known truth, fake sources behind
the real FrameSource interface (``read() -> frame | None``, ``close()``), and a session filming
the simulated table."""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from functools import lru_cache

from engine.position import Position

SIZE = {"width": 960, "height": 540}


@lru_cache(maxsize=32)
def _frame(setup_json: str, tile: str | None, hand: bool, frame: int):
    import json

    from vision.twin.scene import render
    image, _ = render(Position.from_setup(json.loads(setup_json), strict=False), tile, seed=1, frame=frame,
                      occluder="hand" if hand else None, **SIZE)
    return image


def frame_of(setup: dict, tile: str | None = None, hand: bool = False, frame: int = 0):
    """The synthetic camera's picture of ``setup`` (cached: a test renders each scene once)."""
    import json
    return _frame(json.dumps(setup, sort_keys=True), tile, hand, frame % 2)


class TableSource:
    """A source showing whatever ``scene`` is now (setup, tile, hand); ``stall``/``end`` simulate faults."""

    def __init__(self, setup: dict, tile: str | None = None):
        self.scene = (setup, tile, False)
        self.frames = 0
        self.stall = threading.Event()      # set: read() blocks until cleared
        self.end = False                    # True: read() answers None (a file that ended)
        self.closed = False

    def show(self, setup: dict, tile: str | None = None, hand: bool = False) -> None:
        frame_of(setup, tile, hand)          # render before it is shown: a render takes a moment
        self.scene = (setup, tile, hand)

    def read(self):
        while self.stall.is_set():
            time.sleep(0.02)
        if self.end:
            return None
        self.frames += 1
        setup, tile, hand = self.scene
        return frame_of(setup, tile, hand, self.frames)

    def close(self) -> None:
        self.closed = True


def wait_for(predicate, timeout: float = 20.0, what: str = "condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@contextmanager
def simulated_table(tmp_path, *, seed: int, speed: float, fps: float, setup: str = "basic",
                    err_rate: float = 0.0, language: str | None = None):
    """A session in auto mode whose real camera worker films the simulated table (``SimulatedRig``),
    as ``flure play --demo`` wires it; yields (session, rig) and closes both.  The players are not
    started: a test starts them (``rig.start()``) once it watches."""
    from companion_app.table.devices.devices import open_camera
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store
    from companion_app.table.simulated.demo import SimulatedRig

    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=seed, setup=setup)
    session.loop.mode = "auto"
    if language is not None:
        session.language = language
    rig = SimulatedRig(session, seed=seed, speed=speed, err_rate=err_rate)
    session.simulated = rig
    session.camera = open_camera("simulated", None, None, 2, on_update=session.on_camera, fps=fps,
                                 open_frames=rig.open_source)
    try:
        yield session, rig
    finally:
        rig.close()
        session.close()
