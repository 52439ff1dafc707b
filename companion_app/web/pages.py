"""HTML pages: the phone view, the referee view and the rules reference (the JS does the drawing)."""
from __future__ import annotations

from flask import Blueprint, render_template

from .i18n import current_language
from .rules import INTRO, page_text, pieces, rules_in

bp = Blueprint("pages", __name__)


def _screen(rgb) -> str:
    """An LED colour as the screen shows it (static/board.js LedPanel: a dim LED still glows)."""
    return "#" + "".join(f"{round(255 * (min(max(float(c), 0), 255) / 255) ** 0.5):02x}" for c in rgb)


@bp.app_context_processor
def led_colours() -> dict:
    """The LED legend's colours (templates/_led_legend.html), taken from what the grid is sent."""
    from hardware.animation import EAT_ON, ERROR, HEADING, MONSTER, TO_EMPTY, TO_FILL, TRAIL

    return {"led_colours": {name: _screen(rgb) for name, rgb in {
        "monster": MONSTER, "heading": HEADING, "trail": TRAIL, "eaten": EAT_ON, "to_empty": TO_EMPTY,
        "to_fill": TO_FILL, "mark": (255, 255, 255), "error": ERROR}.items()}}


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
