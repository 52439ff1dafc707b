"""Stage 2: where the board is — a homography from the corner markers, and a camera pose.

The 4 corner markers give 16 corners whose board-frame positions the scheme knows;
a robust fit (RANSAC, then least squares on the inliers) maps the board plane to
the (undistorted) image.  The pose recovered from it tells how a sticker lifted
above the board (a pawn disc, the monster figure) is displaced in the image, so
the reader can put it back on its square (VISION.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from engine.wording import Text

from .config import DEFAULT_CONFIG, ReaderConfig
from .detect import Detections
from .problems import BAD_FIT, CORNERS_HIDDEN, CORNERS_MISFIT, MOVED, NO_CORNERS, NO_FIT, board_not_located
from .scheme import Scheme


class LensCalibration(Protocol):
    """What the reader needs of a camera calibration: the intrinsics measured at one frame size.

    The reader takes the loaded object; reading the file is the caller's job
    (``calibration.store.load_calibration`` gives one), so ``vision`` never imports
    ``calibration`` (the import contracts in pyproject.toml).
    """

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]


def lens_calibration(calibration) -> LensCalibration | None:
    """``calibration`` checked at the reader's door: None or a loaded calibration, never a path."""
    if calibration is None or all(hasattr(calibration, a) for a in ("camera_matrix", "dist_coeffs", "image_size")):
        return calibration
    raise TypeError(f"the reader takes a loaded calibration (calibration.store.load_calibration), "
                    f"not {type(calibration).__name__} {calibration!r}")


def transform_points(pts, hmat: np.ndarray) -> np.ndarray:
    """``cv2.perspectiveTransform`` for (n, 2) points, n may be 0 (OpenCV returns None then)."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), hmat).reshape(-1, 2)


def undistort_points(pts, k: np.ndarray, dist) -> np.ndarray:
    """``cv2.undistortPoints`` (back to pixels) for (n, 2) points, n may be 0."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cv2.undistortPoints(pts.reshape(-1, 1, 2), k, dist, P=k).reshape(-1, 2)


