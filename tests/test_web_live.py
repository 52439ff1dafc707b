"""Live updates over the real waitress server: 20 phones at once, and catching up after a drop."""
from __future__ import annotations

import json
import urllib.request

from companion_app.table.session.state import without_texts
from companion_app.web.server import Server
from live_load import loopback
from web_helpers import AUTH, SseClient, make_app, play_pawn_phase

CLIENTS = 20


def post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={**AUTH, "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_twenty_phones_all_receive_the_same_monster_move(tmp_path):
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue", "green", "yellow"], "red", seed=21)
    play_pawn_phase(session)
    with Server(app) as server:
        phones = [SseClient(server.url, source=loopback(i)) for i in range(CLIENTS)]   # 20 devices
        try:
            for p in phones:
                assert p.wait_for(lambda s: s["phase"] == "monster"), "no catch-up state"
            result = post(server.url + "api/action", {"type": "draw"})
            got = [p.wait_for(lambda s: s.get("plan_seq") == result["seq"]) for p in phones]
            assert all(got), f"{sum(1 for g in got if not g)} of {CLIENTS} phones missed the update"
            states = [s for _, s in got]
            assert all(s == states[0] for s in states)
            plan = session.game.last_plan.to_json()
            assert states[0]["plan"] == without_texts(plan) and "text" in plan["steps"][0]   # the lines: plan_lines
            assert states[0]["plan_lines"] == session.game.last_plan.lines()
            assert session.broker.clients == CLIENTS
        finally:
            for p in phones:
                p.close()


def test_a_phone_that_reconnects_catches_up_with_what_it_missed(tmp_path):
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue"], "red", seed=5)
    with Server(app) as server:
        phone = SseClient(server.url)
        assert phone.wait_for(lambda s: s["phase"] == "pawns")
        phone.close()                                    # Wi-Fi drops
        post(server.url + "api/action", {"type": "move", "pawn": "red-6/1", "moves": "I"})
        post(server.url + "api/action", {"type": "move", "pawn": "blue-6/1", "moves": ""})
        back = SseClient(server.url)                     # the browser reconnects by itself
        try:
            _, state = back.wait_for(lambda s: True)
            assert state["version"] == session.version and state["to_move"] == "red"
            assert state["position"]["pawns"]["red-6/1"]["at"] == "p11"
        finally:
            back.close()


def test_a_phone_that_stops_reading_is_dropped_not_buffered_forever(tmp_path):
    from companion_app.table.session.events import QUEUE_LIMIT

    app, session = make_app(tmp_path)
    stream = session.broker.stream(lambda: "first\n\n", heartbeat=0.01)
    next(stream), next(stream)                            # connected, then never reads again
    assert session.broker.clients == 1
    for i in range(QUEUE_LIMIT + 1):
        session.broker.publish(f"data: {i}\n\n")
    assert session.broker.clients == 0
    assert list(stream) == []                             # the stream ends; the browser reconnects


def test_a_stream_ends_after_its_lifetime_so_vanished_phones_free_their_thread(tmp_path):
    app, session = make_app(tmp_path)
    stream = session.broker.stream(lambda: "first\n\n", heartbeat=0.01, lifetime=0.05)
    messages = list(stream)                               # ends by itself
    assert messages[:2] == ["retry: 1500\n\n", "first\n\n"] and session.broker.clients == 0
    assert messages[2:] and all(m == "event: ping\ndata: {}\n\n" for m in messages[2:])


def test_a_quiet_stream_still_sends_a_comment_so_a_vanished_phone_is_found(tmp_path, monkeypatch):
    from companion_app.table.session import events

    monkeypatch.setattr(events, "NUDGE_SECONDS", 0.02)
    app, session = make_app(tmp_path)
    messages = list(session.broker.stream(lambda: "first\n\n", heartbeat=60, lifetime=0.2))
    assert messages[:2] == ["retry: 1500\n\n", "first\n\n"]
    assert len(messages) >= 4 and set(messages[2:]) == {events.NUDGE} == {":\n\n"}   # no ping due yet


def test_streams_beyond_the_limit_get_503_so_the_referee_keeps_threads(tmp_path):
    import urllib.error

    app, session = make_app(tmp_path, test_config={"SSE_MAX_CLIENTS": 2})
    session.new_game(["red", "blue"], "red", seed=5)
    with Server(app) as server:
        phones = [SseClient(server.url) for _ in range(2)]
        try:
            for p in phones:
                assert p.wait_for(lambda s: True)
            try:
                urllib.request.urlopen(server.url + "api/stream", timeout=5)
                raise AssertionError("a third stream was accepted")
            except urllib.error.HTTPError as exc:
                assert exc.code == 503 and exc.headers["Retry-After"] == "5"
                assert "Too many screens" in json.loads(exc.read())["error"]
            state = post(server.url + "api/action", {"type": "move", "pawn": "red-6/1", "moves": "I"})
            assert state["to_move"] == "blue"
        finally:
            for p in phones:
                p.close()
