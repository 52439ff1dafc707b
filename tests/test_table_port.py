"""The camera loop and the table session through their narrow interface (``camera.port``).

The loop is driven with a small fake of ``port.Table`` (a game and the effects written down, no
session, no lock): it reads the table only as a ``TableSnapshot`` and acts only through the port.
Then the real session: it is the loop's port, the worker's updates reach the loop through it, and
no port method calls the loop back while the loop is acting (no session → loop → session → loop).
"""
from __future__ import annotations

import sys
import threading
from types import MappingProxyType

import pytest

from companion_app.table.actors import By
from companion_app.table.camera import loop as loop_module
from companion_app.table.camera.loop import TableLoop
from companion_app.table.camera.port import Prior, Table, TableSnapshot
from companion_app.table.camera.watcher import CameraWorker
from companion_app.table.devices.fakes import FakeCamera, FakeLeds, FakeReading
from engine.actions import Correct, Move
from engine.errors import GameActionError
from engine.game import Game
from engine.observation import MONSTER_PHASE
from web_helpers import session_with, show_table


class FakeTable:
    """``port.Table`` with nothing behind it: a game, the follow-up, and every effect the loop asked for."""

    def __init__(self, game: Game, follow: str | None = None):
        self.game, self.game_id, self.seq, self.follow = game, 7, 0, follow
        self.fixes: dict = {}
        self.effects: list[tuple] = []
        self.views: list[dict] = []

    def snapshot(self) -> TableSnapshot:
        return TableSnapshot(self.game, self.game_id, self.seq, MappingProxyType(dict(self.fixes)), self.follow,
                             MappingProxyType({"state": "watching", "message": "fake"}))

    def apply(self, action, by, reading, outcome) -> TableSnapshot:
        self.game = self.game.apply(action)
        self.seq += 1
        self.fixes = {}
        self.effects.append(("apply", action, by, outcome))
        return self.snapshot()

    def accept(self, position, note) -> TableSnapshot:
        self.game = self.game.apply(Correct(position))
        self.seq += 1
        self.follow = None
        self.effects.append(("accept", str(note)))
        return self.snapshot()

    def refused(self, reading, outcome) -> None:
        self.effects.append(("refused", outcome))

    def follow_done(self, note) -> None:
        self.follow = None
        self.effects.append(("follow_done", None if note is None else str(note)))

    def show_on_leds(self, guide) -> None:
        self.effects.append(("leds", guide))

    def publish_camera(self, view: dict) -> None:
        self.views.append(view)

    def kinds(self) -> list[str]:
        return [e[0] for e in self.effects]


def _loop(mode="auto", follow="setup", seed=8):
    table = FakeTable(Game.new(["red", "blue"], "red", seed=seed), follow=follow)
    loop = TableLoop(table, mode=mode)
    camera = FakeCamera()
    camera.on_update = loop.on_camera
    return table, loop, camera


def _entered(game: Game, label: str) -> dict:
    """The table after pawn ``label`` entered onto p11 (flipped, P1), whether the game allows it or not."""
    seen = game.position.to_setup()
    seen["pawns"][label].update(at="p11", face="black")
    return seen


def test_the_loop_follows_up_then_applies_a_move_through_its_port_alone():
    table, loop, camera = _loop()
    assert isinstance(table, Table)
    wrong = table.game.position.to_setup()
    stone = next(iter(wrong["stones"]))
    del wrong["stones"][stone]
    camera.reading = FakeReading(True, wrong)
    assert table.kinds() == ["leds"] and table.effects[-1] == ("leds", {"empty": [], "fill": [stone]})
    assert str(table.views[-1]["follow"]["why"]) == "Set up the board for the new game" and table.follow == "setup"

    camera.reading = FakeReading(True, table.game.position.to_setup())   # the table set up: the follow-up done
    assert table.effects[-2:] == [("follow_done", "The table matches the game: the pawn phase begins."),
                                  ("leds", None)]
    assert table.follow is None and loop.checked == 1 and table.views[-1]["follow"] is None

    del table.effects[:]
    camera.reading = FakeReading(True, _entered(table.game, "red-6/1"))
    # the first unsteady frame ends the follow-up's guidance on the LEDs, the steady one is applied (auto)
    assert table.kinds() == ["leds", "apply", "leds"] and table.seq == 1
    assert table.effects[1][:3] == ("apply", Move("red-6/1", "I"), By.CAMERA)
    assert "red 6/1 went from beside the board to p11" in table.effects[1][3]
    assert loop.applied[-1]["seq"] == 1 and loop.applied[-1]["game_id"] == 7
    assert table.views[-1]["applied"][-1]["action"] == {"type": "move", "pawn": "red-6/1", "moves": "I"}
    camera.show(FakeReading(True, table.game.position.to_setup()), frames=4)
    assert table.kinds() == ["leds", "apply", "leds"]        # the same stable reading is not applied twice