@dataclass
class BoardLocation:
    """Board plane → image mapping for one frame.

    ``homography`` maps board millimetres (z = 0) to undistorted pixels.  ``camera_matrix``
    is the calibrated one or an estimate (``assumed_focal``).  ``rotation``/``centre``:
    board→camera rotation and the camera centre in the board frame (mm, z < 0 is above).
    """

    homography: np.ndarray
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray | None
    rotation: np.ndarray
    centre: np.ndarray
    markers_seen: tuple[int, ...]
    markers_missing: tuple[int, ...]
    reprojection_px: float
    assumed_focal: bool
    kept: bool = False          # re-used from an earlier frame (corner markers hidden)
    image_size: tuple[int, int] = (0, 0)
    # Camera matrix the distortion was estimated with (no calibration); else camera_matrix.
    lens_matrix: np.ndarray | None = None
    # Without a calibration: the focal length was measured from a tilted view (else assumed),
    # and the relative standard deviation that the corners' noise gives that measurement.
    focal_measured: bool = False
    focal_rel_sigma: float = 0.0
    # How far a lifted sticker appears displaced: the camera's inverse height (1/mm) as
    # measured from a tall sticker's apparent size (``reader.with_parallax``), and its
    # standard deviation.  None: from the pose (1 / camera_height_mm).
    parallax: float | None = None
    parallax_sigma: float = 0.0
    # The camera's foot point (board mm) that goes with ``parallax`` (None: the pose's), and
    # (parallax, foot point) at the ends of its uncertainty, for the reader's square check.
    nadir_mm: np.ndarray | None = None
    parallax_bounds: tuple = ()
    inv_homography: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.inv_homography = np.linalg.inv(self.homography)
        self._ray = self.rotation.T @ np.linalg.inv(self.camera_matrix)   # pixel -> board-frame ray

    @property
    def tilt_deg(self) -> float:
        """Angle between the camera's optical axis and the board's normal."""
        return math.degrees(math.acos(min(1.0, abs(float(self.rotation[2, 2])))))

    @property
    def lens(self) -> np.ndarray:
        return self.lens_matrix if self.lens_matrix is not None else self.camera_matrix

    @property
    def camera_height_mm(self) -> float:
        return float(-self.centre[2])

    @property
    def pose_parallax(self) -> float:
        """The camera's inverse height (1/mm) from the pose: a sticker h mm up appears
        displaced away from the camera's foot point by h * parallax of its distance."""
        return 1.0 / max(self.camera_height_mm, 1.0)

    def in_view(self, pts_mm: np.ndarray, margin_px: float = 2.0) -> bool:
        """Whether board-frame points (z = 0) all fall inside the frame."""
        w, h = self.image_size
        px = self.to_raw_image(np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2))
        return bool(np.all((px >= margin_px) & (px <= np.array([w, h]) - 1 - margin_px)))

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        """Raw image pixels → undistorted pixels (identity without a calibration)."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        if self.dist_coeffs is None or not np.any(self.dist_coeffs):
            return pts
        return undistort_points(pts, self.lens, self.dist_coeffs)

    def to_board(self, pts_px: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Undistorted pixels → board-frame mm of points ``height_mm`` above the board.

        The plane mapping comes from the homography (most accurate); the height is a
        correction from the pose: where the pixel's ray meets z = -h rather than z = 0.
        """
        pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        flat = transform_points(pts, self.inv_homography)
        h = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(pts),))
        if not np.any(h):
            return flat
        if self.parallax is not None:
            return self.lift(flat, h, self.parallax, self.nadir_mm)
        rays = (self._ray @ np.vstack([pts.T, np.ones(len(pts))])).T    # board-frame ray directions
        dz = np.where(np.abs(rays[:, 2]) < 1e-9, 1e-9, rays[:, 2])
        # The ray meets z = -h this far from where it meets z = 0 (heights per point).
        return flat + (-h / dz)[:, None] * rays[:, :2]

    def lift(self, flat_mm: np.ndarray, height_mm, parallax: float, nadir_mm=None) -> np.ndarray:
        """Where points seen at ``flat_mm`` on the board plane are when they are ``height_mm``
        up, for a camera of inverse height ``parallax`` above its foot point ``nadir_mm``
        (default: the pose's)."""
        flat = np.asarray(flat_mm, dtype=np.float64).reshape(-1, 2)
        h = np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(flat),))
        nadir = self.centre[:2] if nadir_mm is None else np.asarray(nadir_mm, dtype=np.float64)
        return flat - (h * parallax)[:, None] * (flat - nadir)

    def nadir_for(self, parallax: float) -> np.ndarray:
        """The camera's foot point (board mm) if the camera stood 1 / ``parallax`` mm above the
        board: the focal length that makes the pose that high (square pixels, centred
        principal point).  Close to overhead the corner markers cannot tell the focal
        length, and with it where the foot point is; a measured height can."""
        w, _h = self.image_size
        f_lo, f_hi = 0.2 * w, 20.0 * w
        f = float(self.camera_matrix[0, 0])
        target = 1.0 / parallax if parallax > 0 else math.inf
        centre = self.centre
        for i in range(4):      # the height grows about in proportion to f: 2-3 rounds
            if i == 0 and float(self.camera_matrix[1, 1]) == f:
                centre = self.centre      # the camera matrix's own focal length: the pose at hand
            else:
                k = self.camera_matrix.copy()
                k[0, 0] = k[1, 1] = f
                _rot, centre = _pose(self.homography, k)
            height = max(float(-centre[2]), 1e-6)
            new = float(np.clip(f * target / height, f_lo, f_hi)) if math.isfinite(target) else f_hi
            if abs(new - f) <= 1e-3 * f:
                break
            f = new
        return np.asarray(centre[:2], dtype=np.float64)

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Board mm (z = 0) → undistorted pixels."""
        return transform_points(pts_mm, self.homography)

    def to_raw_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Board mm (z = 0) → raw (distorted) pixels, for drawing on the frame."""
        pts = self.to_image(pts_mm)
        if self.dist_coeffs is None or not np.any(self.dist_coeffs) or len(pts) == 0:
            return pts
        k = self.lens
        norm = np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1],
                                np.ones(len(pts))])
        out, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return out.reshape(-1, 2)


@dataclass(frozen=True)
class LocateResult:
    location: BoardLocation | None
    reason: Text | None = None         # why the board was not located (engine.wording data; str() English)
    bumped: bool = False               # markers moved against the previous location
    shift_px: float = 0.0              # how far they moved


