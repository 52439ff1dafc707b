"""Stage 3: stickers → squares → the engine's Position, with a list of problems.

``read_image`` never raises on a bad frame: an unusable image or an unlocatable board
comes back as a Reading with ``located=False`` and a "board not located: reason"
problem.  An exception inside the reader is a bug, not an answer: only OpenCV's own
refusals are turned into "not located", and those are logged.  Vision only reports
what it sees; legality is the engine's business, but a physically impossible reading
(two pieces on one square, …) is flagged so that it is never accepted as the game's
position.
"""
from __future__ import annotations

import dataclasses
import logging
import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from engine.geometry import COLS, SQUARES, parse_direction, parse_square, square_name
from engine.pools import pool_squares
from engine.position import BOARD, Pawn, Position, Teleporter, both_on
from engine.wording import Term, Text

from . import problems as say
from .config import DEFAULT_CONFIG, ReaderConfig
from .detect import (
    Detections,
    border_corners,
    check_frame,
    detect_in_regions,
    detect_markers,
    marker_cells,
    marker_centres,
    merge_detections,
)
from .locate import BoardLocation, LensCalibration, LocateResult, lens_calibration, locate_board
from .occlusion import card_zone_unclear, find_occlusion, frame_cells
from .problems import board_not_located, object_words, piece_words
from .reading import Reading, SeenSticker, not_located, problem, status_problem
from .scheme import Scheme, Sticker, load_scheme, rotation_of_corners

log = logging.getLogger(__name__)


def read_image(image, scheme: Scheme | str | Path | None = None, calibration: LensCalibration | None = None, *,
               config: ReaderConfig | None = None) -> Reading:
    """Read one frame (BGR, BGRA or gray numpy image).  Never raises on bad images."""
    return read_frame(image, scheme, calibration, config=config)[0]


def read_frame(image, scheme=None, calibration: LensCalibration | None = None, *, config: ReaderConfig | None = None,
               previous: BoardLocation | None = None) -> tuple[Reading, LocateResult | None]:
    """``read_image`` plus the board location, reusing ``previous`` when corners are hidden."""
    config = config or DEFAULT_CONFIG
    scheme = _scheme(scheme)
    calibration = lens_calibration(calibration)
    gray, reason = check_frame(image)
    if gray is None:
        return not_located(board_not_located(reason)), None
    try:
        det = detect_markers(gray, scheme, config)
        h, w = gray.shape[:2]
        loc = locate_board(det, (w, h), scheme, calibration, config, previous)
        if loc.location is None:
            return not_located(loc.reason or board_not_located(), bumped=loc.bumped), loc
        location = with_parallax(det, loc.location, scheme, config, gray)
        reading = interpret(det, location, scheme, config)
        cells = frame_cells(image, gray, location, scheme)
        occ = _check_occlusion(reading, image, gray, location, scheme, config, cells)
        if occ.lone and not occ.groups and len(occ.lone) <= config.second_look_max_squares:
            # Squares that look occupied but gave no sticker: look again, closer — only there.
            boxes = _square_regions(occ.lone, location, scheme, config.second_look_margin)
            merged = merge_detections(det, detect_in_regions(gray, scheme, boxes, config))
            if len(merged) > len(det):
                first = reading
                if any(_tall(scheme.stickers.get(int(i)), config) for i in merged.ids[len(det):]):
                    # The height shift is measured anew, and with it every square's place.
                    location = with_parallax(merged, loc.location, scheme, config, gray)
                    reading = interpret(merged, location, scheme, config)
                    # (the board's cells depend on the board's plane only, not on the height shift)
                    _check_occlusion(reading, image, gray, location, scheme, config, cells)
                else:
                    reading = interpret(merged, location, scheme, config)
                    _carry_occlusion(first, reading)
        reading.bumped = loc.bumped
        if reading.problems:
            reading.confidence = min(reading.confidence, 0.5)
        return reading, loc
    except (cv2.error, np.linalg.LinAlgError) as exc:
        # OpenCV refusing a frame, or a degenerate board geometry: not an answer about the
        # table but a fault to fix, so it is logged with its traceback; the caller still
        # gets a reading.  Any other exception is a bug and is not hidden.
        log.exception("vision: reading a frame failed")
        return not_located(board_not_located(say.READER_FAULT(error=f"{type(exc).__name__}: {exc}"))), None


