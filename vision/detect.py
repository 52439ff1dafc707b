"""Stage 1: find ArUco markers in a frame (cv2.aruco does the work).

``check_frame`` turns anything a caller may hand us into an 8-bit grayscale image or
a plain-language reason why it cannot be read; nothing here raises on bad input.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from engine.wording import Text

from .config import DEFAULT_CONFIG, ReaderConfig
from .problems import BAD_PIXELS, BAD_SHAPE, EMPTY_FRAME, NO_IMAGE, NOT_AN_ARRAY, TOO_SMALL
from .scheme import Scheme

MIN_SIDE_PX = 64


@dataclass(frozen=True)
class Detections:
    """Markers found in one frame: ``corners`` is (n, 4, 2) float32 in cv2.aruco order."""

    ids: np.ndarray
    corners: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


def check_frame(image) -> tuple[np.ndarray | None, Text | None]:
    """Return (gray uint8 image, None) or (None, reason) for an unusable frame (the reason as wording data:
    ``str()`` is its English)."""
    if image is None:
        return None, NO_IMAGE()
    if not isinstance(image, np.ndarray):
        return None, NOT_AN_ARRAY(type=type(image).__name__)
    if image.size == 0:
        return None, EMPTY_FRAME()
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (3, 4)):
        return None, BAD_SHAPE(shape=str(image.shape))
    h, w = image.shape[:2]
    if min(h, w) < MIN_SIDE_PX:
        return None, TOO_SMALL(width=w, height=h, least=MIN_SIDE_PX)
    if image.dtype != np.uint8:
        if image.dtype == np.uint16:
            image = (image >> 8).astype(np.uint8)
        elif np.issubdtype(image.dtype, np.floating):
            finite = np.nan_to_num(image.astype(np.float32))
            scale = 255.0 if finite.max(initial=0.0) <= 1.0 else 1.0
            image = np.clip(finite * scale, 0, 255).astype(np.uint8)
        else:
            return None, BAD_PIXELS(type=str(image.dtype))
    if image.ndim == 3:
        code = cv2.COLOR_BGRA2GRAY if image.shape[2] == 4 else cv2.COLOR_BGR2GRAY
        image = cv2.cvtColor(image, code)
    return np.ascontiguousarray(image), None


@lru_cache(maxsize=8)
def _detector(dictionary: str, config: ReaderConfig):
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = config.min_marker_perimeter_rate
    params.adaptiveThreshWinSizeMin = config.threshold_window_min
    params.adaptiveThreshWinSizeMax = config.threshold_window_max
    params.adaptiveThreshWinSizeStep = config.threshold_window_step
    params.perspectiveRemovePixelPerCell = config.pixels_per_cell
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.ArucoDetector(dic, params)


@lru_cache(maxsize=8)
def _close_detector(dictionary: str, config: ReaderConfig):
    """For a second look at a small region: more threshold windows, no size floor."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.05
    params.adaptiveThreshWinSizeMin = config.second_look_window_min
    params.adaptiveThreshWinSizeMax = config.second_look_window_max
    params.adaptiveThreshWinSizeStep = config.second_look_window_step
    params.perspectiveRemovePixelPerCell = config.pixels_per_cell
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    return cv2.aruco.ArucoDetector(dic, params)


def detect_in_regions(gray: np.ndarray, scheme: Scheme, boxes, config: ReaderConfig = DEFAULT_CONFIG) -> Detections:
    """Markers in image boxes (x0, y0, x1, y1), each enlarged ``config.second_look_scale``
    times first: small or soft stickers the whole-frame pass missed."""
    ids, corners = [], []
    det = _close_detector(scheme.dictionary, config)
    f = float(config.second_look_scale)
    for x0, y0, x1, y1 in boxes:
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        crop = cv2.resize(gray[y0:y1, x0:x1], None, fx=f, fy=f, interpolation=cv2.INTER_CUBIC)
        c, i, _ = det.detectMarkers(crop)
        if i is None:
            continue
        for cc, ii in zip(c, i.ravel()):
            # cv2.resize: pixel d of the enlarged image is (d + 0.5) / f - 0.5
            corners.append((np.asarray(cc, np.float32).reshape(4, 2) + np.float32(0.5)) / np.float32(f)
                           - np.float32(0.5) + np.array([x0, y0], np.float32))
            ids.append(int(ii))
    return Detections(np.asarray(ids, np.int32), np.asarray(corners, np.float32).reshape(-1, 4, 2))


def merge_detections(a: Detections, b: Detections, same_px: float = 4.0) -> Detections:
    """``a`` plus the markers of ``b`` that are not already in it (same id, same place)."""
    ids, corners = list(a.ids), list(a.corners)
    for i, c in zip(b.ids, b.corners):
        centre = c.mean(axis=0)
        dup = any(j == i and np.linalg.norm(k.mean(axis=0) - centre) < same_px for j, k in zip(ids, corners))
        if not dup:
            ids.append(i)
            corners.append(c)
    return Detections(np.asarray(ids, np.int32), np.asarray(corners, np.float32).reshape(-1, 4, 2))


