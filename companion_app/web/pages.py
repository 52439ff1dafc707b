"""HTML pages: the phone view, the referee view and the rules reference (the JS does the drawing)."""
from __future__ import annotations

from flask import Blueprint, render_template

from .i18n import current_language
from .rules import INTRO, page_text, pieces, rules_in

bp = Blueprint("pages", __name__)


@bp.get("/")
def phone():
    return render_template("phone.html")


@bp.get("/referee")
def referee():
    return render_template("referee.html")


@bp.get("/leds")
def leds():
    return render_template("leds.html")


@bp.get("/rules")
def rules():
    """The rules reference in the page's language (?lang=, the cookie, then Accept-Language)."""
    lang = current_language()
    sections: dict[str, list[dict]] = {}
    for rule in rules_in(lang).values():
        sections.setdefault(rule["section"], []).append(rule)
    return render_template("rules.html", sections=sections, intro=page_text(lang, INTRO), pieces=pieces)
