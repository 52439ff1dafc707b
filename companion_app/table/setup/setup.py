"""The Setup page's work: look at the live camera, calibrate the lens, lock the exposure,
check the LED wiring — and save each result where the running session uses it at once.

Why here and not in the web layer: it wires the camera device, the calibration package, the
table configuration file and the LED grid together (only companion_app may), and the web
blueprint (``web/setup.py``) stays one thin view per request.  Every file is written
atomically (``calibration.store.atomic_write``: temporary file, ``os.replace``, the previous
file kept as ``.bak``); a failed save leaves the last good file and the running camera as
they were.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
import time
from pathlib import Path

import numpy as np

from engine.geometry import COLS, ROWS, SQUARES, square_name
from engine.wording import N_, Text

from ...i18n import DEFAULT
from ...i18n import gettext as _g
from ...i18n.text import render

log = logging.getLogger(__name__)
MIN_VIEWS = 10               # the page asks for 15; fewer than 10 is refused outright
LOOK_MAX_AGE_S = 0.7         # the overlay and its numbers are computed at most this often
UNKNOWN = (255, 0, 255)      # outline of a sticker id the game does not have
KNOWN = (255, 200, 0)        # outline of every other sticker


class SetupError(ValueError):
    """A setup step that cannot be done now; the message says why and what to do.  Raised with a
    ``Text`` (engine.wording), the page words it in its own language (``text``)."""

    def __init__(self, message):
        self.text = message if isinstance(message, Text) else None
        super().__init__(str(message))


def twin_state(session):
    """What the digital twin shows: the game's position, or the basic setup before a game."""
    from engine.position import basic_position

    game = session.game
    return (game.position if game is not None else basic_position()), None