def detect_markers(gray: np.ndarray, scheme: Scheme, config: ReaderConfig = DEFAULT_CONFIG) -> Detections:
    """Every marker of the scheme's dictionary in the frame (known ids or not)."""
    corners, ids, _rejected = _detector(scheme.dictionary, config).detectMarkers(gray)
    if ids is None or len(ids) == 0:
        return Detections(np.zeros(0, dtype=np.int32), np.zeros((0, 4, 2), dtype=np.float32))
    corners = np.asarray(corners, dtype=np.float32).reshape(-1, 4, 2)
    ids = np.asarray(ids, dtype=np.int32).reshape(-1)
    if config.refine_board_corners:
        board = np.isin(ids, list(scheme.board_marker_ids))
        if board.any():
            pts = corners[board].reshape(-1, 1, 2).copy()
            side = float(np.median(np.linalg.norm(corners[board][:, 0] - corners[board][:, 1], axis=1)))
            win = int(max(2, min(8, side / 10)))
            cv2.cornerSubPix(gray, pts, (win, win), (-1, -1),
                             (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.05))
            corners[board] = pts.reshape(-1, 4, 2)
    return Detections(ids, corners)


def marker_centres(corners: np.ndarray) -> np.ndarray:
    """Images of markers' centres, (n, 4, 2) corners -> (n, 2): where the diagonals
    cross, which is perspective-correct (the corners' mean is not)."""
    c = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    p0, p1, p2, p3 = c[:, 0], c[:, 1], c[:, 2], c[:, 3]
    d1, d2 = p2 - p0, p3 - p1
    denom = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    safe = np.where(np.abs(denom) < 1e-9, 1.0, denom)
    t = ((p1[:, 0] - p0[:, 0]) * d2[:, 1] - (p1[:, 1] - p0[:, 1]) * d2[:, 0]) / safe
    out = p0 + t[:, None] * d1
    flat = np.abs(denom) < 1e-9
    out[flat] = c[flat].mean(axis=1)
    return out


@lru_cache(maxsize=8)
def marker_cells(dictionary: str) -> int:
    """Cells across a marker of the dictionary, its black border included (6 for 4×4)."""
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).markerSize) + 2


def border_corners(gray: np.ndarray, corners: np.ndarray, cells: int, px_per_cell: int = 16) -> np.ndarray | None:
    """A marker's corners on the outer edge of its black border, to a fraction of a pixel.

    cv2.aruco's corners follow the thresholded outline, which can sit a little off the
    border, or — with a thin white margin on a dark piece — on the paper's edge instead.
    The marker's own cells give the paper's white and the ink's black; along the middle of
    each side the profile is followed outwards from inside the black border to where it
    first rises halfway to white: the border's edge.  The corners are where those four
    edges meet.  ``cells`` counts the marker's cells across, border included.  None when a
    side shows no clean edge (a margin too thin to reach white, a dark smudge).
    """
    quad = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    side = cells * px_per_cell
    pad = px_per_cell
    dst = np.float32([[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]])
    to_canon = cv2.getPerspectiveTransform(quad, dst)
    size = side + 2 * pad
    canon = cv2.warpPerspective(gray, to_canon, (size, size), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    bits = canon[2 * pad:size - 2 * pad, 2 * pad:size - 2 * pad]
    black, white = (float(v) for v in np.percentile(bits, (10, 90)))
    if white - black < 30.0:
        return None
    mid = 0.5 * (white + black)
    lo, hi = pad + int(0.25 * side), pad + int(0.75 * side)
    # Profiles outwards along the middle of each side; index 0 is half a cell inside the
    # quad's edge (inside the black border whether the quad is the border or the paper),
    # index i lies half a cell minus i px inside it.
    half = pad // 2
    reach = pad + half + 1
    profiles = [canon[pad + half::-1, lo:hi][:reach].mean(axis=1),             # top
                canon[lo:hi, size - pad - half:][:, :reach].mean(axis=0),      # right
                canon[size - pad - half:, lo:hi][:reach].mean(axis=1),         # bottom
                canon[lo:hi, pad + half::-1][:, :reach].mean(axis=0)]          # left
    inset = []
    for prof in profiles:
        if prof[0] > mid:
            return None
        peak = np.maximum.accumulate(prof)
        above = np.flatnonzero(prof >= mid)
        if len(above) == 0:
            return None
        j = int(above[0])
        if np.any(prof[:j] < peak[:j] - 0.25 * (white - black)):
            return None          # rose and fell again below halfway: no clean edge
        a, b = float(prof[j - 1]), float(prof[j])
        x = (j - 1) + (mid - a) / (b - a) if b != a else float(j)
        inset.append(half - x)
    t_top, t_right, t_bottom, t_left = inset
    if min(inset) < -0.3 * pad or max(inset) > 0.6 * pad:
        return None
    x0, x1 = pad + t_left, pad + side - t_right
    y0, y1 = pad + t_top, pad + side - t_bottom
    canon_corners = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(canon_corners, np.linalg.inv(to_canon)).reshape(4, 2)
