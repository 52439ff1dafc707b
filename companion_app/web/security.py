"""The referee's token, cross-site request forgery defences and safe response headers.

Two ways to act as referee:
* an API client sends ``Authorization: Bearer <token>`` (or ``X-Referee-Token``);
  a browser never adds such a header to a cross-site request, so no CSRF risk;
* the tablet logs in once with the PIN (``POST /api/login``) and gets a
  ``SameSite=Strict`` session cookie plus a CSRF token that every state-changing
  request must echo in ``X-CSRF-Token``.
On top, every POST must be ``application/json`` (an HTML form cannot send it)
and a foreign ``Origin`` is refused.  Wrong PINs are rate limited per address.
"""
from __future__ import annotations

import functools
import hmac
import secrets
import threading
import time

from flask import Response, abort, current_app, request, session
from flask_babel import gettext as _

LOCKOUT_AFTER = 5          # wrong PINs in a row …
LOCKOUT_SECONDS = 30.0     # … lock the login for this long


def new_pin() -> str:
    """A six-digit PIN: easy to type on a tablet, printed in the terminal at start."""
    return f"{secrets.randbelow(10**6):06d}"


class LoginGuard:
    """Counts wrong PINs per address; after LOCKOUT_AFTER of them that address waits LOCKOUT_SECONDS.

    Per address, so a phone guessing PINs cannot lock the referee's tablet out.
    """

    def __init__(self, clock=time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}

    def seconds_locked(self, who: str) -> float:
        with self._lock:
            return max(0.0, self._locked_until.get(who, 0.0) - self._clock())

    def record(self, who: str, ok: bool) -> None:
        with self._lock:
            if ok:
                self._failures.pop(who, None)
                return
            self._failures[who] = self._failures.get(who, 0) + 1
            if self._failures[who] >= LOCKOUT_AFTER:
                self._failures[who] = 0
                self._locked_until[who] = self._clock() + LOCKOUT_SECONDS


def _token_matches(given: str | None) -> bool:
    expected = current_app.config["REFEREE_TOKEN"]
    return bool(given) and hmac.compare_digest(given.encode(), expected.encode())


def guarded_match(given: str, what: str) -> bool:
    """Compare a PIN or token under the per-address lockout: 429 while locked out, and every
    wrong one counts, whether typed at the login or sent in a header."""
    guard = current_app.extensions["flure_guard"]
    who = request.remote_addr or "?"
    wait = guard.seconds_locked(who)
    if wait:
        abort(429, _("Too many wrong PINs: try again in %(seconds)s s", seconds=f"{wait:.0f}") if what == "PIN"
              else _("Too many wrong referee tokens: try again in %(seconds)s s", seconds=f"{wait:.0f}"))
    ok = _token_matches(given)
    guard.record(who, ok)
    return ok


def _header_token() -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth.startswith("Bearer "):
        return auth[7:].strip()
    return request.headers.get("X-Referee-Token")


def is_referee() -> bool:
    """True for a valid header token, or a logged-in tablet whose request carries the CSRF token.

    A header token is checked by ``guarded_match`` like every other credential: a wrong one
    counts towards the lockout, so no endpoint (``/api/whoami`` included) lets a script guess
    the PIN faster than the login form does."""
    given = _header_token()
    if given is not None:
        return guarded_match(given, "referee token")
    if not session.get("referee"):
        return False
    if request.method in ("GET", "HEAD"):
        return True
    sent = request.headers.get("X-CSRF-Token", "")
    return hmac.compare_digest(sent.encode(), session.get("csrf", "").encode())


def referee_required(view):
    """401 without a token or session, 403 with a wrong one (the message says which).

    Wrong header tokens count against the same per-address lockout as wrong PINs
    at the login, so the PIN cannot be guessed through the API either.
    """
    @functools.wraps(view)
    def wrapped(*args, **kwargs):
        given = _header_token()
        if given is not None:
            if not guarded_match(given, "referee token"):
                abort(403, _("The referee token is wrong"))
            return view(*args, **kwargs)
        if not is_referee():
            if session.get("referee"):
                abort(403, _("Missing or wrong X-CSRF-Token header: reload the referee page"))
            abort(401, _("Referee only: log in with the PIN shown in the terminal, or send "
                         "Authorization: Bearer <token>"))
        return view(*args, **kwargs)
    return wrapped


def log_in() -> str:
    """Mark this browser session as the referee's; returns its CSRF token."""
    session.clear()
    session["referee"] = True
    session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def table_names(public_url: str | None, extra=()) -> frozenset[str]:
    """The host names this table answers to: localhost, this machine's name and its mDNS
    ``NAME.local``, the public address's name (``[web] public_host``, e.g. flure.local) and
    ``extra``.  Addresses written as numbers are accepted separately (see ``host_is_ours``)."""
    import socket
    from urllib.parse import urlsplit

    names = {"localhost", socket.gethostname(), socket.gethostname() + ".local", *extra}
    if public_url:
        names.add(urlsplit(public_url).hostname or "")
    return frozenset(n.lower().rstrip(".") for n in names if n)


def host_is_ours(host: str, names: frozenset[str]) -> bool:
    """Whether a Host header names this table.

    A page on another name that an attacker makes resolve to the table (DNS rebinding)
    sends that name as its Host: refused.  An address written as numbers (``192.168.1.20``,
    ``[::1]``) cannot be rebound (only the machine at that address serves pages with that
    origin), so every IP literal is accepted: a phone may use any of the table's addresses.
    """
    import ipaddress

    name = host.strip().lower()
    if name.startswith("["):                       # [v6]:port
        name = name[1:name.find("]")] if "]" in name else name
    elif name.count(":") == 1:                     # name:port
        name = name.rsplit(":", 1)[0]
    name = name.rstrip(".")
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return name in names


# Endpoints whose body is a picture (the phone camera's frames): they check its type themselves.
IMAGE_BODY: set[str] = set()


def check_request() -> None:
    """Before every request: refuse other host names (DNS rebinding), cross-site state changes
    and non-JSON bodies."""
    host = request.headers.get("Host")
    if host is not None and not host_is_ours(host, current_app.config["TABLE_HOSTS"]):
        # Plain text, no links: the page is seen under a name that is not ours.
        abort(Response(_("This table does not answer to that name: open the address flure play prints.") + "\n",
                       400, mimetype="text/plain"))
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") != request.host_url.rstrip("/"):
        abort(403, _("Requests from %(origin)s are not accepted (cross-site request)", origin=origin))
    if request.content_length and not request.is_json and request.endpoint not in IMAGE_BODY:
        abort(415, _("Send the body as JSON (Content-Type: application/json)"))


# On every response, the app's own and the WSGI server's errors alike (server.SafeErrorTask).
SAFE_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; form-action 'self'",
}


def secure_headers(response):
    for name, value in SAFE_HEADERS.items():
        response.headers.setdefault(name, value)
    return response
