"""Live updates over Server-Sent Events: one broker, one queue per connected phone.

Why SSE: it is plain HTTP (works through waitress's thread pool and any Wi-Fi
captive proxy), browsers reconnect by themselves, and the players only need
server → phone messages.  Every message is the whole public state, so a phone
that reconnects after a Wi-Fi drop catches up with its first message.
"""
from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator

HEARTBEAT_SECONDS = 15.0   # a "ping" event this often: keeps proxies from closing the stream, and lets a
                           # phone notice a connection that died silently (it reconnects after 3 missed)
PING = "event: ping\ndata: {}\n\n"
RETRY_MS = 1500            # how soon a browser retries after a drop
QUEUE_LIMIT = 16           # a phone that stops reading is dropped, not allowed to grow memory
STREAM_SECONDS = 600.0     # a stream ends after this long and the browser reconnects at once: a phone
                           # that vanished without closing its connection holds a server thread no longer


def sse_message(event: str, data: dict, event_id: int | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


class Broker:
    """Fan-out of published messages to every subscriber queue."""

    def __init__(self):
        self._lock = threading.Lock()
        self._queues: set[queue.Queue] = set()

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._queues)

    def publish(self, message: str) -> None:
        with self._lock:
            targets = list(self._queues)
        for q in targets:
            try:
                q.put_nowait(message)
            except queue.Full:
                self._drop(q)

    def _drop(self, q: queue.Queue) -> None:
        """End a stream that stopped reading: its backlog is dropped, the browser reconnects and catches up."""
        with self._lock:
            self._queues.discard(q)
        _end(q)

    def stream(self, first: Callable[[], str | list[str]], heartbeat: float = HEARTBEAT_SECONDS,
               lifetime: float = STREAM_SECONDS) -> Iterator[str]:
        """The text of one SSE response: the current state first, then every update.

        Subscribing happens before ``first()`` is called, so no update can fall
        between the catch-up message and the live ones.
        """
        q: queue.Queue = queue.Queue(maxsize=QUEUE_LIMIT)
        with self._lock:
            self._queues.add(q)
        try:
            yield f"retry: {RETRY_MS}\n\n"
            catch_up = first()
            yield from [catch_up] if isinstance(catch_up, str) else catch_up
            end = time.monotonic() + lifetime
            while time.monotonic() < end:
                try:
                    message = q.get(timeout=min(heartbeat, max(0.0, end - time.monotonic())))
                except queue.Empty:
                    yield PING
                    continue
                if message is None:
                    return
                yield message
        finally:
            with self._lock:
                self._queues.discard(q)

    def close_all(self) -> None:
        with self._lock:
            targets, self._queues = list(self._queues), set()
        for q in targets:
            _end(q)


def _end(q: queue.Queue) -> None:
    """Empty ``q`` and leave the end-of-stream marker in it."""
    while True:
        try:
            while True:
                q.get_nowait()
        except queue.Empty:
            pass
        try:
            q.put_nowait(None)
            return
        except queue.Full:   # a publish slipped in between: drain again
            continue
