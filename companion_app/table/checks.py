"""The table's own checks, shared by ``flure doctor`` (``cli/checks.py``) and the Setup page's doctor
card: the calibration file, the board and sticker size in one frame, the database location.

Why apart from ``cli/checks.py``: these need nothing above the table layer (no web port probe),
so the Setup page (web over table) can run them beside the running session.  Nothing here raises.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

MIN_FREE_MB = 50            # the journal grows by a few kB a game; less than this is a full card


@dataclass
class Finding:
    topic: str
    ok: bool
    text: str            # what was found, or what to do

    def line(self) -> str:
        return f"{'ok ' if self.ok else 'FIX'}  {self.topic}: {self.text}"


# --- calibration -------------------------------------------------------------------------------

def check_calibration(config) -> list[Finding]:
    path = config.camera.calibration
    if path is None:
        return [Finding("calibration", True, "none configured: the reader estimates the lens from the board "
                                             "markers (a wide-angle lens needs one: flure calibrate camera)")]
    from calibration.store import CalibrationError, hfov_deg, load_calibration

    try:
        cal = load_calibration(path)
    except CalibrationError as exc:
        return [Finding("calibration", False, f"{exc}; make one with flure calibrate camera or remove "
                                              "[camera] calibration")]
    problems = calibration_problems(cal, config.camera.resolution)
    if problems:
        return [Finding("calibration", False, f"{path}: " + "; ".join(problems))]
    fx = float(cal.camera_matrix[0, 0])
    hfov = hfov_deg(fx, cal.image_size[0])
    rms = f", RMS {cal.rms_px:.2f} px" if cal.rms_px is not None else ""
    return [Finding("calibration", True, f"{path}: {cal.image_size[0]}×{cal.image_size[1]}, "
                                         f"field of view {hfov:.0f}°{rms}")]


def calibration_problems(cal, resolution: tuple[int, int]) -> list[str]:
    """What makes a calibration unusable for this camera: another resolution, an implausible lens."""
    from calibration.store import lens_problems

    out = []
    w, h = cal.image_size
    if (w, h) != tuple(resolution):
        out.append(f"made at {w}×{h} but the camera is set to {resolution[0]}×{resolution[1]} "
                   "([camera] resolution): calibrate again at that size or set the resolution back")
    return out + lens_problems(cal)


def check_board(frame, config) -> list[Finding]:
    """Board located and sticker size verdict, from one frame (calibration.registration)."""
    from calibration.registration import MIN_STICKER_PX, check_registration
    from calibration.store import CalibrationError, load_calibration
    from vision.scheme import SchemeError, load_scheme

    try:
        scheme = load_scheme(config.camera.marker_scheme)
    except SchemeError as exc:
        return [Finding("marker scheme", False, f"{exc}; fix the file or remove [camera] marker_scheme")]
    cal = None
    if config.camera.calibration is not None:
        try:
            cal = load_calibration(config.camera.calibration)
        except CalibrationError:
            cal = None    # said under "calibration"
    rep = check_registration(frame, scheme, cal)
    if rep.smallest_sticker_px is None:
        why = "; ".join(rep.problems) or "board not located"
        return [Finding("board", False, f"{why}: put the whole board with its four corner markers in view")]
    out = [Finding("board", not rep.markers_missing,
                   "located" + (f", camera {rep.camera_height_mm / 10:.0f} cm up, tilted {rep.tilt_deg:.0f}°"
                                if rep.camera_height_mm and rep.tilt_deg is not None else "")
                   + ("" if not rep.markers_missing else
                      f"; corner marker(s) {', '.join(map(str, rep.markers_missing))} not seen: clear them"))]
    px = rep.smallest_sticker_px
    if px < MIN_STICKER_PX:
        out.append(Finding("sticker size", False,
                           f"the smallest stickers are {px:.0f} px at the far corner, {MIN_STICKER_PX:.0f} px "
                           f"needed: too far — lower the camera to about "
                           f"{_height_for(rep.camera_height_mm, px, MIN_STICKER_PX)} or raise [camera] resolution "
                           "(deploy/README.md has the table)"))
    else:
        out.append(Finding("sticker size", True, f"the smallest stickers are {px:.0f} px at the far corner "
                                                 f"(≥ {MIN_STICKER_PX:.0f} px needed): good"))
    return out


def _height_for(height_mm: float | None, px: float, need: float) -> str:
    if not height_mm:
        return "where the stickers look bigger"
    return f"{height_mm * px / need / 10:.0f} cm"


# --- database ---------------------------------------------------------------------------------

def check_database(config) -> list[Finding]:
    db = config.web.database_path()
    folder = db.parent
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return [Finding("database", False, f"{folder} cannot be made ({probe} is not a folder): set [web] database")]
    if db.exists() and not os.access(db, os.R_OK | os.W_OK):
        return [Finding("database", False, f"{db} is there but not writable by this user: fix its owner "
                                           "(the service runs as flure) or set [web] database")]
    if not os.access(probe, os.W_OK | os.X_OK):
        return [Finding("database", False, f"{probe} is not writable by this user, so {db} cannot be "
                                           "written: set [web] database to a writable place")]
    free_mb = shutil.disk_usage(probe).free / 1e6
    if free_mb < MIN_FREE_MB:
        return [Finding("database", False, f"only {free_mb:.0f} MB free where {db} lives ({MIN_FREE_MB} MB "
                                           "wanted): free some space")]
    return [Finding("database", True, f"{db} is writable, {free_mb / 1000:.1f} GB free")]
