"""What one square shows, from the canonical picture (``board.BoardReference.canonical``).

Occupancy: a square is compared with its own taught empty look (the empty board's photo on the
canonical plane) in CIE Lab, after the frame's light is brought to the reference's (per channel,
by the medians over the sheet: a dimmer room or a warmer lamp shifts every square alike).  The
share of the square's middle that differs is its *cover*: little is empty, much is a piece,
in between cannot be told.

A piece: the part that differs (its silhouette, which the piece's height and the camera's tilt
shift a few millimetres) is found around the square's middle and sampled in polar form
(``cv2.warpPolar``) about its centroid, so the descriptor does not depend on how the piece is
turned: the histogram of its lightness and its colour's mean and spread (colour and face style),
the mean lightness of three rings and the strength of their first angular harmonics (the picture
and the number).  Faces are told apart by the distance between descriptors (``distance``).
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.geometry import COLS, SQUARES

from .board import Canvas

SQUARE_MM = 30.0
DIFF = 16.0                 # Lab distance that makes a pixel differ from the empty square
MIDDLE_MM = 14.0            # the square's middle, where cover is measured (a piece off centre on a
                            # neighbour, lifted and seen from aside, does not reach it)
SEARCH_MM = 6.0             # how far past the square's edge a piece's silhouette is followed
EMPTY_COVER = 0.06          # at most this share differs: the square is bare
PIECE_COVER = 0.5           # at least this share differs: something lies there
RADIUS_MM = 10.0            # polar sampling radius (within a pawn disc)
RINGS, ANGLES, HARMONICS = 12, 64, 4
RING_GROUPS, LIGHT_BINS = 3, 8


@dataclass(frozen=True)
class SquareView:
    cover: float
    descriptor: np.ndarray | None      # None when the square is not covered enough to describe


def lab(picture: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(picture, cv2.COLOR_BGR2LAB).astype(np.float32)


def matched_light(frame_lab: np.ndarray, ref_lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``frame_lab`` with its light brought to the reference's: lightness scaled, a and b shifted,
    by the medians over ``mask`` (the sheet, seen in this frame)."""
    sel = mask > 0
    if not np.any(sel):
        return frame_lab
    out = frame_lab.copy()
    f, r = np.median(frame_lab[sel], axis=0), np.median(ref_lab[sel], axis=0)
    out[..., 0] *= float(r[0]) / max(float(f[0]), 1.0)
    out[..., 1:] += (r[1:] - f[1:])
    return out


def difference(frame_lab: np.ndarray, ref_lab: np.ndarray) -> np.ndarray:
    """Per pixel Lab distance, smoothed a little (the fit is good to a pixel, not to its fraction)."""
    d = np.sqrt(np.sum((frame_lab - ref_lab) ** 2, axis=2))
    return cv2.GaussianBlur(d, (5, 5), 0)


def square_box(canvas: Canvas, sq: int, grow_mm: float) -> tuple[int, int, int, int]:
    """Canonical pixel box (x0, y0, x1, y1) of square ``sq``'s middle, grown by ``grow_mm`` each side
    of a ``MIDDLE_MM`` box (negative: smaller), clipped to the canvas."""
    c, r = sq % COLS, sq // COLS
    cx, cy = canvas.px([((c + 0.5) * SQUARE_MM, (r + 0.5) * SQUARE_MM)])[0]
    half = (MIDDLE_MM / 2 + grow_mm) * canvas.scale
    x0, y0 = max(0, int(round(cx - half))), max(0, int(round(cy - half)))
    return x0, y0, min(canvas.width, int(round(cx + half))), min(canvas.height, int(round(cy + half)))


def covers(diff: np.ndarray, canvas: Canvas, seen: np.ndarray) -> dict[int, float]:
    """Square → the share of its middle that differs from the empty board; squares the frame does
    not show in full (``seen``: canonical pixels inside the frame) are left out."""
    out = {}
    for sq in SQUARES:
        x0, y0, x1, y1 = square_box(canvas, sq, 0.0)
        if not np.all(seen[y0:y1, x0:x1]):
            continue
        out[sq] = float(np.mean(diff[y0:y1, x0:x1] > DIFF))
    return out


def describe(frame_lab: np.ndarray, diff: np.ndarray, canvas: Canvas, sq: int, shift_px=(0.0, 0.0)
             ) -> np.ndarray | None:
    """The rotation-free descriptor of the piece on ``sq`` (None: no silhouette near its middle)."""
    x0, y0, x1, y1 = square_box(canvas, sq, (SQUARE_MM - MIDDLE_MM) / 2 + SEARCH_MM)
    mask = (diff[y0:y1, x0:x1] > DIFF).astype(np.uint8)
    n, labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return None
    centre = np.array([(x1 - x0) / 2.0, (y1 - y0) / 2.0])
    # The biggest silhouette whose centroid lies within the square.
    inside = [i for i in range(1, n) if np.all(np.abs(cents[i] - centre) <= SQUARE_MM / 2 * canvas.scale)]
    if not inside:
        return None
    best = max(inside, key=lambda i: stats[i, cv2.CC_STAT_AREA])
    cx, cy = cents[best][0] + x0 + shift_px[0], cents[best][1] + y0 + shift_px[1]
    radius = RADIUS_MM * canvas.scale
    top, left = max(0, int(cy - radius - 2)), max(0, int(cx - radius - 2))
    crop = cv2.GaussianBlur(frame_lab[top:int(cy + radius + 3), left:int(cx + radius + 3)], (0, 0), 1.5)
    polar = cv2.warpPolar(crop, (RINGS, ANGLES), (cx - left, cy - top), radius,
                          cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR)            # (angles, rings, 3)
    weights = np.arange(RINGS) + 0.5                                           # a ring's share of the disc
    pixels = np.repeat(polar.reshape(-1, 3), np.tile(np.round(weights).astype(int) + 1, ANGLES), axis=0)
    light_hist = np.histogram(pixels[:, 0], bins=LIGHT_BINS, range=(0, 256))[0] / len(pixels)
    colour = np.concatenate([pixels[:, 1:].mean(axis=0), pixels[:, 1:].std(axis=0)])
    rings = polar[..., 0].reshape(ANGLES, RING_GROUPS, -1).mean(axis=2)        # (angles, ring groups)
    spectrum = np.abs(np.fft.rfft(rings - rings.mean(axis=0), axis=0))[1:HARMONICS + 1] / ANGLES
    return np.concatenate([light_hist, colour, rings.mean(axis=0), spectrum.ravel()]).astype(np.float64)


def dark_share(descriptor: np.ndarray) -> float:
    """The share of a described piece's disc that is dark (Lab lightness under 64), from its lightness
    histogram."""
    return float(np.sum(descriptor[:LIGHT_BINS * 64 // 256]))


def distance(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)))
