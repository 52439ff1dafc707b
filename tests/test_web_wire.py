"""Bytes on the Wi-Fi (issue 22): each live stream carries what its page shows, and only once.

Real waitress server, real session and SQLite, the real LED grid on its built-in emulator (a
pseudo-terminal); each stream is read as a phone reads it (tests/live_load.py ``StreamTally``).
The pages' side (the state rebuilt from its deltas, the LED animations drawn by the page) is
checked in tests/test_web_wire_browser.py.
"""
from __future__ import annotations

import json
import time

from companion_app.i18n.text import localize
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.table.session.events import PHONE_CAMERA, apply_state, leds_delta, phone_camera, state_delta
from companion_app.web.server import Server
from live_load import StreamTally
from web_helpers import make_app, play_pawn_phase, session_with, show_table, with_led_grid

PHONE_FIELDS = {"status", "change", "needs", *PHONE_CAMERA}


def until(predicate, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def of(tally: StreamTally, kind: str) -> list[dict]:
    return [data for event, data in list(tally.events) if event == kind]


def test_a_phone_gets_the_camera_as_a_phone_shows_it_and_only_when_that_changes(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="auto")
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=11)
    with Server(app) as server:
        phone = StreamTally(server.port, keep=True)
        referee = StreamTally(server.port, "view=referee", keep=True)
        leds_page = StreamTally(server.port, "view=leds", keep=True)
        try:
            until(lambda: of(phone, "camera") and of(referee, "camera"))
            show_table(camera, session)                   # the set-up board read: the follow-up is done
            until(lambda: any(not v.get("follow") for v in of(phone, "camera")[1:]))
            before = len(of(phone, "camera"))
            for _ in range(6):                            # the table stays as it is, frame after frame
                camera.show(FakeReading(True, session.game.position.to_setup()), frames=2)
            until(lambda: len(of(referee, "camera")) >= 12)
            time.sleep(0.3)
            views = of(phone, "camera")
            assert len(views) == before                   # nothing a phone shows changed: nothing sent to it
            assert all(set(v) <= PHONE_FIELDS for v in views), [sorted(v) for v in views]
            assert all(a != b for a, b in zip(views, views[1:]))    # never the same twice in a row
            assert views[-1] == localize(phone_camera(session.loop.view), "en")
            full = of(referee, "camera")                  # the referee's view: every one, with the reading
            assert "reading" in full[-1] and "differences" in full[-1] and full[-1]["status"]["detail"]["frames"]
            assert not of(leds_page, "camera") and not of(leds_page, "state")    # the LED page: LED frames only
        finally:
            for tally in (phone, referee, leds_page):
                tally.close()
        session.close()


def test_hands_over_the_board_reach_the_phone_as_one_flag(tmp_path):
    view = {"status": {"present": True, "detail": {"state": "watching", "frames": 40}}, "stable": False,
            "reading": {"located": True, "problems": [{"code": "occluded", "message": "hands"}]},
            "needs": "the camera needs a still table", "change": {"kind": "wait", "message": "…"}}
    assert phone_camera(view) == {"status": {"present": True, "detail": {"occluded": True}}, "stable": False,
                                  "change": {"kind": "wait"}}   # unsteady: the phone says so in its own words
    steady = {**view, "stable": True, "reading": {"located": True, "problems": []}}
    assert phone_camera(steady)["needs"] == "the camera needs a still table"
    assert phone_camera(steady)["status"]["detail"] == {"occluded": False}


def test_the_state_goes_out_as_what_changed_and_builds_back_to_the_whole(tmp_path):
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue", "green"], "red", seed=6)
    with Server(app) as server:
        phone = StreamTally(server.port, keep=True)
        try:
            until(lambda: of(phone, "state"))
            first = of(phone, "state")[0]
            assert "delta" not in first and first == localize(session.state(), "en")     # a new stream: the whole state
            play_pawn_phase(session)
            session.act({"type": "draw"})
            session.undo()
            session.act({"type": "draw"})
            until(lambda: of(phone, "state")[-1]["version"] == session.version)
            messages = of(phone, "state")
            state = messages[0]
            for delta in messages[1:]:
                assert delta["delta"] is True
                lines = delta.get("log_new", [])
                # only new lines: none that the screen already had at the end of what it keeps
                kept = state["log"][delta["log_from"]:delta["log_from"] + delta["log_kept"]] if lines else state["log"]
                assert not (kept and lines and lines[0] == kept[-1] and len(kept) + len(lines) > len(state["log"]))
                assert len(lines) <= 2 + len(session.game.last_plan.lines() if session.game.last_plan else [])
                assert "plan" not in delta or delta["plan"] != state["plan"]        # the plan only when new
                assert "tile_names" not in delta                                    # never changes in a game
                state = apply_state(state, delta)
            assert state == localize(session.state(), "en")
            pawn_moves = [m for m in messages[1:] if "plan" not in m and "log_new" in m]
            assert pawn_moves and all(len(m["log_new"]) == 1 for m in pawn_moves)  # one move, one line
            whole = len(json.dumps(state))
            assert all(len(json.dumps(m)) < whole / 4 for m in pawn_moves), (whole, [len(json.dumps(m)) for m in pawn_moves])
        finally:
            phone.close()


