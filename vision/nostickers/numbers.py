"""A pawn's small number, sampled finer than the canonical picture (``Pieces.tell``).

Pawns of one colour and side differ only by the small number in a badge near the disc's edge (a digit
about 6 mm tall).  The canonical picture (1.5 px/mm, smoothed) blurs it into its badge; so each pawn face
is also sampled from the (undistorted) camera frame itself, through the board's homography, in polar form
about the disc's centre: ``RINGS`` × ``ANGLES`` lightness samples over ``RADIUS_MM`` (about 0.3 mm apart where
the number lies) — the camera's own resolution, not the canonical picture's.  A sample is compared by its
shape only (its lightness less its mean, over its spread: a dimmer room or a shadow changes neither).

Teaching keeps each pawn face's sample (``Face.detail``) at the centre, within ``SEARCH_MM``, that best fits
the first sample taught of its kind (``taught``): the samples of one kind then lie alike, and where they differ
is their number.  Reading (``tell``) finds the centre and turn at which the square's sample best fits the kind
as a whole (the taught samples' mean: disc, picture and badge, all alike), compares it with each taught face
only where the faces differ (``area``), and names the nearest only when it is near (``NUMBER_DISTANCE``) and every
other is clearly farther (``NUMBER_RATIO``).
"""
from __future__ import annotations

import base64

import cv2
import numpy as np

from .looks import where_most

RADIUS_MM = 11.5            # the number lies within this of the disc's centre (a badge by the edge of a 27 mm disc)
RINGS, ANGLES = 36, 192
SEARCH_MM = 4.5             # how far the centre is moved (on a grid of ``STEP_MM``, then twice about the best, each
STEP_MM = 1.5               # time half as far)
BLUR_PX = 0.7               # the camera frame smoothed this much (its noise) before sampling
NUMBER_RATIO = 0.7          # the nearest face is taken when this much nearer, in the number, than every other
NUMBER_DISTANCE = 0.3       # … and no farther than this (RMS, in the number, of shapes: a blurred or shaded number
                            # looks a little like every face)

_R = (np.arange(RINGS) + 0.5) / RINGS * RADIUS_MM
_A = np.arange(ANGLES) * (2 * np.pi / ANGLES)
_OFFSETS = np.stack([np.cos(_A)[:, None] * _R[None, :], np.sin(_A)[:, None] * _R[None, :]], axis=-1)  # (A, R, 2) mm
_W = np.sqrt(_R / RADIUS_MM)[None, :].astype(np.float32)      # each ring's share of the disc's area
_COARSE = [(dx, dy) for dx in np.arange(-SEARCH_MM, SEARCH_MM + 1e-9, STEP_MM)
           for dy in np.arange(-SEARCH_MM, SEARCH_MM + 1e-9, STEP_MM)]
_FINE = [(dx, dy) for dx in (-STEP_MM / 2, 0.0, STEP_MM / 2) for dy in (-STEP_MM / 2, 0.0, STEP_MM / 2)]
_FINER = [(dx / 2, dy / 2) for dx, dy in _FINE]


class Sampler:
    """A frame's fine polar samples about one disc: ``sampler(dx, dy)`` about its centre moved by (dx, dy) mm.

    ``image``: the undistorted camera frame (BGR); ``homography``: board mm → its pixels; ``centre_mm``: the
    disc's centre on the board (its silhouette's, ``looks.centre_of``)."""

    def __init__(self, image: np.ndarray, homography: np.ndarray, centre_mm):
        self.hmat = np.asarray(homography, np.float64)
        self.centre = np.asarray(centre_mm, np.float64).reshape(2)
        reach = self._pixels(np.array([[dx, dy] for dx in (-1, 1) for dy in (-1, 1)]) * (RADIUS_MM + SEARCH_MM + 2))
        h, w = image.shape[:2]
        x0, y0 = np.clip(np.floor(reach.min(axis=0)).astype(int) - 3, 0, [w, h])
        x1, y1 = np.clip(np.ceil(reach.max(axis=0)).astype(int) + 4, 0, [w, h])
        crop = image[y0:y1, x0:x1]
        self.gray = None if crop.size == 0 else \
            cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop, (0, 0),
                             BLUR_PX).astype(np.float32)
        # the disc's samples in the crop's pixels, and how a move of the centre by 1 mm moves them (over a few
        # millimetres the homography is as good as linear)
        self.base = (self._pixels(_OFFSETS.reshape(-1, 2)) - (x0, y0)).astype(np.float32).reshape(ANGLES, RINGS, 2)
        self.per_mm = (self._pixels(np.eye(2)) - self._pixels(np.zeros((1, 2)))).astype(np.float32)   # rows: x, y
        self.box = (self.base.reshape(-1, 2).min(axis=0), self.base.reshape(-1, 2).max(axis=0))

    def _pixels(self, mm: np.ndarray) -> np.ndarray:
        pts = np.asarray(mm, np.float64).reshape(-1, 2) + self.centre
        p = np.c_[pts, np.ones(len(pts))] @ self.hmat.T
        return p[:, :2] / p[:, 2:3]

    def __call__(self, dx: float = 0.0, dy: float = 0.0, every: int = 1) -> np.ndarray | None:
        """(ANGLES, RINGS) lightness, or None when the disc is not all in view; ``every``: only every so many
        angles and rings."""
        if self.gray is None:
            return None
        move = (float(dx) * self.per_mm[0] + float(dy) * self.per_mm[1]).astype(np.float32)
        h, w = self.gray.shape
        low, high = self.box[0] + move, self.box[1] + move
        if low.min() < 0 or high[0] > w - 1 or high[1] > h - 1:
            return None
        return cv2.remap(self.gray, self.base[::every, ::every] + move, None, cv2.INTER_LINEAR)


