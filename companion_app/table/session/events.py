"""Live updates over Server-Sent Events: one broker, one queue per connected phone.

Why SSE: it is plain HTTP (works through waitress's thread pool and any Wi-Fi
captive proxy), browsers reconnect by themselves, and the players only need
server → phone messages.  A stream opens with the whole picture (the state, the
camera's view, the LED frame) and then gets only what changed (``state_delta``,
the LED squares that changed), so a phone that reconnects after a Wi-Fi drop
catches up with its first messages and the Wi-Fi carries no repeated history.

Each stream is of one kind (``STREAM_KINDS``), chosen by the page that opens it: a
phone (the players' view: the camera only in the few words a phone shows, sent when
they change), the referee (every camera view) or the LED page (the LED frames only).

Each stream has its phone's language, negotiated when it opens (web/i18n.py: ``?lang=``, the cookie,
Accept-Language): a message's sentences travel as wording data (engine.wording) until ``Outgoing``
renders them, once per language among the streams, for the phones that read that language.

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

from ...i18n import DEFAULT
from ...i18n.text import localize

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


PHONE, REFEREE, LEDS = "phone", "referee", "leds"
STREAM_KINDS = (PHONE, REFEREE, LEDS)     # /api/stream?view=… (phone when not given)
SCREENS = (PHONE, REFEREE)                # the streams that draw the game (state messages)


def sse_message(event: str, data: dict, event_id: int | None = None, lang: str = DEFAULT) -> str:
    """One SSE message, its wording data rendered in ``lang``."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(localize(data, lang), separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


class Outgoing:
    """A message for every stream, said in each stream's language: rendered on first need per language."""

    __slots__ = ("event", "data", "event_id", "_texts")

    def __init__(self, event: str, data: dict, event_id: int | None = None):
        self.event, self.data, self.event_id = event, data, event_id
        self._texts: dict[str, str] = {}

    def text(self, lang: str) -> str:
        if lang not in self._texts:
            self._texts[lang] = sse_message(self.event, self.data, self.event_id, lang)
        return self._texts[lang]


def state_delta(before: dict | None, after: dict) -> dict:
    """What a screen holding the state ``before`` needs to have ``after``: ``after`` itself when
    ``before`` is None or has other fields, else ``{"delta": true}`` with the fields whose value
    changed (``version`` always) and the log as ``log_from``/``log_kept``/``log_new``: keep
    ``before["log"][log_from:log_from + log_kept]`` and append ``log_new`` (left out when the log is
    the same).  A screen applies a delta only to the state of the version before it (static/board.js
    ``applyState``): a reconnecting screen gets the whole state first."""
    if before is None or before.keys() != after.keys():
        return after
    out = {"delta": True, "version": after["version"]}
    out.update((k, v) for k, v in after.items() if k != "log" and before[k] != v)
    old, new = before["log"], after["log"]
    if old != new:
        start, kept = len(old), 0      # the longest run of the old log the new one starts with
        for d in range(len(old)):
            m = 0
            while m < len(new) and d + m < len(old) and old[d + m] == new[m]:
                m += 1
            if m > kept:
                start, kept = d, m
        out.update(log_from=start, log_kept=kept, log_new=new[kept:])
    return out


def apply_state(kept: dict, delta: dict) -> dict:
    """The state ``delta`` (``state_delta``) stands for, from ``kept``, the state of the version before it:
    what a screen does with it (static/board.js ``applyState``); a whole state is returned as it is."""
    if not delta.get("delta"):
        return delta
    state = {**kept, **{k: v for k, v in delta.items() if k not in ("delta", "log_from", "log_kept", "log_new")}}
    if "log_new" in delta:
        start = delta["log_from"]
        state["log"] = kept["log"][start:start + delta["log_kept"]] + delta["log_new"]
    return state


PHONE_CAMERA = ("stable", "follow", "placement")   # a camera view's fields a phone shows (static/board.js renderTable)


