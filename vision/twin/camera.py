"""The synthetic camera's optics: a pinhole camera with radial distortion, posed over the board.

Board frame (VISION.md): millimetres, origin at the outer top-left corner of ``a1``, x towards
column ``p``, y towards row 11.  The third axis points *into* the table so that the frame is
right-handed (OpenCV's convention); a point ``h`` mm above the board has ``z = -h``.
``Camera.project`` takes heights, so callers never see the sign.

Everything drawn by the synthetic camera goes through ``Camera``: a flat layer at height ``h``
is a plane, so the map from image pixels back to that plane is a homography on *undistorted*
normalised coordinates.  Without distortion the whole map is one homography and
``cv2.warpPerspective`` draws it; with distortion the per-pixel undistorted coordinates are
computed once per lens (cached) and ``cv2.remap`` draws it.  That keeps a 1920x1080 frame at
around a tenth of a second while staying an exact pinhole model, so the reader's height
correction is really exercised.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

# Board-grid centre (16 x 11 squares of 30 mm): where an unshifted camera looks.
BOARD_CENTRE_MM = (240.0, 165.0)
DEFAULT_HFOV_DEG = 62.2  # Raspberry Pi camera module v2


@dataclass(frozen=True, eq=False)
class Camera:
    """A posed pinhole camera: ``K`` intrinsics, ``dist`` OpenCV distortion coefficients,
    ``R``/``t`` the board-frame-to-camera transform (``X_cam = R @ X_board + t``)."""

    width: int
    height: int
    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0].ravel()

    @property
    def distorted(self) -> bool:
        return bool(np.any(self.dist != 0))

    @property
    def centre_mm(self) -> np.ndarray:
        """The camera's optical centre in the board frame (z negative: above the board)."""
        return -self.R.T @ self.t

    def project(self, xy_mm, height_mm=0.0) -> np.ndarray:
        """Pixel positions (N, 2) of board-frame points ``(x, y)`` lifted ``height_mm`` above the
        board (one height or one per point), through the lens distortion."""
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(xy),))
        pts = np.column_stack([xy, z])
        out, _ = cv2.projectPoints(pts, self.rvec, self.t, self.K, self.dist)
        return out.reshape(-1, 2)

    def depth(self, xy_mm, height_mm=0.0) -> np.ndarray:
        """Distance along the optical axis of board-frame points (for painter's order)."""
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (len(xy),))
        return (np.column_stack([xy, z]) @ self.R.T + self.t)[:, 2]

    def plane_to_normalised(self, height_mm: float) -> np.ndarray:
        """Homography from ``(x, y, 1)`` on the plane ``height_mm`` above the board to
        undistorted normalised camera coordinates."""
        z = -float(height_mm)
        return np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])

    def scaled(self, factor: int) -> "Camera":
        """The same camera with a sensor ``factor`` times finer (for supersampling).
        Pixel centres stay put: ``u' = factor * (u + 0.5) - 0.5``."""
        k = self.K.copy()
        k[0, 0] *= factor
        k[1, 1] *= factor
        k[0, 2] = factor * (k[0, 2] + 0.5) - 0.5
        k[1, 2] = factor * (k[1, 2] + 0.5) - 0.5
        return Camera(self.width * factor, self.height * factor, k, self.dist, self.R, self.t)

    def normalised_grid(self, x0: int, y0: int, x1: int, y1: int) -> tuple[np.ndarray, np.ndarray]:
        """Undistorted normalised coordinates of the pixels in ``[x0, x1) x [y0, y1)``."""
        xs, ys = _undistorted_grid(self.width, self.height, _key(self.K), _key(self.dist))
        return xs[y0:y1, x0:x1], ys[y0:y1, x0:x1]

    def to_json(self) -> dict:
        return {"image_size": [self.width, self.height], "K": self.K.round(4).tolist(),
                "dist": self.dist.round(6).tolist(), "rvec": self.rvec.round(6).tolist(),
                "tvec": self.t.round(4).tolist(),
                "frame": "board frame in mm with z into the table (height h is z = -h)"}


def _key(a: np.ndarray) -> tuple:
    return tuple(float(v) for v in np.asarray(a).ravel())


