"""Helpers for the web app tests: a fresh app per test, a session with scripted devices, live clients.

The device fakes ship beside their interfaces: ``companion_app.table.devices.fakes``."""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

from companion_app.i18n import LANGUAGES
from companion_app.i18n.text import localize
from companion_app.table.devices.devices import Device
from companion_app.table.devices.fakes import FakeCamera, FakeLeds
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from companion_app.web.app import create_app

TOKEN = "test-token-7731"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
OUTPUT = Path(__file__).resolve().parent / "output"


def each_language(value) -> dict:
    """A payload value (wording data, as the session keeps it) as each language's reader gets it."""
    return {lang: localize(value, lang) for lang in LANGUAGES}


def make_app(tmp_path, session: TableSession | None = None, **kw):
    session = session or TableSession(Store(tmp_path / "session.sqlite3"))
    app = create_app(session, token=TOKEN, **kw)
    return app, session


def play_pawn_phase(session: TableSession, choose=lambda targets: targets[-1]) -> None:
    """Move every pawn (the referee's job) until the monster's turn; ``choose`` picks each target."""
    while session.game.phase == "pawns":
        game = session.game
        label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        target = choose(game.targets(label))
        session.act({"type": "move", "pawn": label, "moves": target["moves"]})


def played(session: TableSession) -> None:
    """The player to move moves a pawn (the referee enters it): its longest move."""
    game = session.game
    label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
    session.act({"type": "move", "pawn": label, "moves": longest(game.targets(label))["moves"]})


def longest(targets):
    """The players' choice in these tests: the longest move (so pawns spread over the board)."""
    return max(targets, key=lambda t: (len(t["moves"]), t["square"] or ""))


@contextmanager
def served_game(tmp_path, *, monster_moved: bool = False):
    """A three-player game (red, blue, green; seed 6) at the monster's first turn, or just after its
    first move (``monster_moved``: "Save this move" is there), served by the real server; yields
    (server, session)."""
    from companion_app.web.server import Server

    session = session_with(tmp_path)
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue", "green"], "red", seed=6)
    play_pawn_phase(session, longest)
    if monster_moved:
        session.act({"type": "draw"})
    with Server(app) as server:
        yield server, session


def session_with(tmp_path, camera: FakeCamera | None = None, leds: FakeLeds | None = None,
                 mode: str = "confirm") -> TableSession:
    session = TableSession(Store(tmp_path / "session.sqlite3"),
                           camera=Device("camera", camera, why="no camera in this test"),
                           leds=Device("LED grid", leds, why="no LEDs in this test"))
    session.loop.mode = mode
    if camera is not None:
        camera.on_update = session.on_camera
    return session


def with_led_grid(tmp_path, players=("red", "blue"), seed: int = 11):
    """A served app whose session has the real LED grid on its built-in emulator, a game started: (app, session)."""
    from companion_app.table.devices.devices import open_leds

    session = session_with(tmp_path)
    session.leds = open_leds(None)
    assert session.leds.obj is not None, session.leds.why
    app, _ = make_app(tmp_path, session)
    session.new_game(list(players), players[0], seed=seed)
    return app, session


def show_table(camera: FakeCamera, session: TableSession) -> None:
    """The camera sees the table exactly as the game has it (the follow-up done)."""
    from companion_app.table.devices.fakes import FakeReading

    camera.show(FakeReading(True, session.game.position.to_setup()))


class SseClient:
    """A phone's live connection, read in a thread: every `state` message with the time it arrived
    (``messages``), and every message of any kind as (kind, data) (``every``)."""

    def __init__(self, base_url: str, source: str | None = None, path: str = "/api/stream",
                 headers: dict | None = None):
        """``source``: the address this phone connects from (127.0.0.N: each one a device of its own);
        ``path`` and ``headers`` as the phone asks (``?lang=fr``, Accept-Language)."""
        import http.client
        import threading
        from urllib.parse import urlparse

        u = urlparse(base_url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30,
                                               source_address=(source, 0) if source else None)
        self.messages: list[tuple[float, dict]] = []
        self.every: list[tuple[str, dict]] = []
        self.arrived = threading.Condition()
        self.conn.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.response = self.conn.getresponse()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        import time

        from companion_app.table.session.events import apply_state

        data, event = [], None
        try:
            while True:
                line = self.response.readline()
                if not line:
                    return
                line = line.decode().rstrip("\n")
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: "):
                    data.append(line[6:])
                elif line == "" and data:
                    message = json.loads("".join(data))
                    data, kind, event = [], event, None
                    with self.arrived:
                        self.every.append((kind, message))
                    if kind != "state":
                        continue   # pings keep the connection alive; only states count
                    if message.get("delta"):   # what changed: the whole state, as the pages build it
                        if message["version"] <= self.messages[-1][1]["version"]:
                            continue
                        message = apply_state(self.messages[-1][1], message)
                    with self.arrived:
                        self.messages.append((time.perf_counter(), message))
                        self.arrived.notify_all()
        except (OSError, ValueError):
            return

    def wait_for(self, predicate, timeout: float = 10.0):
        """The first message matching ``predicate`` as (arrival time, state), or None."""
        with self.arrived:
            found = self.arrived.wait_for(lambda: next((m for m in self.messages if predicate(m[1])), None),
                                          timeout=timeout)
        return found

    def close(self) -> None:
        self.conn.close()


class WifiProxy:
    """A TCP relay between browser and server whose open connections can go silent, as on a Wi-Fi drop.

    ``drop()`` makes every connection open now a black hole (bytes are swallowed, nothing is
    closed, so neither side notices); connections made afterwards work normally.
    """

    def __init__(self, upstream_port: int):
        import socket
        import threading

        self.upstream_port = upstream_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._dead: set = set()
        self._pairs: list = []
        self._threading = threading
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.upstream_port))
            pair = (client, server)
            self._pairs.append(pair)
            for a, b in ((client, server), (server, client)):
                self._threading.Thread(target=self._pump, args=(a, b, pair), daemon=True).start()

    def _pump(self, src, dst, pair) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if id(pair) not in self._dead:
                    dst.sendall(data)
        except OSError:
            pass
        if id(pair) not in self._dead:
            for s in pair:
                try:
                    s.shutdown(2)
                except OSError:
                    pass

    def drop(self) -> None:
        self._dead.update(id(p) for p in self._pairs)

    def close(self) -> None:
        self.listener.close()
        for pair in self._pairs:
            for s in pair:
                s.close()


def confirm_button(session):
    """The CONFIRM button on gpiozero's mock pins, wired to ``session`` as the table does: returns a
    function that presses it once (down, debounced, up)."""
    import time

    from gpiozero.pins.mock import MockFactory

    from companion_app.table.devices.devices import open_buttons

    factory = MockFactory()
    session.buttons = open_buttons(session, {"buttons": {"debounce_ms": 10, "long_press_ms": 100}},
                                   pin_factory=factory)
    assert session.buttons.obj is not None, session.buttons.why
    pin = factory.pin(27)

    def press():
        pin.drive_low(); time.sleep(0.04); pin.drive_high(); time.sleep(0.05)

    return press
