"""The table's own checks, shared by ``flure doctor`` (``cli/checks.py``) and the Setup page's doctor
card: the calibration file, the board and sticker size in one frame, the database location.

Why apart from ``cli/checks.py``: these need nothing above the table layer (no web port probe),
so the Setup page (web over table) can run them beside the running session.  Nothing here raises.
Each check words its findings in ``lang`` (``flure doctor --lang de``; English by default); the
``ok``/``FIX`` column of ``Finding.line`` stays the same in every language, for scripts that grep it.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

from ...i18n import DEFAULT, ngettext_in
from ...i18n import gettext as _g
from ...i18n.text import error_text, render

N_ = lambda s: s   # noqa: E731 - marks a msgid (a finding's topic) for extraction; Finding.line words it
MIN_FREE_MB = 50            # the journal grows by a few kB a game; less than this is a full card


@dataclass
class Finding:
    topic: str
    ok: bool
    text: str            # what was found, or what to do

    def line(self, lang: str = DEFAULT) -> str:
        """``ok   topic: text`` or ``FIX  topic: text``; the topic in ``lang`` (the text is already)."""
        return f"{'ok ' if self.ok else 'FIX'}  " + _g(lang, "%(topic)s: %(text)s", topic=_g(lang, self.topic),
                                                      text=self.text)   # the Setup page's words (fr: U+00A0 before :)


# --- calibration -------------------------------------------------------------------------------

def check_calibration(config, lang: str = DEFAULT) -> list[Finding]:
    path = config.camera.calibration
    if path is None:
        return [Finding(N_("calibration"), True, _g(lang, "none configured: the reader estimates the lens from the "
                                                          "board markers (a wide-angle lens needs one: flure calibrate "
                                                          "camera)"))]
    from calibration.store import CalibrationError, hfov_deg, load_calibration

    try:
        cal = load_calibration(path)
    except CalibrationError as exc:
        return [Finding(N_("calibration"), False, _g(lang, "%(why)s; make one with flure calibrate camera or remove "
                                                           "[camera] calibration", why=error_text(exc, lang)))]
    problems = calibration_problems(cal, config.camera.resolution, lang)
    if problems:
        return [Finding(N_("calibration"), False, _g(lang, "%(where)s: %(error)s", where=path, error="; ".join(problems)))]
    fx = float(cal.camera_matrix[0, 0])
    hfov = hfov_deg(fx, cal.image_size[0])
    rms = f", RMS {cal.rms_px:.2f} px" if cal.rms_px is not None else ""
    return [Finding(N_("calibration"), True, _g(lang, "%(path)s: %(size)s, field of view %(degrees)s°", path=path,
                                                size=f"{cal.image_size[0]}×{cal.image_size[1]}",
                                                degrees=f"{hfov:.0f}") + rms)]


def calibration_problems(cal, resolution: tuple[int, int], lang: str = DEFAULT) -> list[str]:
    """What makes a calibration unusable for this camera: another resolution, an implausible lens."""
    from calibration.store import lens_problems

    out = []
    w, h = cal.image_size
    if (w, h) != tuple(resolution):
        out.append(_g(lang, "made at %(made)s but the camera is set to %(size)s ([camera] resolution): calibrate "
                            "again at that size or set the resolution back", made=f"{w}×{h}",
                      size=f"{resolution[0]}×{resolution[1]}"))
    return out + [render(problem, lang) for problem in lens_problems(cal)]


def check_board(frame, config, lang: str = DEFAULT) -> list[Finding]:
    """Board located and sticker size verdict, from one frame (calibration.registration)."""
    from calibration.registration import MIN_STICKER_PX, check_registration
    from calibration.store import CalibrationError, load_calibration
    from vision.scheme import SchemeError, load_scheme

    try:
        scheme = load_scheme(config.camera.marker_scheme)
    except SchemeError as exc:
        return [Finding(N_("marker scheme"), False, _g(lang, "%(why)s; fix the file or remove [camera] marker_scheme",
                                                       why=error_text(exc, lang)))]
    cal = None
    if config.camera.calibration is not None:
        try:
            cal = load_calibration(config.camera.calibration)
        except CalibrationError:
            cal = None    # said under "calibration"
    rep = check_registration(frame, scheme, cal)
    if rep.smallest_sticker_px is None:
        why = render(rep.why, lang) if rep.why is not None else "; ".join(rep.problems) or _g(lang, "board not located")
        return [Finding(N_("board"), False, _g(lang, "%(why)s: put the whole board with its four corner markers in "
                                                     "view", why=why))]
    located = (_g(lang, "located, camera %(cm)s cm up, tilted %(degrees)s°", cm=f"{rep.camera_height_mm / 10:.0f}",
                  degrees=f"{rep.tilt_deg:.0f}") if rep.camera_height_mm and rep.tilt_deg is not None
               else _g(lang, "located"))
    if rep.markers_missing:
        located += ngettext_in(lang, "; corner marker %(markers)s not seen: clear it",
                               "; corner markers %(markers)s not seen: clear them", len(rep.markers_missing),
                               markers=", ".join(map(str, rep.markers_missing)))
    out = [Finding(N_("board"), not rep.markers_missing, located)]
    px = rep.smallest_sticker_px
    if px < MIN_STICKER_PX:
        out.append(Finding(N_("sticker size"), False,
                           _g(lang, "the smallest stickers are %(px)s px at the far corner, %(need)s px needed: too "
                                    "far — lower the camera to about %(height)s or raise [camera] resolution "
                                    "(deploy/README.md has the table)", px=f"{px:.0f}", need=f"{MIN_STICKER_PX:.0f}",
                              height=_height_for(rep.camera_height_mm, px, MIN_STICKER_PX, lang))))
    else:
        out.append(Finding(N_("sticker size"), True, _g(lang, "the smallest stickers are %(px)s px at the far corner "
                                                              "(≥ %(need)s px needed): good", px=f"{px:.0f}",
                                                        need=f"{MIN_STICKER_PX:.0f}")))
    return out


def _height_for(height_mm: float | None, px: float, need: float, lang: str = DEFAULT) -> str:
    if not height_mm:
        return _g(lang, "where the stickers look bigger")
    return f"{height_mm * px / need / 10:.0f} cm"


# --- database ---------------------------------------------------------------------------------

def check_database(config, lang: str = DEFAULT) -> list[Finding]:
    db = config.web.database_path()
    folder = db.parent
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return [Finding(N_("database"), False, _g(lang, "%(folder)s cannot be made (%(probe)s is not a folder): set "
                                                        "[web] database", folder=folder, probe=probe))]
    if db.exists() and not os.access(db, os.R_OK | os.W_OK):
        return [Finding(N_("database"), False, _g(lang, "%(path)s is there but not writable by this user: fix its "
                                                        "owner (the service runs as flure) or set [web] database",
                                                  path=db))]
    if not os.access(probe, os.W_OK | os.X_OK):
        return [Finding(N_("database"), False, _g(lang, "%(probe)s is not writable by this user, so %(path)s cannot "
                                                        "be written: set [web] database to a writable place",
                                                  probe=probe, path=db))]
    free_mb = shutil.disk_usage(probe).free / 1e6
    if free_mb < MIN_FREE_MB:
        return [Finding(N_("database"), False, _g(lang, "only %(mb)s MB free where %(path)s lives (%(need)s MB "
                                                        "wanted): free some space", mb=f"{free_mb:.0f}", path=db,
                                                  need=MIN_FREE_MB))]
    return [Finding(N_("database"), True, _g(lang, "%(path)s is writable, %(gb)s GB free", path=db,
                                             gb=f"{free_mb / 1000:.1f}")), *check_journal(config, lang)]


def check_journal(config, lang: str = DEFAULT) -> list[Finding]:
    """What the journal holds (read-only, beside a running session): games, steps, bytes, and what it keeps."""
    import sqlite3

    db = config.web.database_path()
    if not db.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            games = con.execute("SELECT count(*) FROM games").fetchone()[0]
            steps, snapshots = con.execute("SELECT count(*), coalesce(sum(state != ''), 0) FROM steps").fetchone()
    except sqlite3.Error as exc:
        return [Finding(N_("journal"), False, _g(lang, "%(path)s cannot be read (%(why)s): flure play keeps it aside "
                                                       "and starts a fresh journal", path=db, why=exc))]
    size = sum(os.path.getsize(f"{db}{suffix}") for suffix in ("", "-wal") if os.path.exists(f"{db}{suffix}"))
    web = config.web
    return [Finding(N_("journal"), True, _g(lang, "%(kb)s KB: %(games)s games, %(steps)s steps (%(snapshots)s with the "
                                                  "whole state); it keeps the last %(keep)s games, none older than "
                                                  "%(days)s days ([web] keep_games, keep_days)",
                                            kb=f"{size / 1000:.0f}", games=games, steps=steps, snapshots=snapshots,
                                            keep=web.keep_games, days=web.keep_days))]
