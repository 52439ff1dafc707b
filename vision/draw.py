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


def draw_reading(image: np.ndarray, reading: Reading, scheme: Scheme, *, text: bool = True) -> np.ndarray:
    """A BGR copy of ``image`` annotated with what the reader saw.  ``text``: each piece's short name
    beside its dot and a summary at the top (English, for ``flure vision show``); without it, shapes
    only (the Setup page says the same in the reader's language beside the picture)."""
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
        if text:   # the piece only (the grid shows the square): short labels overlap less
            _label(out, _short(s.what), (px[0] + 6 * thick, px[1] + 4 * thick), 0.45 * thick, thick)
    if not text:
        return out
    lines = [headline(reading)] + [p["message"] for p in reading.problems[:6]]
    for i, line in enumerate(lines):
        _label(out, line, (10, 24 * thick * (i + 1)), 0.6 * thick, thick, OK if reading.ok and i == 0 else (255, 255, 255))
    return out


def headline(reading: Reading) -> str:
    """The picture's first line: ``located; tile 8; no problem`` / ``NOT located; no tile seen; 2 problems``."""
    head = "located" if reading.located else "NOT located"
    tile = f"tile {reading.tile}" if reading.tile is not None else "no tile seen"
    count = len(reading.problems)
    return f"{head}; {tile}; " + ("no problem" if count == 0 else f"{count} problem" + ("s" if count > 1 else ""))


def _label(out: np.ndarray, text: str, at: tuple[int, int], scale: float, thick: int,
           colour: tuple[int, int, int] = (255, 255, 255)) -> None:
    """``text`` on a dark box (readable on the wood and on the pieces)."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
    x, y = at
    cv2.rectangle(out, (x - 2, y - h - 2), (x + w + 2, y + base), (20, 20, 20), -1)
    cv2.putText(out, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thick, cv2.LINE_AA)


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