def with_parallax(det: Detections, loc: BoardLocation, scheme: Scheme,
                  config: ReaderConfig = DEFAULT_CONFIG, gray: np.ndarray | None = None) -> BoardLocation:
    """``loc`` with the height shift measured from the tall stickers' apparent size.

    A sticker h mm up, seen from a camera H mm above the board, projects onto the board
    plane H / (H - h) times its printed size and displaced away from the camera's foot
    point by h / H of its distance: the size measures the shift directly, whatever the
    lens.  The pose's own estimate (exact with a calibration, a guess from the assumed
    field of view when the camera looks straight down) is combined with it by their
    uncertainties.  Without a tall sticker in view, ``loc`` is returned unchanged.
    """
    tall = [(k, st) for k, i in enumerate(det.ids) if _tall(st := scheme.stickers.get(int(i)), config)]
    if not tall:
        return loc
    prior = loc.pose_parallax
    # The camera height scales with the focal length: a measured one brings its own spread.
    rel = (config.parallax_prior_calibrated if not loc.assumed_focal
           else max(config.parallax_prior_measured, loc.focal_rel_sigma) if loc.focal_measured
           else config.parallax_prior_assumed)
    weights, values = [], []
    cells = marker_cells(scheme.dictionary)
    for k, st in tall:
        # cv2.aruco's corners follow a thresholded outline: measured on the border itself.
        raw = border_corners(gray, det.corners[k], cells) if gray is not None else None
        if raw is None:
            continue
        und = loc.undistort(raw)
        flat = loc.to_board(und, 0.0)
        scale = float(np.linalg.norm(flat - np.roll(flat, 1, axis=0), axis=1).mean()) / st.size_mm
        if not 0.8 < scale < 2.0:
            continue       # a misread or a wrongly printed sticker: the size check reports it
        und_side = float(np.linalg.norm(und - np.roll(und, 1, axis=0), axis=1).mean())
        weights.append((und_side * st.height_mm / config.parallax_corner_px) ** 2)
        values.append((1.0 - 1.0 / scale) / st.height_mm)
    if not weights:
        return loc
    w, v = np.array(weights), np.array(values)
    measured, sigma_m = float(w @ v / w.sum()), float(1.0 / math.sqrt(w.sum()))
    sigma_p = rel * prior
    wp = 1.0 / sigma_p ** 2
    fused = (wp * prior + w.sum() * measured) / (wp + w.sum())
    sigma = 1.0 / math.sqrt(wp + w.sum())
    gap = abs(measured - prior)
    if gap > config.parallax_conflict * math.hypot(sigma_p, sigma_m):
        sigma = max(sigma, gap / 2.0)    # size and pose disagree: either may be right
    fused = max(fused, 0.0)
    ends = (max(fused - config.parallax_sigmas * sigma, 0.0), fused + config.parallax_sigmas * sigma)
    if loc.assumed_focal and not loc.focal_measured:
        # Unknown lens, nearly overhead: the measured height also fixes the focal length, and
        # with it the camera's foot point, which the assumed field of view may put far off.
        nadir = loc.nadir_for(fused)
        bounds = tuple((p, loc.nadir_for(p)) for p in ends)
    else:
        nadir = None
        bounds = tuple((p, None) for p in ends)
    return dataclasses.replace(loc, parallax=fused, parallax_sigma=sigma, nadir_mm=nadir, parallax_bounds=bounds)


def _tall(st: Sticker | None, config: ReaderConfig) -> bool:
    """A sticker high enough above the board for its apparent size to measure the height shift."""
    return st is not None and st.piece != "tile" and st.height_mm >= config.parallax_min_height_mm


