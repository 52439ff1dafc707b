"""The JSON API: every referee and phone action, one thin view each.

Each view validates its body against the schema in ``schemas.py``, calls the
session, and returns its JSON.  ``ROUTES`` records every endpoint with its
schema, so ``openapi.py`` documents exactly what is served.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from flask import Blueprint, Response, abort, current_app, jsonify, request, stream_with_context
from flask import session as browser_session
from flask_babel import gettext as _

from engine import jsontext
from engine.actions import parse_action
from engine.errors import FlureError, InvalidSetupError

from ..i18n.text import error_text, render
from ..table.session.events import PHONE, STREAM_KINDS, StreamRefused
from ..table.session.journal import StaleRequestError, request_key
from ..table.session.session import TableSession
from . import schemas
from .rules import NO_SUCH_RULE, page_text, rules_in
from .security import guarded_match, is_referee, log_in, referee_required

bp = Blueprint("api", __name__, url_prefix="/api")
RECORD_MAX_BODY = 512 * 1024   # a game record: ~100 bytes an action, a long game a few hundred actions


@dataclass(frozen=True)
class RouteDoc:
    path: str
    method: str
    summary: str
    body: dict | None = None
    referee: bool = False
    produces: str = "application/json"


ROUTES: list[RouteDoc] = []


def route(path: str, method: str, summary: str, body: dict | None = None, referee: bool = False,
          produces: str = "application/json"):
    """Register a view under /api and record it for the OpenAPI document."""
    def decorate(view):
        ROUTES.append(RouteDoc("/api" + path, method, summary, body, referee, produces))
        if referee:
            view = referee_required(view)
        bp.add_url_rule(path, view.__name__, view, methods=[method])
        return view
    return decorate


def table() -> TableSession:
    return current_app.extensions["flure_session"]


def body(schema: dict) -> dict:
    """The request's JSON body, validated; an empty body counts as {}.

    Parsed by ``engine.jsontext`` rather than Flask's ``get_json``: text nested a thousand deep
    or a 5,000-digit number is a 400 that says so, not a RecursionError (500)."""
    raw = request.get_data(cache=True)
    if not raw:
        data = {}
    else:
        try:
            data = jsontext.loads(raw)
        except jsontext.JsonTextError as exc:
            from .i18n import current_language  # as in engine_call: web.i18n registers its route here
            why = error_text(exc, current_language())
            abort(400, _("The body is %(why)s", why=why) if isinstance(exc, jsontext.NotJsonError)
                  else _("The body cannot be used: %(why)s", why=why))
    try:
        if schema is schemas.ACTION:
            return schemas.validate_action(data)
        schemas.validate(data, schema)
    except schemas.SchemaError as exc:
        from .i18n import current_language  # as in engine_call: web.i18n registers its route here
        abort(400, render(exc.words, current_language()))
    return data


def engine_error_status(exc: FlureError) -> int:
    """The HTTP status of an engine refusal: 400 for malformed input, 409 for an action the game's
    state refuses now (the session raises the engine's typed errors; only the web layer speaks HTTP)."""
    return 400 if isinstance(exc, InvalidSetupError) else 409


def engine_call(fn, *args, **kwargs):
    """Run a session call; engine refusals become 400/409 with the engine's own message, worded in the
    request's language (``?lang``, the ``lang`` cookie, Accept-Language); rule and field stay as they are."""
    try:
        return fn(*args, **kwargs)
    except FlureError as exc:
        from .i18n import current_language  # web.i18n registers its route here: imported when first needed
        stale = {"stale": True} if isinstance(exc, StaleRequestError) else {}   # pages test this, not the sentence
        response = jsonify(error=error_text(exc, current_language()), rule=getattr(exc, "rule", None),
                           field=getattr(exc, "field", None), **stale)
        response.status_code = engine_error_status(exc)
        abort(response)


VERSION_HEADER = "Flure-State-Version"   # the state version a state-changing request was made against
KEY_HEADER = "Idempotency-Key"           # or a key of the client's choosing, the same on every retry


def once(fn, *args):
    """Run a state-changing session call once per request: a retry (same Idempotency-Key, or the same
    request against the same state version) gets the first answer, a request against an older state a 409."""
    version = request.headers.get(VERSION_HEADER)
    if version is not None and not (version.isascii() and version.isdigit() and len(version) <= 12):
        abort(400, _("The %(header)s header must be the state's version number, as /api/state gives it",
                     header=VERSION_HEADER))
    key = request.headers.get(KEY_HEADER)
    if key is not None and not (0 < len(key) <= 128 and key.isascii() and key.isprintable()):
        abort(400, _("The %(header)s header must be 1 to 128 printable characters", header=KEY_HEADER))
    retry = request_key(key, None if version is None else int(version), request.path,
                        request.get_data(cache=True))
    answer, repeated = engine_call(table().once, retry, None if version is None else int(version), fn, *args)
    response = jsonify(answer)
    if repeated:
        response.headers["Idempotent-Replayed"] = "true"
    return response


# -- public (phones) -----------------------------------------------------------
@route("/state", "GET", "The public game state: position, whose turn, the last monster plan and the log, its "
       "sentences in the request's language")
def state():
    return jsonify(table().state())


@route("/stream", "GET", "Server-Sent Events: the whole `state`, `camera` view and `leds` frame, then what changed "
       "(a state `delta`, LED squares that changed); `?view=phone` (the default: the camera as a phone shows it, "
       "when that changes), `referee` (every camera view) or `leds` (LED frames only); their sentences in the "
       "language the stream opens in (?lang=, the lang cookie, Accept-Language)",
       produces="text/event-stream")
def stream():
    from .i18n import current_language  # as in engine_call: web.i18n registers its route here
    session = table()
    kind = request.args.get("view", PHONE)
    if kind not in STREAM_KINDS:
        abort(400, _("The view parameter must be one of %(kinds)s, not %(given)s", kinds=", ".join(STREAM_KINDS),
                     given=repr(kind)))
    lang = current_language()   # the stream's sentences are said in this phone's language (a page that
    try:   # switches language opens a new stream); each stream holds a server thread: the limits keep threads
        q = session.broker.open(request.remote_addr or "", referee=bool(browser_session.get("referee")),   # for the referee
                                max_streams=current_app.config["SSE_MAX_CLIENTS"],
                                per_address=current_app.config["SSE_PER_ADDRESS"], kind=kind, lang=lang)
    except StreamRefused as exc:
        response = jsonify(error=error_text(exc, lang))
        response.status_code = 503
        response.headers["Retry-After"] = "5"
        return response
    heartbeat = current_app.config["SSE_HEARTBEAT"]
    gone = request.environ.get("waitress.client_disconnected")   # waitress: the phone closed the connection
    first = partial(session.catch_up, kind, lang)   # the whole picture, for this stream's kind, in its language
    response = Response(stream_with_context(session.broker.stream(first, heartbeat, q=q, gone=gone)),
                        mimetype="text/event-stream")
    response.call_on_close(lambda: session.broker.discard(q))   # also when the stream never started
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Accel-Buffering"] = "no"
    return response


@route("/board", "GET", "The board's squares, exit, entrance and wall letters (BOARD.md), for drawing")
def board():
    from .board import board_json
    return jsonify(board_json())


def _rules_language() -> str:
    from .i18n import current_language  # here: web/i18n.py registers its own route through this module
    return current_language()


@route("/rules", "GET", "Every rule text by id (G1 … A2), in the request's language (?lang=, cookie, "
       "Accept-Language; each rule's lang and the Content-Language header say which)")
def rules():
    lang = _rules_language()
    response = jsonify(rules_in(lang))
    response.headers["Content-Language"] = lang
    return response


@route("/rules/<rule_id>", "GET", "One rule's text in the request's language, e.g. /api/rules/M4?lang=de")
def rule(rule_id: str):
    lang = _rules_language()
    found = rules_in(lang).get(rule_id.upper())
    if found is None:
        abort(404, page_text(lang, NO_SUCH_RULE, rule=rule_id[:20]))
    response = jsonify(found)
    response.headers["Content-Language"] = lang
    return response


@route("/join", "GET", "The address phones open, and its QR code as SVG text")
def join():
    from .qr import join_url, qr_svg
    url = join_url()
    return jsonify(url=url, qr_svg=qr_svg(url))


@route("/health", "GET", "Liveness: the server answers")
def health():
    return jsonify(ok=True)


# -- referee -------------------------------------------------------------------
@route("/login", "POST", "Log the tablet in with the PIN; returns the CSRF token for later requests",
       body=schemas.LOGIN)
def login():
    data = body(schemas.LOGIN)
    if not guarded_match(data["pin"].strip(), "PIN"):
        abort(403, _("Wrong PIN: it is printed in the terminal where flure play runs"))
    return jsonify(csrf=log_in())


@route("/logout", "POST", "Log this browser out of the referee view", body=schemas.EMPTY)
def logout():
    body(schemas.EMPTY)
    browser_session.clear()
    return jsonify(referee=False)


@route("/whoami", "GET", "Whether this browser is logged in as referee")
def whoami():
    referee = is_referee()
    return jsonify(referee=referee, csrf=browser_session.get("csrf") if referee else None)


@route("/game", "POST", "Start a new game: players 2–7 and colours, first player, setup, G11 variant",
       body=schemas.NEW_GAME, referee=True)
def new_game():
    data = body(schemas.NEW_GAME)
    return once(lambda: table().new_game(**data))


@route("/action", "POST", "Apply one engine action (move, pawn-at, draw, tile, place)",
       body=schemas.ACTION, referee=True)
def action():
    return once(table().act, body(schemas.ACTION))


@route("/undo", "POST", "Undo the last action", body=schemas.EMPTY, referee=True)
def undo():
    body(schemas.EMPTY)
    return once(table().undo)


@route("/preview", "GET", "What each tile still in the deck would make the monster do", referee=True)
def preview():
    return jsonify(engine_call(table().preview))


@route("/targets", "GET", "Where a pawn may end its move now: ?pawn=red-6/1", referee=True)
def targets():
    label = request.args.get("pawn")
    if not label:
        abort(400, _("Give the pawn as ?pawn=red-6/1"))
    if len(label) > schemas.PAWN_LABEL["maxLength"]:
        abort(400, _("pawn is too long (at most %(most)s characters), e.g. red-6/1",
                     most=schemas.PAWN_LABEL["maxLength"]))
    return jsonify(engine_call(table().targets, label))


@route("/status", "GET", "Devices (camera, LED grid, buttons) and connected phones", referee=True)
def status():
    out = table().device_status()
    phone = current_app.extensions.get("flure_phone")     # [camera] source = "phone" (camera_page.attach)
    if phone is not None:
        from ..table.camera.phone_camera import device_status
        out["phone_camera"] = device_status(phone)
    return jsonify(out)


@route("/leds", "GET", "The LED grid's last frame as sent: square name → colour (hex); null without LEDs")
def leds():
    return jsonify(frame=table().led_frame())


@route("/camera", "GET", "The camera's last reading judged against the game (the live stream pushes the same)",
       referee=True)
def camera():
    return jsonify(table().camera_view())


@route("/camera/frame.jpg", "GET", "The camera's last frame as a JPEG picture", referee=True,
       produces="image/jpeg")
def camera_frame():
    return live_jpeg(table().camera_jpeg(), _("The camera has not given a frame yet"))


def live_jpeg(data: bytes | None, missing: str) -> Response:
    """A picture of now: never cached; 404 saying ``missing`` before there is one."""
    if data is None:
        abort(404, missing)
    response = Response(data, mimetype="image/jpeg")
    response.headers["Cache-Control"] = "no-store"
    return response


@route("/camera/fix", "POST", "Correct one square of the camera reading (piece, face, heading)",
       body=schemas.FIX, referee=True)
def camera_fix():
    data = body(schemas.FIX)
    square = data.pop("square")
    return jsonify(engine_call(table().fix_square, square, data))


@route("/camera/clear", "POST", "Forget the corrections made to the camera reading", body=schemas.EMPTY,
       referee=True)
def camera_clear():
    body(schemas.EMPTY)
    table().clear_fixes()
    return jsonify(table().camera_view())


@route("/camera/confirm", "POST", "Accept the camera reading: it becomes the pawn move or tile it shows",
       body=schemas.CONFIRM, referee=True)
def camera_confirm():
    expect = (body(schemas.CONFIRM) or {}).get("expect")   # the action the screen showed: typed from here on
    return once(table().confirm_reading, None if expect is None else engine_call(parse_action, expect))


@route("/game/export", "GET", "The running game as a record (JSON, format flure-game/1): setup, seed, every "
       "action; `flure replay FILE` plays it again", referee=True)
def game_export():
    record = engine_call(table().export_record)
    response = jsonify(record)
    response.headers["Content-Disposition"] = 'attachment; filename="flure-game.json"'
    return response


@route("/game/import", "POST", "Start the game a record (flure-game/1) describes, played up to its last action",
       body={"type": "object", "description": "a flure-game/1 record, as /api/game/export gives it"}, referee=True)
def game_import():
    request.max_content_length = RECORD_MAX_BODY
    try:   # engine.jsontext, like body(): deep nesting or a huge number is a 400, not a RecursionError
        data = jsontext.loads(request.get_data(cache=True))
    except jsontext.JsonTextError as exc:
        from .i18n import current_language
        abort(400, _("The body cannot be used (%(why)s): send a flure-game/1 record, as /api/game/export gives it",
                     why=error_text(exc, current_language())))
    return once(table().import_record, data)


@route("/camera/accept-table", "POST", "Accept the table as the camera sees it: the game's position follows it "
       "(a logged correction)", body=schemas.EMPTY, referee=True)
def camera_accept_table():
    body(schemas.EMPTY)
    return once(table().accept_table)


@route("/camera/mode", "POST", "Camera mode: auto (moves read are applied at once) or confirm", body=schemas.MODE,
       referee=True)
def camera_mode():
    return jsonify(engine_call(table().set_camera_mode, body(schemas.MODE)["mode"]))


@route("/simulated", "GET", "The simulated table: its players (paused, what they do now) and where its pieces lie",
       referee=True)
def simulated():
    return jsonify(_simulated_table().status())


@route("/simulated", "POST", "Pause or resume the simulated players, or move a piece on the simulated table "
       "by hand (the game sees it only through the camera)", body=schemas.SIMULATED, referee=True)
def simulated_change():
    data = body(schemas.SIMULATED)
    rig = _simulated_table()
    out = rig.status()
    try:
        if "move" in data:
            out = rig.move_piece(data["move"]["from"], data["move"].get("to"))
    except ValueError as exc:
        from .i18n import current_language  # as in engine_call: web.i18n registers its route here
        abort(409, error_text(exc, current_language()))
    if "paused" in data:
        out = rig.pause(data["paused"])
    return jsonify(out)


def _simulated_table():
    rig = getattr(table(), "simulated", None)
    if rig is None:
        abort(409, _("There is no simulated table: this session's camera films a real one "
                     "([camera] source is not \"simulated\")"))
    return rig


@route("/openapi.json", "GET", "This API described as OpenAPI 3.1")
def openapi():
    from .openapi import document
    return jsonify(document(ROUTES))
