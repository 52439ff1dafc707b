"""The table session: SQLite persistence and resume, undo, the log, and devices that fail or vanish."""
from __future__ import annotations

import json
import sqlite3
import time

import pytest

from companion_app.i18n.text import localize
from companion_app.table.devices.devices import Device, open_buttons, open_camera, open_leds
from companion_app.table.devices.fakes import FakeLeds
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from engine.errors import GameActionError
from web_helpers import play_pawn_phase, session_with, show_table


def test_a_restart_resumes_the_game_from_sqlite(tmp_path):
    first = TableSession(Store(tmp_path / "s.db"))
    first.new_game(["red", "blue", "green"], "blue", seed=7)
    play_pawn_phase(first)
    first.act({"type": "draw"})
    before = first.state()
    first.close()

    second = TableSession(Store(tmp_path / "s.db"))   # a new process after a power cut
    assert second.resume() is True
    after = second.state()
    for key in ("phase", "round", "turn", "to_move", "position", "tiles_played", "deck_left", "plan", "plan_seq"):
        assert after[key] == before[key], key
    assert [e["text"] for e in after["log"]] == [e["text"] for e in before["log"]]
    # And play goes on from there, with the same deck.
    play_pawn_phase(second)
    play_pawn_phase(first)
    assert second.act({"type": "draw"})["tiles_played"] == first.act({"type": "draw"})["tiles_played"]


def test_the_app_and_flure_play_share_one_default_database(tmp_path, monkeypatch):
    """No --db and no session given: both use the store's one default (the XDG data folder)."""
    from companion_app.cli import build_parser
    from companion_app.table.session.store import default_path
    from companion_app.web.app import create_app

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "flure" / "session.sqlite3"
    session = create_app().extensions["flure_session"]
    assert session.store.path == str(default_path()) and default_path().exists()
    assert build_parser().parse_args(["play"]).db is None     # flure play falls back to default_path()


def test_resume_with_an_empty_database_says_no_game(tmp_path):
    assert TableSession(Store(tmp_path / "s.db")).resume() is False


def test_undo_survives_a_restart_and_a_new_action_drops_the_redo(tmp_path):
    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue"], "red", seed=1)
    s.act({"type": "move", "pawn": "red-2/5", "moves": "IN"})
    s.act({"type": "move", "pawn": "blue-6/1", "moves": "I"})
    s.undo()
    assert s.game.to_move == "blue" and s.seq == 1
    resumed = TableSession(Store(tmp_path / "s.db"))
    resumed.resume()
    assert resumed.game == s.game
    resumed.act({"type": "move", "pawn": "blue-4/3", "moves": ""})
    rows = sqlite3.connect(tmp_path / "s.db").execute("SELECT seq, undone FROM steps ORDER BY seq").fetchall()
    assert rows == [(0, 0), (1, 0), (2, 0)]
    assert resumed.store.history(resumed.game_id)[-1].action["pawn"] == "blue-4/3"


def test_refused_actions_keep_the_last_good_state(tmp_path):
    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue"], "red", seed=1)
    version = s.version
    with pytest.raises(GameActionError):
        s.act({"type": "draw"})
    assert s.version == version and s.seq == 0
    assert len(s.store.history(s.game_id)) == 1


def test_leds_get_the_plan_after_a_monster_move_and_idle_otherwise(tmp_path):
    leds = FakeLeds()
    s = session_with(tmp_path, leds=leds)
    s.new_game(["red", "blue"], "red", seed=2)
    assert leds.calls[-1] == ("idle", "red")
    play_pawn_phase(s)
    s.act({"type": "draw"})
    kind, plan = leds.calls[-1]
    assert kind == "plan" and plan == s.game.last_plan.to_json()


def test_a_failing_led_grid_never_stops_the_game(tmp_path):
    leds = FakeLeds(fail=OSError("serial port /dev/ttyUSB0 vanished"))
    s = session_with(tmp_path, leds=leds)
    s.new_game(["red", "blue"], "red", seed=2)
    s.act({"type": "move", "pawn": "red-2/5", "moves": "IN"})
    assert s.game.turn == 1 and s.game.to_move == "blue"
    status = s.device_status()["leds"]
    assert "vanished" in str(status["error"]) and status["detail"]["connected"] is False
    leds.fail = None
    s.act({"type": "move", "pawn": "blue-6/1", "moves": "I"})
    assert "error" not in s.device_status()["leds"]


