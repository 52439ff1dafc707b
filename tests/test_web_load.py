"""Live updates at scale: 100 screens on a real ``flure play`` all get every update while
the server's memory stays flat; a phone that goes away frees its slot within seconds; one device
cannot take every stream, and the referee's tablet always gets one.

Loopback only, bounded in count and time; every client has its own 127.0.0.N address.  The full
figures (1,000 actions, latency medians) are printed by benchmarks/bench_web.py."""
from __future__ import annotations

import http.client
import json
import time

import pytest

from companion_app.web.server import Server
from live_load import LiveClients, Table, loopback
from web_helpers import TOKEN, make_app

PHONES = 100
ACTIONS = 60
MEMORY_MB = 10      # growth allowed between the 10th and the 60th action (it was ~1.7 MB an action)
SLOT_SECONDS = 5


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    yield t
    t.close()


def test_a_hundred_phones_all_get_every_update_and_the_server_memory_stays_flat(table):
    table.monster_to_move()
    clients = LiveClients(table.port, PHONES)
    try:
        assert clients.wait_connected() == [200] * PHONES
        rss = {}
        for i, (_, state) in enumerate(table.churn(ACTIONS), start=1):
            got = clients.wait_all(state["version"])
            assert None not in got, f"{got.count(None)} of {PHONES} phones missed update {i}"
            if i in (10, ACTIONS):
                rss[i] = table.rss_mb()
        assert rss[ACTIONS] - rss[10] <= MEMORY_MB, rss
    finally:
        clients.close()


@pytest.fixture
def small_server(tmp_path):
    """An in-process server allowing 3 streams (and 2 from one address)."""
    app, session = make_app(tmp_path, test_config={"SSE_MAX_CLIENTS": 3, "SSE_PER_ADDRESS": 2})
    session.new_game(["red", "blue"], "red", seed=5)
    with Server(app) as server:
        yield server, session


def stream_answer(server, address: str, cookie: str | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", int(server.port), timeout=5, source_address=(address, 0))
    conn.request("GET", "/api/stream", headers={"Cookie": cookie} if cookie else {})
    r = conn.getresponse()
    body = r.read().decode() if r.status != 200 else ""
    conn.close()
    return r.status, body


def test_a_phone_that_goes_away_frees_its_slot_within_seconds(small_server):
    server, session = small_server
    phones = LiveClients(server.port, 3)
    try:
        assert phones.wait_connected() == [200] * 3
        assert stream_answer(server, loopback(10))[0] == 503
        phones.drop(0)
        start = time.monotonic()
        while stream_answer(server, loopback(11))[0] != 200:
            assert time.monotonic() - start < SLOT_SECONDS, "the dropped phone's slot is still taken"
            time.sleep(0.1)
        assert session.broker.clients <= 3
    finally:
        phones.close()


def test_one_device_cannot_take_every_stream_and_the_referee_always_gets_one(small_server):
    server, session = small_server
    one = [LiveClients(server.port, 1, first=20) for _ in range(2)]   # two streams from one address
    try:
        assert [c.wait_connected()[0] for c in one] == [200, 200]
        status, body = stream_answer(server, loopback(20))
        assert status == 503 and "already follows the game on 2 screens" in json.loads(body)["error"]
        other = LiveClients(server.port, 1, first=30)    # another device still gets one: 3 of 3
        assert other.wait_connected() == [200]
        status, body = stream_answer(server, loopback(40))
        assert status == 503 and "Too many screens" in json.loads(body)["error"]
        conn = http.client.HTTPConnection("127.0.0.1", int(server.port), timeout=5)
        conn.request("POST", "/api/login", body=json.dumps({"pin": TOKEN}),
                     headers={"Content-Type": "application/json"})
        login = conn.getresponse()
        login.read()
        cookie = login.getheader("Set-Cookie").split(";")[0]
        referee = http.client.HTTPConnection("127.0.0.1", int(server.port), timeout=5,
                                             source_address=(loopback(20), 0))
        referee.request("GET", "/api/stream", headers={"Cookie": cookie})
        assert referee.getresponse().status == 200      # past both limits: the referee is never locked out
        referee.close()
        other.close()
    finally:
        for c in one:
            c.close()


def test_a_phone_that_stops_reading_without_closing_frees_its_slot_within_seconds(small_server):
    """A vanished phone (Wi-Fi gone: no FIN, no RST) cannot be made on loopback; a phone that stays
    connected but stops reading is the same to the server (its bytes are never acknowledged as read),
    so this one has a tiny receive buffer and never reads after its request."""
    import socket

    from companion_app.table.session.events import sse_message

    server, session = small_server
    phone = socket.socket()
    phone.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    phone.bind((loopback(12), 0))
    phone.connect(("127.0.0.1", int(server.port)))
    try:
        phone.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        deadline = time.monotonic() + 5
        while session.broker.clients != 1:
            assert time.monotonic() < deadline, "the stream never opened"
            time.sleep(0.05)
        for i in range(4):   # the game goes on: a few updates, fewer than the broker's queue limit
            session.broker.publish(sse_message("state", {"pad": "x" * 8000, "n": i}))
        start = time.monotonic()
        while session.broker.clients:
            assert time.monotonic() - start < SLOT_SECONDS + 1, "the silent phone's slot is still taken"
            time.sleep(0.1)
        print(f"slot free after {time.monotonic() - start:.1f} s")
    finally:
        phone.close()
