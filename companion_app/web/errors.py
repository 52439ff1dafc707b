"""The HTML error pages (404, 405, 413, 429, 503 …) in the request's language.

An API call gets its error as JSON (``{"error": …}``, written by the handlers in app.py); a page
gets one sentence a family can act on, in their language, and the way back to the game.  The
sentence says what went wrong in plain words: the HTTP status's own English text (werkzeug's) is
never shown, since it is neither translated nor meant for players.
"""
from __future__ import annotations

import logging

from flask import render_template, request
from flask_babel import gettext as _
from markupsafe import escape

log = logging.getLogger(__name__)


def sentence(code: int, **params) -> str:
    """What went wrong for an HTTP status ``code``, in the request's language: the page's sentence,
    and the API's ``error`` where no view said more (werkzeug's own text is English, for programmers)."""
    return _sentence(code, **params)[1]


def _sentence(code: int, **params) -> tuple[str, str]:
    """(heading, sentence) for an HTTP status ``code`` in the request's language."""
    if code == 404:
        return _("Page not found"), _("There is no page %(path)s here.", path=request.path)
    if code == 405:
        return _("Not possible here"), _("The page %(path)s cannot be opened that way (%(method)s).",
                                         path=request.path, method=request.method)
    if code == 413:
        return _("Too large"), _("What was sent is too large (at most %(limit)s bytes).", limit=params.get("limit"))
    if code == 429:
        return _("Too many attempts"), _("Too many wrong attempts from this device: wait a minute, then try again.")
    if code in (401, 403):
        return _("Referee only"), _("This page is for the referee: open the referee view and log in with the PIN "
                                    "printed in the terminal where flure play runs.")
    if code == 503:
        return _("Nothing was saved"), params.get("message") or _("The table cannot answer just now: try again in a moment.")
    if code == 507:
        return _("Nothing was saved"), params.get("message") or _("The disk is full.")
    if code >= 500:
        return _("Something went wrong"), _("Something went wrong on the server; the game state is unchanged. "
                                            "The referee can reload the page.")
    return _("This cannot be used"), _("The server cannot use this request (HTTP %(code)s): go back to the game and "
                                       "try again.", code=code)


def error_page(code: int, **params) -> str:
    """The page for ``code``; ``params``: ``limit`` (413), ``message`` (503/507, already in the request's language)."""
    heading, message = _sentence(code, **params)
    try:
        return render_template("error.html", heading=heading, message=message)
    except Exception:   # noqa: BLE001 - the page of last resort must not fail in turn
        log.exception("the error page for %s could not be drawn", code)
        return (f'<!doctype html><html><head><meta charset="utf-8"><title>Finstere Flure</title></head>'
                f'<body><p>{escape(message)}</p><p><a href="/">Finstere Flure</a></p></body></html>')