def test_absent_devices_report_why(tmp_path):
    s = TableSession(Store(tmp_path / "s.db"), camera=Device("camera", why="switched off (--no-camera)"))
    st = s.device_status()
    assert st["camera"] == {"present": False, "message": "switched off (--no-camera)"}
    assert s.camera_view()["reading"] is None


def test_unknown_camera_spec_degrades_with_a_message():
    device = open_camera("/no/such/camera.mp4", lambda: (None, None))
    assert device.obj is None and "/no/such/camera.mp4" in str(device.why)


def test_digital_twin_camera_sees_the_game_position(tmp_path):
    """The real vision pipeline, in the camera worker, on the synthetic camera's render of the session's position."""
    from table_helpers import wait_for

    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue"], "red", seed=4)
    s.act({"type": "move", "pawn": "red-6/1", "moves": "I"})
    s.camera = open_camera("synthetic", lambda: (s.game.position, None), on_update=s.on_camera, fps=10)
    assert s.camera.obj is not None, s.camera.why
    try:
        view = wait_for(lambda: s.loop.view.get("stable") and s.loop.view, what="a steady reading")
        assert view["reading"]["located"], view
        assert view["differences"] == []
        assert view["reading"]["setup"]["monster"] == {"at": "a1", "facing": "E"}
        assert s.follow is None       # the referee's move is on the table: the follow-up is done
        assert "The table matches the game" in str(s.state()["log"][-1]["text"])
        jpeg = s.camera_jpeg()
        assert jpeg[:2] == b"\xff\xd8" and s.device_status()["camera"]["note"].startswith("digital twin")
    finally:
        s.close()


def test_leds_on_the_hardware_emulator_receive_frames(tmp_path):
    """The real LedGrid talking to the real emulator over a pseudo-terminal."""
    s = TableSession(Store(tmp_path / "s.db"))
    s.leds = open_leds(None)
    assert s.leds.obj is not None, s.leds.why
    try:
        s.new_game(["red", "blue"], "red", seed=4)
        play_pawn_phase(s)
        s.act({"type": "draw"})
        emulator = s.leds.obj.emulator
        assert emulator.wait_for_frames(3, timeout=5)
        assert s.device_status()["leds"]["detail"]["showing"] == "plan"
    finally:
        s.close()


def test_an_led_port_that_is_not_there_is_said_at_start_and_the_session_goes_on(tmp_path):
    """Said at start; once the device is plugged in (a real pty appearing at that path) the live status
    is "connected" with no trace of the startup note (it does not stay there for good)."""
    import os
    import select
    import threading
    import tty

    port = tmp_path / "ttyNOPE"
    device = open_leds(str(port))
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def drain():   # the device reads what it is sent
        while not stop.is_set():
            if select.select([master], [], [], 0.05)[0]:
                os.read(master, 65536)

    drainer = threading.Thread(target=drain, daemon=True)
    try:
        assert device.obj is not None
        assert "is not there" in str(device.startup) and "connects by itself" in str(device.startup), device.startup
        assert "is not there" in json.dumps(device.status())
        drainer.start()
        port.symlink_to(os.ttyname(slave))          # plugged in
        device.obj.show_error()                     # something to send
        deadline = time.monotonic() + 10
        while not device.status()["detail"]["connected"] and time.monotonic() < deadline:
            time.sleep(0.02)
        status = device.status()
        assert status["detail"]["connected"] and status["detail"]["last_error"] is None, status
        assert "is not there" not in json.dumps(status), status
    finally:
        stop.set()
        device.obj.close()
        if drainer.is_alive():
            drainer.join(2)
        os.close(master)
        os.close(slave)


def test_table_buttons_on_gpiozero_mock_pins_drive_the_session(tmp_path):
    from gpiozero.pins.mock import MockFactory

    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue"], "red", seed=4)
    play_pawn_phase(s)
    factory = MockFactory()
    s.buttons = open_buttons(s, {"buttons": {"debounce_ms": 10, "long_press_ms": 100}}, pin_factory=factory)
    assert s.buttons.obj is not None, s.buttons.why
    try:
        pin = factory.pin(17)                       # the "monster" button
        pin.drive_low(); time.sleep(0.04); pin.drive_high()
        deadline = time.monotonic() + 2
        while not s.game.tiles_played and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(s.game.tiles_played) == 1
        undo = factory.pin(22)                      # undo acts only on a long press
        undo.drive_low(); time.sleep(0.2); undo.drive_high()
        deadline = time.monotonic() + 2
        while s.game.tiles_played and time.monotonic() < deadline:
            time.sleep(0.01)
        assert s.game.tiles_played == () and s.game.phase == "monster"
    finally:
        s.close()


