"""The synthetic camera: determinism, ground truth checked against cv2.aruco, every perturbation."""
import cv2
import numpy as np
import pytest

from engine.geometry import E, N, S, W, parse_square, square_name
from engine.position import Pawn, Position, Teleporter, basic_position
from vision.scheme import load_scheme, rotation_of_corners
from vision.twin.positions import CUT_EDGE, all_pawns, random_position
from vision.twin.scene import LayoutError, render, render_burst


def _detect(img):
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    corners, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(img)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())}


def _square_px(truth, square, height_mm=0.0):
    """Pixel position of a square's centre, ``height_mm`` above the board, by the truth's camera."""
    sq = parse_square(square) if isinstance(square, str) else square
    (u, v), = truth.camera.project([load_scheme().square_center_mm(sq)], height_mm)
    return float(u), float(v)


@pytest.fixture(scope="module")
def sample_position():
    """Every kind of piece: stones of each face, both teleporter pairs, pawns on cut-corner squares."""
    p = parse_square
    pawns = (Pawn("red-6/1", "red", "6/1", "white", "board", p("l1")),
             Pawn("blue-4/3", "blue", "4/3", "black", "board", p("d10")),
             Pawn("white-2/5", "white", "2/5", "black", "board", p("p5")),
             Pawn("black-3/4", "black", "3/4", "white", "board", p("a7")),
             Pawn("yellow-2/5", "yellow", "2/5", "white", "waiting", None))
    base = basic_position(pawns)
    stones = {p("c3"): "crystal", p("m4"): "pivot-right", p("h5"): "pivot-about", p("g7"): "stone",
              p("e8"): "stone"}
    tele = {p("f4"): Teleporter(1, N), p("k8"): Teleporter(1, W), p("c6"): Teleporter(2, S),
            p("n9"): Teleporter(2, E)}
    return Position(p("h2"), S, stones, base.pools, tele, pawns)


def test_same_seed_same_bytes_and_other_seed_differs(sample_position):
    kw = dict(width=640, height=360, noise=4, occluder="hand", jpeg_quality=80, light=0.5, glare=0.3)
    a, ta = render(sample_position, "8", seed=5, **kw)
    b, tb = render(sample_position, "8", seed=5, **kw)
    c, _ = render(sample_position, "8", seed=6, **kw)
    assert a.dtype == np.uint8 and a.shape == (360, 640, 3)
    assert a.tobytes() == b.tobytes()
    assert ta.to_json() == tb.to_json()
    assert a.tobytes() != c.tobytes()


def test_every_sticker_decodes_where_the_truth_says(sample_position):
    img, truth = render(sample_position, "prey-2", seed=1)
    found = _detect(img)
    want = {s.id: s for s in truth.stickers + truth.board_markers}
    assert set(found) == set(want)
    for marker_id, corners in found.items():
        # Same corners in the same order: ids, rotations and positions all agree.
        assert np.abs(corners - np.asarray(want[marker_id].corners_px)).max() < 2.0, want[marker_id].what
    # The waiting pawn is not in the picture, nor in the truth.
    assert "yellow-2/5" not in [pw.label for pw in truth.position.pawns]
    assert truth.tile == "prey-2" and truth.min_sticker_px > 20


def test_projected_square_centre_holds_the_right_sticker(sample_position):
    """Project a square's centre (at the sticker's height) and decode what lies there."""
    scheme = load_scheme()
    img, truth = render(sample_position, None, seed=2, tilt_deg=20)
    found = _detect(img)
    for s in truth.stickers:
        sq = parse_square(s.square)
        u, v = _square_px(truth, sq, s.height_mm)
        nearest = min(found, key=lambda i: np.hypot(*(found[i].mean(axis=0) - (u, v))))
        assert nearest == s.id, f"{s.what} on {s.square}"
        assert scheme.square_at(*s.centre_mm) == sq


def test_lifted_stickers_are_really_projected_from_their_height(sample_position):
    """With a tilted camera the monster's sticker (60 mm up) is far from where the flat
    board point projects, and the decoded marker sits at the lifted projection."""
    img, truth = render(sample_position, None, seed=3, tilt_deg=30, height_mm=900)
    monster = truth.sticker(4)
    found = _detect(img)[4].mean(axis=0)
    lifted = np.array(_square_px(truth, monster.square, 60.0))
    flat = np.array(_square_px(truth, monster.square, 0.0))
    assert np.hypot(*(lifted - flat)) > 15        # the height matters by many pixels
    assert np.hypot(*(found - lifted)) < 6         # and the render honours it
    assert np.hypot(*(found - flat)) > 12


def test_headings_and_arrows_follow_the_scheme_rotation(sample_position):
    scheme = load_scheme()
    _, truth = render(sample_position, None, seed=4, rotation_deg=25)
    by_square = {s.square: s for s in truth.stickers}
    for sq, tp in sample_position.teleporters.items():
        s = by_square[square_name(sq)]
        rot, dev = rotation_of_corners(_board_corners(s, scheme))
        assert scheme.rotation_name(rot, "teleporter") == "NESW"[tp.arrow] and dev < 10
    monster = truth.sticker(4)
    rot, _ = rotation_of_corners(_board_corners(monster, scheme))
    assert scheme.rotation_name(rot, "monster") == "S"


def _board_corners(s, scheme):
    from vision.scheme import marker_corners_mm
    return marker_corners_mm(s.centre_mm, scheme.stickers[s.id].size_mm, s.rotation)


