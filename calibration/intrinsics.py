"""Camera intrinsics from photos of a printed ChArUco board (cv2.aruco does the work).

The ChArUco board uses its own dictionary (DICT_5X5_100), so a calibration sheet lying
on the table is never mistaken for a game sticker (the game uses the scheme's 4×4 ids).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .store import Calibration

CHARUCO_DICTIONARY = "DICT_5X5_100"


@dataclass(frozen=True)
class CharucoSpec:
    """The printed calibration board: ``squares`` (columns, rows), sizes in mm."""

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 30.0
    marker_mm: float = 22.0

    def board(self):
        dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, CHARUCO_DICTIONARY))
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dic)

    def image(self, dpi: int = 300, margin_mm: float = 10.0) -> np.ndarray:
        """The board at exact print size for ``dpi`` (white margin included)."""
        px_per_mm = dpi / 25.4
        w = int(round((self.squares[0] * self.square_mm + 2 * margin_mm) * px_per_mm))
        h = int(round((self.squares[1] * self.square_mm + 2 * margin_mm) * px_per_mm))
        return self.board().generateImage((w, h), marginSize=int(round(margin_mm * px_per_mm)), borderBits=1)


@dataclass
class Views:
    """ChArUco corners collected from several frames."""

    spec: CharucoSpec
    object_points: list = field(default_factory=list)
    image_points: list = field(default_factory=list)
    image_size: tuple[int, int] | None = None
    rejected: list[str] = field(default_factory=list)

    def add(self, image: np.ndarray, name: str = "frame", min_corners: int = 8) -> int:
        """Detect the board in one frame; returns how many corners were usable (0 = rejected)."""
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            self.rejected.append(f"{name}: not an image")
            return 0
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        size = (gray.shape[1], gray.shape[0])
        if self.image_size is not None and size != self.image_size:
            self.rejected.append(f"{name}: {size[0]}×{size[1]} px, but earlier frames were "
                                 f"{self.image_size[0]}×{self.image_size[1]}")
            return 0
        board = self.spec.board()
        detector = cv2.aruco.CharucoDetector(board)
        corners, ids, _mc, _mi = detector.detectBoard(gray)
        n = 0 if ids is None else len(ids)
        if n < min_corners:
            self.rejected.append(f"{name}: only {n} ChArUco corners found (need {min_corners})")
            return 0
        obj, img = board.matchImagePoints(corners, ids)
        self.object_points.append(obj.astype(np.float32))
        self.image_points.append(img.astype(np.float32))
        self.image_size = size
        return n

    def __len__(self) -> int:
        return len(self.object_points)


class NotEnoughViews(ValueError):
    pass


def calibrate(views: Views, min_views: int = 5) -> Calibration:
    """Intrinsics and distortion from the collected views (cv2.calibrateCamera)."""
    if len(views) < min_views:
        why = "; ".join(views.rejected[:5])
        raise NotEnoughViews(f"only {len(views)} usable view(s) of the ChArUco board, need {min_views}"
                             + (f" ({why})" if why else ""))
    rms, k, dist, _r, _t = cv2.calibrateCamera(views.object_points, views.image_points, views.image_size,
                                               None, None)
    return Calibration(k, dist.ravel(), views.image_size, float(rms), len(views))