def test_the_phones_and_the_log_show_the_plans_own_lines(tmp_path):
    """One wording (engine Plan.lines): the move panel, the preview and the log show it, unchanged."""
    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue"], "red", seed=3)
    play_pawn_phase(s)
    state = s.act({"type": "draw"})
    lines = s.game.last_plan.lines()
    assert [str(x) for x in state["plan_lines"]] == lines and lines[0].startswith("Step 1: from ")
    assert lines[-1].startswith("The move ends: ") and "(M1)" in lines[-1]
    assert [str(e["text"]) for e in s.log_lines if e.get("plan")] == lines      # the session's log keeps them …
    assert not any(e.get("plan") for e in state["log"]) and state["log"]     # … said once on the wire: plan_lines
    play_pawn_phase(s)
    preview = s.preview()
    assert all([str(x) for x in p["lines"]] == s.game.preview()[t].lines() for t, p in preview.items())


def test_confirming_a_reading_with_the_drawn_tile_resolves_it(tmp_path):
    from companion_app.table.devices.fakes import FakeCamera, FakeReading

    camera = FakeCamera()
    s = session_with(tmp_path, camera=camera)
    s.new_game(["red", "blue"], "red", seed=8)
    play_pawn_phase(s)
    camera.reading = FakeReading(True, s.game.position.to_setup(), tile="7")
    state = s.confirm_reading()
    assert state["tiles_played"] == ["7"] and str(state["confirmed"]) == "the camera read the tile 7 steps"
    play_pawn_phase(s)
    camera.reading = FakeReading(True, s.game.position.to_setup())     # no tile in view
    with pytest.raises(GameActionError, match="lay the drawn tombstone tile in the card zone"):
        s.confirm_reading()


def test_a_seeded_game_played_through_the_api_with_undos_matches_the_engine(tmp_path):
    """Contract: every served state equals the engine's game, and each undo restores the state before."""
    import random

    from engine.game import Game
    from web_helpers import AUTH, make_app

    app, session = make_app(tmp_path)
    client = app.test_client()
    rng = random.Random(31)
    state = client.post("/api/game", json={"players": ["red", "blue", "green"], "first_player": "green",
                                           "seed": 99}, headers=AUTH).json
    game = Game.new(["red", "blue", "green"], "green", seed=99)
    actions = 0
    while state["phase"] != "over":
        before = state
        if state["phase"] == "monster":
            action = {"type": "draw"}
        else:
            label = next(x for x in state["unmoved"] if state["position"]["pawns"][x]["color"] == state["to_move"])
            targets = client.get(f"/api/targets?pawn={label}", headers=AUTH).json
            choice = rng.choice(targets)
            action = ({"type": "pawn-at", "pawn": label, "square": choice["square"]} if rng.random() < 0.5
                      else {"type": "move", "pawn": label, "moves": choice["moves"]})
        r = client.post("/api/action", json=action, headers=AUTH)
        if r.status_code == 409 and "enter the move itself" in r.json["error"]:   # P7: ambiguous pushes
            action = {"type": "move", "pawn": label, "moves": choice["moves"]}
            r = client.post("/api/action", json=action, headers=AUTH)
        assert r.status_code == 200, (action, r.json)
        state = r.json
        game = game.apply(action)
        assert state["position"] == game.position.to_setup() and state["phase"] == game.phase
        assert client.get("/api/state").json["seq"] == state["seq"]
        actions += 1
        if actions % 7 == 0:                              # now and then the referee undoes and redoes
            undone = client.post("/api/undo", json={}, headers=AUTH).json
            assert undone["position"] == before["position"] and undone["seq"] == before["seq"]
            state = client.post("/api/action", json=action, headers=AUTH).json
            assert state["position"] == game.position.to_setup()
    assert state["winner"] == game.winner and actions > 20
    assert len(session.store.history(session.game_id)) == actions + 1


