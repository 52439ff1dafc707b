"""The phone camera's side of the session: where the phone's picture shows the board, with advice for
the person holding the phone, and the phone's line on the referee's Devices card.

The camera page (web/camera_page.py) draws ``look()``'s board outline and corner markers over its
live picture: green when the board is located, and one short piece of advice otherwise ("move the
phone up", "tilt less", "too dark").  The verdict is the Setup page's placement check
(calibration.registration), worded for a phone; it is computed at most every LOOK_MAX_AGE_S on the
newest frame, in the request's thread, never in the camera worker's.  A camera reading without
stickers (``flure play --camera phone --pieces``, NOSTICKERS.md) has no marker to look for: the board
is located by its own picture, as the reader finds it (``look_by_picture``).
"""
from __future__ import annotations

import threading
import time

import numpy as np

from engine.wording import N_, Text

from ..setup.setup import LOOK_MAX_AGE_S

DARK_MEAN = 45            # a picture whose mean grey level is under this is too dark to read stickers

# The verdict (calibration.registration.verdict, plus "dark") → what the phone's holder should do.
ADVICE = {
    "dark": N_("Too dark: switch on a light over the table (the phone's torch glares on the board)."),
    "not located": N_("Move the phone up until all four corner markers are in the picture."),
    "too tilted": N_("Tilt less: hold the phone flat, straight above the middle of the board."),
    "too close": N_("Move the phone up: the board and the card zone must fit in the picture."),
    "too far": N_("Move the phone down: the stickers are too small in the picture."),
    "good": N_("The board is located: keep the phone still."),
    "not found": N_("Move the phone until the whole board is in the picture, held still straight above it."),
}


def look(frame: np.ndarray, scheme, calibration=None) -> dict:
    """What the phone's frame shows: located or not, the verdict, the advice, and (as fractions of the
    picture's width and height) the board's outline and the corner markers found."""
    import cv2

    from calibration.registration import check_registration
    from vision.detect import detect_markers
    from vision.locate import locate_board

    h, w = frame.shape[:2]
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    size = np.array([w, h], dtype=float)
    det = detect_markers(gray, scheme)
    board_ids = {m.id for m in scheme.board_markers}
    markers = [(np.asarray(c, dtype=float).reshape(-1, 2) / size).round(4).tolist()
               for i, c in zip(det.ids.tolist(), det.corners) if i in board_ids]
    out: dict = {"size": [int(w), int(h)], "markers": markers, "outline": None, "located": False}
    located = locate_board(det, (w, h), scheme, calibration).location if len(markers) >= 3 else None
    if located is not None:
        gw, gh = scheme.grid_mm
        outline = located.to_raw_image(np.array([[0, 0], [gw, 0], [gw, gh], [0, gh]], dtype=float))
        out["outline"] = (outline / size).round(4).tolist()
        out["located"] = True
    if float(gray.mean()) < DARK_MEAN and located is None:
        verdict, detail = "dark", None
    else:
        rep = check_registration(frame, scheme, calibration)
        verdict = rep.verdict or "not located"
        detail = rep.advice or rep.why
    out["verdict"] = verdict
    advice = Text(ADVICE[verdict])
    out["advice"] = advice
    if detail is not None:
        out["detail"] = detail
    return out


def look_by_picture(frame: np.ndarray, board, calibration=None) -> dict:
    """``look()`` for a camera reading without stickers: the board located by its printed picture (``board``,
    the taught ``vision.nostickers.board.BoardReference``; None while the pieces are not taught yet), no
    markers; the verdict "good", "not found" or "dark"."""
    import cv2

    from vision.nostickers.board import Lens
    from vision.scheme import load_scheme

    h, w = frame.shape[:2]
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    out: dict = {"size": [int(w), int(h)], "markers": [], "outline": None, "located": False}
    if board is None:
        return {**out, "verdict": "not taught", "advice": Text(N_("the camera is being taught the pieces"))}
    lens = Lens(calibration)
    location, why = board.locate(lens.undistort(frame), lens)
    if location is not None:
        gw, gh = load_scheme().grid_mm
        outline = location.to_raw_image(np.array([[0, 0], [gw, 0], [gw, gh], [0, gh]], dtype=float))
        out["outline"] = (outline / np.array([w, h], dtype=float)).round(4).tolist()
        out["located"] = True
        verdict = "good"
    else:
        verdict = "dark" if float(gray.mean()) < DARK_MEAN else "not found"
    out["verdict"], out["advice"] = verdict, Text(ADVICE[verdict])
    if why is not None:
        out["detail"] = why
    return out


class PhoneLook:
    """``look()`` of the newest phone frame, computed at most every ``max_age`` seconds (one at a time)."""

    def __init__(self, phone, reader_parts, max_age: float = LOOK_MAX_AGE_S):
        self.phone = phone
        # () -> (scheme, lens calibration, board): what the camera reads with; ``board`` is the taught board
        # picture when it reads without stickers (then ``scheme`` is None), else None
        self.reader_parts = reader_parts
        self.max_age = max_age
        self._lock = threading.Lock()
        self._cached: tuple[float, object, dict | None] = (0.0, None, None)

    def get(self) -> dict | None:
        frame = self.phone.latest
        if frame is None:
            return None
        with self._lock:
            at, seen, data = self._cached
            if data is not None and (seen is frame or time.monotonic() - at < self.max_age):
                return data
            scheme, calibration, board = self.reader_parts()
            data = look(frame, scheme, calibration) if scheme is not None else \
                look_by_picture(frame, board, calibration)
            self._cached = (time.monotonic(), frame, data)
            return data


def device_status(phone) -> dict:
    """The phone camera as a device line of ``/api/status`` (present; ``detail`` with the phone's state in words)."""
    return {"present": True, "detail": phone.status()}