PERTURBATIONS = [
    dict(tilt_deg=30, tilt_azimuth_deg=90), dict(rotation_deg=180), dict(offset_mm=(60, -40)),
    dict(distortion=-0.25), dict(light=1.0), dict(colour_temp=3000), dict(colour_temp=8000),
    dict(glare=1.0), dict(noise=10), dict(blur=2.0), dict(jpeg_quality=30), dict(occluder="hand"),
    dict(height_mm=1300, width=1280, height=720),
]


@pytest.mark.parametrize("kw", PERTURBATIONS, ids=lambda kw: ",".join(kw))
def test_every_perturbation_renders_and_changes_the_picture(sample_position, kw):
    size = dict(width=kw.get("width", 960), height=kw.get("height", 540))
    clean, _ = render(sample_position, "5", seed=9, **size)
    img, truth = render(sample_position, "5", seed=9, **{**kw, **size})
    assert img.shape == (size["height"], size["width"], 3) and img.dtype == np.uint8
    if clean.shape == img.shape:
        assert np.abs(img.astype(int) - clean.astype(int)).mean() > 0.5
    if kw.get("occluder") == "hand":
        assert truth.occluded_squares and truth.occluded


def test_burst_frames_share_the_scene_but_not_the_noise(sample_position):
    frames = render_burst(sample_position, "7", frames=3, seed=11, width=640, height=360, noise=5)
    first, _ = render(sample_position, "7", seed=11, width=640, height=360, noise=5)
    assert frames[0][0].tobytes() == first.tobytes()
    assert frames[1][0].tobytes() != frames[0][0].tobytes()
    diff = np.abs(frames[1][0].astype(int) - frames[0][0].astype(int)).mean()
    assert 1 < diff < 10  # noise, not a different picture


def test_impossible_layouts_are_refused_with_the_square_named():
    crystals = {parse_square(n): "crystal" for n in ("c3", "d4", "e5")}
    pos = Position(parse_square("a1"), E, crystals, frozenset(), {}, ())
    with pytest.raises(LayoutError, match="crystal on e5"):
        render(pos, None, width=320, height=180)
    odd_pool = Position(parse_square("a1"), E, {}, frozenset({parse_square("g7"), parse_square("h8")}), {}, ())
    with pytest.raises(LayoutError, match="g7 h8"):
        render(odd_pool, None, width=320, height=180)
    with pytest.raises(ValueError, match="occluder"):
        render(basic_position(), None, width=320, height=180, occluder="cat")


def test_random_positions_are_valid_and_cover_every_sticker_heading_and_cut_corner():
    scheme = load_scheme()
    from vision.twin.pieces import layout
    ids, headings, arrows, edge = set(), set(), set(), set()
    for seed in range(150):
        pos, tile = random_position(seed)
        assert pos.status() == [], (seed, pos.status())
        for placed in layout(pos, tile, scheme, np.random.default_rng(seed)):
            ids.add(placed.sticker.id)
        headings.add(pos.facing)
        arrows |= {t.arrow for t in pos.teleporters.values()}
        edge |= {p.square for p in pos.pawns if p.place == "board"} & set(CUT_EDGE)
    piece_ids = set(scheme.stickers)
    assert piece_ids - ids == set()
    assert headings == arrows == {0, 1, 2, 3}
    assert edge == set(CUT_EDGE)
    assert len(all_pawns()) == 25


def test_hand_truth_names_the_squares_the_hand_really_covers(sample_position):
    kw = dict(width=960, height=540, seed=21)
    clean, _ = render(sample_position, None, **kw)
    img, truth = render(sample_position, None, occluder="hand", **kw)
    assert truth.occluded_squares
    diff = np.abs(img.astype(int) - clean.astype(int)).sum(axis=2)
    for name in truth.occluded_squares:
        u, v = (int(round(c)) for c in _square_px(truth, name))
        assert diff[v, u] > 30, name          # skin or sleeve where the board was
    hidden = {s.id for s in truth.stickers if s.visible < 0.5}
    for s in truth.stickers:
        if s.id in hidden:
            cx, cy = np.mean(s.corners_px, axis=0).astype(int)
            assert diff[cy, cx] > 30, s.what


def test_board_drawing_follows_board_md():
    """130 pillars, drawn where the camera model says the grid intersections are."""
    from vision.twin.board import PILLAR, pillar_points
    assert len(pillar_points()) == 130
    empty = Position(parse_square("a1"), E, {}, frozenset(), {}, ())
    img, truth = render(empty, None, seed=0)
    for c, r in pillar_points():
        if c <= 2 and r <= 2:
            continue  # in the monster's shadow on a1
        (u, v), = truth.camera.project([(c * 30.0, r * 30.0)])
        assert np.abs(img[int(round(v)), int(round(u))].astype(int) - PILLAR).max() < 25, (c, r)


def test_next_frames_of_an_unchanged_scene_match_a_fresh_render(sample_position):
    """The twin keeps the last still scene and only adds new noise: same bytes either way."""
    kw = dict(width=640, height=360, noise=3, light=0.4, occluder="hand", seed=4)
    fresh = render(sample_position, "8", frame=2, **kw)[0]
    render(basic_position(), None, width=640, height=360)          # another scene in between
    render(sample_position, "8", frame=0, **kw)
    again = render(sample_position, "8", frame=2, **kw)[0]          # from the kept scene
    assert fresh.tobytes() == again.tobytes()
    moved = Position(sample_position.monster, N, sample_position.stones, sample_position.pools,
                     sample_position.teleporters, sample_position.pawns)
    assert render(moved, "8", frame=2, **kw)[0].tobytes() != again.tobytes()