@lru_cache(maxsize=2)  # ~66 MB each at 2x supersampled 1920x1080
def _undistorted_grid(width: int, height: int, k: tuple, dist: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel undistorted normalised coordinates.  The lens model is inverted exactly on a
    coarse grid (every 4 pixels, one ring beyond the frame) and interpolated bilinearly in
    between: the map is smooth, so this stays within a hundredth of a pixel at a small
    fraction of the cost of inverting every pixel."""
    step = 4
    kmat = np.array(k).reshape(3, 3)
    us = np.arange(-step, width + 2 * step, step, dtype=np.float64)
    vs = np.arange(-step, height + 2 * step, step, dtype=np.float64)
    cu, cv_ = np.meshgrid(us, vs)
    x, y = _invert_lens((cu - kmat[0, 2]) / kmat[0, 0], (cv_ - kmat[1, 2]) / kmat[1, 1], dist)
    # Bilinear between grid samples (sample i sits at pixel i * step - step), separably:
    # first along rows, then along columns.
    fu = (np.arange(width) + step) / step
    fv = (np.arange(height) + step) / step
    iu, iv = fu.astype(int), fv.astype(int)
    wu, wv = (fu - iu)[None, :], (fv - iv)[:, None]
    out = []
    for grid in (x, y):
        rows = grid[:, iu] * (1 - wu) + grid[:, iu + 1] * wu
        out.append((rows[iv] * (1 - wv) + rows[iv + 1] * wv).astype(np.float32))
    return out[0], out[1]


def _invert_lens(xd: np.ndarray, yd: np.ndarray, dist: tuple, iterations: int = 20):
    """Undistorted normalised coordinates whose OpenCV distortion gives (xd, yd), by
    fixed-point iteration (pose_camera refuses lenses for which it does not converge)."""
    x, y = xd.copy(), yd.copy()
    for _ in range(iterations):
        radial, dx, dy = _lens_terms(x, y, dist)
        x = (xd - dx) / radial
        y = (yd - dy) / radial
    return x, y


def _lens_terms(x, y, dist: tuple):
    k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return radial, dx, dy


def _check_lens(kmat: np.ndarray, dist: np.ndarray, width: int, height: int) -> None:
    """A lens model that folds back inside the frame cannot be drawn (nor exists)."""
    u = np.array([0.0, width - 1, 0.0, width - 1, (width - 1) / 2, 0.0])
    v = np.array([0.0, 0.0, height - 1, height - 1, 0.0, (height - 1) / 2])
    xd, yd = (u - kmat[0, 2]) / kmat[0, 0], (v - kmat[1, 2]) / kmat[1, 1]
    x, y = _invert_lens(xd, yd, tuple(dist), 60)
    radial, dx, dy = _lens_terms(x, y, tuple(dist))
    if not np.all(np.isfinite(x)) or np.abs(x * radial + dx - xd).max() > 1e-9 \
            or np.abs(y * radial + dy - yd).max() > 1e-9:
        raise ValueError(f"lens distortion {dist.round(3).tolist()} is too strong for this field of view: "
                         f"the lens model folds back before the image corners (try k1 between -0.3 and 0.3)")


def pose_camera(width: int = 1920, height: int = 1080, *, height_mm: float = 900.0,
                tilt_deg: float = 0.0, tilt_azimuth_deg: float = 180.0, rotation_deg: float = 0.0,
                offset_mm=(0.0, 0.0), hfov_deg: float = DEFAULT_HFOV_DEG,
                distortion=0.0) -> Camera:
    """A camera ``height_mm`` above the board looking at the grid centre shifted by ``offset_mm``.

    ``tilt_deg`` leans the optical axis away from vertical, the camera standing towards
    ``tilt_azimuth_deg`` (clockwise from north, 180 = on the row-11 side); ``rotation_deg``
    turns the camera about its axis (the board appears turned anticlockwise by that much).
    ``distortion`` is the radial coefficient k1 (negative = barrel) or a full OpenCV
    coefficient list.
    """
    if width < 16 or height < 16:
        raise ValueError(f"image size {width}x{height} is too small")
    if not 0 <= tilt_deg < 80:
        raise ValueError(f"tilt {tilt_deg}° must be at least 0° and less than 80°")
    if height_mm <= 60:
        raise ValueError(f"camera height {height_mm} mm must be above the monster figure (60 mm)")
    f = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    kmat = np.array([[f, 0, (width - 1) / 2.0], [0, f, (height - 1) / 2.0], [0, 0, 1.0]])
    if isinstance(distortion, (int, float)):
        dist = np.array([float(distortion), 0.0, 0.0, 0.0, 0.0])
    else:
        dist = np.array((list(distortion) + [0.0] * 5)[:5], dtype=np.float64)

    if np.any(dist != 0):
        _check_lens(kmat, dist, width, height)
    target = np.array([BOARD_CENTRE_MM[0] + offset_mm[0], BOARD_CENTRE_MM[1] + offset_mm[1], 0.0])
    az = math.radians(tilt_azimuth_deg)
    away = np.array([math.sin(az), -math.cos(az), 0.0])  # from target towards the camera's foot
    centre = target + np.array([0.0, 0.0, -height_mm]) + away * height_mm * math.tan(math.radians(tilt_deg))
    forward = target - centre
    forward /= np.linalg.norm(forward)
    # Image "down" is the board's south as far as the tilt allows, then rolled.
    down = np.array([0.0, 1.0, 0.0]) - forward * forward[1]
    down /= np.linalg.norm(down)
    right = np.cross(down, forward)
    roll = math.radians(rotation_deg)
    right, down = (math.cos(roll) * right + math.sin(roll) * down,
                   -math.sin(roll) * right + math.cos(roll) * down)
    rmat = np.vstack([right, down, forward])
    return Camera(width, height, kmat, dist, rmat, -rmat @ centre)


def texture_map(camera: Camera, height_mm: float, board_to_texture: np.ndarray,
                roi: tuple[int, int, int, int]):
    """How to fetch, for each pixel of ``roi`` (x0, y0, x1, y1), its point on the plane
    ``height_mm`` up, in a texture whose pixel coordinates are ``board_to_texture @ (x, y, 1)``.

    Returns ``("warp", M)`` (a homography for cv2.warpPerspective with WARP_INVERSE_MAP) for a
    lens without distortion, else ``("remap", (map_x, map_y))``.
    """
    x0, y0, x1, y1 = roi
    g = board_to_texture @ np.linalg.inv(camera.plane_to_normalised(height_mm))
    if not camera.distorted:
        shift = np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]])
        return "warp", g @ np.linalg.inv(camera.K) @ shift
    xn, yn = camera.normalised_grid(x0, y0, x1, y1)
    g = g.astype(np.float32)
    w = g[2, 0] * xn + g[2, 1] * yn + g[2, 2]
    mx = (g[0, 0] * xn + g[0, 1] * yn + g[0, 2]) / w
    my = (g[1, 0] * xn + g[1, 1] * yn + g[1, 2]) / w
    return "remap", (mx, my)


def sample(texture: np.ndarray, how, size: tuple[int, int], border_value=0) -> np.ndarray:
    """Apply a ``texture_map`` result: the texture as seen by the ROI of ``size`` (w, h);
    outside the texture ``border_value`` (transparent for piece faces, the table colour for
    the board)."""
    kind, m = how
    value = tuple(border_value) if isinstance(border_value, tuple) else border_value
    if kind == "warp":
        return cv2.warpPerspective(texture, m, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=value)
    return cv2.remap(texture, m[0], m[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=value)


def mm_to_texture(origin_mm: tuple[float, float], px_per_mm: float,
                  centre_mm=(0.0, 0.0), angle_deg: float = 0.0) -> np.ndarray:
    """Board-frame mm -> texture pixels for a texture of ``px_per_mm`` whose local point
    ``origin_mm`` is its top-left corner, the texture's local frame centred at ``centre_mm``
    and turned ``angle_deg`` clockwise in the board frame."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    # board = centre + Rot(a) @ local  =>  local = Rot(a)^T @ (board - centre)
    to_local = np.array([[c, s, -(c * centre_mm[0] + s * centre_mm[1])],
                         [-s, c, -(-s * centre_mm[0] + c * centre_mm[1])],
                         [0, 0, 1.0]])
    to_px = np.array([[px_per_mm, 0, -origin_mm[0] * px_per_mm - 0.5],
                      [0, px_per_mm, -origin_mm[1] * px_per_mm - 0.5],
                      [0, 0, 1.0]])
    return to_px @ to_local
