"""Sentences said once, at the edge, in one language: what the app sends carries no ``*_i18n`` twin.

The session keeps its sentences as wording data (engine.wording); the web layer says them in the
request's language (``?lang=``, the ``lang`` cookie, Accept-Language) and each live stream in its
phone's, negotiated when it opens.  Checked over the real server: every JSON answer of every GET
route, the answers to the referee's actions, every message of the live streams and the game log.
"""
from __future__ import annotations

import json
import urllib.request
from contextlib import closing

from companion_app.i18n import LANGUAGES
from companion_app.i18n.text import localize, render
from companion_app.table.devices.devices import open_leds
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.web.api import ROUTES
from companion_app.web.server import Server
from web_helpers import AUTH, SseClient, make_app, play_pawn_phase, session_with, show_table


def twins(value, where: str = "") -> list[str]:
    """Where ``value`` (decoded JSON) carries a sentence in several languages: a ``*_i18n`` key, or an
    object keyed by the languages themselves."""
    found = []
    if isinstance(value, dict):
        if len(value) > 1 and set(value) <= set(LANGUAGES):
            found.append(where or "(top)")
        for key, item in value.items():
            if key.endswith("_i18n"):
                found.append(f"{where}.{key}")
            found += twins(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += twins(item, f"{where}[{i}]")
    return found


def get(url: str, headers: dict | None = None):
    req = urllib.request.Request(url, headers={**AUTH, **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Content-Type", ""), exc.read()


def post(url: str, body: dict, headers: dict | None = None) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={**AUTH, "Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def answers(base: str, headers: dict | None = None) -> dict[str, object]:
    """The JSON answer of every GET route without a path parameter (and the rules of M4 and a catalog)."""
    out = {}
    paths = [r.path for r in ROUTES if r.method == "GET" and r.produces == "application/json" and "<" not in r.path]
    assert "/api/state" in paths and "/api/camera" in paths and "/api/status" in paths and len(paths) > 12
    for path in paths + ["/api/rules/M4"]:
        status, kind, body = get(base + path.lstrip("/"), headers)
        if kind.startswith("application/json"):
            out[path] = json.loads(body)
    return out


def a_move(game) -> dict:
    label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
    target = next(t for t in game.targets(label) if t["square"])      # a move the camera can see
    return {"type": "move", "pawn": label, "moves": target["moves"]}


def a_game_with_every_kind_of_sentence(tmp_path):
    """A session past a monster move, with an undo, a camera reading that differs from the game and an
    LED grid: the state's log, plan lines, summary and note, the camera view's differences, problems and
    follow-up, the devices' lines all hold sentences."""
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera)
    session.leds = open_leds(None)                       # the real LED grid on the WLED emulator: its frames
    assert session.leds.obj is not None, session.leds.why
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=6)
    show_table(camera, session)
    play_pawn_phase(session)
    session.act({"type": "draw"})
    session.act(a_move(session.game))
    session.undo()
    table = session.game.position.to_setup()
    table["monster"] = {"at": "b1", "facing": "N"}          # the table is behind the game: a follow-up to say
    camera.show(FakeReading(True, table))
    return app, session, camera


def test_no_payload_the_app_sends_carries_a_sentence_in_every_language(tmp_path):
    app, session, camera = a_game_with_every_kind_of_sentence(tmp_path)
    with closing(session), Server(app) as server:
        phone = SseClient(server.url)
        referee = SseClient(server.url, path="/api/stream?lang=de")
        try:
            assert phone.wait_for(lambda s: s["phase"] == "pawns") and referee.wait_for(lambda s: True)
            sent = answers(server.url)
            show_table(camera, session)                      # the table put right; then a player moves:
            camera.show(FakeReading(True, session.game.apply(a_move(session.game)).position.to_setup()))
            proposal = json.loads(get(server.url + "api/camera")[2])
            assert proposal["proposal"]["message"] and proposal["change"]["kind"] == "move"   # to confirm
            sent["camera proposal"] = proposal
            sent["action"] = post(server.url + "api/action", a_move(session.game))
            sent["undo"] = post(server.url + "api/undo", {})
            sent["mode"] = post(server.url + "api/camera/mode", {"mode": "auto"})
            assert phone.wait_for(lambda s: s["seq"] == session.seq and s["version"] == session.version)
            for client in (phone, referee):
                with client.arrived:
                    sent.update({f"stream {kind} {i}": data for i, (kind, data) in enumerate(client.every)})
        finally:
            phone.close()
            referee.close()
    kinds = {key.split()[1] for key in sent if key.startswith("stream ")}
    assert {"state", "camera", "leds"} <= kinds, kinds
    log = sent["/api/state"]["log"]
    assert len(log) > 5 and not any(line.get("plan") for line in log)   # the game's notes; the move is plan_lines
    assert sent["/api/state"]["plan_lines"] and sent["/api/camera"]["follow"]["fixes"]
    assert {key: twins(value) for key, value in sent.items() if twins(value)} == {}


def test_the_openapi_document_names_no_language_twin(tmp_path):
    app, _ = make_app(tmp_path)
    document = app.test_client().get("/api/openapi.json").get_json()
    state = document["components"]["schemas"]["State"]
    assert "summary" in state["properties"] and "plan_lines" in state["properties"]
    assert not [key for key in state["properties"] if key.endswith("_i18n")]
    assert "_i18n" not in json.dumps(document)


def test_a_french_stream_and_a_french_state_say_french_sentences(tmp_path):
    """Each phone gets the same moment in its own language: a French stream (asked with ``?lang=fr``, and
    by Accept-Language), an English one beside it, and /api/state in French (by the cookie a ``?lang=``
    choice leaves, and by Accept-Language)."""
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue"], "red", seed=6)
    play_pawn_phase(session)
    with Server(app) as server:
        french = SseClient(server.url, path="/api/stream?lang=fr")
        accept = SseClient(server.url, headers={"Accept-Language": "fr-CA,fr;q=0.9"})
        english = SseClient(server.url)
        try:
            for phone in (french, accept, english):
                assert phone.wait_for(lambda s: s["phase"] == "monster")
            result = post(server.url + "api/action", {"type": "draw"})
            plan, game = session.game.last_plan, session.game
            got = {name: phone.wait_for(lambda s: s.get("plan_seq") == result["seq"])[1]
                   for name, phone in (("fr", french), ("accept", accept), ("en", english))}
        finally:
            for phone in (french, accept, english):
                phone.close()
        assert result["summary"] == str(game.summary())                 # the referee's answer: English here
        for name, lang in (("fr", "fr"), ("accept", "fr"), ("en", "en")):
            state = got[name]
            assert state["summary"] == render(game.summary(), lang), name
            assert state["plan_lines"] == localize(plan.sentences(), lang), name
            note = [line for line in session.log_lines if not line.get("plan")][-1]["text"]
            assert state["log"][-1]["text"] == render(note, lang), name      # the newest note, in its language
        assert got["en"]["plan_lines"] == plan.lines()
        assert got["fr"]["plan_lines"][0].startswith("Pas 1\u00a0: ") and got["fr"]["summary"].startswith("Manche ")
        assert got["fr"]["plan_lines"] != got["en"]["plan_lines"]
        assert {k: v for k, v in got["fr"].items() if k not in ("summary", "note", "plan_lines", "log", "tile_names")} \
            == {k: v for k, v in got["en"].items() if k not in ("summary", "note", "plan_lines", "log", "tile_names")}
        _, _, body = get(server.url + "api/state", {"Accept-Language": "fr"})
        by_header = json.loads(body)
        client = app.test_client()
        client.get("/?lang=fr")                                          # the page's choice, kept in a cookie
        by_cookie = client.get("/api/state", headers=AUTH).get_json()
    for state in (by_header, by_cookie):
        assert state["summary"] == render(game.summary(), "fr")
        assert state["plan_lines"] == got["fr"]["plan_lines"] and state["note"] == render(game.note, "fr")
        assert state["tile_names"]["5"] == render(game_tile("5", game), "fr")


def game_tile(tile: str, game):
    from engine.deck import tile_words
    return tile_words(tile, prey3_variant=game.prey3_variant)


def test_a_retried_action_gets_the_first_answer_said_in_the_retrys_language(tmp_path):
    """The journal keeps an answer's sentences as wording data (engine.wording.payload_json), so a retry
    (the same Idempotency-Key) from a French screen reads the very same answer in French."""
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue"], "red", seed=6)
    play_pawn_phase(session)
    client = app.test_client()
    headers = {**AUTH, "Idempotency-Key": "tablet-1"}
    first = client.post("/api/action", json={"type": "draw"}, headers=headers).get_json()
    again = client.post("/api/action", json={"type": "draw"}, headers={**headers, "Accept-Language": "fr"})
    assert again.headers.get("Idempotent-Replayed") == "true" and session.seq == first["seq"]
    retried = again.get_json()
    plan = session.game.last_plan
    assert first["plan_lines"] == plan.lines() and first["summary"] == str(session.game.summary())
    assert retried["plan_lines"] == localize(plan.sentences(), "fr") != first["plan_lines"]
    assert retried["summary"] == render(session.game.summary(), "fr")
    assert {k: v for k, v in retried.items() if k not in ("summary", "note", "plan_lines", "log", "tile_names")} \
        == {k: v for k, v in first.items() if k not in ("summary", "note", "plan_lines", "log", "tile_names")}
