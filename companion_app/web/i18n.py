"""The page's language: Flask-Babel's locale from ``?lang=``, the ``lang`` cookie, then Accept-Language,
then the table's own language (``[table] language``, ``app.config["TABLE_LANGUAGE"]``).

A ``?lang=`` choice is remembered on that phone in the ``lang`` cookie (a year).  The browser's
scripts read the same catalog as JSON: ``/api/i18n/<lang>.json``, also embedded in every page so
the first drawing is already in the right words.

Every JSON answer is said in the request's language here, at the edge: the session's payloads keep
their sentences as wording data (engine.wording) and ``WordingJSON`` renders them as it writes the
JSON (``companion_app.i18n.text.localize``); the live stream does the same per phone (table/events.py).
"""
from __future__ import annotations

from flask import Flask, abort, current_app, g, has_request_context, jsonify, request
from flask.json.provider import DefaultJSONProvider
from flask_babel import Babel
from flask_babel import gettext as _

from engine.names import piece_name

from ..i18n import DEFAULT, LANGUAGE_NAMES, LANGUAGES, TRANSLATIONS, catalog, ensure_compiled
from ..i18n.text import localize, render
from .api import route

COOKIE = "lang"
YEAR = 365 * 24 * 3600


def select_locale() -> str:
    for asked in (request.args.get("lang"), request.cookies.get(COOKIE)):
        if asked in LANGUAGES:
            return asked
    return request.accept_languages.best_match(LANGUAGES) or current_app.config.get("TABLE_LANGUAGE", DEFAULT)


def current_language() -> str:
    if "flure_lang" not in g:
        g.flure_lang = select_locale()
    return g.flure_lang


@route("/i18n/<lang>.json", "GET", "the browser's gettext catalog of a language (en, fr, de, es): {English msgid: words}")
def catalog_json(lang: str):
    """The browser's catalog of ``lang``: {English msgid: words}, from the same .po as the server's."""
    if lang not in LANGUAGES:
        abort(404, _("There is no catalog for %(lang)s; the languages are %(languages)s.", lang=repr(lang[:20]),
                     languages=", ".join(LANGUAGES)))
    return jsonify(catalog(lang))


class WordingJSON(DefaultJSONProvider):
    """Flask's JSON with every sentence of wording data said in the request's language."""

    def dumps(self, obj, **kwargs) -> str:
        return super().dumps(localize(obj, current_language() if has_request_context() else DEFAULT), **kwargs)


def _remember(response):
    asked = request.args.get("lang")
    if asked and asked in LANGUAGES:
        response.set_cookie(COOKIE, asked, max_age=YEAR, samesite="Lax")
    return response


def init_app(app: Flask) -> None:
    ensure_compiled()
    sort_keys = app.json.sort_keys
    app.json = WordingJSON(app)
    app.json.sort_keys = sort_keys
    Babel(app, locale_selector=current_language, default_translation_directories=str(TRANSLATIONS))
    app.after_request(_remember)

    @app.context_processor
    def language():
        lang = current_language()
        return {"lang": lang, "languages": LANGUAGE_NAMES, "i18n_catalog": catalog(lang),
                "piece_name": lambda kind: render(piece_name(kind), lang)}   # a piece's name (engine.names)
