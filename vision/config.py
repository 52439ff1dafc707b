"""Every threshold of the camera reader, in one place.

The defaults are the values the evaluation (``flure vision eval``) was run with;
change them here or pass a ``ReaderConfig`` rather than editing code.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ReaderConfig:
    # --- ArUco detection ------------------------------------------------
    # Smallest marker perimeter as a fraction of the image's larger side.
    # 0.02 of 1920 px is 38 px of perimeter: stickers down to ~10 px wide.
    min_marker_perimeter_rate: float = 0.02
    # Adaptive threshold windows (px); fewer windows are faster.
    threshold_window_min: int = 7
    threshold_window_max: int = 17
    threshold_window_step: int = 10
    # Pixels per marker cell when sampling the bits (OpenCV's default is 4; 8 reads
    # small, soft stickers noticeably more often at no extra cost).
    pixels_per_cell: int = 8
    # Look again, enlarged and with every threshold window, around squares that look
    # occupied but gave no sticker (cheap: only those few regions).
    # 0 turns it off; a frame with more such squares is too poor to be worth it.
    second_look_max_squares: int = 8
    # The second look covers each such square and this fraction of a square around it
    # (a pawn's sticker shifts by far less), enlarged second_look_scale times, with these
    # threshold windows: ~1.5 ms for a few squares at 1080p (a 3x3-square box with 7
    # windows cost as much as a whole-frame pass and found no more stickers).
    second_look_margin: float = 0.3
    second_look_scale: float = 2.0
    second_look_window_min: int = 7
    second_look_window_max: int = 27
    second_look_window_step: int = 10
    # Refine board-marker corners to sub-pixel accuracy (they fix the homography).
    refine_board_corners: bool = True

    # --- board location -------------------------------------------------
    # RANSAC reprojection threshold for the 16-corner homography, in pixels.
    homography_threshold_px: float = 4.0
    # A fresh location needs this many of the corner markers (4 corners each).
    min_board_markers: int = 3
    # Mean reprojection error above this (px) means the fit is not trustworthy.
    max_reprojection_px: float = 3.0
    # Assumed horizontal field of view when no calibration exists and the
    # view is too close to overhead for the focal length to be measured.
    default_hfov_deg: float = 60.0
    # A focal length measured from a tilted view is used only if corner noise of
    # corner_sigma_px (or the corner markers' fit error, if larger) moves it by less than
    # this relative standard deviation; near overhead it cannot be measured at all.
    corner_sigma_px: float = 0.3
    max_focal_rel_sigma: float = 0.1
    # Without a calibration, estimate the lens's radial distortion (k1) from the flat
    # stickers' sizes: searched over ±max_k1 in k1_step, used only if it lowers the
    # size spread to distortion_gain of no distortion, with enough stickers seen.
    estimate_distortion: bool = True
    max_k1: float = 0.3
    k1_step: float = 0.025
    distortion_gain: float = 0.75
    min_stickers_for_distortion: int = 8
    # Mean deviation of the stickers' relative sizes below which no search is made.
    distortion_min_spread: float = 0.006
    # ... and corner-marker fit error (px) below which no search is made either.
    distortion_min_fit_px: float = 0.6
    # Weight of the corner-marker fit error (per px) against the size spread in the search.
    distortion_fit_weight: float = 0.005
    flat_sticker_mm: float = 10.0
    # A sticker this high (mm) or more (the monster's) measures the height shift: seen from
    # a camera H mm up it looks H / (H - h) times its printed size.  Its measured size is
    # combined with the pose (inverse-variance weights): one standard deviation of a
    # measured side is parallax_corner_px (measured on the eval scenes: at most 0.21 px,
    # median 0.08); the pose's inverse height is trusted to within
    # these fractions with a calibration, with a focal length measured from a tilted view,
    # and with the assumed field of view (an unknown lens: a flat scan, a telephoto or a
    # wide-angle camera all look alike from overhead).
    parallax_min_height_mm: float = 20.0
    parallax_corner_px: float = 0.35
    parallax_prior_calibrated: float = 0.04
    parallax_prior_measured: float = 0.12
    parallax_prior_assumed: float = 0.5
    # Size and pose further apart than this many standard deviations: the uncertainty is
    # widened to cover both.
    parallax_conflict: float = 4.0
    # A lifted sticker must land on the same square over this many standard deviations of
    # the height shift, else the reading says which squares it could be on.
    parallax_sigmas: float = 2.0
    # Visible corner markers moved more than this (px) from where the last good
    # homography puts them: the camera (or the board) was bumped.
    bump_threshold_px: float = 6.0

    # --- reading ----------------------------------------------------------
    # A sticker whose centre lies closer than this (mm) to a square edge is
    # "between squares": the reading is doubtful.
    square_margin_mm: float = 3.0
    # A heading read from a marker more than this (degrees) off 0/90/180/270 is doubtful.
    max_rotation_deviation_deg: float = 30.0
    # A sticker whose measured side differs from the scheme's by more than this
    # fraction is a misread id (or a sticker on the wrong piece).
    size_tolerance: float = 0.3
    # Below this fraction of its size (or above its inverse) a detection is no sticker
    # at all but printed detail that decoded by chance: it is left out.
    speck_ratio: float = 0.5
    # How far (mm) beyond the sheet a sticker still counts as "on the board".
    sheet_tolerance_mm: float = 10.0

    # --- occlusion (vision/occlusion.py) ---------------------------------
    # A pixel differs from the board when its Lab distance to the board's median
    # colour exceeds this (L 0-100, a/b about ±100), with L weighted down so that
    # uneven light alone does not count.
    occlusion_colour_distance: float = 16.0
    occlusion_luma_weight: float = 0.8
    # Fraction of a square's inner area that must differ for it to count as covered.
    occlusion_cell_fraction: float = 0.4
    # Read pieces hide this much around their sticker (its white margin, a pawn's disc),
    # as a factor of the sticker's side; a square needs this much of its inner area
    # left visible to be judged at all.
    footprint_scale: float = 1.8
    tall_top_scale: float = 1.4
    min_visible_fraction: float = 0.15   # below it the square is "hidden-square"
    # The card zone is compared with a ring of table this wide (mm) around it.
    card_zone_ring_mm: float = 15.0
    # A pixel darker than the board by a factor of L*+16 within shadow_dim (about 15-80 % less
    # light) whose a*, b* are the board's scaled alike (within shadow_chroma) is the board
    # under a shadow, not something over it (vision/occlusion.py ``shaded``).
    shadow_dim: tuple[float, float] = (0.6, 0.97)
    shadow_chroma: float = 5.0
    # A connected group of at least this many covered squares is a hand.
    occlusion_min_squares: int = 3
    # Also refuse a frame where an empty-read square shows sticker paper (an undecoded sticker):
    # pixels this much lighter (L) than the board and within this chroma, over this fraction.
    occlusion_flag_lone_squares: bool = True
    sticker_white_lightness: float = 25.0
    sticker_white_chroma: float = 14.0
    sticker_white_fraction: float = 0.08
    # ... or whose lightness varies this many times more than an empty square's
    # (a sticker's black and white pattern, even blurred beyond decoding).
    unread_texture_ratio: float = 4.0
    # Squares with printed art (exit footprints, entrance) need this factor more.
    decorated_squares: tuple[str, ...] = ("a1", "p11")
    decorated_factor: float = 2.0


DEFAULT_CONFIG = ReaderConfig()
