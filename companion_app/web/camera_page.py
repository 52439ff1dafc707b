"""The phone camera page (``/camera``) and its API: a phone on a stand over the board is the table's camera.

Only the referee may feed the table's camera: the page asks for the PIN, or is opened from a
one-time pairing link (its QR code is on the referee view), which lets that phone send frames
and nothing else.  Frames arrive as JPEG or PNG bodies (``POST /api/camera/phone/frame``) and go
to the session's phone source (vision/phone_source.py); each answer carries where the board is in
the picture, so the page can draw it and advise the person holding the phone.

The browser gives a page the camera only in a secure context, so the page is served over HTTPS
(web/https.py); opened over plain HTTP from another machine it sends the phone there.
"""
from __future__ import annotations

import hmac
import secrets
import threading
import time

from flask import Response, current_app, jsonify, redirect, render_template, request
from flask import session as browser_session
from flask_babel import gettext as _

from ..i18n.text import error_text
from . import schemas
from .api import body, route
from .pages import bp as pages_bp
from .security import IMAGE_BODY, is_referee

PAIR_SECONDS = 600        # a pairing link works once, within ten minutes
LOCAL = ("localhost", "127.0.0.1", "[::1]")


def attach(app, phone, https_url: str | None = None, ca_cert=None) -> None:
    """Give the app the session's phone source (``[camera] source = "phone"``, or None), the HTTPS address
    and the table's certificate authority (tls.py)."""
    from ..table.camera.phone_camera import PhoneLook

    if phone is not None:
        app.extensions["flure_phone"] = phone
        app.extensions["flure_phone_look"] = PhoneLook(phone, lambda: _reader_parts(app))
        app.extensions["flure_setup"].phone = phone       # the Setup page's doctor card says how it is
    app.config["HTTPS_URL"] = https_url
    app.config["TLS_CA"] = str(ca_cert) if ca_cert is not None else None


def _reader_parts(app):
    """(scheme, lens calibration, taught board) the running camera reads with: the Setup page's choice, or
    without stickers (``--pieces``) no scheme and the board picture the pieces were taught with."""
    from ..table.camera.nostickers import PiecesReader

    setup = app.extensions["flure_setup"]
    reader = getattr(setup.session.camera.obj, "reader", None)
    if isinstance(reader, PiecesReader):
        return None, reader.calibration, reader.pieces.board if reader.pieces is not None else None
    scheme, calibration, _config = setup._reader()
    return scheme, calibration, None


def _phone():
    return current_app.extensions.get("flure_phone")


def _pairings() -> dict:
    return current_app.extensions.setdefault("flure_pairings", {"lock": threading.Lock(), "tokens": {}})


def camera_allowed() -> bool:
    """The referee (PIN or token), or a phone paired from the referee view; a POST must carry its CSRF token."""
    if is_referee():
        return True
    if not browser_session.get("camera"):
        return False
    if request.method in ("GET", "HEAD"):
        return True
    return hmac.compare_digest(request.headers.get("X-CSRF-Token", "").encode(),
                               browser_session.get("csrf", "").encode())


def _refused(message: str, status: int, **extra) -> Response:
    response = jsonify(error=message, **extra)
    response.status_code = status
    return response


def _guard() -> Response | None:
    if camera_allowed():
        return None
    if browser_session.get("camera") or browser_session.get("referee"):
        return _refused(_("Missing or wrong X-CSRF-Token header: reload the camera page"), 403)
    return _refused(_("Only the referee's phone may be the camera: log in with the PIN, or scan the camera "
                      "QR code on the referee view"), 401)


