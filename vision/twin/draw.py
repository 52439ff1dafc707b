"""Drawing helpers shared by the synthetic board and piece textures.

Textures are drawn in millimetres: a ``Canvas`` knows its origin and scale, so callers
write board-frame (or piece-frame) coordinates and never pixel arithmetic.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

SHIFT = 4  # sub-pixel bits for cv2 drawing
_ONE = 1 << SHIFT


@dataclass
class Canvas:
    """A BGR or BGRA image covering ``origin_mm`` .. ``origin_mm + size`` at ``px_per_mm``."""

    image: np.ndarray
    origin_mm: tuple[float, float]
    px_per_mm: float

    @classmethod
    def blank(cls, width_mm: float, height_mm: float, px_per_mm: float, colour,
              origin_mm=(0.0, 0.0)) -> "Canvas":
        w, h = int(round(width_mm * px_per_mm)), int(round(height_mm * px_per_mm))
        img = np.empty((h, w, len(colour)), np.uint8)
        img[:] = colour
        return cls(img, (float(origin_mm[0]), float(origin_mm[1])), px_per_mm)

    def px(self, points_mm) -> np.ndarray:
        """Fixed-point pixel coordinates (for cv2 drawing with ``shift=SHIFT``)."""
        p = (np.asarray(points_mm, np.float64).reshape(-1, 2) - self.origin_mm) * self.px_per_mm - 0.5
        return np.round(p * _ONE).astype(np.int32)

    def poly(self, points_mm, colour) -> None:
        cv2.fillPoly(self.image, [self.px(points_mm)], colour, cv2.LINE_AA, SHIFT)

    def rect(self, x0, y0, x1, y1, colour) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], colour)

    def circle(self, centre, radius_mm, colour) -> None:
        c = self.px([centre])[0]
        cv2.circle(self.image, (int(c[0]), int(c[1])), int(round(radius_mm * self.px_per_mm * _ONE)),
                   colour, -1, cv2.LINE_AA, SHIFT)

    def ellipse(self, centre, axes_mm, angle_deg, colour) -> None:
        c = self.px([centre])[0]
        ax = (int(round(axes_mm[0] * self.px_per_mm * _ONE)), int(round(axes_mm[1] * self.px_per_mm * _ONE)))
        cv2.ellipse(self.image, (int(c[0]), int(c[1])), ax, angle_deg, 0, 360, colour, -1, cv2.LINE_AA, SHIFT)

    def line(self, a, b, width_mm, colour) -> None:
        p = self.px([a, b])
        cv2.line(self.image, tuple(int(v) for v in p[0]), tuple(int(v) for v in p[1]), colour,
                 max(1, int(round(width_mm * self.px_per_mm))), cv2.LINE_AA, SHIFT)

    def text(self, centre, text: str, height_mm: float, colour, turns: int = 0, thickness_mm=None) -> None:
        """Text centred on ``centre``, ``height_mm`` tall (capital height), turned ``turns``
        quarter turns clockwise (wall letters face outwards like on the printed board)."""
        patch = text_patch(text, max(4, int(round(height_mm * self.px_per_mm))),
                           thickness_mm * self.px_per_mm if thickness_mm else None)
        patch = np.rot90(patch, -turns)
        ph, pw = patch.shape
        c = (np.asarray(centre, np.float64) - self.origin_mm) * self.px_per_mm
        x0, y0 = int(round(c[0] - pw / 2)), int(round(c[1] - ph / 2))
        self.blend(patch, x0, y0, colour)

    def blend(self, alpha: np.ndarray, x0: int, y0: int, colour) -> None:
        """Paint ``colour`` through an 8-bit coverage mask placed at pixel (x0, y0)."""
        h, w = alpha.shape
        H, W = self.image.shape[:2]
        ax0, ay0 = max(0, -x0), max(0, -y0)
        bx0, by0 = max(0, x0), max(0, y0)
        bx1, by1 = min(W, x0 + w), min(H, y0 + h)
        if bx1 <= bx0 or by1 <= by0:
            return
        a = alpha[ay0:ay0 + by1 - by0, ax0:ax0 + bx1 - bx0].astype(np.float32)[..., None] / 255.0
        roi = self.image[by0:by1, bx0:bx1]
        col = np.asarray(colour, np.float32)[: roi.shape[2]]
        roi[:] = (roi * (1 - a) + col * a + 0.5).astype(np.uint8)

    def paste(self, patch: np.ndarray, corners_mm) -> None:
        """Warp a grey/BGR ``patch`` so its outer corners land on ``corners_mm``
        (top-left, top-right, bottom-right, bottom-left of the patch)."""
        h, w = patch.shape[:2]
        src = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
        dst = ((np.asarray(corners_mm, np.float64) - self.origin_mm) * self.px_per_mm - 0.5).astype(np.float32)
        x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
        H, W = self.image.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 <= x0 or y1 <= y0:
            return
        m = cv2.getPerspectiveTransform(src, dst - np.float32([x0, y0]))
        if patch.ndim == 2:
            patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
        ch = self.image.shape[2]
        if ch == 4 and patch.shape[2] == 3:
            patch = np.dstack([patch, np.full(patch.shape[:2], 255, np.uint8)])
        warped = cv2.warpPerspective(patch, m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        cover = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, (x1 - x0, y1 - y0), flags=cv2.INTER_AREA)
        a = cover.astype(np.float32)[..., None] / 255.0
        roi = self.image[y0:y1, x0:x1]
        roi[:] = (roi * (1 - a) + warped[..., :ch] * a + 0.5).astype(np.uint8)


@lru_cache(maxsize=256)
def text_patch(text: str, cap_px: int, thickness_px: float | None = None) -> np.ndarray:
    """An 8-bit coverage mask of ``text`` whose capitals are ``cap_px`` tall (Hershey font)."""
    font = cv2.FONT_HERSHEY_DUPLEX
    scale = cap_px / 22.0
    thick = max(1, int(round(thickness_px if thickness_px else cap_px / 8)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 2
    img = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(img, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    ys, xs = np.nonzero(img)
    if len(xs) == 0:
        return img
    return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


@lru_cache(maxsize=256)
def marker_image(dictionary: str, marker_id: int, side_px: int) -> np.ndarray:
    """The ArUco marker (black border included) drawn by cv2.aruco, ``side_px`` square."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    bits = d.markerSize + 2
    # Draw at a whole number of pixels per module, then resize: crisp module edges.
    per = max(1, int(np.ceil(side_px / bits)))
    img = cv2.aruco.generateImageMarker(d, marker_id, bits * per)
    if bits * per != side_px:
        img = cv2.resize(img, (side_px, side_px), interpolation=cv2.INTER_AREA)
    return img


def marker_bits(dictionary: str) -> int:
    """Modules across a marker including its black border (6 for a 4x4 dictionary)."""
    return int(dictionary.split("_")[1].split("X")[0]) + 2
