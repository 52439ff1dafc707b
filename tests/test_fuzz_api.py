"""Fuzzing every endpoint: random JSON bodies, headers and query strings never give a 5xx or a
traceback, and a refused request changes nothing (the state version stays).

The endpoints are listed from the app's own url_map, so one added later is fuzzed without editing this
file.  Most examples go through the Flask test client; a few go over a real socket to the waitress server.
"""
from __future__ import annotations

import json
import re
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion_app.web.server import Server
from web_helpers import AUTH, TOKEN, make_app

FIELDS = ["type", "pawn", "moves", "square", "stones", "tile", "piece", "arrow", "pair", "orientation",
          "players", "first_player", "setup", "prey3_variant", "seed", "pin", "expect", "face", "facing",
          "color", "position"]
WORDS = ["move", "pawn-at", "draw", "tile", "place", "correct", "red-6/1", "blue-3/4", "g7", "p11", "a1", "out",
         "IWWN", "N", "stone", "red", "blue", "8", TOKEN, "", "\u0000", "💀", "a" * 300]

scalars = (st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
           | st.sampled_from(WORDS) | st.text(max_size=12))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=5),
                      max_leaves=20)
objects = st.dictionaries(st.sampled_from(FIELDS), values, max_size=6)
actions = st.builds(lambda kind, rest: {"type": kind, **rest}, values, objects)   # "type" always there


def raw_bodies():
    text = (values | objects | actions).map(lambda v: json.dumps(v).encode())
    deep = st.integers(50, 3000).map(lambda n: b"[" * n + b"]" * n)
    digits = st.integers(4000, 6000).map(lambda n: b'{"seed": ' + b"9" * n + b"}")
    return st.one_of(text, text, text, actions.map(lambda v: json.dumps(v).encode()), st.binary(max_size=200),
                     deep, digits, st.just(b""))


credentials = st.sampled_from([AUTH, AUTH, AUTH, {"X-Referee-Token": TOKEN}, {}, {"Authorization": "Bearer nope"},
                               {"Authorization": "Basic eA=="}]) \
    | st.text(max_size=20).map(lambda t: {"Authorization": "Bearer " + t})
content_types = st.sampled_from(["application/json"] * 6 + ["text/plain", "application/json; charset=latin-1",
                                                            "multipart/form-data; boundary=x"])
others = st.fixed_dictionaries({}, optional={
    "X-CSRF-Token": st.text(max_size=10),
    "Origin": st.sampled_from(["http://localhost", "http://evil.example", "null"]),
    "Accept": st.sampled_from(["text/event-stream", "application/json", "*/*"]),
})
headers = st.builds(lambda auth, kind, rest: {**auth, "Content-Type": kind, **rest}, credentials, content_types,
                    others)
header_text = re.compile(r"^[\x20-\x7e]*$")
queries = st.dictionaries(st.sampled_from(["pawn", "x", "seq", "_"]) | st.text(max_size=5),
                          st.sampled_from(WORDS) | st.text(max_size=30), max_size=3)


def endpoints(app) -> list[tuple[str, str]]:
    """(method, rule) for every route the app serves; HEAD and OPTIONS are Flask's own."""
    return sorted((method, rule.rule) for rule in app.url_map.iter_rules()
                  for method in rule.methods - {"HEAD", "OPTIONS"})


def fill(rule: str, data) -> str:
    return re.sub(r"<[^>]+>", lambda _m: quote(data.draw(st.text(min_size=1, max_size=12)), safe=""), rule)


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory):
    app, session = make_app(tmp_path_factory.mktemp("fuzz"))
    session.new_game(["red", "blue", "green"], "red", seed=7)
    return app, session


def test_the_fuzzed_routes_include_every_api_endpoint(fuzzed):
    from companion_app.web.api import ROUTES
    served = {(m, re.sub(r"<[^>]+>", "{}", r)) for m, r in endpoints(fuzzed[0])}
    assert {(r.method, re.sub(r"<[^>]+>", "{}", r.path)) for r in ROUTES} <= served
    assert len(served) >= 20


def check(status: int, content_type: str, body: bytes, version_before: int, version_after: int, what) -> None:
    assert status < 500, what
    if not content_type.startswith("text/event-stream"):
        assert b"Traceback" not in body and b'File "' not in body, what
    if status >= 400:
        assert version_after == version_before, ("a refused request changed the game", what)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_random_requests_to_every_endpoint_through_the_test_client(fuzzed, data):
    app, session = fuzzed
    every = endpoints(app)
    method, rule = data.draw(st.sampled_from(every) | st.sampled_from([e for e in every if e[0] == "POST"]))
    path = fill(rule, data)
    query = data.draw(queries)
    sent = {k: v for k, v in data.draw(headers).items() if header_text.fullmatch(v)}
    body = data.draw(raw_bodies()) if method != "GET" or data.draw(st.booleans()) else b""
    address = f"10.{data.draw(st.integers(0, 255))}.{data.draw(st.integers(0, 255))}.9"
    before = session.version
    client = app.test_client()
    response = client.open(path, method=method, query_string=urlencode(query), headers=sent, data=body,
                           environ_base={"REMOTE_ADDR": address}, buffered=False)
    try:
        content = b"" if response.mimetype == "text/event-stream" else response.get_data()
        check(response.status_code, response.content_type or "", content, before, session.version,
              (method, path, query, sent, body[:200]))
    finally:
        response.close()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_random_bodies_to_every_state_changing_endpoint_as_the_referee(fuzzed, data):
    """Past the token and CSRF checks, where the schemas and the engine see the body."""
    app, session = fuzzed
    method, rule = data.draw(st.sampled_from([e for e in endpoints(app) if e[0] != "GET"]))
    path = fill(rule, data)
    body = data.draw(raw_bodies())
    before = session.version
    response = app.test_client().open(path, method=method, data=body,
                                      headers={**AUTH, "Content-Type": "application/json"})
    check(response.status_code, response.content_type or "", response.get_data(), before, session.version,
          (method, path, body[:200]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(data=st.data())
def test_random_requests_over_a_real_socket(live, data):
    import http.client

    server, app, session = live
    method, rule = data.draw(st.sampled_from([e for e in endpoints(app) if e[1] != "/api/stream"]))
    path = fill(rule, data)
    query = urlencode(data.draw(queries))
    sent = {k: v for k, v in data.draw(headers).items() if header_text.fullmatch(v)}
    sent.pop("Accept", None)
    body = data.draw(raw_bodies()) if method != "GET" else None
    before = session.version
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=20)
    try:
        conn.request(method, path + ("?" + query if query else ""), body=body, headers=sent)
        response = conn.getresponse()
        content = response.read()
        check(response.status, response.getheader("Content-Type", ""), content, before, session.version,
              (method, path, query, sent, (body or b"")[:200]))
        assert response.getheader("X-Content-Type-Options") == "nosniff"
    finally:
        conn.close()


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    app, session = make_app(tmp_path_factory.mktemp("fuzz-live"))
    session.new_game(["red", "blue"], "red", seed=3)
    with Server(app) as server:
        yield server, app, session