# -- pages ---------------------------------------------------------------------------------
@pages_bp.get("/camera")
def camera():
    secure = request.is_secure or request.host.split(":")[0] in LOCAL or request.host.startswith("[::1]")
    https_url = current_app.config.get("HTTPS_URL")
    if not secure and https_url:
        return redirect(https_url + "camera" + ("?" + request.query_string.decode() if request.query_string else ""))
    token = request.args.get("pair")
    if token is not None:
        pairing = _pairings()
        with pairing["lock"]:
            until = pairing["tokens"].pop(token, None)
        if until is None or until < time.monotonic():
            return render_template("camera.html", pair_error=_("This pairing link was used already or is too old: "
                                                               "make a new one on the referee view."),
                                   **_page_values()), 403
        browser_session.clear()
        browser_session["camera"] = True
        browser_session["csrf"] = secrets.token_urlsafe(24)
        return redirect("/camera")
    return render_template("camera.html", pair_error=None, **_page_values())


def _page_values() -> dict:
    config = current_app.extensions["flure_setup"].config.camera
    return {"width": config.resolution[0], "height": config.resolution[1], "fps": config.fps,
            "phone_source": _phone() is not None,
            "login_title": _("Camera: referee only"), "login_button": _("Use this phone as the camera")}


@pages_bp.get("/flure-ca.crt")
def authority():
    """The table's certificate authority, for a phone that installs it instead of accepting the warning."""
    folder = current_app.config.get("TLS_CA")
    if not folder:
        return _refused(_("This table serves no HTTPS (no certificate)."), 404)
    with open(folder, "rb") as f:
        data = f.read()
    response = Response(data, mimetype="application/x-x509-ca-cert")
    response.headers["Content-Disposition"] = 'attachment; filename="flure-table-ca.crt"'
    return response


# -- API -----------------------------------------------------------------------------------
@route("/camera/pair", "POST", "A one-time link (and its QR code) that lets a phone send camera frames for "
       "ten minutes' use", body=schemas.EMPTY, referee=True)
def camera_pair():
    from .qr import qr_svg

    body(schemas.EMPTY)
    token = secrets.token_urlsafe(18)
    pairing = _pairings()
    now = time.monotonic()
    with pairing["lock"]:
        pairing["tokens"] = {k: v for k, v in pairing["tokens"].items() if v > now}
        pairing["tokens"][token] = now + PAIR_SECONDS
    base = current_app.config.get("HTTPS_URL") or request.host_url
    url = f"{base}camera?pair={token}"
    return jsonify(url=url, qr_svg=qr_svg(url, scale=4), expires_s=PAIR_SECONDS, https=url.startswith("https:"),
                   phone_source=_phone() is not None)


def _look() -> dict | None:
    look = current_app.extensions.get("flure_phone_look")
    return look.get() if look is not None else None


def _state() -> dict:
    from ..table.camera.phone_camera import device_status

    phone = _phone()
    return {"phone": device_status(phone)["detail"] if phone is not None else None, "look": _look()}


@route("/camera/phone", "GET", "The phone camera: its state and where the board is in its last frame (referee or "
       "the paired phone)")
def camera_phone():
    refused = _guard()
    if refused is not None:
        return refused
    return jsonify(csrf=browser_session.get("csrf"), **_state())


@route("/camera/phone/frame", "POST", "One frame of the phone camera (a JPEG or PNG body, at most 6 MB and 10 a "
       "second): the newest is read; the answer says where the board is in it", produces="application/json")
def camera_phone_frame():
    from vision.phone_source import FrameRefused

    from .i18n import current_language

    refused = _guard()
    if refused is not None:
        return refused
    phone = _phone()
    if phone is None:
        return _refused(_("This table's camera is not a phone: start flure play --camera phone (or set [camera] "
                          "source = \"phone\")."), 409)
    try:
        phone.check_size(request.content_length)
        request.max_content_length = phone.max_bytes
        phone.put(request.get_data(cache=False), request.content_type, request.remote_addr)
    except FrameRefused as exc:
        response = _refused(error_text(exc, current_language()), exc.status, code=exc.code)
        if exc.retry_after is not None:
            response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
        return response
    return jsonify(_state())


IMAGE_BODY.add("api.camera_phone_frame")
