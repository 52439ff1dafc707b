"""A camera calibration on disk: intrinsics, lens distortion, and (optionally) the
board registration that was checked with it.

Two file forms, chosen by the extension: ``.json`` (readable, the default) and
``.npz`` (numpy).  Both carry ``"format": "flure-calibration/1"``; a file without it, of
another version, corrupt, truncated or incomplete raises CalibrationError naming the file
and the field in one sentence — the reader falls back to no calibration only if told to.

Files are written atomically (a temporary file in the same folder, then ``os.replace``),
the previous file kept as ``NAME.bak``: a power cut or a full card mid-write leaves the
last good calibration in place, never half a file.
"""
from __future__ import annotations

import io
import json
import math
import os
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import jsontext
from engine.errors import FlureError
from engine.wording import N_, Text, os_reason

FORMAT = "flure-calibration/1"


class CalibrationError(FlureError, ValueError):
    """A calibration that cannot be used: ``message`` (wording data) after the file and the field it
    names, so the Setup page, flure doctor and the commands say it all in the reader's language."""

    def __init__(self, message, path: str | Path | None = None, field_name: str | None = None):
        self.path = str(path) if path is not None else None
        self.field = field_name
        where = Text(N_("calibration file %(path)s"), path=self.path) if path is not None else Text(N_("calibration"))
        if field_name:
            where = Text(N_("%(where)s: %(error)s"), where=where, error=field_name)
        super().__init__(Text(N_("%(where)s: %(error)s"), where=where, error=message))


@dataclass
class Calibration:
    """Pinhole intrinsics for one camera at one resolution (``image_size`` = (w, h))."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    rms_px: float | None = None
    frames_used: int | None = None
    registration: dict | None = None          # board registration check result
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        out = {"format": FORMAT,
               "image_size": [int(self.image_size[0]), int(self.image_size[1])],
               "camera_matrix": np.asarray(self.camera_matrix, dtype=float).tolist(),
               "dist_coeffs": np.asarray(self.dist_coeffs, dtype=float).ravel().tolist(),
               "rms_px": self.rms_px, "frames_used": self.frames_used}
        if self.registration is not None:
            out["registration"] = self.registration
        if self.extra.get("date") is None:
            import datetime
            out["date"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        out.update(self.extra)
        return out


def save_calibration(cal: Calibration, path: str | Path) -> Path:
    """Write ``cal`` atomically; an existing file is kept as ``NAME.bak`` (see ``atomic_write``)."""
    p = Path(path)
    if p.suffix.lower() == ".npz":
        buf = io.BytesIO()
        np.savez(buf, format=np.array(FORMAT), image_size=np.array(cal.image_size, dtype=np.int64),
                 camera_matrix=np.asarray(cal.camera_matrix, dtype=np.float64),
                 dist_coeffs=np.asarray(cal.dist_coeffs, dtype=np.float64).ravel(),
                 rms_px=np.array(np.nan if cal.rms_px is None else cal.rms_px),
                 registration=np.array(json.dumps(cal.registration)))
        data = buf.getvalue()
    else:
        data = (json.dumps(cal.to_json(), indent=1) + "\n").encode("utf-8")
    return atomic_write(p, data)


def atomic_write(path: str | Path, data: bytes, keep_backup: bool = True) -> Path:
    """Write ``data`` to ``path`` all or nothing: a temporary file in the same folder, flushed to
    disk, then renamed over ``path`` (``os.replace`` is atomic on one file system).  The file it
    replaces is kept as ``path.bak`` first (a hard link, so ``path`` itself never goes missing).
    If anything fails the temporary file is removed and ``path`` is as it was."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if keep_backup and p.is_file():
            bak = p.with_name(p.name + ".bak")
            bak.unlink(missing_ok=True)
            try:
                os.link(p, bak)
            except OSError:            # a file system without hard links: a copy will do
                import shutil
                shutil.copy2(p, bak)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p


def load_calibration(path: str | Path) -> Calibration:
    """Read a calibration file; CalibrationError says what is wrong and where."""
    p = Path(path)
    if not p.is_file():
        raise CalibrationError(Text(N_("no such file (make one with `flure calibrate camera` or the Setup page)")), p)
    if p.suffix.lower() == ".npz":
        data = _read_npz(p)
    else:
        try:
            data = jsontext.loads(p.read_bytes())
        except OSError as exc:
            raise CalibrationError(Text(N_("cannot be read (%(why)s)"), why=os_reason(exc)), p) from None
        except jsontext.JsonTextError as exc:   # not UTF-8, not JSON, nested too deep, huge numbers
            raise CalibrationError(Text(N_("is %(why)s; run `flure calibrate camera` again"), why=exc)
                                   if isinstance(exc, jsontext.NotJsonError) else
                                   Text(N_("cannot be used (%(why)s); run `flure calibrate camera` again"), why=exc),
                                   p) from None
    return parse_calibration(data, p)


def _read_npz(p: Path) -> dict:
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise CalibrationError(Text(N_("is not a readable .npz file (%(why)s)"), why=exc), p) from None
    out: dict = {}
    for k, v in data.items():
        out[k] = v.tolist() if v.ndim else v.item()
    if isinstance(out.get("registration"), str):
        try:
            out["registration"] = jsontext.loads(out["registration"])
        except jsontext.JsonTextError:
            raise CalibrationError(Text(N_("is not valid JSON")), p, "registration") from None
    if isinstance(out.get("rms_px"), float) and math.isnan(out["rms_px"]):
        out["rms_px"] = None
    return out