def board_correspondences(det: Detections, scheme: Scheme, undistort) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Board-frame corners (n, 2) and their undistorted pixels (n, 2) for visible board markers."""
    obj, img, seen = [], [], []
    found = []
    for m in scheme.board_markers:
        idx = np.flatnonzero(det.ids == m.id)
        if len(idx) == 0:
            continue
        seen.append(m.id)
        for i in idx:   # a copy seen twice: the robust fit keeps the one that agrees
            found.append((m, undistort(det.corners[i])))
    for m, px in _turned_to_fit(found):
        obj.extend(m.corners_mm())
        img.extend(px)
    return np.asarray(obj, dtype=np.float64).reshape(-1, 2), np.asarray(img, dtype=np.float64).reshape(-1, 2), seen


def _turned_to_fit(found: list) -> list:
    """Each corner marker's 4 corners in the order that best fits the others.

    The scheme's rotation says which corner is which; a sticker stuck on turned by a
    quarter (or an image set that read the convention differently) would otherwise
    spoil the fit.  The markers' centres alone fix the board roughly (a homography
    from 4, an affine map from 3); each marker's corners are then cycled to match.
    """
    if len(found) < 3 or len({m.id for m, _ in found}) != len(found):
        return found
    centres_mm = np.array([m.center_mm for m, _ in found], dtype=np.float64)
    centres_px = np.array([px.mean(axis=0) for _, px in found], dtype=np.float64)
    if len(found) >= 4:     # the scheme has 4 corner markers: an exact 4-point fit
        rough = cv2.getPerspectiveTransform(centres_mm[:4].astype(np.float32), centres_px[:4].astype(np.float32))
    else:
        a = cv2.getAffineTransform(centres_mm[:3].astype(np.float32), centres_px[:3].astype(np.float32))
        rough = np.vstack([a, [0, 0, 1]])
    if rough is None:
        return found
    want = transform_points(np.array([m.corners_mm() for m, _ in found], dtype=np.float64), rough).reshape(-1, 4, 2)
    px = np.array([p for _, p in found], dtype=np.float64).reshape(-1, 4, 2)
    cycles = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4          # cycle k: corners k, k+1, …
    cost = np.linalg.norm(px[:, cycles] - want[:, None], axis=3).sum(axis=2)   # (markers, 4 cycles)
    best = cost.argmin(axis=1)
    return [(m, px[i, cycles[best[i]]]) for i, (m, _) in enumerate(found)]


def locate_board(det: Detections, image_size: tuple[int, int], scheme: Scheme, calibration=None,
                 config: ReaderConfig = DEFAULT_CONFIG, previous: BoardLocation | None = None) -> LocateResult:
    """Locate the board in one frame; ``previous`` (the last good location) is kept
    when too many corner markers are hidden and notices a bumped camera."""
    k, dist, assumed = _camera(image_size, calibration, config)

    def undistort(p):
        p = np.asarray(p, dtype=np.float64).reshape(-1, 2)
        if dist is None:
            return p
        return undistort_points(p, k, dist)

    obj, raw, seen = board_correspondences(det, scheme, lambda p: np.asarray(p, dtype=np.float64).reshape(-1, 2))
    img = raw if dist is None else board_correspondences(det, scheme, undistort)[1]
    all_ids = [m.id for m in scheme.board_markers]
    missing = tuple(i for i in all_ids if i not in seen)
    need = min(config.min_board_markers, len(all_ids))

    shift = 0.0
    if previous is not None and len(seen):
        # Compared in raw pixels: the previous frame's lens model may differ from this one's.
        moved = np.linalg.norm(previous.to_raw_image(obj) - raw, axis=1).reshape(-1, 4).max(axis=1)
        # Per marker the copy that moved least (a stray copy elsewhere is not a bump).
        group_ids = np.array([m.id for m in scheme.board_markers for i in det.ids if i == m.id])
        shift = float(max(moved[group_ids == i].min() for i in seen))
    bumped = previous is not None and len(seen) > 0 and shift > config.bump_threshold_px

    if len(seen) < need:
        hidden = _hidden_text(missing, len(all_ids))
        if previous is not None and not bumped and len(seen) >= 1:
            kept = _copy(previous, seen, missing)
            return LocateResult(kept, None, False, shift)
        if bumped:
            return LocateResult(None, board_not_located(MOVED(shift=f"{shift:.0f}", hidden=hidden)), True, shift)
        return LocateResult(None, board_not_located(hidden), False, shift)

    h, inliers = cv2.findHomography(obj, img, cv2.RANSAC, config.homography_threshold_px)
    if h is None or inliers is None or int(inliers.sum()) < 4 * need - 2:
        return LocateResult(None, board_not_located(CORNERS_MISFIT()), bumped, shift)
    mask = inliers.ravel().astype(bool)
    lens = None
    if assumed and config.estimate_distortion:
        if previous is not None and not bumped and previous.assumed_focal:
            # Same camera, same lens as the last frame: keep its estimate.
            k1 = float(previous.dist_coeffs[0]) if previous.dist_coeffs is not None else 0.0
        else:
            k1 = _estimate_k1(det, scheme, k, obj[mask], raw[mask], config)
        if k1:
            lens, dist = k, np.array([k1, 0.0, 0.0, 0.0, 0.0])
            img = board_correspondences(det, scheme, undistort)[1]
    h, _ = cv2.findHomography(obj[mask], img[mask], 0)
    if h is None or not np.all(np.isfinite(h)):
        return LocateResult(None, board_not_located(NO_FIT()), bumped, shift)
    proj = transform_points(obj[mask], h)
    err = float(np.mean(np.linalg.norm(proj - img[mask], axis=1)))
    if err > config.max_reprojection_px:
        return LocateResult(None, board_not_located(BAD_FIT(error=f"{err:.1f}")), bumped, shift)
    measured, focal_rel = False, math.inf
    if assumed:
        k, focal_rel = _estimate_camera(h, image_size, config, obj[mask], img[mask], err)
        measured = math.isfinite(focal_rel)
    rot, centre = _pose(h, k)
    loc = BoardLocation(h, k, dist, rot, centre, tuple(seen), missing, err, assumed, image_size=tuple(image_size),
                        lens_matrix=lens, focal_measured=measured, focal_rel_sigma=focal_rel if measured else 0.0)
    return LocateResult(loc, None, bumped, shift)


def _estimate_k1(det: Detections, scheme: Scheme, k: np.ndarray, obj: np.ndarray, raw_board: np.ndarray,
                 config: ReaderConfig) -> float:
    """Radial distortion k1 of an uncalibrated lens, from the piece stickers' sizes.

    A homography cannot bend: with barrel or pincushion distortion, stickers in the
    middle of the board come out larger or smaller than at the corners.  The k1 that
    makes every flat sticker its printed size (and the corner markers fit best) is
    taken, if it clearly beats no distortion.  Without enough stickers, none.
    """
    quads, sizes = [], []
    for mid, c in zip(det.ids, det.corners):
        st = scheme.stickers.get(int(mid))
        if st is not None and st.height_mm <= config.flat_sticker_mm:
            quads.append(c)
            sizes.append(st.size_mm)
    if len(quads) < config.min_stickers_for_distortion:
        return 0.0
    quads = np.asarray(quads, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes)
    pts = np.vstack([raw_board, quads]).reshape(-1, 1, 2)
    nb = len(raw_board)

    centre, f = k[:2, 2], k[0, 0]
    xn = (pts.reshape(-1, 2) - centre) / f                  # normalised distorted coordinates
    rn = np.sum(xn * xn, axis=1)                            # their squared radii

    def parts(k1s) -> tuple[np.ndarray, np.ndarray]:
        """For each k1: the spread of the stickers' relative sizes and the corner markers'
        fit error (px), all k1 values at once (a batched plain DLT: findHomography's
        refinement per value cost more than the rest of the reading)."""
        k1s = np.asarray(k1s, dtype=np.float64)[:, None]
        # Undistort as cv2.undistortPoints does for k1 alone: 5 fixed-point steps xu = xn / d,
        # d = 1 + k1 |xu|², kept as the scale 1 / d of each point (its direction never changes).
        scale = np.ones((len(k1s), len(rn)))
        for _ in range(5):
            d = 1.0 + k1s * (scale * scale * rn)
            scale = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 1.0)     # (OpenCV gives up the same way)
        und = xn * (scale * f)[:, :, None] + centre                              # (K, N, 2)
        h = _dlt_batch(obj, und[:, :nb])
        ok = np.all(np.isfinite(h), axis=(1, 2)) & (np.abs(np.linalg.det(h)) > 1e-12)
        h[~ok] = np.eye(3)
        q = _apply(np.linalg.inv(h), und[:, nb:]).reshape(len(k1s), -1, 4, 2)
        side = np.linalg.norm(q - np.roll(q, 1, axis=2), axis=3).mean(axis=2)    # (K, stickers)
        rel = side / sizes - 1.0
        spread = np.mean(np.abs(rel - np.median(rel, axis=1, keepdims=True)), axis=1)
        fit = np.mean(np.linalg.norm(_apply(h, np.broadcast_to(obj, (len(k1s),) + obj.shape)) - und[:, :nb],
                                     axis=2), axis=1)
        return np.where(ok, spread, np.inf), np.where(ok, fit, np.inf)

    # Coarse to fine, each step's values in one batch (one batch costs about what one value
    # did); the coarse grid holds no distortion, k1 = 0.
    step = 4 * config.k1_step
    n = int(round(config.max_k1 / step))
    grid = np.arange(-n, n + 1) * step
    spread, fit_px = parts(grid)
    if spread[n] < config.distortion_min_spread and fit_px[n] < config.distortion_min_fit_px:
        return 0.0     # stickers and corner markers already agree: no visible distortion
    costs = spread + config.distortion_fit_weight * fit_px
    base = float(costs[n])
    i = int(np.argmin(costs))
    best, best_cost = float(grid[i]), float(costs[i])
    while best_cost < base and step > config.k1_step + 1e-12:
        step /= 2
        grid = best + np.array([-step, step])
        costs = np.add(*(a * w for a, w in zip(parts(grid), (1.0, config.distortion_fit_weight))))
        i = int(np.argmin(costs))
        if costs[i] < best_cost:
            best, best_cost = float(grid[i]), float(costs[i])
    if abs(best) < 1e-12 or best_cost >= base or best_cost > config.distortion_gain * base:
        return 0.0
    return best


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Homographies (K, 3, 3) applied to points (K, n, 2)."""
    p = np.einsum("kij,knj->kni", h, np.concatenate([pts, np.ones(pts.shape[:2] + (1,))], axis=2))
    return p[..., :2] / p[..., 2:3]