def test_a_delta_of_a_log_that_slid_or_was_rebuilt_builds_the_same_log():
    base = {"version": 1, "seq": 1, "log": [{"seq": i, "text": f"line {i}"} for i in range(40)]}
    slid = {**base, "version": 2, "log": base["log"][3:] + [{"seq": 40, "text": "a"}, {"seq": 41, "text": "b"},
                                                            {"seq": 42, "text": "c"}]}
    undone = {**slid, "version": 3, "log": slid["log"][:30] + [{"seq": 33, "text": "Undone"}]}
    for before, after in ((base, slid), (slid, undone), (base, undone), (undone, base)):
        delta = state_delta(before, after)
        assert apply_state(before, delta) == after
        assert len(delta["log_new"]) <= 40 - delta["log_kept"]
    assert len(state_delta(base, slid)["log_new"]) == 3
    assert len(state_delta(slid, undone)["log_new"]) == 1
    assert state_delta(base, {**base, "version": 9}) == {"delta": True, "version": 9}    # nothing else changed
    assert state_delta({"version": 1, "log": []}, base) == base       # other fields: the whole state


def test_unchanged_led_frames_are_not_sent_again_and_animations_travel_once(tmp_path):
    """The idle picture breathes ten frames a second on the grid; the screens get it once, as its rule."""
    app, session = with_led_grid(tmp_path)
    with Server(app) as server:
        until(lambda: (session.led_frame() or {}).get("showing") == "idle")
        phone = StreamTally(server.port, keep=True)
        try:
            until(lambda: of(phone, "leds"))
            counted = session.led_frame()["count"]
            time.sleep(2.0)
            sent = session.led_frame()
            assert sent["count"] >= counted + 10          # the grid got a frame every 100 ms …
            assert sent["squares"] != of(phone, "leds")[0]["squares"]     # … and they changed (the border breathes)
            frames = of(phone, "leds")
            # … but the phone got the first only (a phone that subscribes as that first frame goes out gets
            # it twice: live, and whole as its catch-up; never a breath of the border)
            assert len(frames) <= 2 and {f.get("show") for f in frames} == {1}, [f.get("showing") for f in frames]
            assert frames[0]["anim"]["parts"][0]["kind"] == "pulse" and len(frames[0]["squares"]) == 156
            session.act({"type": "move", "pawn": "red-6/1", "moves": "I"})   # a new picture: what changed only
            until(lambda: len(of(phone, "leds")) >= 2)
            time.sleep(0.5)
            news = of(phone, "leds")[1:]
            assert all(f["delta"] and len(f["squares"]) < 156 for f in news)
            assert all(a.get("show") != b.get("show") for a, b in zip(of(phone, "leds"), news))   # one per show
        finally:
            phone.close()
        session.close()


def test_leds_delta_sends_nothing_when_nothing_changed():
    frame = {"count": 3, "showing": "plan", "show": 4, "squares": {"a1": "030202", "b1": "ff1e00"}}
    assert leds_delta(frame, {**frame, "count": 4}) is None
    assert leds_delta(frame, {**frame, "squares": {"a1": "030202", "b1": "5a0a00"}})["squares"] == {"b1": "5a0a00"}
    anim = {"t": 0.4, "brightness": 1.0, "parts": [{"kind": "blink", "squares": ["a1"], "on": [0, 90, 255],
                                                    "off": [[3, 2, 2]], "hz": 1.5}]}
    blinking = {**frame, "showing": "follow", "show": 5, "anim": anim}
    assert leds_delta(blinking, {**blinking, "count": 9, "squares": {"a1": "005aff", "b1": "ff1e00"}}) is None
    after = leds_delta(blinking, {**frame, "show": 6})   # the blinking square goes back to what is sent
    assert after["squares"] == {"a1": "030202"} and "anim" not in after
    again = leds_delta(blinking, {**blinking, "show": 7, "squares": {"a1": "030202", "b1": "5a0a00"}})
    assert again["squares"] == {"b1": "5a0a00"} and again["anim"] == anim    # a1: drawn by the new rule
    ended = {**anim, "parts": [{**anim["parts"][0], "until": 0.2}]}            # a rule over by the time sent
    assert leds_delta(frame, {**blinking, "anim": ended, "squares": {"a1": "005aff", "b1": "ff1e00"}})["squares"] == {
        "a1": "005aff"}


def test_a_stream_of_a_view_that_does_not_exist_is_refused_with_a_sentence(tmp_path):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    r = client.get("/api/stream?view=tv")
    assert r.status_code == 400
    assert "phone, referee, leds" in r.json["error"] and "'tv'" in r.json["error"]
    r = client.get("/api/stream?view=tv", headers={"Accept-Language": "fr"})
    assert r.status_code == 400 and r.json["error"].startswith("Le paramètre view doit être")


