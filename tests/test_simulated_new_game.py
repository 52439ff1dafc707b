"""A new game on the simulated table starts clean, whatever the last game left on it.

The café's stall: a follow-up done wrong at the end of a game left a stone on l6 that the game
had pushed away — a 12th stone on a table whose box holds 11 — and the referee started a new
game.  The simulated camera could not draw 12 stones, so the camera "failed" and was reopened
every 8 s for ever, and the players waited for the camera to see their hands: nothing moved again.

Checked here through the real camera worker, the real loop and the real players: the leftover
is part of the new game's follow-up, the model refuses a 12th stone with a reason, the camera is
never failed by what lies on the table, and the new game is played.
"""
from __future__ import annotations

import random
import time
from dataclasses import replace

from engine.geometry import parse_square, square_name
from engine.position import basic_position
from table_helpers import simulated_table
from vision.twin.table import PhysicalTable
from web_helpers import each_language

SEED = 28


def _wrong_on(square: str, diffs: list[str]) -> random.Random:
    """A players' random generator whose first wrong follow-up keeps ``square`` as it was
    (``_follow_up``: one draw for "wrong?", one for which square)."""
    for k in range(1000):
        rng = random.Random(k)
        rng.random()
        if rng.choice(diffs) == square:
            return random.Random(k)
    raise AssertionError("no seed keeps " + square)


def test_a_wrong_follow_up_left_at_the_end_of_a_game_then_a_new_game_starts_clean(tmp_path):
    with simulated_table(tmp_path, seed=SEED, speed=20, fps=10) as (session, rig):
        # The last game ended with a stone on l6 (pushed there from m8); the table shows it.
        start = basic_position()
        stones = dict(start.stones)
        stones[parse_square("l6")] = stones.pop(parse_square("m8"))
        rig.table.arrange(replace(start, stones=stones), sloppy=False)
        # The referee starts a new game (its setup has 11 stones, none on l6): the players' first
        # follow-up is done wrong, leaving l6 as it was — the stall's 12th stone.
        session.new_game(["red", "blue"], seed=SEED + 1)
        diffs = rig.table.differences(session.game.position)
        assert "l6" in diffs and len(diffs) >= 2, diffs
        rig.players.rng = _wrong_on("l6", diffs)
        rig.players.err_rate = 1.0
        game_id = session.game_id
        rig.start()
        states, deadline = set(), time.monotonic() + 150
        while not any("l6" in line for line in rig.players.log) and time.monotonic() < deadline:
            time.sleep(0.02)
        rig.players.err_rate = 0.0
        while session.seq < 3 and time.monotonic() < deadline:
            states.add(session.camera.status()["detail"]["state"])
            assert len(rig.table.position().stones) <= 11      # the box holds 11 stone tiles
            time.sleep(0.05)
        log = [str(line) for line in rig.players.log]
        assert session.game_id == game_id and session.seq >= 3, (session.loop.view.get("why_not"), log[-5:])
        assert states <= {"starting", "watching"}, states    # never "lost" or "failed" over what lies there
        assert session.camera.status()["detail"]["reopened"] == 0
        assert rig.table.differences(session.game.position) == [] or session.follow is None
        # The refusal was said: the players tried to leave l6, the table would not hold a 12th stone.
        assert any("l6" in line and "11" in line for line in log), log


def test_the_table_refuses_a_twelfth_stone_with_a_reason():
    from vision.twin.table import CannotMove

    table = PhysicalTable(basic_position(), seed=1)
    try:
        table.put_piece("stone", ("l6",))
    except CannotMove as exc:
        assert "l6" in str(exc) and "11" in str(exc), str(exc)
    else:
        raise AssertionError("a 12th stone was put on the table")
    assert len(table.position().stones) == 11 and table.occupant(parse_square("l6")) is None
    crowded = dict(basic_position().stones)
    crowded[parse_square("l6")] = "stone"
    try:
        table.arrange(replace(basic_position(), stones=crowded))
    except CannotMove as exc:
        assert "l6" in str(exc), str(exc)
    else:
        raise AssertionError("the table was arranged with 12 stones")
    assert sorted(square_name(sq) for sq in table.position().stones) == \
        sorted(square_name(sq) for sq in basic_position().stones)       # refused: nothing moved