def _hidden_text(missing: tuple[int, ...], total: int) -> Text:
    ids = ", ".join(str(i) for i in missing)
    if len(missing) == total:
        return NO_CORNERS(ids=ids)
    return CORNERS_HIDDEN(hidden=len(missing), total=total, ids=ids)


def _copy(prev: BoardLocation, seen, missing) -> BoardLocation:
    loc = BoardLocation(prev.homography, prev.camera_matrix, prev.dist_coeffs, prev.rotation, prev.centre,
                        tuple(seen), tuple(missing), prev.reprojection_px, prev.assumed_focal, kept=True,
                        image_size=prev.image_size, lens_matrix=prev.lens_matrix,
                        focal_measured=prev.focal_measured, focal_rel_sigma=prev.focal_rel_sigma)
    return loc


def _camera(image_size, calibration, config: ReaderConfig):
    """Camera matrix and distortion from the calibration (scaled to this frame size),
    or a provisional matrix to be replaced by ``_estimate_camera``."""
    w, h = image_size
    if calibration is not None:
        k = np.asarray(calibration.camera_matrix, dtype=np.float64).copy()
        cw, ch = calibration.image_size
        if (cw, ch) != (w, h):
            k[0] *= w / cw
            k[1] *= h / ch
        dist = np.asarray(calibration.dist_coeffs, dtype=np.float64).ravel()
        return k, (dist if np.any(dist) else None), False
    return _default_k(w, h, config), None, True


