"""Many live screens at once, for the load test and benchmarks/bench_web.py: N SSE streams read by
one thread, each from its own loopback address (127.0.0.2, 127.0.0.3 …: Linux routes all of 127/8
to this machine, so the server's per-address limit sees N devices), and a real ``flure play``.

Only the ``id:`` line of each message is kept (the state version it carries) with the time it
arrived, so a thousand updates to a hundred clients cost the test little memory."""
from __future__ import annotations

import json
import selectors
import socket
import threading
import time
import urllib.request
import zlib


def loopback(i: int) -> str:
    """The i-th test address: 127.0.0.2 … 127.0.0.251, then 127.0.1.2 …"""
    return f"127.0.{i // 250}.{i % 250 + 2}"


class LiveClients:
    """``n`` phones following ``/api/stream`` on ``port``; ``arrived[k][version]`` is when client k got it."""

    def __init__(self, port: int, n: int, first: int = 0):
        self.port = port = int(port)
        self.socks: list[socket.socket] = []
        self.arrived: list[dict[int, float]] = [{} for _ in range(n)]
        self.status: list[int | None] = [None] * n
        self.closed: list[bool] = [False] * n
        self.received: list[int] = [0] * n        # bytes each client got (headers and messages)
        self._buf = [b""] * n
        self._lock = threading.Condition()
        self._sel = selectors.DefaultSelector()
        for k in range(n):
            s = socket.socket()
            s.bind((loopback(first + k), 0))
            s.connect(("127.0.0.1", port))
            s.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
            s.setblocking(False)
            self._sel.register(s, selectors.EVENT_READ, k)
            self.socks.append(s)
        self._stop = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop:
            for key, _ in self._sel.select(timeout=0.2):
                k = key.data
                try:
                    data = key.fileobj.recv(65536)
                except OSError:
                    data = b""
                now = time.perf_counter()
                self.received[k] += len(data)
                if not data:
                    self._sel.unregister(key.fileobj)
                    with self._lock:
                        self.closed[k] = True
                        self._lock.notify_all()
                    continue
                lines = (self._buf[k] + data).split(b"\n")
                self._buf[k] = lines.pop()
                with self._lock:
                    for line in lines:
                        if line.startswith(b"id: "):
                            self.arrived[k].setdefault(int(line[4:]), now)
                        elif line.startswith(b"HTTP/1.") and self.status[k] is None:
                            self.status[k] = int(line.split()[1])
                    self._lock.notify_all()

    def wait_all(self, version: int, timeout: float = 10.0) -> list[float | None]:
        """When each client got ``version`` (None: not within ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            self._lock.wait_for(lambda: all(version in a or c for a, c in zip(self.arrived, self.closed)),
                                timeout=max(0.0, deadline - time.monotonic()))
            return [a.get(version) for a in self.arrived]

    def wait_at_least(self, version: int, timeout: float = 10.0) -> list[float | None]:
        """When each client first got ``version`` or a later one (the broker may send only the newest)."""
        def first(a: dict[int, float]) -> float | None:
            return min((t for v, t in a.items() if v >= version), default=None)
        with self._lock:
            self._lock.wait_for(lambda: all(first(a) is not None or c for a, c in zip(self.arrived, self.closed)),
                                timeout=timeout)
            return [first(a) for a in self.arrived]

    def wait_connected(self, timeout: float = 20.0) -> list[int | None]:
        with self._lock:
            self._lock.wait_for(lambda: all(a or c for a, c in zip(self.arrived, self.closed)), timeout=timeout)
            return list(self.status)

    def drop(self, k: int) -> None:
        """Client k's phone goes away (its connection is closed)."""
        try:
            self._sel.unregister(self.socks[k])
        except (KeyError, ValueError):
            pass
        self.socks[k].close()
        self.closed[k] = True

    def close(self) -> None:
        self._stop = True
        self._thread.join(timeout=2)
        for k in range(len(self.socks)):
            self.drop(k)


