"""What one square shows, from the canonical picture (``board.BoardReference.canonical``).

Occupancy: a square is compared with its own taught empty look (the empty board's photo on the
canonical plane) in CIE Lab, after the frame's light is brought to the reference's (per channel,
by the medians over the sheet: a dimmer room or a warmer lamp shifts every square alike).  The
share of the square's middle that differs (``differs``: also where it differs less but joins a clear
difference, or lies enclosed by one — a face as dark as its square still shows its outline and picture)
is its *cover*: little is empty, much is a piece, in between cannot be told.

A piece: the part that differs (its silhouette, which the piece's height and the camera's tilt
shift a few millimetres) is found around the square's middle and sampled in polar form
(``cv2.warpPolar``) about its centroid, so that turning the piece only shifts the samples along
the angles: two samples are compared at their best turn (``Bank``: the cross-correlation along
the angles by FFT), as the RMS Lab difference over the disc — colour, face style, picture and
number all count.
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
RADIUS_MM = 12.5            # polar sampling radius (about a pawn disc's)
RINGS, ANGLES = 12, 64
BLUR_PX = 1.5


@dataclass(frozen=True)
class SquareView:
    cover: float
    descriptor: np.ndarray | None      # None when the square is not covered enough to describe


def lab(picture: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(picture, cv2.COLOR_BGR2LAB).astype(np.float32)


def matched_light(frame_lab: np.ndarray, ref_lab: np.ndarray, mask: np.ndarray, cell_px: int = 90,
                  light: tuple | None = None) -> np.ndarray:
    """``frame_lab`` with its light brought to the reference's, place by place: in cells of
    ``cell_px`` (about two squares), lightness scaled and a, b shifted by the medians over ``mask``
    (the sheet, seen in this frame) where, once the whole sheet's light is matched, the frame still
    looks like the empty board (``BOARD_LIKE``: not the pieces), the cells' corrections smoothed
    (a median over their neighbours) and spread over the picture (bilinear):
    a room lit from one side, a warmer lamp, a shadow over part of the board.  ``light``: the whole
    sheet's (``global_light``), when already known."""
    if not np.any(mask[::4, ::4] > 0):
        return frame_lab
    # First the whole sheet's medians; then, place by place, only what still looks like the board.
    # (every third pixel each way: the medians need no more, and a frame is read in time)
    gain0, shift0 = global_light(frame_lab, ref_lab, mask) if light is None else light
    h, w = mask.shape
    f3, r3 = frame_lab[::3, ::3], ref_lab[::3, ::3]
    board = (mask[::3, ::3] > 0) & (np.sum((lit(f3, gain0, shift0) - r3) ** 2, axis=2) < BOARD_LIKE ** 2)
    rows, cols = max(1, h // cell_px), max(1, w // cell_px)
    gain = np.full((rows, cols), np.nan, np.float32)
    shift = np.full((rows, cols, 2), np.nan, np.float32)
    for i in range(rows):
        for j in range(cols):
            ys = slice(-(-(i * h // rows) // 3), -(-((i + 1) * h // rows) // 3))
            xs = slice(-(-(j * w // cols) // 3), -(-((j + 1) * w // cols) // 3))
            sel = board[ys, xs]
            if sel.sum() < 50:
                continue
            f = np.median(f3[ys, xs][sel], axis=0, overwrite_input=True)       # (a copy: the order may change)
            r = np.median(r3[ys, xs][sel], axis=0, overwrite_input=True)
            gain[i, j] = float(r[0]) / max(float(f[0]), 1.0)
            shift[i, j] = r[1:] - f[1:]
    known = ~np.isnan(gain)
    if not known.any():
        return lit(frame_lab, gain0, shift0)
    fill = np.median(gain[known]), np.median(shift[known], axis=0)
    gain[~known], shift[~known] = fill[0], fill[1]
    field = np.dstack([gain, shift]).astype(np.float32)
    if rows >= 3 and cols >= 3:
        field = np.dstack([cv2.medianBlur(np.ascontiguousarray(field[..., k]), 3) for k in range(3)])
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)
    out = frame_lab.copy()
    out[..., 0] *= field[..., 0]
    out[..., 1:] += field[..., 1:]
    return out


REGISTRATION_PX = 1         # the board's fit is good to this many canonical pixels (under a millimetre)


def difference(frame_lab: np.ndarray, ref_lab: np.ndarray, slack_px: int = 0) -> np.ndarray:
    """Per pixel Lab distance, smoothed a little (the fit is good to a pixel, not to its fraction).
    ``slack_px``: the distance to the nearest colour the reference shows within that many pixels (each
    channel between its least and its most there): where the fit is a pixel off, the printed art's
    edges and grid lines do not differ (a bare square of busy art read as covered), while a piece,
    unlike every colour about it, still does."""
    if slack_px > 0:
        near = np.ones((2 * slack_px + 1, 2 * slack_px + 1), np.uint8)
        ref_lab = np.clip(frame_lab, cv2.erode(ref_lab, near), cv2.dilate(ref_lab, near))
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


FAINT_DIFF = 11.0           # a pixel differing this much counts when it joins one that clearly differs
HOLE_MM = 13.0              # an undiffering part enclosed by a difference at most this disc's size is the piece's


def differs(diff: np.ndarray, canvas: Canvas) -> np.ndarray:
    """The canonical pixels that differ from the empty board, told by more than a pixel's own difference:
    those differing clearly (``DIFF``), those differing less (``FAINT_DIFF``) joined to them — a face
    whose colour is near the square's —, and the parts they enclose up to a piece's size (``HOLE_MM``):
    a face as dark as its square still shows its outline and its picture, and what they enclose is
    the piece."""
    weak = (diff > FAINT_DIFF).astype(np.uint8)
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[diff > DIFF])] = True
    keep[0] = False
    mask = keep[labels].astype(np.uint8)
    outlines, tree = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if tree is not None:
        most = np.pi * (HOLE_MM * canvas.scale) ** 2
        holes = [c for c, t in zip(outlines, tree[0]) if t[3] >= 0 and cv2.contourArea(c) <= most]
        cv2.drawContours(mask, holes, -1, 1, thickness=cv2.FILLED)
    return mask > 0


def covers(diff: np.ndarray, canvas: Canvas, seen: np.ndarray) -> dict[int, float]:
    """Square → the share of its middle that differs from the empty board (``differs``); squares the
    frame does not show in full (``seen``: canonical pixels inside the frame) are left out."""
    out = {}
    mask = differs(diff, canvas)
    for sq in SQUARES:
        x0, y0, x1, y1 = square_box(canvas, sq, 0.0)
        if not np.all(seen[y0:y1, x0:x1]):
            continue
        out[sq] = float(np.mean(mask[y0:y1, x0:x1]))
    return out


BOARD_LIKE = 30.0           # Lab distance within which a pixel is taken for the bare board when matching light
HAND_SQUARES = 4.0          # a difference this many squares large in one piece is a hand or an arm …
HAND_CORE_MM = 40.0         # … when a disc this wide fits inside it (a palm, an arm: no piece, nor a piece with its
                            # shadow, is that thick) …
HAND_SHARE = 0.5            # … or when this share of it lies outside the squares the pieces read in it hold
HAND_REACH_MM = 3.0         # a hand makes unseen the squares whose middle it comes this near
UNDER = 0.3                 # a difference of pieces covers a square's middle this much: the square lies under it


def occluded(diff: np.ndarray, canvas: Canvas, fixed: set[int], face_at=None) -> set[int]:
    """The squares a hand or an arm covers: those under one connected difference from the empty board
    larger than ``HAND_SQUARES`` squares (the squares of ``fixed`` — the pools, the monster and its
    shadow — are left out of it, and thin bridges between neighbouring pieces are opened).

    Such a difference that fits in one pool tile (``tiles.POOL_FIT_MM``) is no hand: a pool put down
    (A2), or pawns standing close together.  Pawns close together with their shadows may also make a
    larger one: there, the squares whose middle it covers where ``face_at(sq)`` clearly reads a face a
    legal change allows are pieces, and only the others are covered — unless it is a hand: thicker than
    any piece (``HAND_CORE_MM``), or mostly outside the squares of the faces read in it (``HAND_SHARE``).
    Under a hand, no face is trusted (a finger, the palm's edge or their shadow may look like a face),
    and every square whose middle it comes near (``HAND_REACH_MM``) is covered."""
    from .tiles import POOL_FIT_MM

    mask = (diff > DIFF).astype(np.uint8)
    for sq in fixed:
        x0, y0, x1, y1 = square_box(canvas, sq, (SQUARE_MM - MIDDLE_MM) / 2 + 1.0)
        mask[y0:y1, x0:x1] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, labels, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8)
    one, two, four = (np.array(POOL_FIT_MM) * canvas.scale).tolist()
    size = np.sort(stats[:, [cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]], axis=1)
    tile = (size[:, 1] <= two) | ((size[:, 0] <= one) & (size[:, 1] <= four))
    big = np.flatnonzero((stats[:, cv2.CC_STAT_AREA] > HAND_SQUARES * (SQUARE_MM * canvas.scale) ** 2) & ~tile)
    big = big[big > 0]
    if not len(big):
        return set()
    core = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    pad = int(round(HAND_REACH_MM * canvas.scale))
    out = set()
    for i in big:
        x, y, w, h = stats[i, :4]
        x, y = max(0, x - pad), max(0, y - pad)
        box = (slice(y, y + h + 2 * pad), slice(x, x + w + 2 * pad))
        mine = labels[box] == i
        under = {sq for sq, share in _shares(mine, (x, y), canvas).items() if share > UNDER}
        if face_at is not None and core[box][mine].max() < HAND_CORE_MM / 2 * canvas.scale:
            faces = {sq for sq in sorted(under) if face_at(sq)}
            held = np.zeros_like(mine)
            for sq in faces:
                x0, y0, x1, y1 = square_box(canvas, sq, (SQUARE_MM - MIDDLE_MM) / 2 + SEARCH_MM)
                held[max(0, y0 - y):max(0, y1 - y), max(0, x0 - x):max(0, x1 - x)] = True
            if faces and np.mean(~held[mine]) <= HAND_SHARE:
                out |= under - faces            # pieces close together: the faces read are theirs
                continue
        near = cv2.dilate(mine.astype(np.uint8), np.ones((2 * pad + 1, 2 * pad + 1), np.uint8)) > 0
        out |= set(_shares(near, (x, y), canvas))
    return out


def _shares(mask: np.ndarray, at: tuple[int, int], canvas: Canvas) -> dict[int, float]:
    """Square → the share of its middle that ``mask`` (a part of the canonical picture whose top left
    corner is ``at``) covers, for the squares it covers at all."""
    out = {}
    for sq in SQUARES:
        x0, y0, x1, y1 = square_box(canvas, sq, 0.0)
        part = mask[max(0, y0 - at[1]):max(0, y1 - at[1]), max(0, x0 - at[0]):max(0, x1 - at[0])]
        if part.any():
            out[sq] = float(part.sum()) / ((y1 - y0) * (x1 - x0))
    return out


def centre_of(frame_lab: np.ndarray, diff: np.ndarray, canvas: Canvas, sq: int,
              ref_lab: np.ndarray | None = None, without: int | None = None) -> tuple[float, float] | None:
    """The centroid (canonical pixels) of the biggest silhouette (holes filled; where none differs clearly,
    ``differs``'s) whose centroid lies on ``sq``, or None.  (A shadow moves it a little: ``Pieces.match``
    searches around it.)  ``without``: a neighbouring square whose own area is left out — the monster's,
    whose figure joins the silhouette of a piece beside it and pulls its centroid several millimetres
    towards itself, farther than ``Pieces.match`` searches."""
    x0, y0, x1, y1 = square_box(canvas, sq, (SQUARE_MM - MIDDLE_MM) / 2 + SEARCH_MM)
    keep = np.ones((y1 - y0, x1 - x0), bool)
    if without is not None and without != sq:
        a0, b0, a1, b1 = square_box(canvas, without, (SQUARE_MM - MIDDLE_MM) / 2)
        keep[max(0, b0 - y0):max(0, b1 - y0), max(0, a0 - x0):max(0, a1 - x0)] = False
    found = _silhouette((diff[y0:y1, x0:x1] > DIFF) & keep, canvas, (x1 - x0, y1 - y0))
    if found is None:       # (a face as dark as its square: ``differs``)
        found = _silhouette(differs(diff[y0:y1, x0:x1], canvas) & keep, canvas, (x1 - x0, y1 - y0))
    return None if found is None else (found[0] + x0, found[1] + y0)


def _silhouette(mask: np.ndarray, canvas: Canvas, size) -> tuple[float, float] | None:
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, outlines, -1, 1, thickness=cv2.FILLED)        # a face's dark picture is the piece too
    n, _labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    centre = np.array([size[0] / 2.0, size[1] / 2.0])
    inside = [i for i in range(1, n) if np.all(np.abs(cents[i] - centre) <= SQUARE_MM / 2 * canvas.scale)]
    if not inside:
        return None
    best = max(inside, key=lambda i: stats[i, cv2.CC_STAT_AREA])
    return float(cents[best][0]), float(cents[best][1])


def polar_at(blurred_lab: np.ndarray, centre: tuple[float, float], canvas: Canvas,
             radius_mm: float = RADIUS_MM) -> np.ndarray:
    """(ANGLES, RINGS, 3) Lab samples of a disc of ``radius_mm`` about ``centre`` (canonical pixels) of a
    picture already smoothed (``smooth``).  Turning the piece shifts them along the angles.  Samples
    past the picture's edge are 0 (``WARP_FILL_OUTLIERS``: without it OpenCV leaves them as whatever
    the memory held — a read that changed from frame to frame, and overflows in ``Bank``)."""
    return cv2.warpPolar(blurred_lab, (RINGS, ANGLES), centre, radius_mm * canvas.scale,
                         cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR | cv2.WARP_FILL_OUTLIERS).astype(np.float32)


TILE_RADIUS_MM = 20.0       # polar sampling radius of a tombstone tile (46 × 62 mm)
TILE_COVER = 0.12           # share of the card zone a tile covers at least (it covers about a third)
DETAIL_RADIUS_MM = 9.0      # polar sampling radius of a tile's middle (its number or picture), finer
DETAIL_SHIFT_MM = 1.5       # how far the middle's sample is moved about the tile's centre (a 5 × 5 grid of these
                            # steps: a shadow on one side moves the difference's centre off the number)
_DETAIL_GRID = [(dx, dy) for dy in (-2, -1, 0, 1, 2) for dx in (-2, -1, 0, 1, 2)]
_DETAIL_GRID.sort(key=lambda d: d != (0, 0))     # the centre first


@dataclass(frozen=True)
class TileView:
    """What the card zone shows of a tombstone tile (``tile_sample``)."""

    cover: float                        # the share of the zone the tile (or whatever differs) covers
    sample: np.ndarray | None = None    # polar, about the tile's centre (None: too little differs to be a tile)
    details: np.ndarray | None = None   # finer polar samples of its middle (``DETAIL_RADIUS_MM``), the centre first
    window: np.ndarray | None = None    # its middle as a picture, with room around it (``middle_window``)
    size: tuple[float, float] | None = None     # its outline's sides (mm, the shorter first)


def tile_sample(zone_lab: np.ndarray, ref_zone_lab: np.ndarray, canvas: Canvas, least: float = TILE_COVER,
                shadows_apart: bool = False) -> TileView:
    """The card zone's tile (``TileView``): the share it covers (``tile_mask``), the polar sample about its centre
    (None: less than ``least`` is covered, too little to be a tile; teaching, which knows a tile lies there, asks
    less), finer polar samples of its middle (about that centre and moved by ``DETAIL_SHIFT_MM``: what a pieces
    file taught before the middle's picture was kept compares), its middle as a picture with room around it
    (``middle_window``: what ``Middles`` compares, and its centre what teaching keeps, ``middle_of``) and the
    sides of its outline (a hand or an arm reaching in makes it larger than a tile: ``Pieces.read_tile``);
    ``shadows_apart`` as for ``tile_mask``."""
    zone_lab, mask = tile_mask(zone_lab, ref_zone_lab, shadows_apart)
    cover = float(mask.mean())
    if cover < least:
        return TileView(cover)
    m = cv2.moments(mask.astype(np.uint8), binaryImage=True)
    if m["m00"] <= 0:
        return TileView(cover)
    blurred, (cx, cy) = smooth(zone_lab), (m["m10"] / m["m00"], m["m01"] / m["m00"])
    step = DETAIL_SHIFT_MM * canvas.scale
    details = np.stack([polar_at(blurred, (cx + dx * step, cy + dy * step), canvas, DETAIL_RADIUS_MM)
                        for dx, dy in _DETAIL_GRID])
    _c, sides, _a = cv2.minAreaRect(np.column_stack(np.nonzero(mask)[::-1]).astype(np.float32))
    return TileView(cover, polar_at(blurred, (cx, cy), canvas, TILE_RADIUS_MM), details,
                    middle_window(zone_lab, (cx, cy), canvas), tuple(sorted(float(v) / canvas.scale for v in sides)))


TILE_MIDDLE_MM = 10.0       # radius of a tombstone tile's middle compared as a picture (its number or its prey)
MIDDLE_SEARCH_MM = 4.0      # how far from the tile's centre its middle is looked for (the centre found is good to
                            # a millimetre or two; a tile's middle is not always its outline's)
MIDDLE_TURNS = tuple(range(-15, 16, 5))     # degrees the tile may lie turned from the taught one (roughly straight,
                                            # as a tile is put down: one upside down is asked, never guessed)
MIDDLE_BLUR_PX = 1.0


def middle_window(zone_lab: np.ndarray, centre, canvas: Canvas) -> np.ndarray:
    """The zone (Lab, its light matched) about ``centre``, smoothed a little, ``TILE_MIDDLE_MM`` +
    ``MIDDLE_SEARCH_MM`` each side (past the zone's edge: 0, which nothing taught resembles)."""
    half = int(round((TILE_MIDDLE_MM + MIDDLE_SEARCH_MM) * canvas.scale))
    move = np.float32([[1, 0, half - centre[0]], [0, 1, half - centre[1]]])
    picture = cv2.GaussianBlur(zone_lab, (0, 0), MIDDLE_BLUR_PX)
    return cv2.warpAffine(picture, move, (2 * half + 1, 2 * half + 1), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def middle_of(window: np.ndarray, canvas: Canvas) -> np.ndarray:
    """The tile's middle (a square of side 2·``TILE_MIDDLE_MM``) at the centre of its ``middle_window``."""
    half, room = int(round(TILE_MIDDLE_MM * canvas.scale)), int(round(MIDDLE_SEARCH_MM * canvas.scale))
    return window[room:room + 2 * half + 1, room:room + 2 * half + 1].copy()


_CHANNELS = np.sqrt(np.array([1.0, 2.0, 2.0], np.float32))     # the channels weighted as in ``Bank``


class Middles:
    """Taught tiles' middles (``middle_of``) prepared for comparison: each turned by ``MIDDLE_TURNS`` about its
    centre, compared over the disc it holds (a disc turned stays in its square).  The squared difference over the
    disc at every place is Σ disc·window² − 2 Σ disc·middle·window + Σ disc·middle²: correlations without a mask,
    the first one for every middle at once."""

    def __init__(self, middles):
        sizes = {m.shape[0] for m in middles}
        if len(sizes) > 1:
            raise ValueError("tile middles of different sizes")
        size = sizes.pop() if sizes else 1
        disc = np.zeros((size, size), np.float32)
        cv2.circle(disc, (size // 2, size // 2), size // 2, 1.0, thickness=-1)
        self.disc, self.cells = np.dstack([disc] * 3), float(disc.sum()) * 3
        c = (size - 1) / 2.0
        self.turned = []        # per middle, per turn: (the middle turned, weighted, over its disc; its energy)
        for middle in middles:
            weighted = _centred(middle)
            turns = [cv2.warpAffine(weighted, cv2.getRotationMatrix2D((c, c), a, 1.0), (size, size),
                                    flags=cv2.INTER_LINEAR) * self.disc for a in MIDDLE_TURNS]
            self.turned.append([(t, float(np.sum(t * t))) for t in turns])

    def distances(self, window: np.ndarray) -> np.ndarray:
        """Each taught middle's RMS Lab difference (weighted) from the best place and turn within ``window``."""
        out = np.full(len(self.turned), np.inf)
        window = _centred(window)
        if window.shape[0] < self.disc.shape[0] or window.shape[1] < self.disc.shape[1]:
            return out
        energy = cv2.matchTemplate(window * window, self.disc, cv2.TM_CCORR)
        for i, turns in enumerate(self.turned):
            best = min(float((energy - 2.0 * cv2.matchTemplate(window, t, cv2.TM_CCORR) + e).min()) for t, e in turns)
            out[i] = np.sqrt(max(best, 0.0) / self.cells)
        return out


def _centred(lab_picture: np.ndarray) -> np.ndarray:
    """Lab about the middle of its range (smaller sums, as exact in float32), weighted as in ``Bank``."""
    return np.ascontiguousarray((lab_picture - 128.0) * _CHANNELS, dtype=np.float32)


TILE_FAINT = 8.0            # in the card zone relit by the table around the tile, a pixel differing this much is the
                            # tile's when it joins one that differs clearly (``DIFF``)


def tile_mask(zone_lab: np.ndarray, ref_zone_lab: np.ndarray, shadows_apart: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(the card zone relit, the tile's pixels there): the zone's light brought to the empty zone's by the table
    around what clearly differs (the board's light, matched over a board full of pieces, leaves the card zone a
    little lighter or darker from photo to photo); then the biggest difference, its outline filled — what
    clearly differs and what differs less (``TILE_FAINT``) joined to it: a tile near the table's colour shows
    its picture clearly and its edge only faintly, and the tile is both (its centre does not jump from its
    picture's to its outline's from one frame to the next).  ``shadows_apart``: the table only darker, its colour
    kept (``shadowed``), does not differ — a shadow cast into the zone (the monster's figure on the board's edge)
    that touches the tile is not part of it."""
    clear = (difference(zone_lab, ref_zone_lab) > DIFF).astype(np.uint8)
    zone_lab = lit(zone_lab, *global_light(zone_lab, ref_zone_lab, cv2.dilate(clear, np.ones((9, 9), np.uint8)) == 0))
    diff = difference(zone_lab, ref_zone_lab)
    if shadows_apart:
        diff[shadowed(zone_lab, ref_zone_lab)] = 0.0
    weak = cv2.morphologyEx((diff > TILE_FAINT).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[diff > DIFF])] = True
    keep[0] = False
    outlines, _ = cv2.findContours(keep[labels].astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = np.zeros(diff.shape, np.uint8)
    if outlines:
        cv2.drawContours(mask, [max(outlines, key=cv2.contourArea)], -1, 1, thickness=cv2.FILLED)
    return zone_lab, mask > 0


SHADOW_LEAST = 0.5          # a shadow leaves at least this share of the lightness …
SHADOW_AB = 7.0             # … and moves the colour (a, b) less than this


def shadowed(lab_picture: np.ndarray, ref_lab: np.ndarray) -> np.ndarray:
    """The pixels that show the reference in shadow: darker (down to ``SHADOW_LEAST`` of its lightness), its
    colour kept (within ``SHADOW_AB``)."""
    light, ref_light = lab_picture[..., 0], ref_lab[..., 0]
    colour = np.hypot(lab_picture[..., 1] - ref_lab[..., 1], lab_picture[..., 2] - ref_lab[..., 2])
    return (light < ref_light) & (light >= SHADOW_LEAST * ref_light) & (colour < SHADOW_AB)


def global_light(frame_lab: np.ndarray, ref_lab: np.ndarray, mask: np.ndarray) -> tuple[float, np.ndarray]:
    """(gain of the lightness, shift of a and b) that bring ``frame_lab`` to ``ref_lab`` over ``mask``."""
    sel = mask[::4, ::4] > 0
    if not np.any(sel):
        return 1.0, np.zeros(2, np.float32)
    f, r = np.median(frame_lab[::4, ::4][sel], axis=0), np.median(ref_lab[::4, ::4][sel], axis=0)
    return float(r[0]) / max(float(f[0]), 1.0), (r[1:] - f[1:]).astype(np.float32)


def lit(lab_picture: np.ndarray, gain: float, shift: np.ndarray) -> np.ndarray:
    return lab_picture * np.array([gain, 1, 1], np.float32) + np.array([0, *shift], np.float32)


def smooth(frame_lab: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(frame_lab, (0, 0), BLUR_PX)


def describe(frame_lab: np.ndarray, diff: np.ndarray, canvas: Canvas, sq: int, shift_px=(0.0, 0.0),
             ref_lab: np.ndarray | None = None, blurred: np.ndarray | None = None) -> np.ndarray | None:
    """The piece on ``sq`` in polar form about its silhouette's centroid (``centre_of``) moved by
    ``shift_px`` (None: no silhouette there)."""
    centre = centre_of(frame_lab, diff, canvas, sq, ref_lab)
    if centre is None:
        return None
    blurred = smooth(frame_lab) if blurred is None else blurred
    return polar_at(blurred, (centre[0] + shift_px[0], centre[1] + shift_px[1]), canvas)


# Each cell's weight in a comparison: its ring's share of the disc's area, and the channel's (colour
# tells pieces apart under a changed light better than lightness does).
_WEIGHT = np.sqrt(((np.arange(RINGS) + 0.5) / RINGS)[:, None] * np.array([1.0, 2.0, 2.0])[None, :]).astype(np.float32)
_CELLS = float(np.sum(_WEIGHT ** 2)) * ANGLES


class Bank:
    """Polar samples prepared for comparison with any turn (cross-correlation along the angles, by FFT)."""

    def __init__(self, polars):
        w = np.asarray(polars, dtype=np.float32).reshape(-1, ANGLES, RINGS, 3) * _WEIGHT
        self.spectra = np.fft.rfft(w, axis=1)
        self.energy = np.sum(w * w, axis=(1, 2, 3))

    def __len__(self) -> int:
        return len(self.energy)

    def distances(self, polar: np.ndarray, only=None) -> np.ndarray:
        """The RMS Lab difference (weighted) between ``polar`` and each sample (or the samples ``only``
        indexes), at the best turn; for a stack of polar samples (K, ANGLES, RINGS, 3), a (K, samples)
        array."""
        spectra, energy = (self.spectra, self.energy) if only is None else (self.spectra[only], self.energy[only])
        polar = np.asarray(polar, dtype=np.float32)
        many = polar.ndim == 4
        w = (polar if many else polar[None]) * _WEIGHT
        if not len(energy):
            return np.zeros((len(w), 0)) if many else np.zeros(0)
        f = np.fft.rfft(w, axis=1).reshape(len(w), spectra.shape[1], -1)                  # (K, F, R·3)
        g = np.conj(spectra).reshape(len(energy), spectra.shape[1], -1)                  # (S, F, R·3)
        cross = np.einsum("kfc,sfc->ksf", f, g)
        corr = np.fft.irfft(cross, n=ANGLES, axis=2)
        d2 = (np.sum(w * w, axis=(1, 2, 3))[:, None] + energy[None] - 2.0 * corr.max(axis=2)) / _CELLS
        out = np.sqrt(np.maximum(d2, 0.0))
        return out if many else out[0]


def turned(polar: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``polar`` turned (rolled along its angles) to its best turn against ``ref`` (as ``Bank`` compares them)."""
    a, b = polar * _WEIGHT, ref * _WEIGHT
    corr = np.fft.irfft(np.sum(np.fft.rfft(a, axis=0) * np.conj(np.fft.rfft(b, axis=0)), axis=(1, 2)), n=ANGLES)
    return np.roll(polar, -int(np.argmax(corr)), axis=0)


AREA_SHARE = 0.5            # a cell belongs to where faces differ when they differ there this share of their most


def number_area(polars) -> np.ndarray | None:
    """The cells (ANGLES, RINGS) where samples already turned alike (``turned``) differ most — for the faces of
    pawns of one colour and side, their number —: each cell's largest Lab difference between two of them, weighted
    by its ring's area, at least ``AREA_SHARE`` of its 95th percentile; None when they do not differ."""
    spread = np.zeros((ANGLES, RINGS), np.float32)
    for i, a in enumerate(polars):
        for b in polars[i + 1:]:
            spread = np.maximum(spread, np.sqrt(np.sum(((a - b) * _WEIGHT) ** 2, axis=2)))
    return where_most(spread)


def where_most(spread: np.ndarray) -> np.ndarray | None:
    """The cells where samples differ most, from ``spread`` (each cell's largest difference between two of
    them, weighted by area): those at least ``AREA_SHARE`` of its 95th percentile; None when they do not differ.
    (``number_area`` here, ``numbers.area`` for the fine samples.)"""
    top = float(np.percentile(spread, 95))
    return spread >= AREA_SHARE * top if top > 0 else None


def area_distance(a: np.ndarray, b: np.ndarray, area: np.ndarray) -> float:
    """The RMS Lab difference (weighted as ``Bank``'s) of two samples turned alike, over the cells of ``area``."""
    return float(np.sqrt(np.mean(np.sum(((a - b) * _WEIGHT) ** 2, axis=2)[area])))


def dark_share(polar: np.ndarray, below: float = 64.0) -> float:
    """The share of a described piece's disc that is dark (Lab lightness under ``below``), by area."""
    area = np.broadcast_to(((np.arange(RINGS) + 0.5) / RINGS)[None, :], polar.shape[:2])
    return float(np.sum(area * (polar[..., 0] < below)) / np.sum(area))


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """The distance between two polar samples at the best turn (``Bank.distances``)."""
    return float(Bank([b]).distances(a)[0])