def test_a_refused_reading_or_button_blinks_the_led_grid_until_the_next_good_state(tmp_path):
    from companion_app.table.devices.fakes import FakeCamera, FakeReading

    camera, leds = FakeCamera(), FakeLeds()
    s = session_with(tmp_path, camera=camera, leds=leds)
    s.new_game(["red", "blue"], "red", seed=8)
    show_table(camera, s)
    seen = s.game.position.to_setup()
    seen["pawns"] = {"X": {"at": "k5", "color": "red", "pawn": "6/1", "face": "white"}}   # no legal move
    camera.reading = FakeReading(True, seen)
    assert leds.calls[-1] == ("error", None)           # blinked as soon as the reading was steady
    with pytest.raises(GameActionError, match="no legal change explains what the camera sees"):
        s.confirm_reading()
    assert s.game.position.pawn("red-6/1").place == "waiting"      # never applied
    show_table(camera, s)                              # the player takes the pawn back
    assert leds.calls[-1] == ("idle", "red")
    press_monster = s.from_table(lambda: s.act({"type": "draw"}))      # too early: pawns still to move
    with pytest.raises(GameActionError):
        press_monster()
    assert leds.calls[-1] == ("error", None)


def test_unseen_squares_are_unknown_and_filled_only_from_the_one_legal_change():
    """A square the camera cannot see is unknown, never empty (engine.reconcile): the hidden pawn
    is taken from the game only because one legal move explains everything seen."""
    from companion_app.table.camera.readings import action_for, compare, reconcile_reading, unseen_squares
    from engine.game import Game

    def confirm_action(game, reading, fixes=()):
        action, words = action_for(game, reconcile_reading(game, reading, fixes))
        return (action.to_json() if action is not None else None), str(words)

    game = Game.new(["red", "blue"], "red", seed=8).apply({"type": "move", "pawn": "red-6/1", "moves": "I"})
    seen = game.position.to_setup()
    del seen["pawns"]["red-6/1"]                                                 # hidden on p11
    seen["pawns"]["blue-2/5"] = {"at": "o11", "color": "blue", "pawn": "2/5", "face": "black"}
    reading = {"located": True, "tile": None, "setup": seen,
               "problems": [{"code": "hidden-square", "square": "p11", "message": "…"},
                            {"code": "occluded", "square": "a2", "message": "…"}],
               "unseen": {"a3": "occluded"}}
    assert unseen_squares(reading) == ["a2", "a3", "p11"]                      # board order
    assert localize(compare(game.position.to_setup(), seen, unknown=["p11"]), "en") == [
        {"square": "o11", "expected": "empty", "seen": "blue 2/5 (black)"}]
    # blue 2/5 came in over p11 (where red 6/1 still stands, P4) to o11: the one legal move
    assert confirm_action(game, reading) == ({"type": "move", "pawn": "blue-2/5", "moves": "IW"},
                                             "blue 2/5 went from beside the board to o11 (IW)")
    reading["problems"].append({"code": "unread-square", "square": "o11", "message": "…"})
    action, message = confirm_action(game, reading)                              # its own square unseen
    assert action is None and "o11" in message
    assert confirm_action(game, reading, fixes={"o11": {}})[0] is not None      # the referee fixed o11


def test_the_shipped_rule_texts_match_the_spec(shared_dir):
    """rules.json is generated from RULES.md: a rule changed in the spec must be regenerated here."""
    from companion_app.web.make_rules import parse_rules
    from companion_app.web.rules import load_rules

    parsed = parse_rules((shared_dir / "spec" / "RULES.md").read_text(encoding="utf-8"))
    assert parsed == load_rules(), "run: .venv/bin/python -m companion_app.web.make_rules ../shared/spec/RULES.md"
    assert not [r["id"] for r in parsed.values() if r["text"][:1].islower()]   # no sentence cut from its title
    assert parsed["M10"]["text"].startswith("Crystals behave as stones")


def test_the_views_get_the_engines_tile_names_for_this_game(tmp_path):
    """G11: under the three-prey variant the 5 is three prey, and the phones must say so."""
    s = TableSession(Store(tmp_path / "s.db"))
    s.new_game(["red", "blue", "green", "yellow", "purple", "black"], "red", prey3_variant=True, seed=3)
    names = s.state()["tile_names"]
    assert str(names["5"]) == "5 (three prey, G11)" and str(names["prey-1"]) == "one prey" and str(names["8"]) == "8 steps"
    s.new_game(["red", "blue"], "red", seed=3)
    assert str(s.state()["tile_names"]["5"]) == "5 steps"