def test_the_loop_proposes_refuses_and_accepts_through_its_port():
    table, loop, camera = _loop(mode="confirm", follow=None)
    camera.reading = FakeReading(True, _entered(table.game, "blue-6/1"))   # red's turn (G3): refused, blinked once
    camera.show(camera.reading, frames=2)
    assert table.kinds().count("refused") == 1 and "no legal change explains" in table.effects[0][1]
    assert table.seq == 0 and not table.views[-1]["can_confirm"]

    camera.reading = FakeReading(True, _entered(table.game, "red-2/5"))
    assert table.views[-1]["can_confirm"] and table.seq == 0            # confirm mode: proposed only
    with pytest.raises(GameActionError, match="The table changed since your screen showed the reading"):
        loop.gate("screen", expect=Move("red-6/1", "I"))
    assert table.seq == 0
    message = loop.gate("screen", expect=Move("red-2/5", "I"))
    assert table.effects[-2][:3] == ("apply", Move("red-2/5", "I"), By.CAMERA_SCREEN) and table.seq == 1
    assert str(message).startswith("red 2/5 went from beside the board to p11")

    moved = table.game.position.to_setup()
    moved["pawns"]["blue-6/1"].update(at="p11", face="black")            # a pawn where the game has none
    moved["pawns"]["red-2/5"].update(at=None)
    camera.reading = FakeReading(True, moved)
    loop.accept_table()
    assert table.effects[-2][0] == "accept" and "The referee accepted the table as it is" in table.effects[-2][1]
    assert table.game.position.pawn("blue-6/1").where() == "p11" and table.seq == 2


def test_the_prior_is_the_games_position_and_who_may_change_it():
    assert Prior.of(None) is None
    game = Game.new(["red", "blue"], "red", seed=8)
    prior = Prior.of(game)
    assert prior.position == game.position and (prior.mover, prior.phase) == ("red", "pawns")
    assert prior.only == {x for x in game.unmoved if game.position.pawn(x).colour == "red"} and prior.only
    game = game.apply(Move("red-6/1", "I"))
    assert Prior.of(game).mover == "blue" and "red-6/1" not in Prior.of(game).only
    while game.phase == "pawns":
        label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        game = game.apply(Move(label, game.targets(label)[0]["moves"]))
    assert (Prior.of(game).mover, Prior.of(game).only) == (MONSTER_PHASE, None)


def test_the_session_is_the_loops_port_and_gives_the_reader_its_prior(tmp_path):
    camera, leds = FakeCamera(), FakeLeds()
    s = session_with(tmp_path, camera=camera, leds=leds, mode="auto")
    assert isinstance(s, Table) and s.loop.table is s and camera.on_update == s.on_camera
    assert s.prior() is None
    s.new_game(["red", "blue"], "red", seed=8)
    assert s.prior() == Prior.of(s.game, following=True) and s.prior().mover == "red"   # (setup)
    snapshot = s.snapshot()
    assert (snapshot.game, snapshot.seq, snapshot.follow, dict(snapshot.fixes)) == (s.game, 0, "setup", {})
    show_table(camera, s)
    assert s.follow is None and s.state()["follow"] is False and s.prior() == Prior.of(s.game)
    camera.reading = FakeReading(True, _entered(s.game, "red-6/1"))
    assert s.seq == 1 and s.store.history(s.game_id)[-1].action["by"] == "camera"
    assert s.catch_up()[1].count("red 6/1 went from beside the board to p11") == 1   # the view it published


