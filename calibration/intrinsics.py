"""Camera intrinsics from photos of a printed ChArUco board (cv2.aruco does the work).

The ChArUco board uses its own dictionary (DICT_5X5_100), so a calibration sheet lying
on the table is never mistaken for a game sticker (the game uses the scheme's 4×4 ids).

What cannot be right is refused rather than saved: a view nearly identical to an earlier
one (it adds no information, and six copies of one flat photo once gave a 152678 px focal
length), a view with too few corners, a focal length the views cannot pin down (OpenCV's
own standard deviation of fx above 2 %), and a lens no real camera has (``store.lens_problems``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.wording import N_, Join, Plural, Text, Worded

from .store import Calibration, lens_problems

CHARUCO_DICTIONARY = "DICT_5X5_100"
MIN_CORNERS = 8
SAME_VIEW_PX = 0.01          # mean corner shift below 1 % of the image diagonal: the same view
MAX_FOCAL_SPREAD = 0.02      # OpenCV's standard deviation of fx, as a fraction of fx
COVERAGE_CELLS = (8, 6)      # the coverage map's grid over the image
GOOD_RMS_PX = 0.5
MAX_RMS_PX = 1.0


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
    rejected: list = field(default_factory=list)   # why each refused frame was refused (engine.wording data)
    ids: list = field(default_factory=list)          # each view's corner ids (to spot repeated views)

    def add(self, image: np.ndarray, name: str = "frame", min_corners: int = MIN_CORNERS) -> int:
        """Detect the board in one frame; returns how many corners were usable (0 = rejected,
        with the reason appended to ``rejected``)."""
        if image is None or not isinstance(image, np.ndarray) or image.size == 0:
            return self._reject(Text(N_("%(name)s: not an image"), name=name))
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        size = (gray.shape[1], gray.shape[0])
        if self.image_size is not None and size != self.image_size:
            return self._reject(Text(N_("%(name)s: %(size)s px, but earlier frames were %(earlier)s"), name=name,
                                     size=f"{size[0]}×{size[1]}", earlier=f"{self.image_size[0]}×{self.image_size[1]}"))
        board = self.spec.board()
        detector = cv2.aruco.CharucoDetector(board)
        corners, ids, _mc, _mi = detector.detectBoard(gray)
        n = 0 if ids is None else len(ids)
        if n < min_corners:
            return self._reject(Text(N_("%(name)s: only %(n)s ChArUco corners found (need %(need)s): show more "
                                        "of the board"), name=name, n=n, need=min_corners))
        obj, img = board.matchImagePoints(corners, ids)
        ids = ids.ravel().astype(int)
        same = self._same_as(ids, img.reshape(-1, 2), size)
        if same is not None:
            return self._reject(Text(N_("%(name)s: nearly the same as view %(view)s: move or tilt the board before "
                                        "the next one"), name=name, view=same + 1))
        self.object_points.append(obj.astype(np.float32))
        self.image_points.append(img.astype(np.float32))
        self.ids.append(ids)
        self.image_size = size
        return n

    def _same_as(self, ids: np.ndarray, pts: np.ndarray, size: tuple[int, int]) -> int | None:
        """The earlier view this one nearly repeats (most corners in common, hardly moved), or None."""
        diag = float(np.hypot(*size))
        for i, (old_ids, old_pts) in enumerate(zip(self.ids, self.image_points)):
            common, a, b = np.intersect1d(ids, old_ids, return_indices=True)
            if len(common) < 0.8 * max(len(ids), len(old_ids)):
                continue
            shift = float(np.mean(np.linalg.norm(pts[a] - old_pts.reshape(-1, 2)[b], axis=1)))
            if shift < SAME_VIEW_PX * diag:
                return i
        return None

    def coverage(self, cells: tuple[int, int] = COVERAGE_CELLS) -> list[list[int]]:
        """How many corners fell in each cell of a ``cells`` (columns, rows) grid over the image:
        a calibration is only good where corners were seen (rows of counts, top row first)."""
        cols, rows = cells
        grid = np.zeros((rows, cols), dtype=int)
        if self.image_size is None:
            return grid.tolist()
        w, h = self.image_size
        for pts in self.image_points:
            p = pts.reshape(-1, 2)
            cx = np.clip((p[:, 0] / w * cols).astype(int), 0, cols - 1)
            cy = np.clip((p[:, 1] / h * rows).astype(int), 0, rows - 1)
            np.add.at(grid, (cy, cx), 1)
        return grid.tolist()

    def tilts(self) -> list[dict]:
        """Each view's tilt against the camera (degrees) and the direction the board leans, from a
        pose fitted with a nominal lens (focal length = image width): rough, but enough to say
        whether the views lean in varied directions, which is what pins the focal length down."""
        if self.image_size is None:
            return []
        w, h = self.image_size
        k = np.array([[w, 0, w / 2], [0, w, h / 2], [0, 0, 1.0]])
        out = []
        for obj, img in zip(self.object_points, self.image_points):
            ok, rvec, _t = cv2.solvePnP(obj.reshape(-1, 3), img.reshape(-1, 2), k, None)
            if not ok:
                continue
            normal = cv2.Rodrigues(rvec)[0][:, 2]          # the board's normal in camera coordinates
            tilt = float(np.degrees(np.arccos(min(1.0, abs(normal[2])))))
            lean = float(np.degrees(np.arctan2(normal[1], normal[0]))) % 360 if tilt > 1 else None
            out.append({"tilt_deg": round(tilt, 1), "direction_deg": None if lean is None else round(lean)})
        return out

    def summary(self) -> dict:
        """The page's view of the collection: views, coverage, tilts and what to do next."""
        tilts = self.tilts()
        leaning = [t for t in tilts if t["tilt_deg"] >= 15]
        directions = {int(t["direction_deg"] // 90) for t in leaning}
        cov = self.coverage()
        filled = sum(1 for row in cov for c in row if c)
        cells = COVERAGE_CELLS[0] * COVERAGE_CELLS[1]
        advice = []
        if len(self) < 15:
            advice.append(Text(N_("%(n)s of at least 15 views: keep capturing"), n=len(self)))
        if filled < 0.7 * cells:
            advice.append(Text(N_("corners seen in %(filled)s of %(cells)s parts of the picture: hold the board near "
                                  "the edges and corners of the picture too"), filled=filled, cells=cells))
        if len(directions) < 3:
            advice.append(Text(N_("tilt the board 20–40° towards the camera's left, right, top and bottom in turn "
                                  "(so far %(views)s, in %(directions)s)"),
                               views=Plural("%(num)s tilted view", "%(num)s tilted views", len(leaning)),
                               directions=Plural("%(num)s direction", "%(num)s directions", len(directions))))
        return {"views": len(self), "image_size": list(self.image_size) if self.image_size else None,
                "coverage": cov, "coverage_filled": filled, "coverage_cells": cells, "tilts": tilts,
                "tilt_directions": len(directions), "rejected": self.rejected[-5:],
                "advice": advice}   # wording data (engine.wording), said in the reader's language at the edge
    def _reject(self, why: Text) -> int:
        """Note why a frame was not taken (in English, and as wording data); 0 corners were used."""
        self.rejected.append(why)
        return 0

    def __len__(self) -> int:
        return len(self.object_points)


class NotEnoughViews(Worded, ValueError):
    """The views cannot give a calibration; the sentence (wording data) says what to do."""


def calibrate(views: Views, min_views: int = 5) -> Calibration:
    """Intrinsics and distortion from the collected views (cv2.calibrateCameraExtended); refuses
    (NotEnoughViews) a result the views cannot support, in one sentence saying what to do."""
    if len(views) < min_views:
        few = Plural("only %(num)s usable view of the ChArUco board, need %(need)s",
                     "only %(num)s usable views of the ChArUco board, need %(need)s", len(views), need=min_views)
        why = views.rejected[-5:]
        raise NotEnoughViews(Text(N_("%(few)s (%(why)s)"), few=few, why=Join("; ", why)) if why else few)
    rms, k, dist, _r, _t, std, _se, _pe = cv2.calibrateCameraExtended(
        views.object_points, views.image_points, views.image_size, None, None)
    fx = float(k[0, 0])
    spread = float(std.ravel()[0])
    if not np.isfinite(spread) or spread > MAX_FOCAL_SPREAD * fx:
        raise NotEnoughViews(Text(N_("the views cannot pin the focal length down (%(fx)s ± %(spread)s px): tilt the "
                                     "board 20–40° in different directions and capture again"),
                                  fx=f"{fx:.0f}", spread=f"{spread:.0f}"))
    cal = Calibration(k, dist.ravel(), views.image_size, float(rms), len(views),
                      extra={"views": len(views),
                             "charuco": {"squares": list(views.spec.squares), "square_mm": views.spec.square_mm,
                                         "marker_mm": views.spec.marker_mm}})
    problems = lens_problems(cal)
    if problems:
        raise NotEnoughViews(Join("; ", problems))
    return cal


def rms_advice(rms: float) -> Text:
    """What a reprojection error means for the table, in one sentence (wording data, engine.wording)."""
    if rms <= GOOD_RMS_PX:
        return Text(N_("reprojection error %(rms)s px: good"), rms=f"{rms:.2f}")
    if rms <= MAX_RMS_PX:
        return Text(N_("reprojection error %(rms)s px: usable; sharper views (more light, a flat board) would do "
                       "better"), rms=f"{rms:.2f}")
    return Text(N_("reprojection error %(rms)s px: too high — the board may be bent or the views blurred; glue the "
                   "print to something flat, add light and calibrate again"), rms=f"{rms:.2f}")