def phone_camera(view: dict) -> dict:
    """What a phone shows of a camera view (the table card: present, steady, hands over the board, what the
    table needs, the follow-up, the placement): the view without the reading, the squares and the referee's
    lines, so a phone is sent a camera message only when one of these changes."""
    status, reading = view.get("status") or {}, view.get("reading") or {}
    hands = bool((status.get("detail") or {}).get("occluded")
                 or any(p.get("code") == "occluded" for p in reading.get("problems") or ()))
    out = {"status": {"present": status.get("present"), "detail": {"occluded": hands}}}
    out.update((k, view[k]) for k in PHONE_CAMERA if k in view)
    if status.get("present") and view.get("stable"):   # unsteady, a phone says so in its own words
        out["needs"] = view.get("needs")
    if view.get("change"):
        out["change"] = {"kind": view["change"].get("kind")}
    return out


def leds_delta(before: dict | None, after: dict) -> dict | None:
    """The LED frame message a screen showing ``before`` needs to show ``after``, or None when it needs
    none: ``after`` whole when there is no ``before``; else the squares whose colour changed (and those
    ``before``'s animation moved, which the screen drew itself), with what the frame shows, its show and
    its animation.  The frames of a show the screens animate themselves (hardware.animation ``Show.wire``:
    the frame's ``anim``) are not news."""
    if before is None:
        return after
    if "anim" in before and "anim" in after and before.get("show") == after.get("show"):
        return None
    moved, drawn = _animated(before), _animated(after)   # the screen draws ``drawn`` itself, from the new rule
    squares = {k: v for k, v in after["squares"].items()
               if k not in drawn and (before["squares"].get(k) != v or k in moved)}
    if not squares and "anim" not in after:
        return None
    out = {**after, "squares": squares, "delta": True}
    if out.get("power") == before.get("power"):   # the cap's figures: sent again only when they change
        out.pop("power", None)
    return out


def _animated(frame: dict) -> set[str]:
    """The squares a frame's animation draws from the time the frame was sent on."""
    anim = frame.get("anim") or {}
    return {sq for part in anim.get("parts", ()) if anim["t"] < part.get("until", float("inf"))
            for sq in part["squares"]}


TOO_MANY_SCREENS = N_("Too many screens are following the game right now; this one retries shortly")


class StreamRefused(Worded, Exception):
    """No stream for this client now; the message says why (HTTP 503 with Retry-After), as wording data
    (engine.wording.Worded): the answer is in the request's language."""


class Broker:
    """Fan-out of published messages to every subscriber queue (each queue knows its client's address and
    language)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._queues: dict[queue.Queue, tuple[str, str, str]] = {}   # each queue's (address, stream kind, language)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._queues)

    def open(self, address: str, *, referee: bool = False, max_streams: int, per_address: int = PER_ADDRESS,
             kind: str = PHONE, lang: str = DEFAULT) -> queue.Queue:
        """Admit one client's stream of ``kind`` (``STREAM_KINDS``), its messages said in ``lang``, or raise
        StreamRefused saying why
        (checked and counted at once)."""
        with self._lock:
            if referee:
                if len(self._queues) >= max_streams + REFEREE_RESERVE:
                    raise StreamRefused(Text(TOO_MANY_SCREENS))
            elif len(self._queues) >= max_streams:
                raise StreamRefused(Text(TOO_MANY_SCREENS))
            elif sum(1 for a, _, _ in self._queues.values() if a == address) >= per_address:
                raise StreamRefused(Text(N_("This device already follows the game on %(count)s screens; close one "
                                            "of them (this one retries shortly)"), count=per_address))
            q: queue.Queue = queue.Queue(maxsize=QUEUE_LIMIT)
            self._queues[q] = (address, kind, lang)
            return q

    def discard(self, q: queue.Queue) -> None:
        with self._lock:
            self._queues.pop(q, None)

    def publish(self, message: str | Outgoing, kinds: tuple[str, ...] = STREAM_KINDS) -> None:
        """Send ``message`` to every stream of one of ``kinds``: text as it is, an ``Outgoing`` in each
        stream's language."""
        with self._lock:
            targets = [(q, lang) for q, (_, kind, lang) in self._queues.items() if kind in kinds]
        for q, lang in targets:
            try:
                q.put_nowait(message if isinstance(message, str) else message.text(lang))
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
                self._queues[q] = ("", PHONE, DEFAULT)
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
