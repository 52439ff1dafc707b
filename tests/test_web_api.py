"""Test-client tests for every endpoint of the companion app: good input, bad input, token, CSRF."""
from __future__ import annotations

import json
import re

import pytest

from companion_app.table.devices.devices import Device
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.web import api
from companion_app.web.app import MAX_BODY
from web_helpers import AUTH, TOKEN, make_app, play_pawn_phase, session_with, show_table

REFEREE_POSTS = [("/api/game", {"players": ["red", "blue"]}), ("/api/action", {"type": "draw"}),
                 ("/api/undo", {}), ("/api/camera/fix", {"square": "g7", "piece": "empty"}),
                 ("/api/camera/clear", {}), ("/api/camera/confirm", {}),
                 ("/api/camera/accept-table", {}), ("/api/camera/mode", {"mode": "auto"})]
REFEREE_GETS = ["/api/preview", "/api/targets?pawn=red-6/1", "/api/status", "/api/camera", "/api/camera/frame.jpg"]


@pytest.fixture
def app_session(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def client(app_session):
    return app_session[0].test_client()


@pytest.fixture
def started(client):
    r = client.post("/api/game", json={"players": ["red", "blue"], "first_player": "red", "seed": 3}, headers=AUTH)
    assert r.status_code == 200
    return client


# -- public endpoints ------------------------------------------------------------
def test_state_before_any_game_says_so(client):
    r = client.get("/api/state")
    assert r.status_code == 200
    assert r.json["phase"] == "none" and "referee" in r.json["summary"]


def test_state_after_new_game_shows_position_and_turn(started):
    s = started.get("/api/state").json
    assert s["phase"] == "pawns" and s["to_move"] == "red" and s["round"] == 1 and s["deck_left"] == 8
    assert s["position"]["monster"] == {"at": "a1", "facing": "E"}
    assert s["names"]["red-3/4"] == "red 3/4"
    assert "token" not in json.dumps(s).lower() and TOKEN not in json.dumps(s)


def test_board_geometry_has_156_squares_and_54_wall_segments(client):
    b = client.get("/api/board").json
    assert len(b["squares"]) == 156 and b["exit"] == "a1" and b["entrance"] == "p11"
    assert len(b["walls"]) == 54
    assert {"square": "a6", "side": "W", "letter": "V"} in b["walls"]


def test_the_board_sends_each_pieces_name_from_the_one_vocabulary_in_the_requests_language(client):
    """board.js names pieces (a stone's title, the referee's lists) with these, never a table of its own."""
    en, de = client.get("/api/board").json["pieces"], client.get("/api/board?lang=de").json["pieces"]
    assert en["pivot-right"] == "right-turn pivot stone" and en["pool-2x2"] == "2×2 pool" and en["pawn"] == "pawn"
    assert de["pivot-right"] == "Drehstein (rechts)" and de["crystal"] == "Kristall" and de["monster"] == "Monster"
    assert set(en) == set(de) == {"stone", "crystal", "pivot-right", "pivot-about", "teleporter", "pool-2x2",
                                  "pool-1x4", "monster", "pawn"}


def test_rules_by_id_case_insensitive_and_unknown_id(client):
    rules = client.get("/api/rules").json
    assert {"G1", "M4", "T2", "A2", "B2"} <= set(rules)
    assert client.get("/api/rules/m4").json["title"] == "Decision"
    r = client.get("/api/rules/Z9")
    assert r.status_code == 404 and "Z9" in r.json["error"]


def test_rules_page_lists_every_rule_with_an_anchor(client):
    html = client.get("/rules").get_data(as_text=True)
    assert 'id="M9"' in html and "Pivot stones" in html


def test_join_gives_url_and_qr_svg(tmp_path):
    app, _ = make_app(tmp_path, public_url="http://192.168.1.20:8000/")
    j = app.test_client().get("/api/join").json
    assert j["url"] == "http://192.168.1.20:8000/" and j["qr_svg"].lstrip().startswith("<svg")


def test_health_and_pages(client, app_session):
    assert app_session[0].debug is False
    assert client.get("/api/health").json == {"ok": True}
    for path in ("/", "/referee", "/rules"):
        r = client.get(path)
        assert r.status_code == 200 and "Finstere Flure" in r.get_data(as_text=True)
        assert "default-src 'self'" in r.headers["Content-Security-Policy"]
        assert r.headers["X-Frame-Options"] == "DENY"


def test_stream_sends_the_current_state_first(started, app_session):
    app, session = app_session
    app.config["SSE_HEARTBEAT"] = 0.01
    r = started.get("/api/stream")
    assert r.mimetype == "text/event-stream"
    chunks = (c.decode() for c in r.response)
    assert next(chunks).startswith("retry:")
    first = next(chunks)
    assert "event: state" in first
    data = json.loads(first.split("data: ", 1)[1])
    assert data["phase"] == "pawns" and data["version"] == session.version
    r.close()


def test_openapi_documents_every_api_route(started, app_session):
    client = started
    doc = client.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.1")
    served = {(re.sub(r"<(\w+)>", r"{\1}", str(rule)), m.lower()) for rule in app_session[0].url_map.iter_rules()
              if str(rule).startswith("/api/") for m in rule.methods - {"HEAD", "OPTIONS"}}
    documented = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert served == documented
    assert doc["paths"]["/api/action"]["post"]["requestBody"]["content"]["application/json"]["schema"][
        "properties"]["type"]["enum"] == ["move", "pawn-at", "draw", "tile", "place", "correct"]
    assert "security" in doc["paths"]["/api/game"]["post"] and "security" not in doc["paths"]["/api/state"]["get"]
    assert doc["paths"]["/api/game"]["post"]["requestBody"]["required"] is True      # players are required
    assert doc["paths"]["/api/undo"]["post"]["requestBody"]["required"] is False     # {} or no body at all
    served_state = client.get("/api/state").json        # the documented State names what is served
    assert set(served_state) <= set(doc["components"]["schemas"]["State"]["properties"])


# -- tokens, CSRF and body limits -------------------------------------------------------
@pytest.mark.parametrize("path,body", REFEREE_POSTS)
def test_referee_posts_need_the_token(client, path, body):
    r = client.post(path, json=body)
    assert r.status_code == 401 and "PIN" in r.json["error"]
    r = client.post(path, json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403 and "wrong" in r.json["error"]


@pytest.mark.parametrize("path", REFEREE_GETS)
def test_referee_gets_need_the_token(client, path):
    assert client.get(path).status_code == 401
    assert client.get(path, headers={"X-Referee-Token": "nope"}).status_code == 403


def test_login_cookie_needs_the_csrf_header_for_changes(client):
    r = client.post("/api/login", json={"pin": TOKEN})
    assert r.status_code == 200
    csrf = r.json["csrf"]
    assert client.get("/api/status").status_code == 200           # reading is fine with the cookie
    r = client.post("/api/game", json={"players": ["red", "blue"]})
    assert r.status_code == 403 and "CSRF" in r.json["error"]
    r = client.post("/api/game", json={"players": ["red", "blue"]}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    r = client.post("/api/game", json={"players": ["red", "blue"]}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200
    assert client.get("/api/whoami").json == {"referee": True, "csrf": csrf}
    assert client.post("/api/logout", json={}, headers={"X-CSRF-Token": csrf}).status_code == 200
    assert client.get("/api/whoami").json["referee"] is False


def test_cross_site_origin_and_form_posts_are_refused(client):
    r = client.post("/api/action", json={"type": "draw"}, headers={**AUTH, "Origin": "http://evil.example"})
    assert r.status_code == 403 and "evil.example" in r.json["error"]
    r = client.post("/api/login", data={"pin": TOKEN})             # an HTML form post
    assert r.status_code == 415 and "JSON" in r.json["error"]


def test_wrong_pins_lock_the_login_for_a_while_for_that_address_only(client):
    phone = {"REMOTE_ADDR": "192.168.1.50"}
    for _ in range(5):
        assert client.post("/api/login", json={"pin": "000000"}, environ_base=phone).status_code == 403
    r = client.post("/api/login", json={"pin": TOKEN}, environ_base=phone)
    assert r.status_code == 429 and "try again" in r.json["error"]
    tablet = {"REMOTE_ADDR": "192.168.1.51"}
    assert client.post("/api/login", json={"pin": TOKEN}, environ_base=tablet).status_code == 200


def test_wrong_bearer_tokens_lock_that_address_out_like_wrong_pins(client):
    """Guessing the PIN through the API header is as slow as at the login form."""
    script = {"REMOTE_ADDR": "192.168.1.60"}
    for _ in range(5):
        r = client.get("/api/status", headers={"Authorization": "Bearer 000000"}, environ_base=script)
        assert r.status_code == 403
    r = client.get("/api/status", headers=AUTH, environ_base=script)          # even the right one waits now
    assert r.status_code == 429 and "try again" in r.json["error"]
    r = client.post("/api/action", json={"type": "draw"}, headers=AUTH, environ_base=script)
    assert r.status_code == 429
    tablet = {"REMOTE_ADDR": "192.168.1.61"}
    assert client.get("/api/status", headers=AUTH, environ_base=tablet).status_code == 200
    r = client.post("/api/login", json={"pin": TOKEN}, environ_base=script)   # one lockout for both ways in
    assert r.status_code == 429


def test_wrong_bearer_guesses_on_whoami_lock_that_address_out_like_wrong_pins(client):
    """/api/whoami answers anyone, but a header token there is a guess like any other."""
    script = {"REMOTE_ADDR": "192.168.1.63"}
    for guess in range(5):
        r = client.get("/api/whoami", headers={"Authorization": f"Bearer 00000{guess}"}, environ_base=script)
        assert r.status_code == 200 and r.json["referee"] is False
    for headers in (AUTH, {"X-Referee-Token": TOKEN}):
        r = client.get("/api/whoami", headers=headers, environ_base=script)   # the right PIN waits too
        assert r.status_code == 429 and "try again" in r.json["error"]
    r = client.post("/api/login", json={"pin": TOKEN}, environ_base=script)
    assert r.status_code == 429
    other = {"REMOTE_ADDR": "192.168.1.64"}
    assert client.get("/api/whoami", headers=AUTH, environ_base=other).json["referee"] is True


def test_a_right_token_resets_the_count_of_wrong_ones(client):
    me = {"REMOTE_ADDR": "192.168.1.62"}
    for _ in range(4):
        client.get("/api/status", headers={"Authorization": "Bearer typo"}, environ_base=me)
    assert client.get("/api/status", headers=AUTH, environ_base=me).status_code == 200
    for _ in range(4):
        client.get("/api/status", headers={"Authorization": "Bearer typo"}, environ_base=me)
    assert client.get("/api/status", headers=AUTH, environ_base=me).status_code == 200


def test_login_lockout_ends_after_the_wait():
    from companion_app.web.security import LOCKOUT_AFTER, LOCKOUT_SECONDS, LoginGuard

    now = [100.0]
    guard = LoginGuard(clock=lambda: now[0])
    for _ in range(LOCKOUT_AFTER):
        guard.record("a", False)
    assert guard.seconds_locked("a") == LOCKOUT_SECONDS and guard.seconds_locked("b") == 0
    now[0] += LOCKOUT_SECONDS
    assert guard.seconds_locked("a") == 0


def test_oversized_and_malformed_bodies(started):
    r = started.post("/api/action", data="{" + " " * MAX_BODY + "}", headers=AUTH, content_type="application/json")
    assert r.status_code == 413 and "too large" in r.json["error"]
    r = started.post("/api/action", data="{\"type\": ", headers=AUTH, content_type="application/json")
    assert r.status_code == 400 and r.json["error"] == "The body is not valid JSON (line 1, column 10: Expecting value)"
    r = started.post("/api/action", data="{\"type\": ", headers={**AUTH, "Accept-Language": "de"},
                     content_type="application/json")   # the JSON error in the request's language
    assert r.status_code == 400
    assert r.json["error"] == "Der Inhalt der Anfrage: kein gültiges JSON (Zeile 1, Spalte 10: Expecting value)"
    r = started.post("/api/action", json=["draw"], headers=AUTH)
    assert r.status_code == 400 and "JSON object" in r.json["error"]


@pytest.mark.parametrize("path,payload", [("/api/login", {"pin": "1"}), ("/api/action", {"type": "draw"}),
                                          ("/api/game", {"players": ["red", "blue"]}), ("/api/logout", {})])
def test_json_nested_too_deep_is_refused_with_400_on_every_post(started, path, payload):
    """~1,000 nested lists are a 400 on every POST, not a RecursionError (500) before any check runs."""
    before = started.get("/api/state").json
    for deep in ("[" * 1000 + "]" * 1000, '{"a":' * 1000 + "1" + "}" * 1000, "[" * 5000):
        r = started.post(path, data=deep, headers=AUTH, content_type="application/json")
        assert r.status_code == 400 and "nested" in r.json["error"], (path, r.json)
    assert started.get("/api/state").json == before
    assert started.post(path, json=payload, headers=AUTH).status_code < 500


@pytest.mark.parametrize("kind", [["draw"], {"a": 1}, 7, None, True, 1.5])
def test_an_action_type_that_is_not_text_is_refused_with_400(started, kind):
    r = started.post("/api/action", json={"type": kind}, headers=AUTH)
    assert r.status_code == 400 and "type must be" in r.json["error"], r.json


# -- game actions ------------------------------------------------------------------
@pytest.mark.parametrize("body,words", [
    ({"players": ["red"]}, "players must have 2 to 7"),
    ({"players": ["red", "pink"]}, "players[1] must be one of"),
    ({"players": ["red", "blue"], "setup": "expert"}, "setup must be one of basic, advanced"),
    ({"players": ["red", "blue"], "first_player": "green"}, "not one of the players"),
    ({"players": ["red", "blue"], "prey3_variant": True}, "6 or 7 players"),
    ({"players": ["red", "red"]}, "chosen twice"),
    ({"players": ["red", "purple"]}, "only three"),
    ({"players": ["red", "blue"], "seed": -1}, "seed must be between"),
    ({"players": ["red", "blue"], "colour": "x"}, "unknown field 'colour'"),
])
def test_new_game_bad_input_names_the_problem(client, body, words):
    r = client.post("/api/game", json=body, headers=AUTH)
    assert r.status_code in (400, 409) and words in r.json["error"], r.json


def test_new_game_six_players_with_the_variant(client):
    r = client.post("/api/game", json={"players": ["red", "blue", "green", "yellow", "purple", "white"],
                                       "first_player": "green", "prey3_variant": True}, headers=AUTH)
    assert r.status_code == 200
    assert r.json["prey3_variant"] is True and r.json["first_player"] == "green"
    assert len(r.json["position"]["pawns"]) == 18


def test_actions_before_a_game_are_refused_with_a_reason(client):
    r = client.post("/api/action", json={"type": "draw"}, headers=AUTH)
    assert r.status_code == 409 and "No game" in r.json["error"]


def test_move_then_wrong_turn_then_monster_too_early(started):
    r = started.post("/api/action", json={"type": "move", "pawn": "red-6/1", "moves": "I"}, headers=AUTH)
    assert r.status_code == 200 and r.json["to_move"] == "blue"
    assert r.json["position"]["pawns"]["red-6/1"]["at"] == "p11"
    r = started.post("/api/action", json={"type": "move", "pawn": "red-4/3", "moves": "I"}, headers=AUTH)
    assert r.status_code == 409 and r.json["rule"] == "G3" and "blue's turn" in r.json["error"]
    r = started.post("/api/action", json={"type": "draw"}, headers=AUTH)
    assert r.status_code == 409 and "G3" in r.json["error"]


@pytest.mark.parametrize("body,words", [
    ({"type": "fly"}, "type must be one of"),
    ({"type": "move", "pawn": "red-6/1", "moves": "IQ"}, "unit moves"),
    ({"type": "move", "pawn": "red-9/9", "moves": "I"}, "no pawn 'red-9/9'"),
    ({"type": "draw", "tile": "8"}, "a draw action takes no other fields"),
    ({"type": "tile", "tile": "9"}, "tile must be one of"),
    ({"type": "pawn-at", "pawn": "red-6/1", "square": "z9"}, "z9"),
    ({"type": "move", "pawn": 5, "moves": "I"}, "pawn must be text"),
])
def test_bad_actions_are_400_or_409_with_a_message(started, body, words):
    r = started.post("/api/action", json=body, headers=AUTH)
    assert r.status_code in (400, 409) and words in r.json["error"], r.json


@pytest.mark.parametrize("body,words", [
    ({"type": "move", "pawn": "red-6/1"}, "a move action needs moves"),
    ({"type": "move", "moves": "I"}, "a move action needs pawn"),
    ({"type": "pawn-at", "pawn": "red-6/1"}, "a pawn-at action needs square"),
    ({"type": "tile"}, "a tile action needs tile"),
    ({"type": "place", "piece": "stone"}, "a place action needs square"),
])
def test_an_action_missing_a_field_it_needs_is_refused_and_nothing_moves(started, app_session, body, words):
    """A move without "moves" must not quietly become "stays beside the board"."""
    session = app_session[1]
    before = (session.seq, session.game)
    r = started.post("/api/action", json=body, headers=AUTH)
    assert r.status_code == 400 and words in r.json["error"], r.json
    assert "e.g." in r.json["error"]                                # it shows a correct body
    assert (session.seq, session.game) == before


def test_the_action_schema_in_the_openapi_document_says_what_each_type_needs(client):
    doc = client.get("/api/openapi.json").json
    text = doc["paths"]["/api/action"]["post"]["requestBody"]["content"]["application/json"]["schema"]["description"]
    assert "move needs pawn and moves" in text and "place needs piece and square" in text
    assert "429" in doc["paths"]["/api/action"]["post"]["responses"]
    assert set(doc["paths"]["/api/login"]["post"]["responses"]) >= {"200", "400", "403", "429"}


def test_pawn_at_finds_the_legal_move(started):
    r = started.post("/api/action", json={"type": "pawn-at", "pawn": "red-6/1", "square": "p11"}, headers=AUTH)
    assert r.status_code == 200 and "p11" in r.json["note"]
    r = started.post("/api/action", json={"type": "pawn-at", "pawn": "blue-6/1", "square": "a1"}, headers=AUTH)
    assert r.status_code == 409 and "cannot legally" in r.json["error"]


def test_targets_for_a_pawn_and_bad_pawn(started):
    r = started.get("/api/targets?pawn=red-6/1", headers=AUTH)
    assert r.status_code == 200 and {"square": "p11", "moves": "I"} in r.json
    assert started.get("/api/targets", headers=AUTH).status_code == 400
    r = started.get("/api/targets?pawn=pink-1/6", headers=AUTH)
    assert r.status_code == 400 and "pink-1/6" in r.json["error"]
    r = started.get("/api/targets?pawn=" + "x" * 500, headers=AUTH)
    assert r.status_code == 400 and "too long" in r.json["error"] and "x" * 50 not in r.json["error"]


def test_draw_resolves_the_monster_and_returns_the_plan(started, app_session):
    session = app_session[1]
    play_pawn_phase(session)
    r = started.post("/api/action", json={"type": "draw"}, headers=AUTH)
    assert r.status_code == 200
    s = r.json
    assert s["plan"]["format"] == "flure-plan/1" and s["plan_seq"] == s["seq"]
    assert s["plan_lines"][0].startswith("Step 1:")
    assert s["tiles_played"] == [s["plan"]["card"]] and s["deck_left"] == 7
    assert s["plan"]["end"]["at"] == s["position"]["monster"]["at"]


def test_tile_entered_at_the_table(started, app_session):
    play_pawn_phase(app_session[1])
    r = started.post("/api/action", json={"type": "tile", "tile": "prey-1"}, headers=AUTH)
    assert r.status_code == 409 and "G8" in r.json["error"]           # not as the game's first tile
    r = started.post("/api/action", json={"type": "tile", "tile": "8"}, headers=AUTH)
    assert r.status_code == 200 and r.json["plan"]["card"] == "8"


def test_preview_lists_each_possible_tile(started, app_session):
    play_pawn_phase(app_session[1])
    p = started.get("/api/preview", headers=AUTH).json
    assert list(p) == ["5", "7", "8", "10"]                            # no prey tile first (G8)
    assert p["10"]["plan"]["card"] == "10" and len(p["10"]["path"]) == 10
    assert p["5"]["lines"][0].startswith("Step 1:")


def test_undo_goes_back_and_says_when_there_is_nothing(started):
    started.post("/api/action", json={"type": "move", "pawn": "red-6/1", "moves": "I"}, headers=AUTH)
    r = started.post("/api/undo", json={}, headers=AUTH)
    assert r.status_code == 200 and r.json["to_move"] == "red"
    assert r.json["position"]["pawns"]["red-6/1"]["at"] is None
    r = started.post("/api/undo", json={}, headers=AUTH)
    assert r.status_code == 409 and "Nothing to undo" in r.json["error"]
    assert started.post("/api/undo", json={"steps": 2}, headers=AUTH).status_code == 400


def test_advanced_setup_places_pieces(client):
    r = client.post("/api/game", json={"players": ["red", "blue"], "setup": "advanced"}, headers=AUTH)
    assert r.json["phase"] == "placement" and r.json["placer"] == "red"
    r = client.post("/api/action", json={"type": "place", "piece": "crystal", "square": "g7"}, headers=AUTH)
    assert r.status_code == 200 and r.json["position"]["stones"] == {"g7": "crystal"}
    r = client.post("/api/action", json={"type": "place", "piece": "stone", "square": "b2"}, headers=AUTH)
    assert r.status_code == 409 and "A2" in r.json["error"]


# -- camera and devices ------------------------------------------------------------------
@pytest.fixture
def camera_client(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera)
    app, _ = make_app(tmp_path, session)
    client = app.test_client()
    client.post("/api/game", json={"players": ["red", "blue"], "first_player": "red", "seed": 3}, headers=AUTH)
    show_table(camera, session)          # the board is set up: the follow-up of the new game is done
    return client, session, camera


def test_camera_differences_fix_and_confirm_a_pawn_move(camera_client):
    client, session, camera = camera_client
    seen = session.game.position.to_setup()
    seen["pawns"] = {"P1": {"at": "p10", "color": "red", "pawn": "6/1", "face": "white"}}  # red 6/1 on p10?
    camera.reading = FakeReading(True, seen)
    v = client.get("/api/camera", headers=AUTH).json
    assert v["differences"] == [{"square": "p10", "expected": "empty", "seen": "red 6/1 (white)"}]
    de = client.get("/api/camera", headers={**AUTH, "Accept-Language": "de"}).json   # each screen its language
    assert de["differences"] == [{"square": "p10", "expected": "leer", "seen": "Rot 6/1 (weiße Seite)"}]
    # The referee corrects it: the pawn really stands on p11.
    v = client.post("/api/camera/fix", json={"square": "p10", "piece": "empty"}, headers=AUTH).json
    v = client.post("/api/camera/fix", json={"square": "p11", "piece": "pawn", "color": "red", "pawn": "6/1",
                                             "face": "black"}, headers=AUTH).json
    assert v["fixes"]["p11"]["color"] == "red"
    assert v["differences"] == [{"square": "p11", "expected": "empty", "seen": "red 6/1 (black)"}]
    assert v["proposal"]["action"] == {"type": "move", "pawn": "red-6/1", "moves": "I"}
    r = client.post("/api/camera/confirm", json={}, headers=AUTH)
    assert r.status_code == 200 and "red 6/1" in r.json["confirmed"]
    assert r.json["position"]["pawns"]["red-6/1"]["at"] == "p11" and r.json["to_move"] == "blue"
    outcomes = [r["outcome"] for r in session.store.readings(session.game_id)]
    assert outcomes[0].startswith("no legal change explains") and outcomes[-1].startswith("red 6/1")


def test_confirm_refuses_when_the_table_changed_since_the_screen_showed_it(camera_client):
    """The referee confirms what the screen proposed; a player who moved on meanwhile is not played."""
    client, session, camera = camera_client
    seen = session.game.position.to_setup()
    seen["pawns"]["red-2/5"] = {"at": "p11", "color": "red", "pawn": "2/5", "face": "black"}   # moved: flipped (P1)
    camera.reading = FakeReading(True, seen)
    shown = client.get("/api/camera", headers=AUTH).json["proposal"]["action"]
    assert shown == {"type": "move", "pawn": "red-2/5", "moves": "I"}
    seen = json.loads(json.dumps(seen))
    seen["pawns"]["red-2/5"]["at"] = "p10"                                  # moved on before the tap
    camera.reading = FakeReading(True, seen)
    r = client.post("/api/camera/confirm", json={"expect": shown}, headers=AUTH)
    assert r.status_code == 409 and "table changed" in r.json["error"] and "red 2/5" in r.json["error"]
    assert session.game.position.pawn("red-2/5").place == "waiting"         # nothing played
    r = client.post("/api/camera/confirm", json={"expect": {"type": "move", "pawn": "red-2/5", "moves": "IN"}},
                    headers=AUTH)
    assert r.status_code == 200, r.json
    assert r.json["position"]["pawns"]["red-2/5"]["at"] == "p10"
    r = client.post("/api/camera/confirm", json={"expect": "I"}, headers=AUTH)
    assert r.status_code == 400 and "expect" in r.json["error"]


def test_a_square_hidden_from_the_camera_is_taken_as_the_game_has_it(camera_client):
    """The camera cannot see behind the monster: that square is unknown, not empty, so the
    move that was made elsewhere can still be confirmed."""
    client, session, camera = camera_client
    client.post("/api/action", json={"type": "move", "pawn": "red-2/5", "moves": "IN"}, headers=AUTH)
    seen = session.game.position.to_setup()
    del seen["pawns"]["red-2/5"]                                              # on p10, hidden
    hidden = [{"code": "hidden-square", "square": "p10", "message": "p10 is hidden behind a piece from this camera angle"}]
    camera.reading = FakeReading(True, seen, problems=hidden)
    assert session.follow is None                  # the hidden square is not a difference: the table matches
    seen["pawns"]["blue-6/1"] = {"at": "p11", "color": "blue", "pawn": "6/1", "face": "black"}   # blue entered
    camera.reading = FakeReading(True, seen, problems=hidden)
    v = client.get("/api/camera", headers=AUTH).json
    assert v["unseen"] == ["p10"]
    assert v["differences"] == [{"square": "p11", "expected": "empty", "seen": "blue 6/1 (black)"}]
    assert v["proposal"]["action"] == {"type": "move", "pawn": "blue-6/1", "moves": "I"}
    r = client.post("/api/camera/confirm", json={}, headers=AUTH)
    assert r.status_code == 200 and r.json["position"]["pawns"]["blue-6/1"]["at"] == "p11"
    assert r.json["position"]["pawns"]["red-2/5"]["at"] == "p10"             # still there, as the game says


def test_a_fixed_hidden_square_is_what_the_referee_said(camera_client):
    client, session, camera = camera_client
    client.post("/api/action", json={"type": "move", "pawn": "red-6/1", "moves": "I"}, headers=AUTH)
    seen = session.game.position.to_setup()
    del seen["pawns"]["red-6/1"]
    camera.reading = FakeReading(True, seen, problems=[{"code": "unread-square", "square": "p11", "message": "…"}])
    assert client.get("/api/camera", headers=AUTH).json["differences"] == []
    v = client.post("/api/camera/fix", json={"square": "p11", "piece": "empty"}, headers=AUTH).json
    assert v["unseen"] == [] and v["differences"] == [{"square": "p11", "expected": "red 6/1 (black)",
                                                       "seen": "empty"}]


def test_camera_fix_bad_input_and_clear(camera_client):
    client, _, camera = camera_client
    camera.reading = FakeReading(True, {"monster": {"at": "a1", "facing": "E"}})
    r = client.post("/api/camera/fix", json={"square": "q1", "piece": "stone"}, headers=AUTH)
    assert r.status_code == 400 and "square" in r.json["error"]
    r = client.post("/api/camera/fix", json={"square": "g7", "piece": "dragon"}, headers=AUTH)
    assert r.status_code == 400 and "piece must be one of" in r.json["error"]
    r = client.post("/api/camera/fix", json={"square": "g7", "piece": "pawn", "color": "red"}, headers=AUTH)
    assert r.status_code == 400 and "pawn must be one of" in r.json["error"]
    r = client.post("/api/camera/fix", json={"square": "g7", "piece": "monster"}, headers=AUTH)
    assert r.status_code == 400 and "heading" in r.json["error"]
    client.post("/api/camera/fix", json={"square": "g7", "piece": "crystal"}, headers=AUTH)
    r = client.post("/api/camera/clear", json={}, headers=AUTH)
    assert r.json["fixes"] == {}


def test_confirm_refuses_a_reading_that_is_no_legal_move(camera_client):
    client, session, camera = camera_client
    seen = session.game.position.to_setup()
    seen["pawns"] = {"P1": {"at": "k5", "color": "red", "pawn": "6/1", "face": "black"}}
    camera.reading = FakeReading(True, seen)
    view = client.get("/api/camera", headers=AUTH).json
    assert view["proposal"]["action"] is None and "k5 was empty, now red 6/1" in view["proposal"]["message"]
    assert view["can_confirm"] is False and "no legal change explains what the camera sees" in str(view["why_not"])
    r = client.post("/api/camera/confirm", json={}, headers=AUTH)
    assert r.status_code == 409 and "no legal change explains what the camera sees" in r.json["error"]
    assert session.game.position.pawn("red-6/1").place == "waiting"      # last good state kept


def test_vanished_camera_shows_in_status_instead_of_crashing(tmp_path):
    session = session_with(tmp_path, camera=None)
    session.camera = Device("camera", None, why="camera '0' not available: USB camera unplugged")
    app, _ = make_app(tmp_path, session)
    client = app.test_client()
    client.post("/api/game", json={"players": ["red", "blue"], "first_player": "red", "seed": 3}, headers=AUTH)
    v = client.get("/api/camera", headers=AUTH).json
    assert v["reading"] is None and "unplugged" in str(v["why_not"]) and v["can_confirm"] is False
    r = client.post("/api/camera/confirm", json={}, headers=AUTH)
    assert r.status_code == 409 and "unplugged" in r.json["error"]
    s = client.get("/api/status", headers=AUTH).json
    assert "unplugged" in s["camera"]["message"] and s["leds"]["present"] is False


def test_camera_frame_is_a_jpeg_once_the_camera_gave_one(camera_client):
    import numpy as np

    client, _, camera = camera_client
    r = client.get("/api/camera/frame.jpg", headers=AUTH)
    assert r.status_code == 404 and "not given a frame" in r.json["error"]
    camera.last_frame = np.full((1200, 1600, 3), 90, np.uint8)
    r = client.get("/api/camera/frame.jpg", headers=AUTH)
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data[:2] == b"\xff\xd8"
    import cv2
    assert cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR).shape == (720, 960, 3)
    assert client.get("/api/camera/frame.jpg").status_code == 401


def test_camera_mode_and_accepting_the_table_as_it_is(camera_client):
    client, session, camera = camera_client
    r = client.post("/api/camera/mode", json={"mode": "sideways"}, headers=AUTH)
    assert r.status_code == 400
    assert client.post("/api/camera/mode", json={"mode": "auto"}, headers=AUTH).json["mode"] == "auto"
    client.post("/api/action", json={"type": "move", "pawn": "red-6/1", "moves": "I"}, headers=AUTH)
    seen = session.game.position.to_setup()
    seen["pawns"]["red-6/1"]["at"] = "p10"           # the player put it one square further
    camera.reading = FakeReading(True, seen)
    view = client.get("/api/camera", headers=AUTH).json
    assert [f["text"] for f in view["follow"]["fixes"]] == ["move red 6/1 from p10 to p11"]
    r = client.post("/api/camera/accept-table", json={}, headers=AUTH)
    assert r.status_code == 200 and r.json["position"]["pawns"]["red-6/1"]["at"] == "p10"
    assert "accepted the table as it is instead of: move red 6/1 from p10 to p11" in r.json["log"][-1]["text"]
    assert session.store.history(session.game_id)[-1].action["type"] == "correct"
    assert session.store.history(session.game_id)[-1].action["by"] == "referee"
    assert session.follow is None


def test_led_frame_without_leds_is_null(client):
    assert client.get("/api/leds").json == {"frame": None}


def test_pages_that_do_not_exist_or_fail_are_plain_pages_with_a_way_back(client, app_session, monkeypatch):
    r = client.get("/no-such-page")
    html = r.get_data(as_text=True)
    assert r.status_code == 404 and r.mimetype == "text/html"
    assert "There is no page /no-such-page here." in html and 'href="/"' in html and "app.css" in html
    assert client.get("/api/no-such").json["error"]                     # the API keeps answering JSON

    def boom(*args, **kwargs):
        raise RuntimeError("secret internals")
    monkeypatch.setattr("companion_app.web.pages.render_template", boom)
    r = client.get("/")
    html = r.get_data(as_text=True)
    assert r.status_code == 500 and r.mimetype == "text/html"
    assert "game state is unchanged" in html and "secret" not in html and '"error"' not in html


def test_unexpected_server_error_is_one_plain_sentence(client, app_session, monkeypatch):
    def boom():
        raise RuntimeError("secret internals")
    monkeypatch.setattr(app_session[1], "state", boom)
    r = client.get("/api/state")
    assert r.status_code == 500 and "secret" not in r.get_data(as_text=True)
    assert "game state is unchanged" in r.json["error"]


def test_a_game_record_goes_out_and_comes_back_in(started, tmp_path):
    """/api/game/export and /api/game/import (the full cases are in test_web_journal.py)."""
    record = started.get("/api/game/export", headers=AUTH).json
    assert record["format"] == "flure-game/1" and record["players"] == ["red", "blue"]
    assert started.get("/api/game/export").status_code in (401, 403)
    r = started.post("/api/game/import", json=record, headers=AUTH)
    assert r.status_code == 200 and r.json["seq"] == 0 and r.json["game_id"] == 2


def test_every_api_route_is_exercised_by_this_file():
    """Guards the issue's 'tests for every endpoint': a new route must get a test here."""
    source = open(__file__, encoding="utf-8").read()
    for route in api.ROUTES:
        path = route.path.replace("<rule_id>", "")
        assert path.rstrip("/") in source, f"no test mentions {route.path}"


def test_the_action_schema_is_built_from_the_engines_action_types():
    """One source: each type's fields in the request schema are the engine's (engine/actions.py)."""
    from companion_app.web import schemas
    from engine.actions import ACTION_TYPES, EXAMPLES, parse_action
    assert schemas.ACTION["properties"]["type"]["enum"] == list(ACTION_TYPES)
    for kind, cls in ACTION_TYPES.items():
        assert schemas.ACTION_FIELDS[kind] == set(cls.REQUIRED) | set(cls.OPTIONAL)
        body = EXAMPLES[kind].to_json()
        assert parse_action(schemas.validate_action(body)) == EXAMPLES[kind]
        assert json.loads(schemas.ACTION_EXAMPLES[kind].split(" (")[0]) == body


def test_the_referees_correction_is_an_action_logged_and_undone_like_any(started, app_session):
    session = app_session[1]
    setup = session.state()["position"]
    setup["pawns"]["red-6/1"]["at"] = "k10"
    r = started.post("/api/action", json={"type": "correct", "position": setup}, headers=AUTH)
    assert r.status_code == 200 and r.json["position"]["pawns"]["red-6/1"]["at"] == "k10"
    assert r.json["log"][-1]["text"] == "The referee corrected the position."
    r = started.post("/api/undo", json={}, headers=AUTH)
    assert r.status_code == 200 and r.json["position"]["pawns"]["red-6/1"]["at"] is None
    bad = dict(setup, monster={"at": "z9", "facing": "E"})
    r = started.post("/api/action", json={"type": "correct", "position": bad}, headers=AUTH)
    assert r.status_code == 400 and "position.monster.at" in r.json["error"]


def test_the_referee_pauses_the_players_and_moves_a_piece_through_the_api(tmp_path):
    from companion_app.table.simulated.demo import SimulatedRig
    from engine.geometry import parse_square

    app, session = make_app(tmp_path)
    client = app.test_client()
    assert client.get("/api/simulated", headers=AUTH).status_code == 409   # a real table: nothing simulated
    r = client.get("/api/simulated?lang=de", headers=AUTH)
    assert r.status_code == 409 and r.get_json()["error"].startswith("Es gibt keinen simulierten Tisch")
    session.new_game(["red", "blue"], seed=28)
    session.simulated = rig = SimulatedRig(session, seed=28)
    r = client.post("/api/simulated", json={"paused": True}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["players"]["paused"] and rig.players.paused
    stone = sorted(session.game.position.to_setup()["stones"])[0]
    r = client.post("/api/simulated", json={"move": {"from": "a1", "to": stone}}, headers=AUTH)
    assert r.status_code == 409 and r.get_json()["error"].startswith(f"{stone} ist nicht frei: ")   # ?lang=de above
    r = client.post("/api/simulated", json={"move": {"from": "a1", "to": "b1"}}, headers=AUTH)
    assert r.status_code == 200 and r.get_json()["moved"] == "Monster von a1 nach b1"   # ?lang=de above
    r = client.get("/api/simulated?lang=fr", headers=AUTH)                  # each page in its own language
    assert r.get_json()["players"]["now"] == "pas encore commencé"
    assert rig.table.position().monster == parse_square("b1")
    assert session.game.position.monster == parse_square("a1")        # the game learns only through the camera
    assert client.post("/api/simulated", json={"move": {"from": "z9"}}, headers=AUTH).status_code == 400
    assert client.post("/api/simulated", json={"paused": True}).status_code in (401, 403)


def test_setup_routes_answer_in_sentences_never_500(tmp_path):
    """The Setup page's API (issue 14; the browser flow is tests/test_setup_page.py): every route,
    wrong bodies refused by name, steps that cannot be done now a 409 with what to do."""
    from companion_app.config import load_table_config

    (tmp_path / "table.toml").write_text(f'[camera]\nresolution = [1280, 720]\n[web]\ndatabase = "{tmp_path / "s.db"}"\n')
    app, session = make_app(tmp_path, table_config=load_table_config(tmp_path / "table.toml"))
    client = app.test_client()
    assert client.get("/api/setup/look").status_code == 401
    look = client.get("/api/setup/look", headers=AUTH).json
    assert look["picture"] is False and "no picture yet" in str(look["message"])
    assert client.get("/api/setup/overlay.jpg", headers=AUTH).status_code == 404
    png = client.get("/api/setup/board.png", headers=AUTH)
    assert png.status_code == 200 and png.data[:4] == b"\x89PNG"
    assert client.get("/api/setup/calibration", headers=AUTH).json["views"] == 0
    r = client.post("/api/setup/capture", json={}, headers=AUTH)
    assert r.status_code == 409 and "no picture yet" in r.json["error"]
    assert client.post("/api/setup/reset", json={}, headers=AUTH).json["views"] == 0
    r = client.post("/api/setup/calibrate", json={}, headers=AUTH)
    assert r.status_code == 409 and "only 0 usable views" in r.json["error"]
    r = client.post("/api/setup/save", json={}, headers=AUTH)
    assert r.status_code == 409 and "Nothing to save yet" in r.json["error"]
    r = client.post("/api/setup/exposure", json={"exposure_us": -5, "analogue_gain": 0}, headers=AUTH)
    assert r.status_code == 409 and "exposure_us" in r.json["error"]
    r = client.post("/api/setup/exposure", json={"exposure_us": 5000}, headers=AUTH)
    assert r.status_code == 400 and "analogue_gain" in r.json["error"]
    r = client.post("/api/setup/leds/light", json={"what": "row 12"}, headers=AUTH)
    assert r.status_code == 409 and "rows are 1–11" in r.json["error"]
    r = client.post("/api/setup/leds/mark", json={"square": "q9", "wrong": True}, headers=AUTH)
    assert r.status_code == 409 and "not a square" in r.json["error"]
    assert client.post("/api/setup/leds/mark", json={"square": "b2", "wrong": True}, headers=AUTH).json["wrong"] == ["b2"]
    assert client.get("/api/setup/leds/marks", headers=AUTH).json["wrong"] == ["b2"]
    # Teaching the box without stickers (the whole flow: tests/test_setup_teaching.py).
    assert client.get("/api/setup/teaching", headers=AUTH).json["active"] is False
    r = client.post("/api/setup/teaching/photo", json={"step": 1}, headers=AUTH)
    assert r.status_code == 409 and "Start teaching" in r.json["error"]
    r = client.post("/api/setup/teaching/start", json={"x": 1}, headers=AUTH)
    assert r.status_code == 400 and "'x'" in r.json["error"]
    assert client.post("/api/setup/teaching/start", json={}, headers=AUTH).json["step"]["number"] == 1
    r = client.post("/api/setup/teaching/photo", json={"step": 0}, headers=AUTH)
    assert r.status_code == 400 and r.json["error"] == "step must be at least 1"
    r = client.post("/api/setup/teaching/photo", json={"step": 3}, headers=AUTH)
    assert r.status_code == 409 and "step 3" in r.json["error"] and "step 1" in r.json["error"]
    assert client.post("/api/setup/teaching/cancel", json={}, headers=AUTH).json["active"] is False
    findings = client.get("/api/setup/doctor", headers=AUTH).json["findings"]
    assert any(f["topic"] == "board" and not f["ok"] for f in findings)
    assert client.get("/setup").status_code == 200
    # Without a configuration file the marks go beside the session's database, not the user's data folder.
    bare, _ = make_app(tmp_path / "bare")
    r = bare.test_client().post("/api/setup/leds/mark", json={"square": "c3", "wrong": True}, headers=AUTH)
    assert r.json["file"] == str(tmp_path / "bare" / "led-check.json")


def test_i18n_catalog_route(client):
    """/api/i18n/<lang>.json: the browser's catalog of each language (more in tests/test_i18n_catalogs.py)."""
    r = client.get("/api/i18n/de.json")
    assert r.status_code == 200 and r.json["Game log"] == "Spielverlauf"
    assert client.get("/api/i18n/klingon.json").status_code == 404


def test_the_last_move_as_a_gif_and_a_png(tmp_path):
    """/api/move.gif and /api/move.png: "Save this move" on the phone (more in tests/test_share.py)."""
    import io

    from PIL import Image

    app, session = make_app(tmp_path)
    client = app.test_client()
    r = client.get("/api/move.gif")
    assert r.status_code == 404 and "not moved yet" in r.json["error"]
    session.new_game(["red", "blue"], "red", seed=3)
    play_pawn_phase(session)
    session.act({"type": "draw"})
    plan = session.game.last_plan
    gif = client.get("/api/move.gif")
    assert gif.status_code == 200 and gif.mimetype == "image/gif"
    assert Image.open(io.BytesIO(gif.data)).n_frames == len(plan.steps) + 1
    png = client.get("/api/move.png")
    assert png.status_code == 200 and png.data[:4] == b"\x89PNG"


def test_the_phone_camera_routes_are_the_referees_and_need_a_phone_source(client, app_session):
    """/api/camera/pair (referee: a one-time link), /api/camera/phone and /api/camera/phone/frame (the
    referee or the paired phone; frames only when the table's camera is a phone) — issue 26; the phone
    source itself is tested in test_phone_camera_source.py and in Chromium in test_phone_camera_browser.py."""
    from companion_app.web.camera_page import attach
    from vision.phone_source import PhoneFrames

    assert client.post("/api/camera/pair", json={}).status_code == 401
    assert client.get("/api/camera/phone").status_code == 401
    r = client.post("/api/camera/phone/frame", data=b"\xff\xd8\xff", headers={"Content-Type": "image/jpeg"})
    assert r.status_code == 401 and "PIN" in r.json["error"]
    r = client.post("/api/camera/phone/frame", data=b"\xff\xd8\xff", headers={**AUTH, "Content-Type": "image/jpeg"})
    assert r.status_code == 409 and "--camera phone" in r.json["error"]
    link = client.post("/api/camera/pair", json={}, headers=AUTH).json
    assert "/camera?pair=" in link["url"] and link["expires_s"] == 600 and not link["phone_source"]

    attach(app_session[0], PhoneFrames(), "https://127.0.0.1:8443/")
    assert client.post("/api/camera/pair", json={}, headers=AUTH).json["url"].startswith("https://127.0.0.1:8443/camera?pair=")
    phone = app_session[0].test_client()
    token = client.post("/api/camera/pair", json={}, headers=AUTH).json["url"].split("pair=")[1]
    assert phone.get(f"/camera?pair={token}", base_url="https://localhost").status_code == 302
    state = phone.get("/api/camera/phone").json
    assert state["phone"]["connected"] is False and state["look"] is None and state["csrf"]
    r = phone.post("/api/camera/phone/frame", data=b"GIF89a", headers={"Content-Type": "image/gif"})
    assert r.status_code == 403           # no CSRF token: the paired phone's page always sends it
    r = phone.post("/api/camera/phone/frame", data=b"GIF89a", headers={"Content-Type": "image/gif",
                                                                      "X-CSRF-Token": state["csrf"]})
    assert r.status_code == 415 and r.json["code"] == "wrong-type"
    assert phone.post("/api/action", json={"type": "draw"}, headers={"X-CSRF-Token": state["csrf"]}).status_code == 401
    assert phone.get(f"/camera?pair={token}").status_code == 403      # once only
