"""The typed camera path (TABLE.md): the worker's update carries the reading as an ``Observation``,
the pure judge (``companion_app.table.camera.judge.judge``) turns it into a frozen view, and the table
loop only applies, lights and publishes — once per new update."""
from __future__ import annotations

import dataclasses
import json

import pytest

from companion_app.i18n.text import localize
from companion_app.table.camera.judge import CameraView, judge
from companion_app.table.camera.watcher import CameraUpdate
from companion_app.table.devices.fakes import FakeCamera, FakeLeds, FakeReading
from engine.actions import Move, Tile
from engine.game import Game
from engine.observation import Observation
from engine.position import Position
from vision.change import observation_json
from web_helpers import session_with, show_table


def _update(position: Position, *, stable=True, serial=1, unknown=(), tile=None) -> CameraUpdate:
    """The worker's update for a camera that sees ``position`` (``unknown``: square numbers it cannot see)."""
    seen = Observation.of(position, {sq: "hidden-square" for sq in unknown}, tile=tile)
    return CameraUpdate({"state": "watching", "message": "watching"}, observation_json(seen), stable=stable,
                        serial=serial, count=3, needed=3, observation=seen)


def _entered(game: Game, label: str) -> Position:
    """The position after pawn ``label`` entered onto p11 flipped (P1)."""
    return game.apply(Move(label, "I")).position


def test_the_judge_needs_no_session_and_gives_a_typed_action_and_one_json_form():
    game = Game.new(["red", "blue"], "red", seed=8)
    view = judge(game, _update(_entered(game, "red-6/1")), mode="confirm")
    assert isinstance(view, CameraView) and view.can_confirm
    assert view.verdict.kind == "move" and view.action == Move("red-6/1", "I")
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.verdict = None
    data = view.to_json()
    assert data["change"]["action"] == {"type": "move", "pawn": "red-6/1", "moves": "I"} == data["proposal"]["action"]
    assert data["can_confirm"] and data["mode"] == "confirm" and data["stable"] and data["why_not"] == ""
    assert str(data["change"]["message"]) == "red 6/1 went from beside the board to p11 (I)"
    said = localize(data, "en")                   # its wording data said in a screen's language: plain JSON
    assert json.loads(json.dumps(said)) == said and said["change"]["message"] == str(data["change"]["message"])
    assert game.position.pawn("red-6/1").place == "waiting"           # the game was only dry-run


def test_the_judge_waits_for_a_steady_view_and_lists_a_follow_up():
    game = Game.new(["red", "blue"], "red", seed=8)
    waiting = judge(game, _update(_entered(game, "red-6/1"), stable=False))
    assert not waiting.can_confirm and waiting.verdict is None
    assert str(waiting.why_not) == "Waiting for a steady view (3 of 3 frames)"
    setup = game.position.to_setup()
    stone = next(iter(setup["stones"]))
    del setup["stones"][stone]
    view = judge(game, _update(Position.from_setup(setup)), follow="setup")
    assert str(view.follow["why"]) == "Set up the board for the new game" and view.follow["fill"] == [stone]
    assert not view.can_confirm and view.led_guide()["fill"] == [stone]
    done = judge(game, _update(game.position), follow="setup")
    assert done.follow["done"] and done.led_guide() is None


def test_unseen_squares_stay_unknown_and_the_referee_fix_makes_them_seen():
    """p11 hidden: red may have entered there, so the judge asks to uncover it; the referee's fix of
    p11 settles it (the fix is part of what the judge is given, not of the update)."""
    game = Game.new(["red", "blue"], "red", seed=8)
    p11 = 175
    update = _update(game.position, unknown=[p11])
    asked = judge(game, update)
    assert asked.verdict.kind == "ask" and asked.verdict.uncover == "p11" and "p11" in asked.unseen
    fixed = judge(game, update, fixes={"p11": {"piece": "pawn", "color": "red", "pawn": "6/1", "face": "black"}})
    assert fixed.action == Move("red-6/1", "I") and "p11" not in fixed.unseen


def test_the_monster_phase_takes_a_tile_from_the_card_zone():
    game = Game.new(["red", "blue"], "red", seed=8)
    for label in ("red-6/1", "blue-6/1"):
        game = game.apply(Move(label, "I" if label.startswith("red") else ""))
    while game.phase != "monster":
        mover = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        game = game.apply(Move(mover, ""))
    tile = sorted(game.deck)[0]
    view = judge(game, _update(game.position, tile=tile))
    assert view.verdict.kind == "tile" and view.action == Tile(tile)


def test_one_move_in_auto_mode_judges_once_per_update_and_never_reads_the_json_again(tmp_path, monkeypatch):
    """Each camera update is judged once (and once more when the move changed the game), however many
    times the loop, the gate and the screens look at it; the reading becomes an Observation in the
    worker (``gated_reading``), never in the loop."""
    from companion_app.table.camera import readings, watcher
    from vision import stable

    camera = FakeCamera()
    s = session_with(tmp_path, camera=camera, leds=FakeLeds(), mode="auto")
    s.new_game(["red", "blue"], "red", seed=8)
    show_table(camera, s)

    conversions = {"worker": 0, "gate": 0}

    def counted(where, real):
        def observe(*args, **kwargs):
            conversions[where] += 1
            return real(*args, **kwargs)
        return observe

    def never(*_args, **_kwargs):
        raise AssertionError("the loop turned a reading dict into an Observation")

    monkeypatch.setattr(watcher, "observe", counted("worker", watcher.observe))
    monkeypatch.setattr(stable, "observe", counted("gate", stable.observe))
    monkeypatch.setattr(readings, "observe", never)
    before = s.loop.judged
    camera.show(FakeReading(True, Game.new(["red", "blue"], "red", seed=8).apply(
        Move("red-6/1", "I")).position.to_setup()))
    assert s.game.position.pawn("red-6/1").where() == "p11"              # applied by itself (auto)
    assert s.store.history(s.game_id)[-1].action == {"type": "move", "pawn": "red-6/1", "moves": "I", "by": "camera"}
    # 3 frames: 2 waiting, 1 stable that was applied, then the game changed once: 4 judgements, no more
    assert s.loop.judged - before == 4
    for _ in range(5):
        s.camera_view()                                                   # the screens asking again
    assert s.loop.judged - before == 4
    # the worker side: each unsteady frame observed once for its update; the steady one is the gate's own
    assert conversions["worker"] == 2
    assert conversions["gate"] == 3 * 2          # per frame: the frame itself and the frames combined
