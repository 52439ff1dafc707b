"""Where the board is, from its own printed picture (NOSTICKERS.md, issue 27).

The teaching's first photo (the empty board) gives the reference: the board sheet's outline
against the table (the largest convex quadrilateral of its edges, its corners taken in the
picture's order: the board is photographed with a1 — AUSGANG — towards the picture's top left)
maps the photo to the board's own plane, the board frame the sticker reader uses (millimetres
from the outer top-left corner of ``a1``, BOARD.md sizes from the marker scheme's ``sheet_mm``).
That plane, drawn at ``SCALE`` pixels per millimetre, is the *canonical* picture; its ORB
features, kept in board millimetres, are what later photos are matched to
(``cv2.findHomography`` with RANSAC), so a tilt, a change of light, a hand or pieces over part
of the board leave enough of the picture to locate it.  A weak match (too few inliers, a bad
reprojection, a shape no board has) is refused with a ``not-located`` problem, never guessed.

The result is the sticker reader's own ``vision.locate.BoardLocation`` (homography from board
millimetres to undistorted pixels, camera pose), built with its lens handling: a calibration's
distortion is undone on the whole frame first (``cv2.undistort``) and its camera matrix used;
without one, the focal length is estimated as the sticker reader does.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass

import cv2
import numpy as np

from engine.wording import Text

from ..config import DEFAULT_CONFIG
from ..locate import BoardLocation, _camera, _estimate_camera, _pose, lens_calibration, transform_points
from ..problems import NO_OUTLINE, WEAK_MATCH, BAD_MATCH, board_not_located
from ..scheme import Scheme, load_scheme

SCALE = 2.0                 # canonical pixels per board millimetre
MARGIN_MM = 12.0            # table drawn around the sheet in the canonical picture
FEATURES = 4000             # ORB features of the reference
FRAME_FEATURES = 2500       # … and of each frame
RATIO = 0.8                 # Lowe's ratio test on the two nearest reference descriptors
MIN_INLIERS = 30            # fewer RANSAC inliers: the match is too weak to trust
MIN_INLIER_SHARE = 0.25     # of the ratio-test matches
RANSAC_PX = 4.0
MAX_ERROR_PX = 2.5          # mean reprojection error of the inliers
MAX_SIDE_PX = 2000          # frames are matched at most this wide (speed); the fit is scaled back


@dataclass(frozen=True)
class Canvas:
    """The canonical picture's frame: board millimetre (x, y) ↔ canonical pixel."""

    x0: float
    y0: float
    width: int
    height: int
    scale: float = SCALE

    @classmethod
    def of(cls, scheme: Scheme) -> "Canvas":
        s = scheme.sheet_mm
        x0, y0 = s["left"] - MARGIN_MM, s["top"] - MARGIN_MM
        return cls(x0, y0, int(round((s["right"] + MARGIN_MM - x0) * SCALE)),
                   int(round((s["bottom"] + MARGIN_MM - y0) * SCALE)))

    @property
    def from_mm(self) -> np.ndarray:
        """3×3: board mm → canonical pixels."""
        return np.array([[self.scale, 0, -self.x0 * self.scale], [0, self.scale, -self.y0 * self.scale], [0, 0, 1.0]])

    def mm(self, px) -> np.ndarray:
        return np.asarray(px, dtype=np.float64).reshape(-1, 2) / self.scale + (self.x0, self.y0)

    def px(self, mm) -> np.ndarray:
        return (np.asarray(mm, dtype=np.float64).reshape(-1, 2) - (self.x0, self.y0)) * self.scale


def sheet_corners_mm(scheme: Scheme) -> np.ndarray:
    s = scheme.sheet_mm
    return np.array([[s["left"], s["top"]], [s["right"], s["top"]], [s["right"], s["bottom"]],
                     [s["left"], s["bottom"]]], dtype=np.float64)