def test_no_port_method_calls_the_loop_back(tmp_path, monkeypatch):
    """Every call from outside into the loop returns before the next one starts (per thread): the
    session calls the loop, the loop calls the session's port, and that never comes back."""
    depth = threading.local()
    entered: list[str] = []

    def guarded(name, real):
        def call(self, *args, **kwargs):
            inside = sys._getframe(1).f_locals.get("self") is self     # the loop calling itself
            if not inside:
                assert getattr(depth, "n", 0) == 0, f"the loop was called back ({name}) while acting"
                entered.append(name)
                depth.n = 1
            try:
                return real(self, *args, **kwargs)
            finally:
                if not inside:
                    depth.n = 0
        return call

    for name in ("on_camera", "gate", "accept_table", "game_changed", "fixes_changed", "refresh", "set_mode",
                 "led_follow"):
        monkeypatch.setattr(TableLoop, name, guarded(name, getattr(loop_module.TableLoop, name)))
    camera, leds = FakeCamera(), FakeLeds()
    s = session_with(tmp_path, camera=camera, leds=leds, mode="auto")
    s.new_game(["red", "blue"], "red", seed=8)
    show_table(camera, s)
    camera.reading = FakeReading(True, _entered(s.game, "red-6/1"))     # applied by the camera (auto)
    s.undo()
    s.fix_square("p11", {"piece": "empty"})
    s.clear_fixes()
    show_table(camera, s)                                                # the undo's follow-up done
    s.set_camera_mode("confirm")
    camera.reading = FakeReading(True, _entered(s.game, "red-6/1"))
    s.confirm_reading()
    s.act({"type": "move", "pawn": "blue-6/1", "moves": ""})            # the referee's: a follow-up
    shown = s.game.position.to_setup()
    shown["pawns"]["red-6/1"]["at"] = None                               # red's pawn taken off the table
    camera.show(FakeReading(True, shown))
    s.accept_table()
    assert s.game.position.pawn("red-6/1").where() != "p11" and s.follow is None
    assert s.seq == 3 and {"on_camera", "gate", "game_changed", "fixes_changed", "refresh", "set_mode",
                           "accept_table"} <= set(entered)


def test_the_worker_and_the_referee_at_once_never_deadlock(tmp_path):
    """The worker's thread reads against the session's ``prior`` (as the no-sticker reader does) and hands
    every update to the session while a request thread plays and undoes: one lock (the session's), taken in
    one order, so both go on."""
    import numpy as np

    from companion_app.table.devices.fakes import StillFrames
    from table_helpers import wait_for

    s = session_with(tmp_path, leds=FakeLeds(), mode="auto")
    s.new_game(["red", "blue"], "red", seed=8)

    def read(_frame):
        prior = s.prior()               # the game's position now, as a no-sticker reader takes it
        return FakeReading(True, prior.position.to_setup() if prior is not None else None)

    worker = CameraWorker(lambda: StillFrames(np.zeros((4, 4, 3), np.uint8)), read, s.on_camera, fps=50,
                          stable_frames=2)
    worker.start()
    failed: list[BaseException] = []

    def referee():
        try:
            for _ in range(10):
                s.act({"type": "move", "pawn": "red-6/1", "moves": "I"})
                s.camera_view()
                s.fix_square("a2", {"piece": "empty"})
                s.undo()
        except BaseException as exc:   # noqa: BLE001 - reported by the test's thread
            failed.append(exc)

    try:
        wait_for(lambda: s.follow is None, what="the set-up table seen")
        thread = threading.Thread(target=referee, daemon=True)
        thread.start()
        thread.join(60)
        assert not thread.is_alive(), "the referee's requests and the camera worker deadlocked"
        assert not failed, failed
        frames = worker.frames
        wait_for(lambda: worker.frames > frames + 5 and s.follow is None, what="the worker going on")
        assert s.seq == 0 and s.loop.view["stable"]
    finally:
        worker.close()