def _square_regions(squares, loc: BoardLocation, scheme: Scheme, margin: float = 1.0) -> list[tuple[int, int, int, int]]:
    """Raw-image boxes (x0, y0, x1, y1) around squares, ``margin`` squares more each way."""
    q = scheme.square_mm
    w, h = loc.image_size
    out = []
    for sq in squares:
        c, r = sq % COLS, sq // COLS
        lo, hi = -margin, 1 + margin
        quad = np.array([[(c + lo) * q, (r + lo) * q], [(c + hi) * q, (r + lo) * q],
                         [(c + hi) * q, (r + hi) * q], [(c + lo) * q, (r + hi) * q]])
        px = loc.to_raw_image(quad)
        x0, y0 = np.floor(px.min(axis=0)).astype(int)
        x1, y1 = np.ceil(px.max(axis=0)).astype(int)
        out.append((max(0, x0), max(0, y0), min(w, x1), min(h, y1)))
    return out


def _check_occlusion(reading: Reading, image, gray, loc: BoardLocation, scheme: Scheme,
                     config: ReaderConfig, cells: np.ndarray | None = None):
    # Squares where a sticker was read (a pool's only on its sticker square): every other
    # square, pool or not, must show that nothing unread stands on it (VISION.md).
    occupied = {s.square for s in reading.stickers if s.square is not None}
    pools = {parse_square(n) for n in reading.setup["pools"]} if reading.setup is not None else set()
    covers, figures = _covers(reading, loc, scheme, config)
    occ = find_occlusion(image, gray, loc, scheme, config, occupied, covers, pools, cells, figures)
    reading.unseen.update([(sq, "occluded") for sq in occ.squares] + [(sq, "hidden-square") for sq in occ.hidden]
                          + [(sq, "unread-square") for sq in occ.lone + occ.stray]
                          + [(sq, "shaded-square") for sq in occ.shaded])
    if occ.groups:
        reading.occluded = True
        covered = occ.squares
        names = " ".join(square_name(s) for s in covered[:8]) + (" …" if len(covered) > 8 else "")
        reading.problems.append(problem(say.OCCLUDED, covered[0], count=len(covered), squares=names))
    if reading.tile is None and not any(p["code"] in ("card-zone-hidden", "two-tiles") for p in reading.problems):
        x, y, w, h = scheme.card_zone_mm
        zone = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
        if loc.in_view(zone) and card_zone_unclear(image if np.ndim(image) == 3 else gray, loc, scheme, config):
            reading.problems.append(problem(say.CARD_ZONE_UNCLEAR))
    for sq in occ.hidden:
        reading.problems.append(problem(say.HIDDEN_SQUARE, sq, square=square_name(sq)))
    if config.occlusion_flag_lone_squares:
        for sq in occ.lone:
            reading.problems.append(problem(say.UNREAD_LONE, sq, square=square_name(sq)))
    for sq in occ.stray:
        reading.problems.append(problem(say.UNREAD_STRAY, sq, square=square_name(sq)))
    for sq in occ.shaded:
        reading.problems.append(problem(say.UNREAD_SHADED, sq, square=square_name(sq)))
    return occ


OCCLUSION_CODES = ("occluded", "hidden-square", "unread-square", "shaded-square", "card-zone-unclear")


def _carry_occlusion(first: Reading, second: Reading) -> None:
    """After the second look found flat stickers: the first check's findings, less those on
    squares that now hold a read piece.  Judging the other squares again with the new
    pieces left out could only clear findings, never add one, so keeping them is the
    cautious answer — and saves a second pass over the board."""
    occupied = {s.square for s in second.stickers if s.square is not None}
    for p in first.problems:
        if p["code"] in OCCLUSION_CODES and (p["square"] is None or parse_square(p["square"]) not in occupied):
            second.problems.append(p)
    second.unseen.update((sq, why) for sq, why in first.unseen.items()
                         if why in OCCLUSION_CODES and sq not in occupied and sq not in second.unseen)
    second.occluded = first.occluded