def test_the_state_carries_the_lines_of_the_monster_move_shown_not_those_of_earlier_ones(tmp_path):
    _, session = make_app(tmp_path)
    session.new_game(["red", "blue"], "red", seed=3)
    for _ in range(2):
        play_pawn_phase(session)
        session.act({"type": "draw"})
    state = session.state()
    earlier = [line for line in session.log_lines if line.get("plan") and line["seq"] != session.plan_seq]
    assert earlier                                         # the session keeps them (the journal's record) …
    assert not any(e.get("plan") for e in state["log"])    # … the state says the move shown once: plan_lines
    assert [str(x) for x in state["plan_lines"]] == session.game.last_plan.lines()
    notes = [e for e in session.log_lines[-40:] if not e.get("plan")]
    assert [e for e in state["log"] if not e.get("plan")] == notes    # the game log the pages show: the same


def test_the_states_plan_has_no_english_lines_of_its_own(tmp_path):
    """The move is said once, in the reader's language (plan_lines): the plan in the state is its shape only."""
    _, session = make_app(tmp_path)
    session.new_game(["red", "blue"], "red", seed=3)
    play_pawn_phase(session)
    session.act({"type": "draw"})
    state = session.state()
    said = json.dumps(state["plan"], default=str)
    assert '"text"' not in said and state["plan"]["steps"] and state["plan"]["path"]
    assert [str(x) for x in state["plan_lines"]] == session.game.last_plan.lines()
    whole = json.dumps(session.game.last_plan.to_json())
    assert len(said) < 0.8 * len(whole)


def by_rule(parts: list[dict], t: float) -> dict[str, list[int]]:
    """What the pages draw of a show's animated squares at ``t`` (static/board.js LedPanel.animate)."""
    import math

    import numpy as np

    out = {}
    for part in parts:
        if part["kind"] == "pulse" and t < part.get("until", math.inf):
            level = part["low"] + part["depth"] * (0.5 - 0.5 * math.cos(2 * math.pi * t / part["period_s"] + part["phase"]))
            rgb = [int(np.clip(np.rint(np.float32(v * level)), 0, 255)) for v in part["rgb"]]
            out.update((sq, rgb) for sq in part["squares"])
        elif part["kind"] == "blink":
            on = int(t * part["hz"] * 2) % 2 == 0
            out.update((sq, part["on"] if on else part["off"][i]) for i, sq in enumerate(part["squares"]))
    return out


def test_each_shows_rule_draws_what_the_show_draws():
    """The animation a show hands the pages (hardware.animation Show.wire) gives, at every moment, the
    colours the show itself gives those squares; every other square keeps one colour for the whole show."""
    from engine.geometry import SQUARES, parse_square, square_name
    from engine.position import basic_position
    from hardware.animation import ErrorShow, FollowShow, IdleShow, MarkShow

    position = basic_position().to_setup()
    shows = [IdleShow("yellow", position), MarkShow("blue", position, "f5", "white"), MarkShow("red", position, "a2", "red"),
             FollowShow(position, ("c3", "f5"), ("f5", "g7")), ErrorShow()]
    for show in shows:
        parts = show.wire()
        assert parts, type(show).__name__
        moving = {sq for part in parts for sq in part["squares"]}
        first = show.frame_at(0.0)
        for t in [i * 0.1 for i in range(int((show.duration or 4.0) * 10))]:
            frame = show.frame_at(t)
            for sq, rgb in by_rule(parts, t).items():
                assert [int(v) for v in frame[parse_square(sq)]] == rgb, (type(show).__name__, t, sq)
            still = [square_name(sq) for sq in SQUARES if square_name(sq) not in moving]
            assert all((frame[parse_square(sq)] == first[parse_square(sq)]).all() for sq in still), type(show).__name__


def test_the_state_plan_leaves_out_its_english_and_its_sightings_empty_fields():
    """/api/state's plan: no English ``text`` (the screens say ``plan_lines``), and a sighting keeps only what
    was seen (a pawn, its square and distance, or the wall that stopped the look)."""
    from companion_app.table.session.state import without_texts
    from engine.game import Game

    game = Game.new(["red", "blue"], seed=28)
    plan = next(iter(game.preview().values()))       # what a tombstone tile would make the monster do
    data = plan.to_json()
    sent = without_texts(data)
    assert "text" in data["steps"][0] and "text" not in json.dumps(sent)
    seen = [s for step in sent["steps"] for s in step["look"]["sightings"]]
    full = [s for step in data["steps"] for s in step["look"]["sightings"]]
    assert seen and all(None not in s.values() for s in seen)
    assert [{k: v for k, v in s.items() if v is not None} for s in full] == seen     # nothing else lost
    assert any("pawn" in s for s in seen) or any("stopped_by" in s for s in seen)
    assert len(json.dumps(sent)) < len(json.dumps(data))