def sampler_of(image, location, canvas, centre_px) -> Sampler | None:
    """The ``Sampler`` of the disc whose silhouette's centre is ``centre_px`` (canonical pixels) in a frame located
    at ``location`` (None: no frame kept)."""
    if image is None or location is None or centre_px is None:
        return None
    return Sampler(image, location.homography, canvas.mm([centre_px])[0])


def shape(sample: np.ndarray) -> np.ndarray:
    """A sample's (or a stack's) lightness less its mean, over its spread (by area): light and contrast left out."""
    s = np.asarray(sample, np.float32)
    w = _W[:, ::RINGS // s.shape[-1]]
    w2 = w ** 2 / float(np.sum(w ** 2) * s.shape[-2])
    mean = np.sum(s * w2, axis=(-2, -1), keepdims=True)
    spread = np.sqrt(np.sum((s - mean) ** 2 * w2, axis=(-2, -1), keepdims=True))
    return (s - mean) / np.maximum(spread, 1e-3)


def _fits(samples: np.ndarray, ref: np.ndarray, every: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """For shapes (K, ANGLES, RINGS) against ``ref``: each one's best turn (a roll along the angles) and its fit
    there (the weighted correlation; larger is nearer); ``every``: the samples hold only every so many angles and
    rings (a quick search: turns in steps of as many angles)."""
    w = _W[:, ::every]
    f = np.fft.rfft(samples * w, axis=1)
    g = np.conj(np.fft.rfft(ref[::every, ::every] * w, axis=0))
    corr = np.fft.irfft(np.einsum("kfr,fr->kf", f, g), n=ANGLES // every, axis=1)
    return corr.argmax(axis=1) * every, corr.max(axis=1)


def _search(sampler, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(the raw sample, its shape turned to ``ref``) at the centre (within ``SEARCH_MM``) and turn at which
    ``sampler``'s sample best fits ``ref`` (a shape); None when the disc is not all in view.  The centres of
    ``_COARSE`` are compared on every other angle and ring, those of ``_FINE`` and then ``_FINER`` about the best
    in full."""
    where = (0.0, 0.0)
    for grid, every in ((_COARSE, 2), (_FINE, 1), (_FINER, 1)):
        shifts = [(where[0] + dx, where[1] + dy) for dx, dy in grid]
        raw = [(s, at) for s, at in ((sampler(dx, dy, every), (dx, dy)) for dx, dy in shifts) if s is not None]
        if not raw:
            return None
        shapes = shape(np.stack([s for s, _ in raw]))
        turns, fit = _fits(shapes, ref, every)
        i = int(np.argmax(fit))
        where = raw[i][1]
    return raw[i][0], np.roll(shapes[i], -int(turns[i]), axis=0)


def taught(sampler, first: np.ndarray | None) -> np.ndarray | None:
    """The sample teaching keeps of a pawn face (raw lightness, ``ANGLES`` × ``RINGS``): about the silhouette's
    centre for the first of its kind, else where it best fits the kind's first (``first``, as kept)."""
    if sampler is None:
        return None
    if first is None:
        return sampler()
    found = _search(sampler, shape(first))
    return None if found is None else found[0]


def area(shapes_by_face: list[list[np.ndarray]]) -> np.ndarray | None:
    """The cells (ANGLES, RINGS) where the faces' shapes (turned alike) differ most — their numbers —: each cell's
    largest difference between two faces, weighted by area (``looks.where_most``)."""
    spread = np.zeros((ANGLES, RINGS), np.float32)
    for i, a in enumerate(shapes_by_face):
        for b in shapes_by_face[i + 1:]:
            for x in a:
                for y in b:
                    spread = np.maximum(spread, np.abs(x - y) * _W)
    return where_most(spread)


def tell(sampler, taught_faces: dict[str, list[np.ndarray]]) -> tuple[str | None, list[tuple[float, str]]]:
    """(the face the sample shows, or None when it cannot be told; each face's distance, nearest first).

    ``taught_faces``: face key → its taught samples (``taught``), for the faces of one kind."""
    keys = sorted(taught_faces)
    first = shape(taught_faces[keys[0]][0])
    turned = [[np.roll(s, -int(t), axis=0) for s, t in zip(ss, _fits(np.stack(ss), first)[0])]
              for ss in ([shape(x) for x in taught_faces[k]] for k in keys)]
    cells = area(turned)
    if cells is None:
        return None, []
    kind = np.mean([s for ss in turned for s in ss], axis=0)
    found = _search(sampler, shape(kind))
    if found is None:
        return None, []
    seen = found[1]
    near = sorted((min(float(np.sqrt(np.mean(((seen - s) * _W)[cells] ** 2))) for s in ss), k)
                  for k, ss in zip(keys, turned))
    ok = near[0][0] <= NUMBER_DISTANCE and near[0][0] <= NUMBER_RATIO * near[1][0]
    return (near[0][1] if ok else None), near


def encode(sample: np.ndarray) -> str:
    return base64.b64encode(np.clip(np.rint(sample), 0, 255).astype(np.uint8).tobytes()).decode("ascii")


def decode(text: str, key: str) -> np.ndarray:
    data = base64.b64decode(text, validate=True)
    if len(data) != ANGLES * RINGS:
        raise ValueError(f"face {key}: a malformed number sample")
    return np.frombuffer(data, np.uint8).astype(np.float32).reshape(ANGLES, RINGS)