def _covers(reading: Reading, loc: BoardLocation, scheme: Scheme,
            config: ReaderConfig) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """What the read pieces hide, as board-plane polygons: each sticker where it appears,
    grown by its white margin and body; a tall piece (the monster) also hides the
    squares between its base and where its top appears.  Returns every polygon, and
    apart those of the tall pieces' figures (which lean over their neighbours' stickers)."""
    shown = [s for s in reading.stickers if s.corners_px]
    if not shown:
        return [], []
    tops = loc.to_board(np.array([s.corners_px for s in shown], dtype=np.float64).reshape(-1, 2), 0.0).reshape(-1, 4, 2)
    half = scheme.square_mm * 0.5
    out, figures = [], []
    for s, top in zip(shown, tops):
        c = top.mean(axis=0)
        st = scheme.stickers.get(s.id)
        tall = st is not None and st.height_mm > scheme.square_mm / 2 and s.square is not None
        grown = c + (top - c) * (config.tall_top_scale if tall else config.footprint_scale)
        if tall:
            foot = np.array(s.board_mm) + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
            grown = cv2.convexHull(np.vstack([grown, foot]).astype(np.float32)).reshape(-1, 2)
            figures.append(grown)
        out.append(grown)
    return out, figures


def _scheme(scheme) -> Scheme:
    if isinstance(scheme, Scheme):
        return scheme
    return load_scheme(scheme)


@dataclass
class _Placed:
    sticker: Sticker
    seen: SeenSticker


