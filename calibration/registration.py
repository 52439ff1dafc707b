"""Board registration check: does the camera see the board the way the scheme says?

Run once when the table is set up (``flure calibrate check IMAGE``).  It locates the
board from the corner markers and reports, in plain language, what would make readings
unreliable: hidden corner markers, markers stuck elsewhere than the scheme says (large
fit error), stickers too small in the image, the card zone out of view.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.wording import N_, Plural, Said, Term, Text
from vision.detect import check_frame, detect_markers
from vision.locate import locate_board
from vision.problems import board_not_located
from vision.scheme import load_scheme

MIN_STICKER_PX = 14.0      # the reader's accuracy target holds from here up
MAX_MARKER_ERROR_MM = 3.0
MAX_TILT_DEG = 15.0        # deploy/README.md: the camera looks straight down, tilt under ~15°
VIEW_MARGIN_MM = 80.0      # the grid and card zone in view with this much to spare (pawns stand beside the board)
RESOLUTIONS = ((1280, 720, "720p"), (1920, 1080, "1080p"), (2560, 1440, "1440p"), (3840, 2160, "4K"))


# The scheme file's corner names (vision/scheme.py CORNER_NAMES) as msgids: a report words them.
CORNERS = (N_("top-left"), N_("top-right"), N_("bottom-right"), N_("bottom-left"))
MARKER_OFF = N_("corner marker %(id)s (%(corner)s) is %(mm)s mm from where the marker scheme puts it: move the "
                "sticker or correct the scheme file")
STICKERS_SMALL = N_("the smallest stickers (%(size)s mm) are only %(px)s px wide at the board's far corner; "
                    "%(need)s px are needed: lower the camera or raise its resolution")
CARD_ZONE_HIDDEN = N_("the card zone (where the tombstone tile goes) is not fully in view")


@dataclass
class RegistrationReport:
    ok: bool                                # located, nothing wrong, and the verdict is good
    markers_seen: list[int] = field(default_factory=list)
    markers_missing: list[int] = field(default_factory=list)
    marker_error_mm: dict[str, float] = field(default_factory=dict)
    smallest_sticker_px: float | None = None
    camera_height_mm: float | None = None
    tilt_deg: float | None = None
    card_zone_in_view: bool | None = None
    problems: list = field(default_factory=list)   # each finding as wording data (engine.wording)
    view_extent: float | None = None        # how much of the frame the board and card zone need (1 = all)
    image_size: tuple[int, int] | None = None
    verdict: str | None = None              # good / too far / too close / too tilted
    advice: Text | None = None              # what to do, as wording data (engine.wording)
    why: Text | None = None                 # why the board is not located (then also ``problems[0]``)

    def add(self, finding: Text) -> None:
        """A finding, as wording data."""
        self.problems.append(finding)

    def to_json(self) -> dict:
        return {"ok": self.ok, "markers_seen": self.markers_seen, "markers_missing": self.markers_missing,
                "marker_error_mm": self.marker_error_mm,
                "smallest_sticker_px": None if self.smallest_sticker_px is None else round(self.smallest_sticker_px, 1),
                "camera_height_mm": None if self.camera_height_mm is None else round(self.camera_height_mm),
                "tilt_deg": None if self.tilt_deg is None else round(self.tilt_deg, 1),
                "card_zone_in_view": self.card_zone_in_view, "problems": [Said(p) for p in self.problems],
                "view_extent": None if self.view_extent is None else round(self.view_extent, 3),
                "verdict": self.verdict, "advice": Said(self.advice) if self.advice is not None else ""}


def check_registration(image, scheme=None, calibration=None) -> RegistrationReport:
    """Check one frame of the empty (or set-up) table against the marker scheme."""
    scheme = scheme if scheme is not None and not isinstance(scheme, str) else load_scheme(scheme)
    gray, reason = check_frame(image)
    if gray is None:
        why = board_not_located(reason)
        return RegistrationReport(False, problems=[why], why=why)
    h, w = gray.shape[:2]
    if calibration is not None and tuple(calibration.image_size) != (w, h):
        cw, ch = calibration.image_size
        why = Text(N_("the lens calibration was made at %(made)s but this image is %(size)s: its numbers do not "
                      "apply; calibrate again at this size or use an image of that size"),
                   made=f"{cw}×{ch}", size=f"{w}×{h}")
        return RegistrationReport(False, image_size=(w, h), problems=[why], why=why)
    det = detect_markers(gray, scheme)
    result = locate_board(det, (w, h), scheme, calibration)
    loc = result.location
    if loc is None:
        why = result.reason or board_not_located()
        return RegistrationReport(False, problems=[why], why=why)
    rep = RegistrationReport(True, list(loc.markers_seen), list(loc.markers_missing))
    for m in scheme.board_markers:
        idx = np.flatnonzero(det.ids == m.id)
        if len(idx) != 1:
            continue
        seen_mm = loc.to_board(loc.undistort(det.corners[idx[0]]))
        err = float(np.max(np.linalg.norm(seen_mm - np.array(m.corners_mm()), axis=1)))
        rep.marker_error_mm[str(m.id)] = round(err, 2)
        if err > MAX_MARKER_ERROR_MM:
            rep.add(Text(MARKER_OFF, id=m.id, corner=Term(m.corner) if m.corner in CORNERS else m.corner,
                         mm=f"{err:.1f}"))
    if loc.markers_missing:
        rep.add(Plural("corner marker %(markers)s not seen: all four should be in view with nothing on them",
                       "corner markers %(markers)s not seen: all four should be in view with nothing on them",
                       len(loc.markers_missing), markers=", ".join(map(str, loc.markers_missing))))
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
        rep.add(Text(STICKERS_SMALL, size=f"{size:.0f}", px=f"{rep.smallest_sticker_px:.0f}",
                     need=f"{MIN_STICKER_PX:.0f}"))
    rep.camera_height_mm = loc.camera_height_mm
    rep.tilt_deg = loc.tilt_deg
    x, y, zw, zh = scheme.card_zone_mm
    rep.card_zone_in_view = loc.in_view(np.array([[x, y], [x + zw, y], [x + zw, y + zh], [x, y + zh]]))
    if not rep.card_zone_in_view:
        rep.add(Text(CARD_ZONE_HIDDEN))
    rep.image_size = (w, h)
    rep.view_extent = _view_extent(loc, scheme, (w, h))
    rep.verdict, rep.advice = verdict(rep)
    rep.ok = not rep.problems and rep.verdict == "good"   # a camera too tilted, too far or too close is not ok
    return rep


def _view_extent(loc, scheme, size: tuple[int, int]) -> float:
    """How far from the picture's centre the board grid and the card zone reach (with a margin),
    as a fraction of the half-width/half-height: above 1 something needed is out of view."""
    gw, gh = scheme.grid_mm
    x, y, zw, zh = scheme.card_zone_mm
    m = VIEW_MARGIN_MM
    x0, y0 = min(0.0, x) - m, min(0.0, y) - m
    x1, y1 = max(gw, x + zw) + m, max(gh, y + zh) + m
    edge = np.array([(x0 + (x1 - x0) * t, y0) for t in np.linspace(0, 1, 9)]
                    + [(x1, y0 + (y1 - y0) * t) for t in np.linspace(0, 1, 9)]
                    + [(x0 + (x1 - x0) * t, y1) for t in np.linspace(0, 1, 9)]
                    + [(x0, y0 + (y1 - y0) * t) for t in np.linspace(0, 1, 9)])
    px = loc.to_raw_image(edge)
    w, h = size
    return float(np.max(np.maximum(np.abs(px[:, 0] - w / 2) / (w / 2), np.abs(px[:, 1] - h / 2) / (h / 2))))


def verdict(rep: RegistrationReport) -> tuple[str, Text]:
    """(too tilted / too close / too far / good, what to change in one sentence), from a located report.

    Order: a tilt spoils both other numbers, so it is fixed first; then everything must be in view;
    then the stickers must be big enough.  Heights scale as the camera looks straight down: a sticker's
    width in pixels is inversely proportional to the height, and so is the picture's reach."""
    height = rep.camera_height_mm
    px = rep.smallest_sticker_px
    if rep.tilt_deg is not None and rep.tilt_deg > MAX_TILT_DEG:
        return "too tilted", Text(N_("the camera is tilted %(tilt)s° (under %(most)s° wanted): move it over the "
                                     "middle of the board and point it straight down"),
                                  tilt=f"{rep.tilt_deg:.0f}", most=f"{MAX_TILT_DEG:.0f}")
    if rep.view_extent is not None and rep.view_extent > 1.0:
        more = (Text(N_("%(cm)s cm higher"), cm=f"{height * (rep.view_extent - 1) / 10:.0f}") if height
                else Text(N_("higher")))
        return "too close", Text(N_("the board and the card zone do not fit in the picture with %(spare)s cm to "
                                    "spare: move the camera %(more)s or use a wider lens"),
                                 spare=f"{VIEW_MARGIN_MM / 10:.1f}", more=more)
    if px is not None and px < MIN_STICKER_PX:
        lower = (Text(N_("%(cm)s cm lower"), cm=f"{height * (1 - px / MIN_STICKER_PX) / 10:.0f}") if height
                 else Text(N_("lower")))
        w = rep.image_size[0] if rep.image_size else None
        bigger = next((name for rw, _rh, name in RESOLUTIONS if w and rw > w and rw * px / w >= MIN_STICKER_PX), None)
        fields = {"px": f"{px:.1f}", "need": f"{MIN_STICKER_PX:.0f}", "lower": lower}
        if bigger:
            return "too far", Text(N_("the smallest stickers are %(px)s px wide (%(need)s px needed): move the camera "
                                      "%(lower)s or use %(bigger)s"), bigger=bigger, **fields)
        return "too far", Text(N_("the smallest stickers are %(px)s px wide (%(need)s px needed): move the camera "
                                  "%(lower)s"), **fields)
    if px is None:
        return "not located", Text(N_("put the whole board with its four corner markers in view"))
    return "good", Text(N_("the smallest stickers are %(px)s px wide (≥ %(need)s px) and everything is in view"),
                        px=f"{px:.1f}", need=f"{MIN_STICKER_PX:.0f}")
