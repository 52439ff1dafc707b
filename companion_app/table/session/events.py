"""Live updates over Server-Sent Events: one broker, one queue per connected phone.

Why SSE: it is plain HTTP (works through waitress's thread pool and any Wi-Fi
captive proxy), browsers reconnect by themselves, and the players only need
server → phone messages.  Every message is the whole public state, so a phone
that reconnects after a Wi-Fi drop catches up with its first message.

Who gets a stream is decided here, in one place (``Broker.open``): at most
``max_streams`` at once (each holds a server thread), at most ``per_address``
from one address (one client cannot take every stream), and the referee's
tablet always gets one (a few slots beyond the limit are kept for it).  A stream
whose phone went away ends within ``GONE_POLL_SECONDS`` (the server says so
through ``gone``), so its slot is free again at once, not at the next heartbeat.  One that vanished
without closing (Wi-Fi gone) is found by the socket options in web/server.py, helped by ``NUDGE``.
"""
from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator

from engine.wording import N_, Text, Worded

HEARTBEAT_SECONDS = 15.0   # a "ping" event this often: keeps proxies from closing the stream, and lets a
                           # phone notice a connection that died silently (it reconnects after 3 missed)
PING = "event: ping\ndata: {}\n\n"
NUDGE_SECONDS = 2.0        # an SSE comment this often when nothing else was sent: the server then always has
NUDGE = ":\n\n"            # fresh bytes in flight, so a phone that vanished (no FIN, no RST) is found by the
                           # socket's TCP_USER_TIMEOUT (web/server.py) within seconds; browsers ignore comments
RETRY_MS = 1500            # how soon a browser retries after a drop
QUEUE_LIMIT = 16           # a phone that stops reading is dropped, not allowed to grow memory
GONE_POLL_SECONDS = 0.5    # how often a waiting stream asks the server whether its phone is still there
PER_ADDRESS = 8            # streams one address may hold (a phone with a few tabs, a café's screen)
REFEREE_RESERVE = 4        # streams kept beyond the limit for the referee's tablet
STREAM_SECONDS = 600.0     # a stream ends after this long and the browser reconnects at once: a phone
                           # that vanished without closing its connection holds a server thread no longer


def sse_message(event: str, data: dict, event_id: int | None = None) -> str:
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


TOO_MANY_SCREENS = N_("Too many screens are following the game right now; this one retries shortly")


class StreamRefused(Worded, Exception):
    """No stream for this client now; the message says why (HTTP 503 with Retry-After), as wording data
    (engine.wording.Worded): the answer is in the request's language."""


class Broker:
    """Fan-out of published messages to every subscriber queue (each queue knows its client's address)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._queues: dict[queue.Queue, str] = {}

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._queues)

    def open(self, address: str, *, referee: bool = False, max_streams: int, per_address: int = PER_ADDRESS) -> queue.Queue:
        """Admit one client's stream, or raise StreamRefused saying why (checked and counted at once)."""
        with self._lock:
            if referee:
                if len(self._queues) >= max_streams + REFEREE_RESERVE:
                    raise StreamRefused(Text(TOO_MANY_SCREENS))
            elif len(self._queues) >= max_streams:
                raise StreamRefused(Text(TOO_MANY_SCREENS))
            elif sum(1 for a in self._queues.values() if a == address) >= per_address:
                raise StreamRefused(Text(N_("This device already follows the game on %(count)s screens; close one "
                                            "of them (this one retries shortly)"), count=per_address))
            q: queue.Queue = queue.Queue(maxsize=QUEUE_LIMIT)
            self._queues[q] = address
            return q

    def discard(self, q: queue.Queue) -> None:
        with self._lock:
            self._queues.pop(q, None)

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
        self.discard(q)
        _end(q)

    def stream(self, first: Callable[[], str | list[str]], heartbeat: float = HEARTBEAT_SECONDS,
               lifetime: float = STREAM_SECONDS, *, q: queue.Queue | None = None,
               gone: Callable[[], bool] | None = None) -> Iterator[str]:
        """The text of one SSE response: the current state first, then every update.

        Subscribing (``open``, or here when no ``q`` is given) happens before ``first()`` is
        called, so no update can fall between the catch-up message and the live ones.  ``gone``
        tells whether the client has disconnected: the stream then ends and frees its slot.
        """
        if q is None:
            q = queue.Queue(maxsize=QUEUE_LIMIT)
            with self._lock:
                self._queues[q] = ""
        try:
            yield f"retry: {RETRY_MS}\n\n"
            catch_up = first()
            yield from [catch_up] if isinstance(catch_up, str) else catch_up
            end = time.monotonic() + lifetime
            ping = time.monotonic() + heartbeat
            nudge = time.monotonic() + NUDGE_SECONDS
            while time.monotonic() < end:
                now = time.monotonic()
                wait = min(ping, end, nudge) - now
                if gone is not None:
                    wait = min(GONE_POLL_SECONDS, wait)
                try:
                    message = q.get(timeout=max(0.0, wait))
                except queue.Empty:
                    if gone is not None and gone():
                        return
                    now = time.monotonic()
                    if now >= ping:
                        ping, nudge = now + heartbeat, now + NUDGE_SECONDS
                        yield PING
                    elif now >= nudge:
                        nudge = now + NUDGE_SECONDS
                        yield NUDGE
                    continue
                if message is None:
                    return
                nudge = time.monotonic() + NUDGE_SECONDS
                yield message
        finally:
            self.discard(q)

    def close_all(self) -> None:
        with self._lock:
            targets, self._queues = list(self._queues), {}
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