def parse_calibration(data, path=None) -> Calibration:
    if not isinstance(data, dict):
        raise CalibrationError(Text(N_("must hold an object")), path)
    fmt = data.get("format")
    if fmt is None:
        raise CalibrationError(Text(N_("missing; a calibration file starts with \"format\": \"%(format)s\" "
                                       "(run `flure calibrate camera` or the Setup page again)"), format=FORMAT),
                               path, "format")
    if fmt != FORMAT:
        raise CalibrationError(Text(N_("is %(value)s, this version reads %(format)s only "
                                       "(run `flure calibrate camera` or the Setup page again)"),
                                    value=repr(str(fmt)[:40]), format=repr(FORMAT)), path, "format")
    size = data.get("image_size")
    if (not isinstance(size, list) or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)):
        raise CalibrationError(Text(N_("must be [width, height] in pixels")), path, "image_size")
    try:
        k = np.asarray(data.get("camera_matrix"), dtype=np.float64)
    except (TypeError, ValueError):
        k = np.zeros(0)
    if k.shape != (3, 3) or not np.all(np.isfinite(k)) or k[0, 0] <= 0 or k[1, 1] <= 0 or k[2, 2] != 1:
        raise CalibrationError(Text(N_("must be a 3×3 camera matrix [[fx,0,cx],[0,fy,cy],[0,0,1]] with fx, fy > 0")),
                               path, "camera_matrix")
    try:
        dist = np.asarray(data.get("dist_coeffs"), dtype=np.float64).ravel()
    except (TypeError, ValueError):
        dist = np.zeros(0)
    if dist.size not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(dist)):
        raise CalibrationError(Text(N_("must be a list of 4, 5, 8, 12 or 14 numbers")), path, "dist_coeffs")
    rms = data.get("rms_px")
    if rms is not None and not isinstance(rms, (int, float)):
        raise CalibrationError(Text(N_("must be a number or null")), path, "rms_px")
    reg = data.get("registration")
    if reg is not None and not isinstance(reg, dict):
        raise CalibrationError(Text(N_("must be an object or null")), path, "registration")
    frames = data.get("frames_used")
    extra = {key: data[key] for key in ("date", "views", "charuco") if key in data}
    return Calibration(k, dist, (size[0], size[1]), None if rms is None else float(rms),
                       frames if isinstance(frames, int) else None, reg, extra)


def check_size(cal: Calibration, size: tuple[int, int], path=None) -> None:
    """Refuse a calibration made at another resolution: its pixels describe that size only."""
    w, h = (int(v) for v in size)
    cw, ch = cal.image_size
    if (w, h) != (cw, ch):
        raise CalibrationError(Text(N_("was made at %(made)s but the camera gives %(size)s: calibrate again at that "
                                       "size (flure calibrate camera, or the Setup page)"),
                                    made=f"{cw}×{ch}", size=f"{w}×{h}"), path, "image_size")


def hfov_deg(fx: float, width: int) -> float:
    """The horizontal field of view of a focal length ``fx`` px over ``width`` px."""
    return math.degrees(2 * math.atan(width / (2 * fx))) if fx > 0 else 0.0


def lens_problems(cal: Calibration) -> list[Text]:
    """What no real camera gives: a field of view outside 20–160° (six copies of one flat photo gave
    a focal length of 152678 px), fx and fy 10 % apart, the image centre far off the middle, or a
    reprojection error above 2 px.  Each entry is one sentence ending in what to do (wording data:
    ``str()`` is the English)."""
    out = []
    w, h = cal.image_size
    k = np.asarray(cal.camera_matrix, dtype=float)
    fx, fy, cx, cy = k[0, 0], k[1, 1], k[0, 2], k[1, 2]
    hfov = hfov_deg(fx, w)
    if not 20 <= hfov <= 160:
        out.append(Text(N_("its focal length (%(fx)s px, a %(hfov)s° field of view) is no real camera's: the views "
                           "were too alike; calibrate again with the board tilted in many directions"),
                        fx=f"{fx:.0f}", hfov=f"{hfov:.1f}"))
    if fy > 0 and not 0.9 <= fx / fy <= 1.1:
        out.append(Text(N_("fx %(fx)s and fy %(fy)s px differ by more than 10 %%: calibrate again"),
                        fx=f"{fx:.0f}", fy=f"{fy:.0f}"))
    if not (0.3 * w <= cx <= 0.7 * w and 0.3 * h <= cy <= 0.7 * h):
        out.append(Text(N_("the image centre it found (%(cx)s, %(cy)s) is far from the picture's middle: "
                           "calibrate again"), cx=f"{cx:.0f}", cy=f"{cy:.0f}"))
    if cal.rms_px is not None and cal.rms_px > 2.0:
        out.append(Text(N_("its reprojection error is %(rms)s px (above 2 px): calibrate again with sharper views"),
                        rms=f"{cal.rms_px:.2f}"))
    return out