class Lens:
    """A frame's lens handling: undistorts whole frames (calibrated distortion), gives the camera matrix."""

    def __init__(self, calibration=None):
        self.calibration = lens_calibration(calibration)
        self._maps: dict = {}

    def undistort(self, image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        k, dist, _assumed = _camera((w, h), self.calibration, DEFAULT_CONFIG)
        if dist is None:
            return image
        if (w, h) not in self._maps:
            self._maps[(w, h)] = cv2.initUndistortRectifyMap(k, dist, None, k, (w, h), cv2.CV_16SC2)
        m1, m2 = self._maps[(w, h)]
        return cv2.remap(image, m1, m2, cv2.INTER_LINEAR)

    def location(self, hmat: np.ndarray, image_size: tuple[int, int], error: float) -> BoardLocation:
        """The sticker reader's BoardLocation for a board-mm → undistorted-pixel homography."""
        k, _dist, assumed = _camera(image_size, self.calibration, DEFAULT_CONFIG)
        if assumed:
            k, _rel = _estimate_camera(hmat, image_size, DEFAULT_CONFIG)
        rot, centre = _pose(hmat, k)
        return BoardLocation(hmat, k, None, rot, centre, (), (), error, assumed, image_size=tuple(image_size))


def gray(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def find_outline(image: np.ndarray) -> np.ndarray | None:
    """The board sheet's 4 corners (pixels; top-left, top-right, bottom-right, bottom-left of the
    picture), the largest convex quadrilateral its edges close, or None."""
    h, w = image.shape[:2]
    f = min(1.0, 960.0 / max(h, w))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB) if blurred.ndim == 3 else blurred
    edges = np.zeros(lab.shape[:2], np.uint8)
    for ch in cv2.split(lab):
        edges |= cv2.Canny(ch, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    best, best_area = None, 0.08 * small.shape[0] * small.shape[1]
    for c in contours:
        hull = cv2.convexHull(c)
        area = cv2.contourArea(hull)
        if area <= best_area or area > 0.97 * small.shape[0] * small.shape[1]:
            continue
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True)
        if len(quad) == 4 and cv2.isContourConvex(quad):
            best, best_area = quad.reshape(4, 2).astype(np.float64) / f, area
    if best is None:
        return None
    centre = best.mean(axis=0)
    order = np.argsort(np.arctan2(best[:, 1] - centre[1], best[:, 0] - centre[0]))   # clockwise in the picture
    best = best[order]
    start = int(np.argmin(best.sum(axis=1)))       # the corner nearest the picture's top left
    return np.roll(best, -start, axis=0)


_ORB: dict[int, object] = {}


def _orb(features: int = FEATURES):
    if features not in _ORB:
        _ORB[features] = cv2.ORB_create(nfeatures=features, scaleFactor=1.2, nlevels=8, fastThreshold=10)
    return _ORB[features]


@dataclass
class BoardReference:
    """The taught board: its canonical picture (BGR), its features in board millimetres."""

    canvas: Canvas
    picture: np.ndarray
    points_mm: np.ndarray
    descriptors: np.ndarray

    @classmethod
    def from_empty_photo(cls, image: np.ndarray, lens: Lens, scheme: Scheme | None = None
                         ) -> tuple["BoardReference | None", Text | None]:
        """The reference from the empty board's photo, or (None, why)."""
        scheme = scheme or load_scheme()
        image = lens.undistort(image)
        corners = find_outline(image)
        if corners is None:
            return None, board_not_located(NO_OUTLINE())
        hmat = cv2.getPerspectiveTransform(sheet_corners_mm(scheme).astype(np.float32), corners.astype(np.float32))
        canvas = Canvas.of(scheme)
        picture = cv2.warpPerspective(image, canvas.from_mm @ np.linalg.inv(hmat), (canvas.width, canvas.height),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        keys, desc = _orb().detectAndCompute(gray(picture), _sheet_mask(canvas, scheme))
        if desc is None or len(keys) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(inliers=len(keys), least=MIN_INLIERS))
        pts = canvas.mm([k.pt for k in keys])
        return cls(canvas, picture, pts, desc), None

    def locate(self, image: np.ndarray, lens: Lens) -> tuple[BoardLocation | None, Text | None]:
        """This (undistorted) frame's BoardLocation, or (None, why the match is refused)."""
        h, w = image.shape[:2]
        f = min(1.0, MAX_SIDE_PX / max(h, w))
        g = gray(image)
        if f < 1:
            g = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        keys, desc = _orb(FRAME_FEATURES).detectAndCompute(g, None)
        if desc is None or len(keys) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(inliers=0, least=MIN_INLIERS))
        pairs = self.matcher().knnMatch(desc, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
        if len(good) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(inliers=len(good), least=MIN_INLIERS))
        src = self.points_mm[[m.trainIdx for m in good]]
        dst = np.array([keys[m.queryIdx].pt for m in good], dtype=np.float64) / f
        hmat, mask = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX / f, maxIters=4000, confidence=0.999)
        inliers = int(mask.sum()) if mask is not None else 0
        if hmat is None or inliers < MIN_INLIERS or inliers < MIN_INLIER_SHARE * len(good):
            return None, board_not_located(WEAK_MATCH(inliers=inliers, least=MIN_INLIERS))
        keep = mask.ravel().astype(bool)
        hmat, _ = cv2.findHomography(src[keep], dst[keep], 0)
        err = float(np.mean(np.linalg.norm(transform_points(src[keep], hmat) - dst[keep], axis=1))) \
            if hmat is not None else float("inf")
        if hmat is None or err > MAX_ERROR_PX or not _plausible(hmat, (w, h)):
            return None, board_not_located(BAD_MATCH(error=f"{err:.1f}"))
        return lens.location(hmat, (w, h), err), None

    def matcher(self):
        """The reference's features indexed for nearest neighbours (FLANN's LSH for binary descriptors)."""
        if getattr(self, "_matcher", None) is None:
            self._matcher = cv2.FlannBasedMatcher(dict(algorithm=6, table_number=6, key_size=12, multi_probe_level=1),
                                                  dict(checks=32))
            self._matcher.add([self.descriptors])
            self._matcher.train()
        return self._matcher

    def canonical(self, image: np.ndarray, location: BoardLocation) -> np.ndarray:
        """The (undistorted) frame drawn on the canonical plane."""
        return cv2.warpPerspective(image, self.canvas.from_mm @ location.inv_homography,
                                   (self.canvas.width, self.canvas.height), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_CONSTANT)

    # -- the file form --------------------------------------------------------------------------
    def to_json(self) -> dict:
        ok, png = cv2.imencode(".png", self.picture)
        return {"canvas": {"x0": self.canvas.x0, "y0": self.canvas.y0, "width": self.canvas.width,
                           "height": self.canvas.height, "scale": self.canvas.scale},
                "picture_png": base64.b64encode(png.tobytes()).decode("ascii"),
                "points_mm": np.round(self.points_mm, 2).tolist(),
                "descriptors": base64.b64encode(self.descriptors.tobytes()).decode("ascii")}

    @classmethod
    def from_json(cls, data: dict) -> "BoardReference":
        """Raises KeyError/ValueError/TypeError on a malformed object (the caller names the file)."""
        c = data["canvas"]
        canvas = Canvas(float(c["x0"]), float(c["y0"]), int(c["width"]), int(c["height"]), float(c["scale"]))
        picture = cv2.imdecode(np.frombuffer(base64.b64decode(data["picture_png"], validate=True), np.uint8),
                               cv2.IMREAD_COLOR)
        if picture is None or picture.shape[:2] != (canvas.height, canvas.width):
            raise ValueError("the board picture does not decode to the canvas size")
        pts = np.asarray(data["points_mm"], dtype=np.float64).reshape(-1, 2)
        desc = np.frombuffer(base64.b64decode(data["descriptors"], validate=True), np.uint8)
        if len(desc) != 32 * len(pts) or len(pts) < MIN_INLIERS:
            raise ValueError("the board features do not match their points")
        return cls(canvas, picture, pts, desc.reshape(-1, 32).copy())


def _sheet_mask(canvas: Canvas, scheme: Scheme) -> np.ndarray:
    mask = np.zeros((canvas.height, canvas.width), np.uint8)
    cv2.fillConvexPoly(mask, np.round(canvas.px(sheet_corners_mm(scheme))).astype(np.int32), 255)
    return mask


def _plausible(hmat: np.ndarray, size: tuple[int, int]) -> bool:
    """A board mm → pixel homography that keeps the sheet a convex, not mirrored quadrilateral of
    a sensible size (a RANSAC fit on a few chance matches of something else gives folded or tiny boards)."""
    quad = transform_points(sheet_corners_mm(load_scheme()), hmat).astype(np.float32)
    if not np.all(np.isfinite(quad)) or not cv2.isContourConvex(quad):
        return False
    area = cv2.contourArea(quad, oriented=True)
    w, h = size
    return 0.02 * w * h < area < 25.0 * w * h