def interpret(det: Detections, loc: BoardLocation, scheme: Scheme,
              config: ReaderConfig = DEFAULT_CONFIG) -> Reading:
    """Map every detected sticker to its square and build the Position."""
    meas = _measure(det, loc, scheme, config)
    problems: list[dict] = []
    unseen: dict[int, str] = {}       # squares whose contents this frame cannot establish
    placed: list[_Placed] = []
    tiles: list[_Placed] = []
    others: list[SeenSticker] = []    # unknown markers, misplaced tiles: shown, not placed
    counts: dict[int, int] = {}
    for i in list(meas.ids) + [i for i in det.ids if i in scheme.board_marker_ids]:
        counts[int(i)] = counts.get(int(i), 0) + 1
    for mid, n in sorted(counts.items()):
        if n > 1 and mid not in scheme.board_marker_ids:
            problems.append(problem(say.MARKER_TWICE, id=mid, count=n))
        elif n > 1:
            problems.append(problem(say.CORNER_TWICE, id=mid, count=n))

    for k, mid in enumerate(meas.ids):
        mid = int(mid)
        px, centre_px = meas.px[k], meas.centre_px[k]
        st = scheme.stickers.get(mid)
        x, y = float(meas.centre_mm[k][0]), float(meas.centre_mm[k][1])
        on_sheet = _on_sheet(scheme, x, y, config)
        if st is None:
            if on_sheet or scheme.in_card_zone(x, y):
                sq = scheme.square_at(x, y)
                problems.append(problem(say.UNKNOWN_MARKER_ON, sq, id=mid, square=square_name(sq)) if sq is not None
                                else problem(say.UNKNOWN_MARKER, id=mid))
                others.append(SeenSticker(mid, "unknown", sq, (x, y), (float(centre_px[0]), float(centre_px[1])),
                                          0, 0.0, f"unknown marker {mid}", tuple(map(tuple, px))))
            continue
        rotation, deviation = rotation_of_corners(meas.corners_mm[k])
        side = float(meas.side_mm[k])
        if abs(side / st.size_mm - 1.0) > config.size_tolerance:
            # A sticker of the wrong size is a misread id or a sticker on the wrong piece.
            problems.append(problem(say.MARKER_SIZE, scheme.square_at(x, y), id=mid, what=piece_words(st),
                                    seen=f"{side:.0f}", size=f"{st.size_mm:.0f}"))
        sq = scheme.square_at(x, y)
        margin = _margin(scheme, x, y) if sq is not None else 0.0
        conf = max(0.0, min(1.0, margin / (scheme.square_mm / 2)))
        if st.piece == "tile":
            conf = 1.0 if scheme.in_card_zone(x, y) else 0.0
        if _has_heading(st):
            conf = min(conf, max(0.0, 1.0 - deviation / 45.0))
        seen = SeenSticker(mid, st.piece, sq, (x, y), (float(centre_px[0]), float(centre_px[1])),
                           rotation, conf, st.describe(), tuple(map(tuple, px)))
        if st.piece == "tile":
            if scheme.in_card_zone(x, y):
                tiles.append(_Placed(st, seen))
            elif on_sheet:
                problems.append(problem(say.MISPLACED_TILE, sq, what=piece_words(st)))
                others.append(seen)
            continue
        if not on_sheet:
            continue   # a piece beside the board (a waiting pawn, the box): not part of the reading
        if sq is None:
            problems.append(problem(say.OFF_GRID, what=piece_words(st), x=f"{x:.0f}", y=f"{y:.0f}"))
            continue
        if margin < config.square_margin_mm:
            problems.append(problem(say.BETWEEN_SQUARES, sq, what=piece_words(st), square=square_name(sq)))
        other = (_unsure_square(loc, meas.flat_mm[k], float(meas.heights[k]), sq, scheme, config)
                 if margin >= config.square_margin_mm else None)
        if other is not None:
            unseen[sq] = "unsure-square"
            if other != say.OFF_THE_BOARD:
                unseen[parse_square(other)] = "unsure-square"
            problems.append(problem(say.UNSURE_SQUARE, sq, what=piece_words(st), height=f"{st.height_mm:.0f}",
                                    square=square_name(sq), other=Term(other) if other == say.OFF_THE_BOARD else other))
        if _has_heading(st) and deviation > config.max_rotation_deviation_deg:
            problems.append(problem(say.UNCLEAR_HEADING, sq, what=piece_words(st), square=square_name(sq),
                                    degrees=f"{deviation:.0f}"))
        placed.append(_Placed(st, seen))

    problems.extend(_overlaps([p.seen for p in placed], scheme))
    outside = _out_of_view(loc, scheme, {p.seen.square for p in placed})
    unseen.update((sq, "out-of-view") for sq in outside)
    if outside:
        names = " ".join(square_name(s) for s in outside[:8]) + (" …" if len(outside) > 8 else "")
        problems.append(problem(say.OUT_OF_VIEW, outside[0], num=len(outside), squares=names))
    tile = None
    if len(tiles) == 1:
        tile = str(tiles[0].sticker.tile)
    elif not tiles:
        x, y, w, h = scheme.card_zone_mm
        if not loc.in_view(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])):
            problems.append(problem(say.CARD_ZONE_HIDDEN))
    elif len(tiles) > 1:
        problems.append(problem(say.TWO_TILES, tiles=", ".join(str(t.sticker.tile) for t in tiles)))
    position, setup, more = _build(placed, scheme)
    problems.extend(more)
    stickers = [p.seen for p in placed] + [t.seen for t in tiles] + others
    conf = min((s.confidence for s in stickers if s.piece != "unknown"), default=1.0)
    return Reading(True, position, tile, problems, conf, stickers, setup, location=loc, unseen=unseen)


@dataclass
class _Measured:
    """Every piece sticker of a frame put back on the board at its height (vectorised)."""

    ids: np.ndarray            # (m,)
    px: np.ndarray             # (m, 4, 2) undistorted pixel corners
    centre_px: np.ndarray      # (m, 2)
    centre_mm: np.ndarray      # (m, 2)
    corners_mm: np.ndarray     # (m, 4, 2)
    side_mm: np.ndarray        # (m,)
    flat_mm: np.ndarray        # (m, 2) the centre's ray where it meets the board plane
    heights: np.ndarray        # (m,)


