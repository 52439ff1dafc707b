"""Draw a reading over its frame (``flure vision show``): grid, corner markers, pieces."""
from __future__ import annotations

import cv2
import numpy as np

from engine.geometry import COLS, SQUARES, square_name

from .reading import Reading
from .scheme import Scheme

GRID = (0, 220, 255)
OK = (60, 220, 60)
DOUBT = (0, 0, 255)


def draw_reading(image: np.ndarray, reading: Reading, scheme: Scheme) -> np.ndarray:
    """A BGR copy of ``image`` annotated with what the reader saw."""
    out = image.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    elif out.shape[2] == 4:
        out = cv2.cvtColor(out, cv2.COLOR_BGRA2BGR)
    if out.dtype != np.uint8:
        out = cv2.normalize(out, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    thick = max(1, round(max(out.shape[:2]) / 900))
    loc = reading.location
    if loc is not None:
        q = scheme.square_mm
        for sq in SQUARES:
            c, r = sq % COLS, sq // COLS
            quad = np.array([[c * q, r * q], [(c + 1) * q, r * q], [(c + 1) * q, (r + 1) * q], [c * q, (r + 1) * q]])
            pts = loc.to_raw_image(quad).round().astype(np.int32)
            cv2.polylines(out, [pts], True, GRID, 1, cv2.LINE_AA)
        for m in scheme.board_markers:
            colour = OK if m.id in loc.markers_seen else DOUBT
            pts = loc.to_raw_image(np.array(m.corners_mm())).round().astype(np.int32)
            cv2.polylines(out, [pts], True, colour, thick + 1, cv2.LINE_AA)
        x, y, w, h = scheme.card_zone_mm
        zone = loc.to_raw_image(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])).round().astype(np.int32)
        cv2.polylines(out, [zone], True, GRID, thick, cv2.LINE_AA)
    doubtful = {p["square"] for p in reading.problems if p.get("square")}
    for s in reading.stickers:
        name = square_name(s.square) if s.square is not None else "zone"
        colour = DOUBT if name in doubtful or s.confidence < 0.3 else OK
        px = _raw_point(loc, s.pixel)
        cv2.circle(out, px, 4 * thick, colour, -1, cv2.LINE_AA)
        label = f"{name} {_short(s.what)}"
        cv2.putText(out, label, (px[0] + 6 * thick, px[1] - 4 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45 * thick, (0, 0, 0), 3 * thick, cv2.LINE_AA)
        cv2.putText(out, label, (px[0] + 6 * thick, px[1] - 4 * thick), cv2.FONT_HERSHEY_SIMPLEX,
                    0.45 * thick, colour, thick, cv2.LINE_AA)
    head = "located" if reading.located else "NOT located"
    lines = [f"{head}; tile {reading.tile}; {len(reading.problems)} problem(s)"]
    lines += [p["message"] for p in reading.problems[:6]]
    for i, text in enumerate(lines):
        y = 24 * thick * (i + 1)
        cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * thick, (0, 0, 0), 4 * thick, cv2.LINE_AA)
        cv2.putText(out, text, (10, y), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * thick,
                    OK if reading.ok else DOUBT, thick, cv2.LINE_AA)
    return out


def _raw_point(loc, pixel) -> tuple[int, int]:
    """An undistorted pixel back to the raw frame (identity without a calibration)."""
    if loc is None or loc.dist_coeffs is None:
        return int(round(pixel[0])), int(round(pixel[1]))
    board = loc.to_board(np.array([pixel]))
    p = loc.to_raw_image(board)[0]
    return int(round(p[0])), int(round(p[1]))


def _short(what: str) -> str:
    return (what.replace("pawn ", "").replace(" face", "").replace("the monster", "MONSTER")
            .replace("teleporter of pair", "tele").replace("stone tile", "tile"))