class SetupTool:
    """One per web app: the views collected so far, the calibration computed from them, the LED marks."""

    def __init__(self, session, config=None):
        from calibration.intrinsics import CharucoSpec, Views

        from ...config import load_table_config

        self.session = session
        self.config = config if config is not None else load_table_config(None)
        self.spec = CharucoSpec()
        self.views = Views(self.spec)
        self.pending = None           # a Calibration computed, not saved yet
        self._lock = threading.Lock()
        self._look: tuple[float, dict | None, bytes | None] = (0.0, None, None)
        from .teaching import Teaching
        self.teaching = Teaching(self)  # the box taught without stickers (NOSTICKERS.md)

    # -- where things are saved ------------------------------------------------------------
    def folder(self) -> Path:
        """Beside the table configuration file; without one, beside the session's own database."""
        if self.config.path is not None:
            return self.config.path.parent
        db = getattr(getattr(self.session, "store", None), "path", None)
        return Path(db).parent if db and db != ":memory:" else self.config.web.database_path().parent

    def calibration_path(self) -> Path:
        return self.config.camera.calibration or self.folder() / "calibration.json"

    def marks_path(self) -> Path:
        return self.folder() / "led-check.json"

    # -- the live picture ------------------------------------------------------------------
    def frame(self):
        """The camera worker's last frame (None before one)."""
        from ..camera.frames import last_frame

        obj = self.session.camera.obj
        frame = getattr(obj, "last_frame", None)
        return frame if frame is not None else last_frame(obj)

    def _reader(self):
        """(scheme, lens calibration, reader thresholds) the running camera reads with (a camera reading
        without stickers has no scheme of its own: the configured one, with its lens calibration)."""
        from vision.config import DEFAULT_CONFIG
        from vision.scheme import load_scheme

        reader = getattr(self.session.camera.obj, "reader", None)
        if reader is not None and reader.scheme is not None:
            return reader.scheme, reader.calibration, reader.config
        cfg = self.config.camera
        scheme = load_scheme(None if cfg.marker_scheme is None else str(cfg.marker_scheme))
        return scheme, getattr(reader, "calibration", None), DEFAULT_CONFIG

    def look(self, max_age: float = LOOK_MAX_AGE_S) -> tuple[dict, bytes | None]:
        """(what the camera shows now: verdict, numbers, sticker check; the overlay JPEG)."""
        with self._lock:
            at, data, picture = self._look
            if data is not None and time.monotonic() - at < max_age:
                return data, picture
            data, picture = self._compute_look()
            self._look = (time.monotonic(), data, picture)
            return data, picture

    def _compute_look(self) -> tuple[dict, bytes | None]:
        import cv2

        from calibration.registration import check_registration
        from vision.detect import detect_markers
        from vision.draw import draw_reading
        from vision.reader import read_frame

        from ..camera.frames import jpeg

        frame = self.frame()
        status = self.session.camera.status()
        if frame is None:
            why = status.get("message") or (status.get("detail") or {}).get("message") or Text(N_("no picture yet"))
            message = Text(N_("The camera has given no picture yet (%(why)s)."), why=why)
            return {"picture": False, "message": message}, None
        scheme, calibration, config = self._reader()
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        reading, _ = read_frame(frame, scheme, calibration, config=config)
        det = detect_markers(gray, scheme, config)
        rep = check_registration(frame, scheme, calibration)
        picture = draw_reading(frame, reading, scheme, text=False)   # its words are the page's
        thick = max(1, round(max(frame.shape[:2]) / 700))
        board_ids = {m.id for m in scheme.board_markers}
        for marker_id, corners in zip(det.ids.tolist(), det.corners):
            if marker_id in board_ids:
                continue
            colour = KNOWN if marker_id in scheme.stickers else UNKNOWN
            cv2.polylines(picture, [np.asarray(corners).round().astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        charuco = self._draw_charuco(gray, picture, thick)
        data = {"picture": True, "size": [int(frame.shape[1]), int(frame.shape[0])], "charuco_corners": charuco,
                "exposure": dataclasses.asdict(self.config.camera.exposure),
                "located": bool(reading.located), "registration": rep.to_json(),
                "verdict": rep.verdict or "not located",
                "stickers": sticker_check(det.ids.tolist(), scheme, self.session.game)}
        advice = rep.advice or rep.why or (rep.problems[0] if rep.problems else
                                                Text(N_("put the whole board in view")))
        data["advice"] = advice
        return data, jpeg(picture)

    def _draw_charuco(self, gray, picture, thick: int) -> int:
        """Mark the calibration board's corners the camera finds now (so the owner sees a capture would
        count before tapping); returns how many."""
        import cv2

        corners, ids, _mc, _mi = cv2.aruco.CharucoDetector(self.spec.board()).detectBoard(gray)
        if ids is None:
            return 0
        for x, y in corners.reshape(-1, 2):
            cv2.circle(picture, (int(round(x)), int(round(y))), 3 * thick, (0, 255, 255), -1, cv2.LINE_AA)
        return int(len(ids))

    # -- lens calibration --------------------------------------------------------------------
    def capture(self) -> dict:
        """Add the current frame as a view of the ChArUco board (refused views say why)."""
        frame = self.frame()
        if frame is None:
            raise SetupError(Text(N_("The camera has given no picture yet: wait for it, then capture.")))
        with self._lock:
            n = len(self.views)
            corners = self.views.add(frame, f"view {n + 1}")
            out = self.calibration_summary()
        out["added"] = corners > 0
        message = (Text(N_("view %(n)s added: %(corners)s corners"), n=n + 1, corners=corners) if corners
                   else self.views.rejected[-1])
        out["message"] = message
        return out

    def calibration_summary(self) -> dict:
        from calibration.intrinsics import rms_advice

        out = self.views.summary()
        out["pending"] = None
        if self.pending is not None:
            k = self.pending.camera_matrix
            rms = rms_advice(self.pending.rms_px)
            out["pending"] = {"rms_px": round(self.pending.rms_px, 3), "advice": rms,
                              "fx": round(float(k[0, 0]), 1), "fy": round(float(k[1, 1]), 1),
                              "cx": round(float(k[0, 2]), 1), "cy": round(float(k[1, 2]), 1),
                              "image_size": list(self.pending.image_size)}
        out["saved_to"] = str(self.calibration_path())
        return out

    def reset_views(self) -> dict:
        from calibration.intrinsics import Views

        with self._lock:
            self.views = Views(self.spec)
            self.pending = None
            return self.calibration_summary()

    def compute(self) -> dict:
        """The lens calibration from the views so far; refused in one sentence when it cannot be right."""
        from calibration.intrinsics import NotEnoughViews, calibrate

        with self._lock:
            size = self.views.image_size
            want = tuple(self.config.camera.resolution)
            if size is not None and tuple(size) != want:
                raise SetupError(Text(N_("The views are %(views)s but [camera] resolution is %(want)s: a calibration "
                                         "describes one resolution only; set the resolution, then start again."),
                                      views=f"{size[0]}×{size[1]}", want=f"{want[0]}×{want[1]}"))
            try:
                self.pending = calibrate(self.views, min_views=MIN_VIEWS)
            except NotEnoughViews as exc:
                self.pending = None
                raise SetupError(Text(N_("Not calibrated: %(why)s."), why=exc)) from None
            return self.calibration_summary()

    def save_calibration(self) -> dict:
        """Write the computed calibration (atomically), point the configuration at it, reopen the camera."""
        from calibration.store import CalibrationError, check_size, save_calibration

        with self._lock:
            cal = self.pending
            if cal is None:
                raise SetupError(Text(N_("Nothing to save yet: capture views and press Calibrate first.")))
            frame = self.frame()
            try:
                check_size(cal, (frame.shape[1], frame.shape[0]) if frame is not None
                           else self.config.camera.resolution)
            except CalibrationError as exc:   # its wording data: said in the page's language
                raise SetupError(exc.text) from None
            path = self.calibration_path()
            save_calibration(cal, path)
        camera = dataclasses.replace(self.config.camera, calibration=path)
        note = self._write_config({"camera.calibration": str(path)})
        self._apply(camera)
        return {"saved": str(path), "config": note, "camera": self.session.camera.status()}

    # -- camera settings -------------------------------------------------------------------------
    def save_exposure(self, exposure_us: int, analogue_gain: float, colour_gains) -> dict:
        """Lock (or free: zeros) exposure, gain and white balance; stored in [camera.exposure]."""
        from ...config import ExposureConfig

        if not (isinstance(exposure_us, int) and 0 <= exposure_us <= 1_000_000):
            raise SetupError(Text(N_("exposure_us must be a whole number of microseconds from 0 (automatic) to 1000000")))
        if not (isinstance(analogue_gain, (int, float)) and 0 <= analogue_gain <= 64):
            raise SetupError(Text(N_("analogue_gain must be from 0 (automatic) to 64")))
        if colour_gains is not None and not (isinstance(colour_gains, list) and len(colour_gains) == 2 and all(
                isinstance(g, (int, float)) and 0.1 <= g <= 16 for g in colour_gains)):
            raise SetupError(Text(N_("colour_gains must be [red, blue] gains from 0.1 to 16, or null for automatic "
                                     "white balance")))
        exposure = ExposureConfig(int(exposure_us), float(analogue_gain),
                                  tuple(float(g) for g in colour_gains) if colour_gains else None)
        camera = dataclasses.replace(self.config.camera, exposure=exposure)
        settings = {"camera.exposure.exposure_us": exposure.exposure_us,
                    "camera.exposure.analogue_gain": exposure.analogue_gain}
        if exposure.colour_gains:
            settings["camera.exposure.colour_gains"] = list(exposure.colour_gains)
        note = self._write_config(settings)
        self._apply(camera)
        return {"exposure": dataclasses.asdict(exposure), "config": note,
                "camera": self.session.camera.status()}

    # -- applying and writing ------------------------------------------------------------------
    def _apply(self, camera) -> None:
        """Reopen the session's camera with ``camera`` (a CameraConfig); the old one goes only if the new opens."""
        from ..devices.devices import open_camera

        if not camera.enabled:
            self.config = dataclasses.replace(self.config, camera=camera)
            return
        rig = getattr(self.session, "simulated", None)       # the simulated table is its own camera
        device = open_camera(camera.source, lambda: twin_state(self.session), camera,
                             self.config.table.stable_frames, on_update=self.session.on_camera,
                             open_frames=rig.open_source if rig is not None else None)
        if device.obj is None:
            raise SetupError(Text(N_("Saved, but the camera could not use it: %(why)s"), why=device.why))
        old, self.session.camera = self.session.camera, device
        self.config = dataclasses.replace(self.config, camera=camera)
        old.call(lambda obj: obj.close())
        with self._lock:
            self._look = (0.0, None, None)

    def _write_config(self, settings: dict) -> Text:
        """Set ``section.key`` values in the table configuration file, atomically; says what was done."""
        from calibration.store import atomic_write

        from ...config import TableConfigError, set_in_text

        path = self.config.path
        if path is None:
            lines = ", ".join(f"{k.rpartition('.')[2]} = {v!r}" for k, v in settings.items())
            return Text(N_("flure play was started without --config: the running session uses it now; to keep it, "
                           "put %(lines)s in your table.toml"), lines=lines)
        text = path.read_text(encoding="utf-8")
        for dotted, value in settings.items():
            section = dotted.rpartition(".")[0]
            if f"[{section}]" not in text:
                text = text.rstrip("\n") + f"\n\n[{section}]\n"
            try:
                text = set_in_text(text, {dotted: value})
            except TableConfigError as exc:
                raise SetupError(Text(N_("%(where)s: %(error)s"), where=str(path), error=exc)) from None
        atomic_write(path, text.encode("utf-8"))
        return Text(N_("%(path)s updated (the previous version is %(backup)s)"), path=path, backup=f"{path.name}.bak")

    # -- LED check ---------------------------------------------------------------------------------
    def light(self, what: str) -> dict:
        """``all`` lights every square in turn; ``row 3`` / ``column g`` lights those squares at once."""
        kind, _, which = what.partition(" ")
        if kind not in ("all", "row", "column"):
            raise SetupError(Text(N_("light 'all', 'row N' (1–11) or 'column X' (a–p)")))
        squares = [square_name(sq) for sq in SQUARES] if kind == "all" else line_squares(kind, which)
        if self.session.leds.obj is None:
            raise SetupError(Text(N_("No LED grid: %(why)s"), why=self.session.leds.why))
        if kind == "all":
            self.session.leds.call(lambda leds: leds.show_squares(0.4))
        else:
            self.session.leds.call(lambda leds: leds.show_follow(None, fill=tuple(squares)))
        return {"lit": what, "squares": squares, "leds": self.session.leds.status()}

    def marks(self) -> dict:
        from engine import jsontext

        try:
            data = jsontext.loads(self.marks_path().read_bytes())
            wrong = [s for s in data.get("wrong", []) if isinstance(s, str)] if isinstance(data, dict) else []
        except (OSError, jsontext.JsonTextError):
            wrong = []
        return {"wrong": sorted(set(wrong)), "file": str(self.marks_path())}

    def mark(self, square: str, wrong: bool) -> dict:
        import json

        from calibration.store import atomic_write

        if square not in {square_name(sq) for sq in SQUARES}:
            raise SetupError(Text(N_("%(square)s is not a square of the board (a1 to p11)"), square=repr(square)))
        current = set(self.marks()["wrong"])
        (current.add if wrong else current.discard)(square)
        atomic_write(self.marks_path(), (json.dumps({"format": "flure-led-check/1", "wrong": sorted(current)},
                                                    indent=1) + "\n").encode())
        return self.marks()

    # -- doctor card -------------------------------------------------------------------------------
    def doctor(self, lang: str = DEFAULT) -> list[dict]:
        """flure doctor's checks that do not need the devices the session holds, plus the session's own view;
        worded in ``lang`` (the Setup page's language), topics included."""
        from .checks import N_, Finding, check_board, check_calibration, check_database

        findings = check_calibration(self.config, lang)
        frame = self.frame()
        findings += check_board(frame, self.config, lang) if frame is not None else [
            Finding(N_("board"), False, _g(lang, "the camera has given no picture yet"))]
        findings += check_database(self.config, lang)
        for name, device in ((N_("camera (in this session)"), self.session.camera),
                             (N_("LED device (in this session)"), self.session.leds),
                             (N_("buttons (in this session)"), self.session.buttons)):
            status = device.status()   # a device off on purpose (not a Pi, switched off) is fine, as in flure doctor
            ok = (status.get("present", False) or status.get("off", False)) and not status.get("error")
            said = next((key for key in ("error", "note", "message") if status.get(key)), None)
            findings.append(Finding(name, ok, _g(lang, "working") if said is None else render(status[said], lang)))
        phone = getattr(self, "phone", None)      # [camera] source = "phone" (web/camera_page.py attaches it)
        if phone is not None:
            state = phone.status()
            findings.append(Finding(N_("phone camera (in this session)"), state["connected"],
                                    render(state["message"].text, lang)))
        findings.append(Finding(N_("more"), True, _g(lang, "the camera's frame rate, the LED device's answer, the "
                                                           "buttons' pins and the web port are checked by `flure "
                                                           "doctor` with the session stopped")))
        return [{"topic": _g(lang, f.topic), "ok": f.ok, "text": f.text} for f in findings]


def sticker_check(ids: list[int], scheme, game=None) -> dict:
    """The stickers seen against the game's piece set: pieces seen, pieces missing, ids the game does
    not have, and what was seen twice — one id twice (a duplicate sticker), or both faces of one
    piece at once (``Sticker.physical``: two faces of one object cannot both be up).

    With a ``game``, the pawns it does not play (other colours, the other pawn set) are not asked
    for: ``left_out`` counts them.  ``names`` gives each piece of ``seen`` and ``missing`` in words and
    ``twice`` is in words (wording data, said in the page's language)."""
    from engine.game import pawn_set
    from vision.problems import object_words, piece_words

    board = {m.id for m in scheme.board_markers}
    counts: dict[int, int] = {}
    for i in ids:
        if i not in board:
            counts[i] = counts.get(i, 0) + 1
    pieces: dict[str, list[int]] = {}
    words: dict[str, Text] = {}
    left_out: set[str] = set()
    for sid, sticker in scheme.stickers.items():
        pieces.setdefault(sticker.physical, []).append(sid)
        words.setdefault(sticker.physical, object_words(sticker))
        if game is not None and sticker.piece == "pawn" and (
                sticker.colour not in game.players or sticker.pawn not in pawn_set(len(game.players))):
            left_out.add(sticker.physical)
    seen = sorted(p for p, sids in pieces.items() if any(s in counts for s in sids))
    missing = sorted(p for p in pieces if p not in seen and p not in left_out)
    twice = [Text(N_("sticker %(id)s (%(piece)s) %(count)s times"), id=i, piece=piece_words(scheme.stickers[i]), count=n)
             for i, n in sorted(counts.items()) if n > 1 and i in scheme.stickers]
    twice += [Text(N_("%(piece)s: both faces"), piece=words[p]) for p, sids in pieces.items()
              if sum(s in counts for s in sids) > 1]
    return {"seen": seen, "missing": missing, "twice": twice, "names": {p: words[p] for p in seen + missing},
            "unknown": sorted(i for i in counts if i not in scheme.stickers),
            "pieces": len(pieces) - len(left_out), "left_out": len(left_out)}


def line_squares(kind: str, which: str) -> list[str]:
    """The squares of one row (1–11) or column (a–p)."""
    names = [square_name(sq) for sq in SQUARES]
    if kind == "row" and which.isdigit() and 1 <= int(which) <= ROWS:
        return [n for n in names if n[1:] == which]
    if kind == "column" and len(which) == 1 and "a" <= which <= chr(ord("a") + COLS - 1):
        return [n for n in names if n[0] == which]
    last = chr(ord("a") + COLS - 1)
    if kind == "row":
        raise SetupError(Text(N_("no row %(which)s: rows are 1–%(rows)s, columns a–%(last)s"), which=repr(which),
                              rows=ROWS, last=last))
    raise SetupError(Text(N_("no column %(which)s: rows are 1–%(rows)s, columns a–%(last)s"), which=repr(which),
                          rows=ROWS, last=last))