def _default_k(w: int, h: int, config: ReaderConfig) -> np.ndarray:
    f = (w / 2.0) / math.tan(math.radians(config.default_hfov_deg) / 2.0)
    return np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])


def _estimate_camera(hmat: np.ndarray, image_size, config: ReaderConfig, obj: np.ndarray | None = None,
                     img: np.ndarray | None = None, sigma_px: float = 0.0) -> tuple[np.ndarray, float]:
    """Focal length from the homography (square pixels, centred principal point), and its
    relative standard deviation.

    From the two constraints on the rotation's first columns (orthogonal, equal
    length).  Close to overhead they carry almost no information: a fraction of a pixel
    of corner noise moves the estimate by a factor of four (2769 px for a true 727 was
    seen).  So the estimate is trusted only when the view is tilted enough *and* the
    corners (``obj`` board mm, ``img`` pixels, ``sigma_px`` noise per coordinate) pin it
    down: its spread over that noise must stay within ``config.max_focal_rel_sigma``.
    Otherwise the configured field of view is assumed (relative sigma ``inf``: unknown).
    Only the height correction depends on this.
    """
    w, h = image_size
    k0 = _default_k(w, h, config)
    inv_f2 = float(_inv_f2(hmat[None], w, h)[0])
    if not math.isfinite(inv_f2) or inv_f2 <= 0:
        return k0, math.inf
    f = 1.0 / math.sqrt(inv_f2)
    if not (0.3 * w <= f <= 5.0 * w):
        return k0, math.inf
    k = np.array([[f, 0, w / 2.0], [0, f, h / 2.0], [0, 0, 1.0]])
    # Only trust the estimate when the view is tilted enough for it to be measurable.
    rot, _ = _pose(hmat, k)
    if math.degrees(math.acos(min(1.0, abs(rot[2, 2])))) < 8.0:
        return k0, math.inf
    if obj is None or img is None:
        return k, 0.0
    rel = _focal_rel_sigma(obj, img, w, h, inv_f2, max(sigma_px, config.corner_sigma_px))
    if rel > config.max_focal_rel_sigma:
        return k0, math.inf
    return k, rel


