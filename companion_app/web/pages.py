"""HTML pages: the phone view, the referee view and the rules reference (the JS does the drawing)."""
from __future__ import annotations

from flask import Blueprint, render_template

from .rules import load_rules

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
    sections: dict[str, list[dict]] = {}
    for rule in load_rules().values():
        sections.setdefault(rule["section"], []).append(rule)
    return render_template("rules.html", sections=sections)