def _measure(det: Detections, loc: BoardLocation, scheme: Scheme, config: ReaderConfig) -> _Measured:
    """Board-frame centres, corners and sizes of the piece stickers, leaving out
    "markers" far too small or large to be a sticker: printed detail on the board
    (wall letters, pillars) that happens to decode as an id."""
    pieces = ~np.isin(det.ids, list(scheme.board_marker_ids))
    ids = det.ids[pieces]
    m = len(ids)
    px = loc.undistort(det.corners[pieces].reshape(-1, 2)).reshape(m, 4, 2)
    stickers = [scheme.stickers.get(int(i)) for i in ids]
    heights = np.array([st.height_mm if st else 0.0 for st in stickers])
    centre_px = marker_centres(px)
    centre_mm = loc.to_board(centre_px, heights)
    corners_mm = loc.to_board(px.reshape(-1, 2), np.repeat(heights, 4)).reshape(m, 4, 2)
    side = np.linalg.norm(corners_mm - np.roll(corners_mm, 1, axis=1), axis=2).mean(axis=1)
    sizes = [s.size_mm for s in scheme.stickers.values()]
    lo = np.array([st.size_mm if st else min(sizes) for st in stickers])
    hi = np.array([st.size_mm if st else max(sizes) for st in stickers])
    keep = (side >= config.speck_ratio * lo) & (side <= hi / config.speck_ratio)
    flat = loc.to_board(centre_px, 0.0)
    return _Measured(ids[keep], px[keep], centre_px[keep], centre_mm[keep], corners_mm[keep], side[keep],
                     flat[keep], heights[keep])