def _inv_f2(hmats: np.ndarray, w: float, h: float) -> np.ndarray:
    """1 / f² from homographies (b, 3, 3): least squares on the two rotation constraints."""
    t = np.array([[1, 0, -w / 2.0], [0, 1, -h / 2.0], [0, 0, 1]])
    hp = t @ hmats
    hp = hp / np.linalg.norm(hp[:, :, :2], axis=(1, 2))[:, None, None]
    a1, b1, c1 = hp[:, 0, 0], hp[:, 1, 0], hp[:, 2, 0]
    a2, b2, c2 = hp[:, 0, 1], hp[:, 1, 1], hp[:, 2, 1]
    coef = np.stack([a1 * a2 + b1 * b2, a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2], axis=1)
    const = np.stack([c1 * c2, c1 * c1 - c2 * c2], axis=1)
    denom = np.sum(coef * coef, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denom > 0, -np.sum(coef * const, axis=1) / denom, np.nan)


def _focal_rel_sigma(obj: np.ndarray, img: np.ndarray, w: float, h: float, inv_f2: float, sigma_px: float) -> float:
    """Relative standard deviation of the focal length that ``sigma_px`` of noise on each
    corner coordinate gives, to first order; ``inf`` when two standard deviations allow any
    focal length (1/f² reaching zero).

    The homography is the DLT null vector h of A (Hartley-normalised points): moving one
    image coordinate changes one row of A, and h by (AᵀA)⁺ (that row) (its depth), so
    the Jacobian of h over all corners costs one small SVD.
    """
    a, xh, tx, tu = _dlt_system(obj, img)
    _, sv, vt = np.linalg.svd(a, full_matrices=False)
    hn = vt[-1]
    pinv = vt[:-1].T @ np.diag(1.0 / np.maximum(sv[:-1], 1e-12) ** 2) @ vt[:-1]    # (AᵀA)⁺ without h
    depth = np.repeat(xh @ hn[6:9], 2)
    dhn = pinv @ (a.T * depth) * tu[0, 0]                # d hn / d pixel coordinate, (9, 2n)
    lift = np.kron(np.linalg.inv(tu), tx.T)              # vec(Tu⁻¹ Hn Tx) = lift @ vec(Hn)
    hmat, dh = (lift @ hn).reshape(3, 3), lift @ dhn
    step = 0.01         # px: 1/f² is far from linear in the perspective terms, so move along dh
    vals = _inv_f2(np.concatenate([hmat[None], hmat[None] + step * dh.T.reshape(-1, 3, 3)]), w, h)
    grad = (vals[1:] - vals[0]) / step
    sig = sigma_px * float(np.sqrt(np.sum(grad * grad)))
    if not math.isfinite(sig) or inv_f2 - 2.0 * sig <= 0:
        return math.inf
    f_lo, f_hi = 1.0 / math.sqrt(inv_f2 + 2.0 * sig), 1.0 / math.sqrt(inv_f2 - 2.0 * sig)
    return (f_hi - f_lo) / 4.0 * math.sqrt(inv_f2)


