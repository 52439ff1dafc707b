"""Board registration check: does the camera see the board the way the scheme says?

Run once when the table is set up (``flure calibrate check IMAGE``).  It locates the
board from the corner markers and reports, in plain language, what would make readings
unreliable: hidden corner markers, markers stuck elsewhere than the scheme says (large
fit error), stickers too small in the image, the card zone out of view.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.detect import check_frame, detect_markers
from vision.locate import locate_board
from vision.scheme import load_scheme

MIN_STICKER_PX = 14.0      # the reader's accuracy target holds from here up
MAX_MARKER_ERROR_MM = 3.0


@dataclass
class RegistrationReport:
    ok: bool
    markers_seen: list[int] = field(default_factory=list)
    markers_missing: list[int] = field(default_factory=list)
    marker_error_mm: dict[str, float] = field(default_factory=dict)
    smallest_sticker_px: float | None = None
    camera_height_mm: float | None = None
    tilt_deg: float | None = None
    card_zone_in_view: bool | None = None
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"ok": self.ok, "markers_seen": self.markers_seen, "markers_missing": self.markers_missing,
                "marker_error_mm": self.marker_error_mm,
                "smallest_sticker_px": None if self.smallest_sticker_px is None else round(self.smallest_sticker_px, 1),
                "camera_height_mm": None if self.camera_height_mm is None else round(self.camera_height_mm),
                "tilt_deg": None if self.tilt_deg is None else round(self.tilt_deg, 1),
                "card_zone_in_view": self.card_zone_in_view, "problems": self.problems}


def check_registration(image, scheme=None, calibration=None) -> RegistrationReport:
    """Check one frame of the empty (or set-up) table against the marker scheme."""
    scheme = scheme if scheme is not None and not isinstance(scheme, str) else load_scheme(scheme)
    gray, reason = check_frame(image)
    if gray is None:
        return RegistrationReport(False, problems=[f"board not located: {reason}"])
    det = detect_markers(gray, scheme)
    h, w = gray.shape[:2]
    result = locate_board(det, (w, h), scheme, calibration)
    loc = result.location
    if loc is None:
        return RegistrationReport(False, problems=[result.reason or "board not located"])
    rep = RegistrationReport(True, list(loc.markers_seen), list(loc.markers_missing))
    for m in scheme.board_markers:
        idx = np.flatnonzero(det.ids == m.id)
        if len(idx) != 1:
            continue
        seen_mm = loc.to_board(loc.undistort(det.corners[idx[0]]))
        err = float(np.max(np.linalg.norm(seen_mm - np.array(m.corners_mm()), axis=1)))
        rep.marker_error_mm[str(m.id)] = round(err, 2)
        if err > MAX_MARKER_ERROR_MM:
            rep.problems.append(f"corner marker {m.id} ({m.corner}) is {err:.1f} mm from where the marker "
                                "scheme puts it: move the sticker or correct the scheme file")
    if loc.markers_missing:
        rep.problems.append("corner marker(s) " + ", ".join(map(str, loc.markers_missing))
                            + " not seen: all four should be in view with nothing on them")
    # How big the smallest sticker would be at the far corner of the grid.
    size = min(st.size_mm for st in scheme.stickers.values())
    gw, gh = scheme.grid_mm
    sides = []
    for x, y in ((0, 0), (gw, 0), (gw, gh), (0, gh)):
        quad = np.array([[x, y], [x + size, y], [x + size, y + size], [x, y + size]], dtype=float)
        px = loc.to_image(quad)
        sides.append(float(np.mean(np.linalg.norm(px - np.roll(px, 1, axis=0), axis=1))))
    rep.smallest_sticker_px = min(sides)
    if rep.smallest_sticker_px < MIN_STICKER_PX:
        rep.problems.append(f"the smallest stickers ({size:.0f} mm) are only {rep.smallest_sticker_px:.0f} px "
                            f"wide at the board's far corner; {MIN_STICKER_PX:.0f} px are needed: lower the "
                            "camera or raise its resolution")
    rep.camera_height_mm = loc.camera_height_mm
    rep.tilt_deg = loc.tilt_deg
    x, y, zw, zh = scheme.card_zone_mm
    rep.card_zone_in_view = loc.in_view(np.array([[x, y], [x + zw, y], [x + zw, y + zh], [x, y + zh]]))
    if not rep.card_zone_in_view:
        rep.problems.append("the card zone (where the tombstone tile goes) is not fully in view")
    rep.ok = not rep.problems
    return rep