def _out_of_view(loc: BoardLocation, scheme: Scheme, occupied: set) -> list[int]:
    """Squares (without a read piece) whose middle part falls outside the frame: what stands
    there cannot be seen, so the reading must not pass as complete."""
    q, inner = scheme.square_mm, 0.7
    sq = np.array([s for s in SQUARES if s not in occupied])
    if len(sq) == 0:
        return []
    c = np.column_stack([(sq % COLS + 0.5) * q, (sq // COLS + 0.5) * q])
    d = q * inner / 2
    pts = (c[:, None, :] + np.array([[-d, -d], [d, -d], [d, d], [-d, d]])[None]).reshape(-1, 2)
    w, h = loc.image_size
    px = loc.to_raw_image(pts)
    inside = np.all((px >= 0) & (px <= np.array([w, h]) - 1), axis=1).reshape(-1, 4).all(axis=1)
    return sorted(int(s) for s in sq[~inside])


def _unsure_square(loc: BoardLocation, flat_mm, height: float, sq: int, scheme: Scheme,
                   config: ReaderConfig) -> str | None:
    """Another square (or "off the board") a lifted sticker could be on, within the
    uncertainty of the measured height shift; None when it is on ``sq`` either way."""
    if loc.parallax is None or not loc.parallax_bounds or height < config.parallax_min_height_mm:
        return None     # a pawn's 8 mm shift is uncertain by a fraction of a millimetre
    for p, nadir in loc.parallax_bounds:
        x, y = loc.lift(flat_mm, height, p, nadir)[0]
        other = scheme.square_at(float(x), float(y))
        if other != sq:
            return square_name(other) if other is not None else say.OFF_THE_BOARD
    return None


def _overlaps(seen: list[SeenSticker], scheme: Scheme) -> list[dict]:
    """Two stickers closer than their half sizes overlap: one of them is a misread."""
    out = []
    for i, a in enumerate(seen):
        for b in seen[i + 1:]:
            limit = 0.5 * (scheme.stickers[a.id].size_mm + scheme.stickers[b.id].size_mm) * 0.9
            if math.dist(a.board_mm, b.board_mm) < limit:
                out.append(problem(say.OVERLAPPING, a.square, first=a.id, second=b.id, square=square_name(a.square)))
    return out


def _on_sheet(scheme: Scheme, x: float, y: float, config: ReaderConfig) -> bool:
    s, tol = scheme.sheet_mm, config.sheet_tolerance_mm
    return s["left"] - tol <= x <= s["right"] + tol and s["top"] - tol <= y <= s["bottom"] + tol


def _margin(scheme: Scheme, x: float, y: float) -> float:
    q = scheme.square_mm
    fx, fy = x / q - math.floor(x / q), y / q - math.floor(y / q)
    return q * min(fx, 1 - fx, fy, 1 - fy)


def _has_heading(st: Sticker) -> bool:
    return st.heading_from_rotation or st.arrow_from_rotation or st.orientation_from_rotation


def _build(placed: list[_Placed], scheme: Scheme) -> tuple[Position | None, dict, list[dict]]:
    """Turn placed stickers into a Position (and its setup), flagging what cannot be."""
    problems: list[dict] = []
    # Two faces of one physical object (both sides of a pawn, say) cannot both be up.
    by_object: dict[str, _Placed] = {}
    kept: list[_Placed] = []
    for p in sorted(placed, key=lambda p: -p.seen.confidence):
        other = by_object.get(p.sticker.physical)
        if other is not None:
            if other.sticker.id != p.sticker.id:
                problems.append(problem(say.SAME_PIECE_TWICE, p.seen.square, what=object_words(p.sticker),
                                        first=square_name(other.seen.square), second=square_name(p.seen.square)))
            continue
        by_object[p.sticker.physical] = p
        kept.append(p)
    kept.sort(key=lambda p: (p.seen.square, p.sticker.id))

    monster = facing = None
    stones: dict[int, str] = {}
    pools: set[int] = set()
    teleporters: dict[int, Teleporter] = {}
    pawns: list[Pawn] = []
    occupants: dict[int, list[Text]] = {}
    for p in kept:
        st, sq = p.sticker, p.seen.square
        heading = scheme.rotation_name(p.seen.rotation, st.piece)
        if st.piece == "pool":
            covered = pool_squares(sq, st.shape, heading)
            if covered is None:
                problems.append(problem(say.POOL_OFF_BOARD, sq, shape=st.shape, square=square_name(sq)))
                continue
            pools.update(covered)
            continue
        occupants.setdefault(sq, []).append(piece_words(st))
        if st.piece == "monster":
            monster, facing = sq, parse_direction(heading)
        elif st.piece == "stone":
            stones[sq] = st.kind
        elif st.piece == "teleporter":
            teleporters[sq] = Teleporter(st.pair, parse_direction(heading))
        elif st.piece == "pawn":
            pawns.append(Pawn(st.label, st.colour, st.pawn, st.face, BOARD, sq))
    for sq, who in sorted(occupants.items()):
        if len(who) > 1:
            problems.append(problem(say.TWO_PIECES, sq, **both_on(sq, who).params))

    setup = {"stones": {square_name(s): k for s, k in sorted(stones.items())},
             "pools": [square_name(s) for s in sorted(pools)],
             "teleporters": {square_name(s): {"pair": t.pair, "arrow": "NESW"[t.arrow]}
                             for s, t in sorted(teleporters.items())},
             "pawns": {}}
    if monster is None:
        problems.append(problem(say.NO_MONSTER))
        for pw in pawns:
            setup["pawns"][pw.label] = {"at": square_name(pw.square), "color": pw.colour,
                                        "pawn": pw.kind, "face": pw.face}
        return None, setup, problems
    position = Position(monster, facing, stones, frozenset(pools), teleporters, tuple(pawns))
    setup = position.to_setup()
    clash = {(p["code"], p["square"]) for p in problems}
    for code, words, name in position.status_words():
        if code == "two-pieces" or (code, name) in clash:
            continue
        problems.append(status_problem(code, words, name))
    return position, setup, problems