def test_a_table_the_game_cannot_hold_is_a_reading_problem_with_squares_to_clear_not_a_camera_failure(tmp_path):
    """A 12th stone that got onto the table anyway (here put there behind the model's back, as a
    copied sticker or a stone of another set would be at a real table): the camera films it, the
    reading says what is wrong and which squares to clear, the LEDs show them, the camera stays up;
    once it is taken away the game goes on."""
    from companion_app.table.devices.devices import Device
    from companion_app.table.devices.fakes import FakeLeds
    from vision.twin.table import Lying

    leds = FakeLeds()
    with simulated_table(tmp_path, seed=SEED, speed=20, fps=10) as (session, rig):
        session.leds = Device("LED grid", leds)
        l6 = parse_square("l6")
        with rig.table._lock:
            rig.table.stones[l6] = ("stone", Lying(l6))
            rig.table._bump()

        def guided():
            view = session.loop.view or {}
            return view.get("clear") and "cannot hold" in str(view.get("why_not", ""))
        deadline = time.monotonic() + 60
        while not guided() and time.monotonic() < deadline:
            time.sleep(0.05)
        view = session.loop.view
        assert guided(), view.get("why_not")
        assert "take the extra piece off" in str(view["why_not"]) and view["clear"][0] in str(view["why_not"])
        assert len(set(each_language(view["why_not"]).values())) == 4   # wording data: said in each language
        assert session.loop.led_follow() == {"empty": view["clear"], "fill": []}
        while not any(c[0] == "follow" and c[1]["empty"] == view["clear"] for c in leds.calls) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(c[0] == "follow" and c[1]["empty"] == view["clear"] for c in leds.calls), leds.calls[-3:]
        status = session.camera.status()["detail"]
        assert status["state"] == "watching" and status["reopened"] == 0, status
        # taken away: the guidance ends, the setup is checked and the players play
        with rig.table._lock:
            del rig.table.stones[l6]
            rig.table._bump()
        rig.start()
        while session.seq < 1 and time.monotonic() < deadline + 60:
            time.sleep(0.05)
        assert session.seq >= 1 and not session.loop.view.get("clear"), session.loop.view.get("why_not")
        assert session.loop.led_follow() is None


def test_the_demo_starts_the_next_game_with_the_next_seed_once_the_winner_was_shown(tmp_path):
    """``flure play --demo`` without ``--until-end`` (``DemoCycle``): a finished game stays on show
    for ``show_s``, then the next demo game starts with the next seed — game after game."""
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store
    from companion_app.table.simulated.demo import DemoCycle
    from game_helpers import play_out

    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=SEED)
    cycle = DemoCycle(session, seed=SEED, show_s=1.0).start()
    try:
        for n in range(2):
            game_id = session.game_id
            _, actions = play_out(session.game, random.Random(n))
            for action in actions:
                session.act(action)
            assert session.game.phase == "over"
            ended = time.monotonic()
            time.sleep(0.6)
            assert session.game_id == game_id                  # the winner is still shown
            while session.game_id == game_id and time.monotonic() < ended + 20:
                time.sleep(0.05)
            assert time.monotonic() - ended >= 1.0
            assert session.game_id != game_id and session.game.phase == "pawns"
            assert session.game.seed == SEED + n + 1 and session.game.players == ("red", "blue")
        counted = time.monotonic() + 5          # (counted once new_game returned, in the cycle's thread)
        while cycle.started < 2 and time.monotonic() < counted:
            time.sleep(0.05)
        assert cycle.started == 2
    finally:
        cycle.stop()
        session.close()


def test_flure_play_demo_goes_on_to_the_next_game_after_one_ends(tmp_path):
    """The real ``flure play --demo`` (no ``--until-end``): the referee loads a finished game; once
    its winner has been shown (12 s ÷ --speed), the next demo game starts with the next seed."""
    import json
    import signal
    import urllib.request

    from companion_app.table.session.store import Store
    from engine.game import Game
    from engine.record import GameRecord
    from game_helpers import play_out
    from play_process import start_play, stop_play

    first = Game.new(["red", "blue", "green"], seed=3)
    _, actions = play_out(first, random.Random(3))
    record = GameRecord.of(first, actions).to_json()
    db = tmp_path / "demo.sqlite3"
    proc, out = start_play("--demo", "--seed", "40", "--speed", "20", "--no-leds", "--host", "127.0.0.1",
                           "--port", "0", "--pin", "735291", "--db", str(db))
    try:
        url = out.split("open ", 1)[1].split(" on your phones", 1)[0]
        request = urllib.request.Request(url + "api/game/import", data=json.dumps(record).encode(), headers={
            "Authorization": "Bearer 735291", "Content-Type": "application/json"})
        shown = time.monotonic()   # before the import: the winner's 12 s ÷ 20 start once it is loaded
        assert json.load(urllib.request.urlopen(request, timeout=30))["phase"] == "over"
        deadline = shown + 60
        while time.monotonic() < deadline:
            state = json.load(urllib.request.urlopen(url + "api/state", timeout=30))
            if state["phase"] != "over":
                break
            time.sleep(0.1)
        assert state["phase"] in ("pawns", "monster") and time.monotonic() - shown >= 0.5, state["phase"]
    finally:
        stop_play(proc, signal.SIGINT)
    store = Store(db)
    games = [store.settings(g)["seed"] for g in (1, 2, 3)]
    assert games == [40, 3, 41]                            # the demo, the referee's, the next demo game
    assert store.settings(3)["players"] == ["red", "blue"]
