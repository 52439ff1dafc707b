"""Auto mode marks the moved pawn's square on the LEDs (TABLE.md "Modes": "the LEDs briefly mark
the moved pawn's square"), checked on the real LED grid with the built-in emulator: what the
simulated WLED device on its pseudo-terminal received, not what the session meant to send.

The camera is the shipped FakeCamera feeding readings through the worker's real stable-frame gate.
"""
from __future__ import annotations

import time

from companion_app.table.devices.devices import open_leds
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from hardware.animation import PLAYER_COLOURS
from web_helpers import session_with, show_table

SEED = 11


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def is_colour(rgb, colour):
    """A pulse of ``colour`` at any brightness (the power cap and the pulse scale it)."""
    want = PLAYER_COLOURS[colour]
    top = max(want)
    return max(rgb) >= 40 and all(abs(c / max(rgb) - w / top) < 0.2 for c, w in zip(rgb, want))


def play_on_camera(session, camera, pawn):
    """The player moves ``pawn`` to its first target on the board; the camera sees the table after it."""
    game = session.game
    target = next(t for t in game.targets(pawn) if t["square"] not in (None, "out"))
    after = game.apply({"type": "move", "pawn": pawn, "moves": target["moves"]})
    camera.reading = FakeReading(True, after.position.to_setup())
    return target["square"]


def test_a_pawn_move_applied_in_auto_mode_is_marked_briefly_then_the_grid_goes_idle(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="auto")
    session.leds = open_leds(None)
    grid = session.leds.obj
    assert grid is not None and grid.emulator is not None, session.leds.why
    emulator = grid.emulator
    try:
        session.new_game(["red", "blue"], "red", seed=SEED)
        show_table(camera, session)
        assert wait_for(lambda: grid.sent_frame() and grid.sent_frame()["showing"] == "idle")

        square = play_on_camera(session, camera, "red-6/1")
        assert session.seq == 1 and session.store.history(session.game_id)[-1].action["by"] == "camera"
        # the device received the mark: the square in red, the rest of the board as idle
        assert wait_for(lambda: is_colour(emulator.square_colour(square), "red")), emulator.square_colour(square)
        assert grid.sent_frame()["showing"] == "mark"
        monster = session.game.position.to_setup()["monster"]["at"]
        for other in {"f6", "g7", "j9"} - {square, monster}:    # inner squares, away from the monster's heading
            assert max(emulator.square_colour(other)) < 20, other
        # briefly: then the idle picture, where the square is an ordinary dim board square
        assert wait_for(lambda: grid.sent_frame()["showing"] == "idle", timeout=6.0)
        assert wait_for(lambda: max(emulator.square_colour(square)) < 20), emulator.square_colour(square)
        # a later state change (a phone joining, a fix cleared) does not mark it again
        session.publish_state()
        time.sleep(0.3)
        assert grid.sent_frame()["showing"] == "idle"
    finally:
        session.close()


def test_a_move_confirmed_on_the_screen_or_played_by_the_referee_is_not_marked(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="confirm")
    session.leds = open_leds(None)
    grid = session.leds.obj
    assert grid is not None, session.leds.why
    try:
        session.new_game(["red", "blue"], "red", seed=SEED)
        show_table(camera, session)
        square = play_on_camera(session, camera, "red-6/1")
        assert session.seq == 0                               # proposed, not applied
        session.confirm_reading(by="screen")
        assert session.seq == 1
        session.act({"type": "move", "pawn": "blue-6/1", "moves": session.game.targets("blue-6/1")[-1]["moves"]})
        shown = set()
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            shown.add(grid.sent_frame()["showing"])
            time.sleep(0.02)
        assert "mark" not in shown, shown
        assert not is_colour(grid.emulator.square_colour(square), "red")
    finally:
        session.close()
