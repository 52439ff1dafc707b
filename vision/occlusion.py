"""Is something (a hand, a forearm, a glare spot) hiding part of the board?

A hidden sticker reads as a missing piece — a wrong position — so a frame where part
of the board is hidden must not be accepted.  The cue works on one frame and on any
board print: every square on which no sticker was read should look like empty board.
The board's own colour is taken as the median over those squares (so it adapts to the
print, the light and the white balance); a square whose inner area mostly differs
from it is "foreign".  A connected group of foreign squares is an occluder (a hand
spans several squares).  A square showing a patch of white paper but no read sticker
holds a piece whose sticker could not be decoded (blur, glare, dirt), which is just
as doubtful.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from engine.geometry import COLS, ROWS, SQUARES

from .config import ReaderConfig
from .locate import BoardLocation
from .scheme import Scheme

PX_PER_SQUARE = 12
INNER = 0.6   # fraction of a square's side checked (skips grid lines, pillars, overhangs)


@dataclass(frozen=True)
class Occlusion:
    groups: list[list[int]]      # connected foreign squares, largest first
    lone: list[int]              # single foreign squares (unread pieces?)

    @property
    def squares(self) -> list[int]:
        return sorted(s for g in self.groups for s in g)


def board_cells(image: np.ndarray, loc: BoardLocation, scheme: Scheme) -> np.ndarray:
    """The grid warped to a square-aligned image: ROWS*P × COLS*P pixels, in Lab (float32)."""
    p = PX_PER_SQUARE
    q = scheme.square_mm
    scale = np.diag([p / q, p / q, 1.0])
    warp = scale @ loc.inv_homography
    board = cv2.warpPerspective(image, warp, (COLS * p, ROWS * p), flags=cv2.INTER_AREA)
    if board.ndim == 2:
        board = cv2.cvtColor(board, cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(board.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def find_occlusion(image, gray: np.ndarray, loc: BoardLocation, scheme: Scheme, config: ReaderConfig,
                   occupied: set[int]) -> Occlusion:
    """Foreign-looking squares among those where no piece (or pool) was read."""
    if isinstance(image, np.ndarray) and image.ndim == 3 and image.shape[2] >= 3:
        lab = board_cells(np.ascontiguousarray(image[:, :, :3]), loc, scheme)
    else:
        lab = board_cells(gray, loc, scheme)
    p = PX_PER_SQUARE
    m = int(round(p * (1 - INNER) / 2))
    cells = lab.reshape(ROWS, p, COLS, p, 3)[:, m:p - m, :, m:p - m, :]      # (R, i, C, j, 3)
    cells = cells.transpose(0, 2, 1, 3, 4).reshape(ROWS, COLS, -1, 3)       # (R, C, n, 3)
    empty = [sq for sq in SQUARES if sq not in occupied]
    if len(empty) < 10:
        return Occlusion([], [])
    med = np.median(cells, axis=2)                                          # (R, C, 3)
    ref = np.median(np.array([med[sq // COLS, sq % COLS] for sq in empty]), axis=0)
    diff = cells - ref
    dist = np.sqrt((diff[..., 0] * config.occlusion_luma_weight) ** 2 + diff[..., 1] ** 2 + diff[..., 2] ** 2)
    frac = (dist > config.occlusion_colour_distance).mean(axis=2)           # (R, C)
    foreign = {sq for sq in empty if frac[sq // COLS, sq % COLS] >= config.occlusion_cell_fraction}
    groups = sorted(_groups(foreign), key=len, reverse=True)
    big = [sorted(g) for g in groups if len(g) >= config.occlusion_min_squares]
    in_groups = {sq for g in big for sq in g}
    # A sticker that was not decoded still shows its white paper: much brighter than
    # the board and nearly colourless.  (The exit and entrance art has no white.)
    whole = lab.reshape(ROWS, p, COLS, p, 3).transpose(0, 2, 1, 3, 4).reshape(ROWS, COLS, -1, 3)
    white = ((whole[..., 0] > ref[0] + config.sticker_white_lightness)
             & (np.abs(whole[..., 1]) < config.sticker_white_chroma)
             & (np.abs(whole[..., 2]) < config.sticker_white_chroma)).mean(axis=2)
    lone = sorted(sq for sq in empty if sq not in in_groups
                  and white[sq // COLS, sq % COLS] >= config.sticker_white_fraction)
    return Occlusion(big, lone)


def _groups(cells: set[int]) -> list[set[int]]:
    """4-connected groups of squares."""
    left, out = set(cells), []
    while left:
        stack, group = [left.pop()], set()
        while stack:
            s = stack.pop()
            group.add(s)
            for n in (s - 1, s + 1, s - COLS, s + COLS):
                if n in left and abs((n % COLS) - (s % COLS)) <= 1:
                    left.remove(n)
                    stack.append(n)
        out.append(group)
    return out
