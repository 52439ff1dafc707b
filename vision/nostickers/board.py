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
import threading
import weakref
from dataclasses import dataclass

import cv2
import numpy as np

from engine.wording import Text

from ..config import DEFAULT_CONFIG
from ..locate import BoardLocation, _camera, _estimate_camera, _pose, lens_calibration, transform_points
from ..problems import BAD_MATCH, NO_OUTLINE, PIECES_NOT_FOUND, WEAK_MATCH, board_not_located
from ..scheme import Scheme, load_scheme

SCALE = 1.5                 # canonical pixels per board millimetre (a 1080p camera sees about 1.4)
MARGIN_MM = 12.0            # table drawn around the sheet in the canonical picture
FEATURES = 4000             # ORB features of the reference
FRAME_FEATURES = 2000       # … and of each frame
RATIO = 0.8                 # Lowe's ratio test on the two nearest reference descriptors
MIN_INLIERS = 20            # fewer RANSAC inliers: the match is too weak to trust
MIN_INLIER_SHARE = 0.25     # of the ratio-test matches
RANSAC_PX = 4.0
MATCH_SEED = 27               # the LSH index's hash tables (``BoardReference.matcher``)
MAX_ERROR_PX = 2.5          # mean reprojection error of the inliers
MAX_SIDE_PX = 1280          # frames are matched at most this wide (speed); the fit is scaled back and refined
FULL_SIDE_PX = 2000         # … or this wide when that match is refused
MORE_FEATURES = 6000        # … and then with this many features: a board covered by many sharply printed
                            # pieces (a teaching step) gives them most of the frame's strongest corners


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

    @classmethod
    def zone(cls, scheme: Scheme) -> "Canvas":
        """The card zone's frame (the tombstone tile beside the board, ``card_zone_mm``)."""
        x, y, w, h = scheme.card_zone_mm
        return cls(x, y, int(round(w * SCALE)), int(round(h * SCALE)))

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
    picture), or None: the largest convex quadrilateral that either the picture's edges close
    (``cv2.Canny``) or the region that differs from the table (the colours along the picture's
    border, split off by Otsu's threshold) outlines."""
    h, w = image.shape[:2]
    f = min(1.0, 960.0 / max(h, w))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    blurred = cv2.GaussianBlur(small, (5, 5), 0)
    lab = cv2.cvtColor(blurred, cv2.COLOR_BGR2LAB) if blurred.ndim == 3 else cv2.merge([blurred] * 3)
    edges = np.zeros(lab.shape[:2], np.uint8)
    for ch in cv2.split(lab):
        edges |= cv2.Canny(ch, 30, 90)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    rim = np.concatenate([lab[:8].reshape(-1, 3), lab[-8:].reshape(-1, 3), lab[:, :8].reshape(-1, 3),
                          lab[:, -8:].reshape(-1, 3)]).astype(np.float32)
    away = np.linalg.norm(lab.astype(np.float32) - np.median(rim, axis=0), axis=2)
    away = cv2.normalize(away, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    _t, region = cv2.threshold(away, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    region = cv2.morphologyEx(region, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    area_all = small.shape[0] * small.shape[1]
    best, best_area = None, 0.08 * area_all
    for mask, mode in ((edges, cv2.RETR_LIST), (region, cv2.RETR_EXTERNAL)):
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for c in contours:
            hull = cv2.convexHull(c)
            area = cv2.contourArea(hull)
            if area <= best_area or area > 0.97 * area_all:
                continue
            quad = _quadrilateral(hull)
            if quad is not None and cv2.contourArea(quad) > 0.9 * area:
                best, best_area = _fit_sides(quad.reshape(4, 2).astype(np.float64), c.reshape(-1, 2)) / f, area
    if best is None or not np.all(np.isfinite(best)):
        return None
    centre = best.mean(axis=0)
    order = np.argsort(np.arctan2(best[:, 1] - centre[1], best[:, 0] - centre[0]))   # clockwise in the picture
    best = best[order]
    start = int(np.argmin(best.sum(axis=1)))       # the corner nearest the picture's top left
    return np.roll(best, -start, axis=0)


def _fit_sides(quad: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The quadrilateral's corners again, each side a robust line fit (``cv2.fitLine``, Huber) to the
    outline's points near the middle 80 % of it (a notch or a tooth of the border art at a corner
    does not pull a corner of the hull away)."""
    points = points.astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        side = b - a
        length = float(np.linalg.norm(side))
        if length < 1:
            return quad
        t = (points - a) @ side / length ** 2
        rel = points - a
        off = np.abs(side[0] * rel[:, 1] - side[1] * rel[:, 0]) / length
        near = points[(t > 0.1) & (t < 0.9) & (off < max(6.0, 0.03 * length))]
        if len(near) < 10:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0], np.float64), np.array([vx, vy], np.float64)))
    corners = []
    for i in range(4):
        (p, u), (q, v) = lines[i - 1], lines[i]
        m = np.array([u, -v]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s, _t = np.linalg.solve(m, q - p)
        corners.append(p + s * u)
    return np.array(corners)


def _quadrilateral(hull: np.ndarray) -> np.ndarray | None:
    """A convex hull simplified to 4 corners (``cv2.approxPolyDP``, less and less exactly), or None."""
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        quad = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(quad) == 4:
            return quad if cv2.isContourConvex(quad) else None
        if len(quad) < 4:
            return None
    return None


_OWN = threading.local()    # OpenCV's detector and matchers, one per thread (the camera's and the web's match at once)


def _orb(features: int = FEATURES):
    orbs = _OWN.__dict__.setdefault("orb", {})
    if features not in orbs:
        orbs[features] = cv2.ORB_create(nfeatures=features, scaleFactor=1.2, nlevels=8, fastThreshold=10)
    return orbs[features]


@dataclass
class BoardReference:
    """The taught board: its canonical picture (BGR), its features in board millimetres."""

    canvas: Canvas
    picture: np.ndarray
    points_mm: np.ndarray
    descriptors: np.ndarray
    zone: np.ndarray | None = None      # the empty card zone (BGR, ``zone_canvas``), where the tile is read

    @classmethod
    def from_empty_photo(cls, image: np.ndarray, lens: Lens, scheme: Scheme | None = None, *,
                         pieces_photo: np.ndarray | None = None, pieces_mm=None
                         ) -> tuple["BoardReference | None", Text | None]:
        """The reference from the empty board's photo, or (None, why).

        Where the board lies in it: its outline (``find_outline``), or better, given a photo of the
        same camera with pieces at known places (``pieces_photo``; ``pieces_mm``: their centres in
        board millimetres, as the teaching layout's second step puts them), the homography that
        brings those places onto the pieces seen (``register_by_pieces``) — the printed grid and
        border art of an edition do not matter then."""
        scheme = scheme or load_scheme()
        image = lens.undistort(image)
        corners = find_outline(image)
        hmat = None if corners is None else cv2.getPerspectiveTransform(
            sheet_corners_mm(scheme).astype(np.float32), corners.astype(np.float32))
        if pieces_photo is not None:
            hmat, why = register_by_pieces(image, lens.undistort(pieces_photo), np.asarray(pieces_mm, np.float64),
                                           hmat, scheme)
            if hmat is None:
                return None, why
        elif hmat is None:
            return None, board_not_located(NO_OUTLINE())
        return cls.from_homography(image, hmat, scheme)

    @classmethod
    def from_homography(cls, image: np.ndarray, hmat: np.ndarray, scheme: Scheme
                        ) -> tuple["BoardReference | None", Text | None]:
        """The reference from an (undistorted) photo of the empty board and its board mm → pixel homography."""
        canvas = Canvas.of(scheme)
        picture = cv2.warpPerspective(image, canvas.from_mm @ np.linalg.inv(hmat), (canvas.width, canvas.height),
                                      flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        keys, desc = _orb().detectAndCompute(gray(picture), _sheet_mask(canvas, scheme))
        if desc is None or len(keys) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(count=len(keys), least=MIN_INLIERS))
        pts = canvas.mm([k.pt for k in keys])
        zone_canvas = Canvas.zone(scheme)
        zone = cv2.warpPerspective(image, zone_canvas.from_mm @ np.linalg.inv(hmat), (zone_canvas.width,
                                                                                     zone_canvas.height),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        seen = cv2.warpPerspective(np.full(image.shape[:2], 255, np.uint8), zone_canvas.from_mm @ np.linalg.inv(hmat),
                                   (zone_canvas.width, zone_canvas.height), flags=cv2.INTER_NEAREST)
        return cls(canvas, picture, pts, desc, zone if np.all(seen > 0) else None), None

    def locate(self, image: np.ndarray, lens: Lens, fast: bool = True) -> tuple[BoardLocation | None, Text | None]:
        """This (undistorted) frame's BoardLocation, or (None, why the match is refused): matched at most
        ``MAX_SIDE_PX`` wide, and again up to ``FULL_SIDE_PX`` when that match is refused (a board
        covered by many pieces shows fewer features); ``fast`` False: only the latter (teaching)."""
        location, why = self._locate(image, lens, MAX_SIDE_PX if fast else FULL_SIDE_PX)
        if location is None and fast and max(image.shape[:2]) > MAX_SIDE_PX:
            location, why = self._locate(image, lens, FULL_SIDE_PX)
        if location is None:
            location, why = self._locate(image, lens, FULL_SIDE_PX, MORE_FEATURES)
        return location, why

    def _locate(self, image: np.ndarray, lens: Lens, side: int, features: int = FRAME_FEATURES
                ) -> tuple[BoardLocation | None, Text | None]:
        h, w = image.shape[:2]
        f = min(1.0, side / max(h, w))
        g = gray(image)
        if f < 1:
            g = cv2.resize(g, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
        keys, desc = _orb(features).detectAndCompute(g, None)
        if desc is None or len(keys) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(count=0, least=MIN_INLIERS))
        pairs = self.matcher().knnMatch(desc, k=2)
        good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
        if len(good) < MIN_INLIERS:
            return None, board_not_located(WEAK_MATCH(count=len(good), least=MIN_INLIERS))
        src = self.points_mm[[m.trainIdx for m in good]]
        dst = np.array([keys[m.queryIdx].pt for m in good], dtype=np.float64) / f
        hmat, mask = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX / f, maxIters=4000, confidence=0.999)
        inliers = int(mask.sum()) if mask is not None else 0
        if hmat is None or inliers < MIN_INLIERS or inliers < MIN_INLIER_SHARE * len(good):
            return None, board_not_located(WEAK_MATCH(count=inliers, least=MIN_INLIERS))
        keep = mask.ravel().astype(bool)
        hmat, _ = cv2.findHomography(src[keep], dst[keep], 0)
        err = float(np.mean(np.linalg.norm(transform_points(src[keep], hmat) - dst[keep], axis=1))) \
            if hmat is not None else float("inf")
        if hmat is None or err > MAX_ERROR_PX or not _plausible(hmat, (w, h)):
            return None, board_not_located(BAD_MATCH(error=f"{err:.1f}"))
        return lens.location(hmat, (w, h), err), None

    def matcher(self):
        """The reference's features indexed for nearest neighbours (FLANN's LSH for binary descriptors)."""
        matchers = _OWN.__dict__.setdefault("matchers", {})    # this thread's, by reference
        mine = matchers.get(id(self))
        if mine is None or mine[0]() is not self:
            for gone in [k for k, (ref, _m) in matchers.items() if ref() is None]:
                del matchers[gone]                              # (references no longer used: no leak)
            matcher = cv2.FlannBasedMatcher(dict(algorithm=6, table_number=6, key_size=12, multi_probe_level=1),
                                            dict(checks=32))
            matcher.add([self.descriptors])
            # LSH draws its hash tables from OpenCV's RNG: seeded, the same photo is matched the same way in
            # every process, whatever ran before (unseeded, a teaching photo was refused in one test run of three)
            cv2.setRNGSeed(MATCH_SEED)
            matcher.train()
            mine = matchers[id(self)] = (weakref.ref(self), matcher)
        return mine[1]

    def zone_of(self, image: np.ndarray, location: BoardLocation) -> np.ndarray | None:
        """The (undistorted) frame's card zone on the zone's canvas, None when part of it is out of view."""
        zc = Canvas.zone(load_scheme())
        hmat = zc.from_mm @ location.inv_homography
        if not np.all(in_view(hmat, image.shape[1::-1], (zc.width, zc.height)) > 0):
            return None
        return cv2.warpPerspective(image, hmat, (zc.width, zc.height), flags=cv2.INTER_LINEAR)

    def seen(self, image_size: tuple[int, int], location: BoardLocation) -> np.ndarray:
        """The canonical pixels a frame of ``image_size`` (width, height) shows (255; else 0)."""
        return in_view(self.canvas.from_mm @ location.inv_homography, image_size,
                       (self.canvas.width, self.canvas.height))

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
                "descriptors": base64.b64encode(self.descriptors.tobytes()).decode("ascii"),
                "zone_png": None if self.zone is None else
                base64.b64encode(cv2.imencode(".png", self.zone)[1].tobytes()).decode("ascii")}

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
        zone = None
        if data.get("zone_png"):
            zone = cv2.imdecode(np.frombuffer(base64.b64decode(data["zone_png"], validate=True), np.uint8),
                                cv2.IMREAD_COLOR)
            zc = Canvas.zone(load_scheme())
            if zone is None or zone.shape[:2] != (zc.height, zc.width):
                raise ValueError("the card zone picture does not decode to its size")
        return cls(canvas, picture, pts, desc.reshape(-1, 32).copy(), zone)


def in_view(hmat: np.ndarray, image_size: tuple[int, int], size: tuple[int, int]) -> np.ndarray:
    """The pixels of a (width, height) ``size`` picture that ``hmat`` (frame pixel → picture pixel)
    takes from inside a frame of ``image_size`` (255; else 0): the frame's outline drawn (as a warped
    white frame would show it, without warping a whole frame)."""
    w, h = image_size
    quad = transform_points(np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64), hmat)
    mask = np.zeros((size[1], size[0]), np.uint8)
    if np.all(np.isfinite(quad)):
        cv2.fillConvexPoly(mask, np.round(quad * 16).astype(np.int32), 255, cv2.LINE_8, 4)
    return mask


PIECE_DIFF = 24.0           # Lab distance between the two photos that makes a pixel part of a piece
BRIGHT_L = 128.0            # the 99th percentile of a photo's Lab lightness (0-255) under which it counts as dim …
DIMMEST = 0.5               # … and ``PIECE_DIFF`` is scaled down with it, at most this much
MIN_PIECES = 0.7            # share of the step's pieces that must be found where the fit puts them


def register_by_pieces(empty: np.ndarray, pieces: np.ndarray, pieces_mm: np.ndarray, rough: np.ndarray | None,
                       scheme: Scheme) -> tuple[np.ndarray | None, Text | None]:
    """Board mm → pixel homography of ``empty`` that brings the known piece centres ``pieces_mm`` onto
    the pieces ``pieces`` (a photo of the same camera; moved a little, it is first aligned to ``empty``
    by features) shows: the blobs where the two photos differ, matched to the nearest expected piece
    and fitted again (an iterative closest point fit with RANSAC), from the outline's homography
    ``rough`` or, failing it, from the blobs' bounding box.  (None, why) when most pieces are not
    found where a fit puts them."""
    pieces = _aligned(pieces, empty)
    a = cv2.cvtColor(cv2.GaussianBlur(empty, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    b = cv2.cvtColor(cv2.GaussianBlur(pieces, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    # (a dim room makes every difference smaller: the threshold follows the photo's light)
    light = float(np.clip(np.percentile(a[::4, ::4, 0], 99) / BRIGHT_L, DIMMEST, 1.0))
    mask = (np.linalg.norm(a - b, axis=2) > PIECE_DIFF * light).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((9, 9), np.uint8))     # a piece's picture in one blob
    n, _labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    big = areas > 60
    if big.sum() < 8:
        return None, board_not_located(PIECES_NOT_FOUND(count=int(big.sum()), total=len(pieces_mm)))
    typical = np.median(areas[big])
    # one piece each: not the pools, the tombstone tile in the card zone or a hand
    blobs = cents[1:][big & (areas > 0.3 * typical) & (areas < 3.0 * typical)]
    starts = [rough] if rough is not None else []
    lo, hi = pieces_mm.min(axis=0), pieces_mm.max(axis=0)
    plo, phi = blobs.min(axis=0), blobs.max(axis=0)
    box = np.array([[(phi - plo)[0] / max((hi - lo)[0], 1), 0, 0], [0, (phi - plo)[1] / max((hi - lo)[1], 1), 0],
                    [0, 0, 1.0]])
    box[:2, 2] = plo - box[[0, 1], [0, 1]] * lo
    middle = (plo + phi) / 2
    for turn in (0.0, -6.0, 6.0, -12.0, 12.0):      # the camera turned a little about its axis
        rot = np.vstack([cv2.getRotationMatrix2D((float(middle[0]), float(middle[1])), turn, 1.0), [0, 0, 1]])
        starts.append(rot @ box)
    best, best_found, best_err = None, 0, np.inf
    for start in starts:
        hmat, found, err = _closest_fit(start, pieces_mm, blobs)
        if hmat is not None and (found > best_found or (found == best_found and err < best_err)):
            best, best_found, best_err = hmat, found, err
    if best is None or best_found < MIN_PIECES * len(pieces_mm):
        return None, board_not_located(PIECES_NOT_FOUND(count=best_found, total=len(pieces_mm)))
    return best, None


def _closest_fit(hmat: np.ndarray, want_mm: np.ndarray, blobs: np.ndarray, rounds: int = 15):
    """(homography, pieces matched, mean error in px) of the iterative closest point fit from ``hmat``."""
    found, err = 0, np.inf
    for _ in range(rounds):
        proj = transform_points(want_mm, hmat)
        step = np.linalg.norm(transform_points(want_mm + (30.0, 0.0), hmat) - proj, axis=1)   # a square, in px
        dist = np.linalg.norm(proj[:, None] - blobs[None], axis=2)
        nearest = dist.argmin(axis=1)
        close = dist[np.arange(len(want_mm)), nearest] < 0.5 * step
        # each blob to its nearest expected piece only
        for j in set(nearest[close]):
            rivals = np.flatnonzero(close & (nearest == j))
            if len(rivals) > 1:
                close[rivals[rivals != rivals[np.argmin(dist[rivals, j])]]] = False
        if close.sum() < 8:
            return None, 0, np.inf
        new, inl = cv2.findHomography(want_mm[close], blobs[nearest[close]], cv2.RANSAC, float(np.median(step)) / 4)
        if new is None:
            return None, 0, np.inf
        keep = inl.ravel().astype(bool)
        err = float(np.mean(np.linalg.norm(transform_points(want_mm[close][keep], new) - blobs[nearest[close]][keep],
                                           axis=1)))
        moved = float(np.max(np.linalg.norm(transform_points(want_mm, new) - proj, axis=1)))
        hmat, found = new, int(keep.sum())
        if moved < 0.5:
            break
    return hmat, found, err


def _aligned(photo: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``photo`` warped onto ``target`` by the features they share (a camera bumped between two teaching
    photos), or as it is when they do not match well (the same camera, still)."""
    orb = _orb(FRAME_FEATURES)
    ka, da = orb.detectAndCompute(gray(photo), None)
    kb, db = orb.detectAndCompute(gray(target), None)
    if da is None or db is None or len(ka) < MIN_INLIERS or len(kb) < MIN_INLIERS:
        return photo
    pairs = cv2.BFMatcher(cv2.NORM_HAMMING).knnMatch(da, db, k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < RATIO * p[1].distance]
    if len(good) < MIN_INLIERS:
        return photo
    src = np.float32([ka[m.queryIdx].pt for m in good])
    dst = np.float32([kb[m.trainIdx].pt for m in good])
    hmat, mask = cv2.findHomography(src, dst, cv2.USAC_MAGSAC, RANSAC_PX)
    if hmat is None or mask is None or int(mask.sum()) < MIN_INLIERS:
        return photo
    h, w = target.shape[:2]
    return cv2.warpPerspective(photo, hmat, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


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