class Table:
    """A real ``flure play`` process on a free port (no camera, no LEDs), driven through its API."""

    def __init__(self, tmp, pin: str = "424242", leds: bool = False):
        """``leds``: with the default simulated LED grid (its frames go to every screen too)."""
        from pathlib import Path

        from play_process import start_play

        self.pin = pin
        self.proc, text = start_play("--host", "127.0.0.1", "--port", "0", "--db", str(Path(tmp) / "load.sqlite3"),
                                     "--pin", pin, "--no-camera", "--new", *([] if leds else ["--no-leds"]))
        import re
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/ on your phones", text)
        if not found:
            self.proc.kill()
            raise AssertionError("flure play did not print its address:\n" + text)
        self.port = int(found.group(1))
        self.url = f"http://127.0.0.1:{self.port}/"
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()   # keep its pipe drained

    def call(self, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(self.url + path, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {self.pin}",
                                              "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=15) as r:
            return json.loads(r.read())

    def rss_mb(self) -> float:
        """The server process's resident memory (VmRSS), in MB."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise AssertionError("no VmRSS")

    def stream_status(self, address: str) -> int:
        """The status a new stream from ``address`` gets now (200, or 503 when refused)."""
        s = socket.socket()
        s.bind((address, 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", self.port))
            s.sendall(b"GET /api/stream HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
            return int(s.recv(64).split()[1])
        finally:
            s.close()

    def monster_to_move(self, players: int = 5, rounds: int = 2, seed: int = 9) -> dict:
        """A new game played through the API up to the monster's turn, after ``rounds - 1`` monster moves
        (so the state carries a plan and a log, as at a real table: about 17 KB a message)."""
        colours = ["red", "blue", "green", "yellow", "purple", "black", "white"][:players]
        state = self.call("api/game", {"players": colours, "first_player": colours[0], "seed": seed})
        for r in range(rounds):
            while state["phase"] == "pawns":
                label = next(x for x in state["unmoved"]
                             if state["position"]["pawns"][x]["color"] == state["to_move"])
                targets = self.call(f"api/targets?pawn={label}")
                state = self.call("api/action", {"type": "move", "pawn": label,
                                                 "moves": targets[len(targets) // 2]["moves"]})
            if r < rounds - 1:
                state = self.call("api/action", {"type": "draw"})
        return state

    def churn(self, n: int):
        """``n`` state changes from the monster's turn: draw (the monster moves), undo, draw …; each
        yielded as (the time the request started, the answer)."""
        for i in range(n):
            t0 = time.perf_counter()
            yield t0, self.call("api/action", {"type": "draw"}) if i % 2 == 0 else self.call("api/undo", {})

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)



class StreamTally:
    """One screen's ``/api/stream`` (``query``: e.g. "view=referee"), read by a thread: the bytes and
    messages of each kind (``state``, ``camera``, ``leds``, ``ping``, comments).  ``keep=True`` also keeps
    every (event, data) received."""

    def __init__(self, port: int, query: str = "", address: str = "127.0.0.1", keep: bool = False):
        self.port, self.keep = int(port), keep
        self.count: dict[str, int] = {}
        self.bytes: dict[str, int] = {}
        self.sizes: dict[str, list[int]] = {}
        self.events: list[tuple[str, dict]] = []
        self.status: int | None = None
        self.total = 0
        self.deflated = 0         # the messages' bytes had the stream been gzip-encoded (flushed after each)
        self._z = zlib.compressobj(6, zlib.DEFLATED, 31)
        self.closed = False
        self._lock = threading.Condition()
        self._sock = socket.socket()
        self._sock.bind((address, 0))
        self._sock.connect(("127.0.0.1", self.port))
        path = "/api/stream" + (f"?{query}" if query else "")
        self._sock.sendall(f"GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
                           .encode())
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = b""
        headers_done = False
        while True:
            try:
                data = self._sock.recv(65536)
            except OSError:
                data = b""
            if not data:
                with self._lock:
                    self.closed = True
                    self._lock.notify_all()
                return
            self.total += len(data)
            buf += data
            if not headers_done:
                if b"\r\n\r\n" not in buf:
                    continue
                head, buf = buf.split(b"\r\n\r\n", 1)
                self.status = int(head.split()[1])
                headers_done = True
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                self._message(block + b"\n\n")

    def _message(self, block: bytes) -> None:
        event, data = "comment", None
        for line in block.decode().split("\n"):
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line.startswith("retry: "):
                event = "retry"
        deflated = len(self._z.compress(block) + self._z.flush(zlib.Z_SYNC_FLUSH))
        with self._lock:
            self.deflated += deflated
            self.count[event] = self.count.get(event, 0) + 1
            self.bytes[event] = self.bytes.get(event, 0) + len(block)
            self.sizes.setdefault(event, []).append(len(block))
            if self.keep and data is not None:
                self.events.append((event, data))
            self._lock.notify_all()

    def wait_for(self, predicate, timeout: float = 10.0) -> bool:
        """Wait until ``predicate(self.events)`` holds (``keep=True``); whether it did."""
        with self._lock:
            return self._lock.wait_for(lambda: predicate(self.events), timeout=timeout)

    def close(self) -> None:
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._sock.close()
        self._thread.join(timeout=2)
