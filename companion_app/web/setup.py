"""The Setup page and its API under /api/setup: one thin view per request over
``table.setup.SetupTool``.  Referee only, like every state-changing route; the routes are
recorded in ``api.ROUTES`` so the OpenAPI document lists them too."""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, render_template
from flask_babel import gettext as _

from ..i18n.text import render
from ..table.setup.setup import SetupError, SetupTool
from . import api, schemas
from .i18n import current_language
from .security import referee_required

bp = Blueprint("setup", __name__)
api_bp = Blueprint("setup_api", __name__, url_prefix="/api/setup")

EXPOSURE = {
    "type": "object", "additionalProperties": False, "required": ["exposure_us", "analogue_gain"],
    "properties": {
        "exposure_us": {"type": "integer", "description": "exposure time in µs, 0 = automatic"},
        "analogue_gain": {"type": "number", "description": "sensor gain, 0 = automatic"},
        "colour_gains": {"type": ["array", "null"], "description": "[red, blue] white balance gains, null = automatic"},
    },
}
LIGHT = {"type": "object", "additionalProperties": False, "required": ["what"],
         "properties": {"what": {"type": "string", "description": "all, row N (1–11) or column X (a–p)"}}}
PHOTO = {"type": "object", "additionalProperties": False,
         "properties": {"step": {"type": "integer", "minimum": 1,
                                 "description": "the step the photo is for (refused unless it is the step under way)"}}}
MARK = {"type": "object", "additionalProperties": False, "required": ["square", "wrong"],
        "properties": {"square": {"type": "string", "description": "a square, a1 to p11"},
                       "wrong": {"type": "boolean", "description": "true: the LED under it is not where it should be"}}}


def route(path: str, method: str, summary: str, body: dict | None = None, produces: str = "application/json"):
    """A referee-only route under /api/setup, recorded for the OpenAPI document."""
    def decorate(view):
        api.ROUTES.append(api.RouteDoc("/api/setup" + path, method, summary, body, True, produces))
        api_bp.add_url_rule(path, view.__name__, referee_required(view), methods=[method])
        return view
    return decorate


def tool() -> SetupTool:
    return current_app.extensions["flure_setup"]


def answer(fn, *args):
    """Run a setup step; a step that cannot be done now is a 409 with its sentence."""
    try:
        return jsonify(fn(*args))
    except SetupError as exc:   # in the page's language when the step gave its wording as data
        response = jsonify(error=render(exc.text, current_language()) if exc.text is not None else str(exc))
        response.status_code = 409
        abort(response)


@bp.get("/setup")
def setup_page():
    return render_template("setup.html", spec=tool().spec)


@route("/look", "GET", "What the camera shows now: placement verdict and advice, camera height and tilt, "
                       "sticker check against the piece set")
def look():
    return jsonify(tool().look()[0])


@route("/overlay.jpg", "GET", "The camera's picture with the board grid and every sticker outline drawn over it",
       produces="image/jpeg")
def overlay():
    return api.live_jpeg(tool().look()[1], _("The camera has not given a picture yet"))


@route("/board.png", "GET", "The ChArUco calibration board, to print at 300 dpi and 100 % scale",
       produces="image/png")
def board_png():
    import cv2

    ok, data = cv2.imencode(".png", tool().spec.image(300))
    response = Response(data.tobytes(), mimetype="image/png")
    response.headers["Content-Disposition"] = 'inline; filename="charuco-board.png"'
    return response


@route("/calibration", "GET", "The lens calibration in progress: views, coverage map, tilts, advice")
def calibration():
    return jsonify(tool().calibration_summary())


@route("/capture", "POST", "Add the camera's current picture as a view of the ChArUco board", body=schemas.EMPTY)
def capture():
    api.body(schemas.EMPTY)
    return answer(tool().capture)


@route("/reset", "POST", "Forget the views captured so far", body=schemas.EMPTY)
def reset():
    api.body(schemas.EMPTY)
    return answer(tool().reset_views)


@route("/calibrate", "POST", "Compute the lens calibration from the views (refused when it cannot be right)",
       body=schemas.EMPTY)
def calibrate():
    api.body(schemas.EMPTY)
    return answer(tool().compute)


@route("/save", "POST", "Save the calibration (atomically), point [camera] calibration at it and reopen the camera",
       body=schemas.EMPTY)
def save():
    api.body(schemas.EMPTY)
    return answer(tool().save_calibration)


@route("/exposure", "POST", "Lock exposure, gain and white balance (zeros and null: automatic); stored in "
                            "[camera.exposure]", body=EXPOSURE)
def exposure():
    data = api.body(EXPOSURE)
    return answer(tool().save_exposure, data["exposure_us"], data["analogue_gain"], data.get("colour_gains"))


@route("/leds/light", "POST", "Light every square in turn, or one row or column at once", body=LIGHT)
def light():
    return answer(tool().light, api.body(LIGHT)["what"])


@route("/leds/marks", "GET", "The squares marked as wrongly wired")
def marks():
    return jsonify(tool().marks())


@route("/leds/mark", "POST", "Mark (or clear) a square whose LED is not where it should be", body=MARK)
def mark():
    data = api.body(MARK)
    return answer(tool().mark, data["square"], data["wrong"])


@route("/doctor", "GET", "flure doctor's checks that can run beside the session")
def doctor():
    return jsonify(findings=tool().doctor(current_language()))   # in the page's language


# -- teaching the box without stickers (NOSTICKERS.md) ------------------------------------------------
@route("/teaching", "GET", "The teaching under way (step, what to lay out, its squares, the last refusal) and what "
                           "the saved pieces file taught: each face, its picture and the faces it looks too alike to; "
                           "the pools' colours and each teleporter for the advanced setup, with warnings by code")
def teaching():
    return answer(lambda: {**tool().teaching.status(), "learned": tool().teaching.learned()})


@route("/teaching/start", "POST", "Begin teaching at the first step; the LEDs light each step's squares",
       body=schemas.EMPTY)
def teaching_start():
    api.body(schemas.EMPTY)
    return answer(tool().teaching.start)


@route("/teaching/photo", "POST", "Take the step's photo from the table's camera and check it (refused with the "
                                  "reason: take it again); the last step saves pieces.json", body=PHOTO)
def teaching_photo():
    step = api.body(PHOTO).get("step")
    return answer(lambda: {**tool().teaching.photo(step), "learned": tool().teaching.learned()})


@route("/teaching/cancel", "POST", "Abandon the teaching (nothing is saved)", body=schemas.EMPTY)
def teaching_cancel():
    api.body(schemas.EMPTY)
    return answer(tool().teaching.cancel)