def _dlt_system(obj: np.ndarray, img: np.ndarray):
    """The DLT's (2n, 9) matrix A for board points ``obj`` → pixels ``img`` (Hartley-
    normalised: A h = 0 for the normalised homography), the points' homogeneous normalised
    board coordinates and the two normalising maps."""
    (x, tx), (u, tu) = _normalised(np.asarray(obj, np.float64)), _normalised(np.asarray(img, np.float64))
    n = len(x)
    xh = np.column_stack([x, np.ones(n)])
    a = np.zeros((2 * n, 9))
    a[0::2, 0:3], a[0::2, 6:9] = xh, -u[:, 0:1] * xh
    a[1::2, 3:6], a[1::2, 6:9] = xh, -u[:, 1:2] * xh
    return a, xh, tx, tu


def _dlt_batch(obj: np.ndarray, imgs: np.ndarray) -> np.ndarray:
    """Homographies (K, 3, 3) board ``obj`` (n, 2) → each of ``imgs`` (K, n, 2) by the
    normalised DLT alone (no refinement), all at once."""
    x, tx = _normalised(np.asarray(obj, np.float64))
    imgs = np.asarray(imgs, np.float64)
    c = imgs.mean(axis=1, keepdims=True)                                        # (K, 1, 2)
    sc = math.sqrt(2.0) / np.maximum(np.linalg.norm(imgs - c, axis=2).mean(axis=1), 1e-12)   # (K,)
    u = (imgs - c) * sc[:, None, None]
    k, n = u.shape[:2]
    xh = np.broadcast_to(np.column_stack([x, np.ones(n)]), (k, n, 3))
    a = np.zeros((k, 2 * n, 9))
    a[:, 0::2, 0:3], a[:, 0::2, 6:9] = xh, -u[..., 0:1] * xh
    a[:, 1::2, 3:6], a[:, 1::2, 6:9] = xh, -u[..., 1:2] * xh
    hn = np.linalg.svd(a, full_matrices=False)[2][:, -1].reshape(k, 3, 3)
    back = np.zeros((k, 3, 3))                                                  # the inverse normalising maps
    back[:, 0, 0] = back[:, 1, 1] = 1.0 / sc
    back[:, :2, 2] = c[:, 0]
    back[:, 2, 2] = 1.0
    return back @ hn @ tx


def _normalised(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points (n, 2) moved to their centroid and scaled to mean distance √2, and that map (3×3)."""
    c = p.mean(axis=0)
    s = math.sqrt(2.0) / max(float(np.linalg.norm(p - c, axis=1).mean()), 1e-12)
    return (p - c) * s, np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1.0]])


def _pose(hmat: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Board→camera rotation and the camera centre (board frame) from H = K [r1 r2 t]."""
    m = np.linalg.solve(k, hmat)
    lam = 2.0 / (math.sqrt(float(m[:, 0] @ m[:, 0])) + math.sqrt(float(m[:, 1] @ m[:, 1])))
    if m[2, 2] * lam < 0:        # the board must be in front of the camera
        lam = -lam
    r1, r2, tvec = lam * m[:, 0], lam * m[:, 1], lam * m[:, 2]
    r3 = np.array([r1[1] * r2[2] - r1[2] * r2[1], r1[2] * r2[0] - r1[0] * r2[2], r1[0] * r2[1] - r1[1] * r2[0]])
    r = np.column_stack([r1, r2, r3])
    u, _, vt = np.linalg.svd(r)
    r = u @ vt
    if np.linalg.det(r) < 0:
        r[:, 2] = -r[:, 2]
    centre = -r.T @ tvec
    return r, centre
