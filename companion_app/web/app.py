"""The Flask application factory (flaskr style): one app per session, resources attached here.

``create_app(session, ...)`` is used by ``flure play`` and by every test, each
with its own session, database and token.  The app never runs in debug mode:
errors reach players as one plain sentence, never a traceback.
"""
from __future__ import annotations

import logging
import secrets
import sqlite3

from flask import Flask, jsonify, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from ..table.session.events import PER_ADDRESS
from ..table.session.session import TableSession
from ..table.session.store import DiskFullError, JournalError, Store, default_path
from .errors import error_page, sentence
from .security import LoginGuard, check_request, new_pin, secure_headers, table_names
from .server import STREAM_LIMIT

log = logging.getLogger(__name__)
MAX_BODY = 16 * 1024   # the largest real body (a pawn-at with stones) is well under 1 KB


def create_app(session: TableSession | None = None, *, token: str | None = None, db: str | None = None,
               public_url: str | None = None, hosts=(), test_config: dict | None = None,
               table_config=None) -> Flask:
    """``hosts``: names the table is reached by besides localhost, this machine's (mDNS) name
    and ``public_url``'s; any other Host header is refused (security.check_request).
    ``table_config`` (a TableConfig, the defaults if None) is where the Setup page saves."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        REFEREE_TOKEN=token or new_pin(),
        MAX_CONTENT_LENGTH=MAX_BODY,
        PUBLIC_URL=public_url,
        TABLE_HOSTS=table_names(public_url, hosts),
        SSE_HEARTBEAT=15.0,
        SSE_MAX_CLIENTS=STREAM_LIMIT,
        SSE_PER_ADDRESS=PER_ADDRESS,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        DEBUG=False,
        PROPAGATE_EXCEPTIONS=False,
        TABLE_LANGUAGE=table_config.table.language if table_config is not None else "en",   # pages with no hint
    )
    if test_config:
        app.config.update(test_config)
    app.debug = False
    app.json.sort_keys = False  # keep tile and rule order as the engine gives it
    if session is None:
        session = TableSession(Store(db or default_path()))
    app.extensions["flure_session"] = session
    app.extensions["flure_guard"] = LoginGuard()

    from ..table.setup.setup import SetupTool
    from . import api, camera_page, i18n, move_picture, pages, setup  # noqa: F401 - they add their routes
    app.extensions["flure_setup"] = SetupTool(session, table_config)
    i18n.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(setup.bp)
    app.register_blueprint(setup.api_bp)
    app.before_request(check_request)
    app.after_request(secure_headers)
    _error_handlers(app)
    return app


def _error_handlers(app: Flask) -> None:
    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if exc.response is not None:   # abort(response) from engine_call
            return exc.response
        limit = request.max_content_length or app.config["MAX_CONTENT_LENGTH"]   # a route may allow more
        message = exc.description
        if exc.code == 413 or message == type(exc).description:   # no view said more: werkzeug's English
            message = sentence(exc.code or 400, limit=limit)
        if request.path.startswith("/api/"):
            return jsonify(error=message), exc.code
        return error_page(exc.code, limit=limit), exc.code

    @app.errorhandler(JournalError)
    @app.errorhandler(sqlite3.Error)
    def journal_error(exc: Exception):
        """The journal could not be written: the game state is unchanged, and the referee is told why
        (507 for a full disk, 503 otherwise; the Devices card shows the same line)."""
        log.error("journal write failed on %s: %s", request.path, exc)
        from ..i18n.text import error_text
        from .i18n import current_language  # web.i18n registers its route here: imported when first needed

        full = isinstance(exc, DiskFullError)
        why = error_text(exc, current_language())   # ours in the request's language; SQLite's own words stay
        message = (_("Nothing was saved: %(error)s.", error=why) if full else
                   _("Nothing was saved: the game journal cannot be written (%(error)s); the game state is unchanged.",
                     error=why))
        if request.path.startswith("/api/"):
            return jsonify(error=message), 507 if full else 503
        return error_page(503, message=message), 503

    @app.errorhandler(Exception)
    def crash(exc: Exception):
        log.exception("unexpected error on %s", request.path)
        if request.path.startswith("/api/"):
            return jsonify(error=sentence(500)), 500
        return error_page(500), 500
