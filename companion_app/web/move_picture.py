""""Save this move": the last monster move as an animated GIF and a still PNG (companion_app.share)."""
from __future__ import annotations

from flask import Response, abort
from flask_babel import gettext as _

from ..share import move_gif, move_png
from .api import route, table


def _picture(data: bytes, mimetype: str, name: str) -> Response:
    response = Response(data, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'inline; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _last_plan():
    game = table().game
    plan = game.last_plan if game is not None else None
    if plan is None:
        abort(404, _("The monster has not moved yet in this game: there is no move to save."))
    return plan


@route("/move.gif", "GET", "The last monster move as an animated GIF: the start, then one frame a step",
       produces="image/gif")
def move_animation():
    plan = _last_plan()
    return _picture(move_gif(plan), "image/gif", f"monster-move-{plan.tile or 'steps'}.gif")


@route("/move.png", "GET", "The last monster move as a still PNG: the board after it with the monster's path",
       produces="image/png")
def move_still():
    plan = _last_plan()
    return _picture(move_png(plan), "image/png", f"monster-move-{plan.tile or 'steps'}.png")
