"""The reader on images with known ground truth (tests/vision_helpers.py renders them with a
plain pinhole camera, apart from the product's synthetic camera; images made from the scheme
file alone are in test_vision_outside.py)."""
from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from engine.position import Position
from vision.reader import read_image
from vision.scheme import load_scheme
from vision_helpers import draw_hand, make_camera, pawn, pos, render

SCHEME = load_scheme()
TILTED = make_camera(tilt_deg=25, rotation_deg=8)


def all_pawns(face: str, squares: list[str]) -> dict:
    out = {}
    kinds = {"blue": "6/1 4/3 3/4 2/5", "yellow": "6/1 4/3 3/4 2/5", "red": "6/1 4/3 3/4 2/5",
             "green": "6/1 4/3 3/4 2/5", "purple": "6/1 3/4 2/5", "black": "6/1 3/4 2/5", "white": "6/1 3/4 2/5"}
    it = iter(squares)
    for colour, ks in kinds.items():
        for k in ks.split():
            out[f"{colour}-{k}"] = pawn(next(it), colour, k, face)
    return out


# Squares along the cut corners and the border, then the interior.
EDGE = "l1 m2 n3 o4 p5 a7 b8 c9 d10 e11 p11 a2 k1 p6 p10 f11 a6 b7".split()
INNER = "c2 e2 g2 i2 c4 e4 g4 i4 k4 c6 e6 g6 i6 k6 m6 e8 g8 i8 k8 m8 g10".split()


def assert_reads(position: Position, tile, camera=TILTED, **kw):
    image = render(position, tile, camera=camera, **kw)
    reading = read_image(image)
    assert reading.problems == []
    assert reading.located and reading.ok
    assert reading.position.to_setup() == position.to_setup()
    assert reading.tile == tile
    return reading


@pytest.mark.parametrize("face", ["white", "black"])
def test_every_pawn_face_round_trip(face):
    # Seven colours, 25 pawns; many of them on the squares along the cut corners.
    p = pos(monster="h1", facing="W", pawns=all_pawns(face, EDGE + INNER))
    reading = assert_reads(p, "prey-1")
    assert {s.piece for s in reading.stickers} == {"monster", "pawn", "tile"}
    assert all(0 < s.confidence <= 1 for s in reading.stickers)


@pytest.mark.parametrize("side", ["plain", "front"])
def test_every_stone_face_round_trip(side):
    kinds = [st.kind for st in sorted(SCHEME.stickers.values(), key=lambda s: s.id)
             if st.piece == "stone" and st.side == side]
    squares = "c3 m4 h5 i6 n6 g7 e8 m8 o9 f10 i10".split()
    p = pos(monster="j1", stones=dict(zip(squares, kinds)))
    assert_reads(p, "10")
    if side == "front":   # the front faces include every kind
        assert set(kinds) == {"stone", "crystal", "pivot-right", "pivot-about"}


@pytest.mark.parametrize("heading", "NESW")
def test_every_heading_and_arrow_round_trip(heading):
    tel = {"c5": {"pair": 1, "arrow": heading}, "n5": {"pair": 1, "arrow": "NESW"["NESW".index(heading) - 1]},
           "e10": {"pair": 2, "arrow": heading}, "o9": {"pair": 2, "arrow": "NESW"["NESW".index(heading) - 2]}}
    # The monster at the exit, the far corner from the camera's nadir: height correction matters most.
    p = pos(monster="a1", facing=heading, teleporters=tel,
            pools=["i3", "j3", "i4", "j4"] + (["e9", "f9", "g9", "h9"] if heading in "NS" else ["l7", "l8", "l9", "l10"]))
    assert_reads(p, "7")


@pytest.mark.parametrize("tile", ["5", "7", "8", "10", "prey-1", "prey-2"])
def test_every_tombstone_tile(tile):
    assert_reads(pos(monster="p11", facing="N"), tile, camera=make_camera())


@pytest.mark.parametrize("camera", [
    make_camera(), make_camera(tilt_deg=30), make_camera(tilt_deg=30, rotation_deg=180),
    make_camera(width=1280, height=720, tilt_deg=15, rotation_deg=-20), make_camera(height_mm=700, tilt_deg=20),
], ids=["overhead", "tilt30", "tilt30-upside-down", "720p-rotated", "low-camera"])
def test_camera_poses(camera):
    p = pos(monster="p5", facing="S", stones={"l1": "stone", "a7": "crystal"},
            pawns={"red-6/1": pawn("e11", "red", "6/1"), "white-3/4": pawn("a1", "white", "3/4", "black")})
    assert_reads(p, None, camera=camera)


def test_the_square_behind_the_monster_is_reported_hidden():
    """From a tilted camera the monster's figure (60 mm) hides the square behind it; a
    pawn there could not be seen, so the reading must not pass as complete."""
    p = pos(monster="g7", facing="E")
    reading = read_image(render(p, None, camera=make_camera(tilt_deg=30)))
    assert reading.position == p
    assert [(q["code"], q["square"]) for q in reading.problems] == [("hidden-square", "g6")]
    assert read_image(render(p, None, camera=make_camera())).ok     # overhead: nothing hidden


def test_height_correction_is_what_puts_the_monster_on_its_square():
    """Seen from a tilted camera, the monster's sticker 60 mm up appears about two thirds
    of a square away; reading it as if it lay on the board gets the square wrong."""
    cam = make_camera(tilt_deg=30)
    p = pos(monster="a1", facing="E")
    image = render(p, None, camera=cam)
    assert read_image(image).position.monster == p.monster
    flat = dataclasses.replace(SCHEME, stickers={i: dataclasses.replace(s, height_mm=0.0)
                                                 for i, s in SCHEME.stickers.items()})
    wrong = read_image(image, flat)
    assert wrong.position is None or wrong.position.monster != p.monster or wrong.problems


def test_one_corner_marker_hidden_still_locates():
    p = pos(monster="j1", pawns={"red-6/1": pawn("c3", "red", "6/1")})
    image = render(p, None, camera=TILTED, hide_board_markers=(2,))
    reading = read_image(image)
    assert reading.ok and reading.position == p
    assert reading.location.markers_missing == (2,)


def test_two_corner_markers_hidden_is_not_located_with_the_reason():
    image = render(pos(), None, hide_board_markers=(2, 3))
    reading = read_image(image)
    assert not reading.located and reading.position is None
    assert reading.problems[0]["code"] == "not-located"
    assert reading.reason == "board not located: 2 of 4 corner markers hidden (id 2, 3)"
    assert "setup" not in reading.to_json()


def test_to_json_is_the_vision_md_object():
    p = pos(monster="a1", facing="E", pawns={"red-6/1": pawn("p11", "red", "6/1")})
    out = assert_reads(p, "8", camera=make_camera()).to_json()
    assert out == {"located": True, "tile": "8", "problems": [],
                   "setup": {"monster": {"at": "a1", "facing": "E"}, "stones": {}, "pools": [],
                             "teleporters": {}, "pawns": {"red-6/1": {"at": "p11", "color": "red",
                                                                       "pawn": "6/1", "face": "white"}}}}
    json.dumps(out)


def codes(reading):
    return [p["code"] for p in reading.problems]


def sticker_id(**what):
    return next(s.id for s in SCHEME.stickers.values()
                if all(getattr(s, k) == v for k, v in what.items()))


def centre(name):
    from engine.geometry import parse_square
    return SCHEME.square_center_mm(parse_square(name))


def test_problem_unknown_marker():
    image = render(pos(), None, extra=[(95, *centre("g7"), 0)])
    reading = read_image(image)
    assert codes(reading) == ["unknown-marker"]
    assert reading.problems[0]["square"] == "g7" and "95" in reading.problems[0]["message"]
    assert not reading.ok


def test_problem_two_pieces_on_one_square():
    x, y = centre("g7")
    image = render(pos(), None, camera=make_camera(),
                   extra=[(sticker_id(colour="red", pawn="6/1", face="white"), x - 9, y - 9, 0),
                          (sticker_id(colour="blue", pawn="6/1", face="white"), x + 9, y + 9, 0)])
    reading = read_image(image)
    assert "two-pieces" in codes(reading)
    assert next(p for p in reading.problems if p["code"] == "two-pieces")["square"] == "g7"


def test_problem_piece_off_the_grid_in_a_cut_corner():
    x, y = 14.5 * 30, 0.5 * 30     # o1: a cut-away corner square, still on the sheet
    image = render(pos(), None, extra=[(sticker_id(colour="blue", pawn="2/5", face="black"), x, y, 0)])
    reading = read_image(image)
    assert codes(reading) == ["off-grid"] and "blue 2/5" in reading.problems[0]["message"]


def test_pieces_beside_the_board_are_not_part_of_the_reading():
    image = render(pos(), None, extra=[(sticker_id(colour="blue", pawn="2/5", face="black"), 560, 300, 0)])
    reading = read_image(image)
    assert reading.ok and reading.position.pawns == ()


def test_problem_no_monster():
    image = render(None, None, extra=[(sticker_id(colour="red", pawn="3/4", face="white"), *centre("c3"), 0)])
    reading = read_image(image)
    assert codes(reading) == ["no-monster"] and reading.position is None
    assert reading.to_json()["setup"]["pawns"] == {"red-3/4": {"at": "c3", "color": "red", "pawn": "3/4",
                                                               "face": "white"}}


def test_problem_marker_seen_twice_and_both_faces_of_one_pawn():
    white = sticker_id(colour="green", pawn="4/3", face="white")
    black = sticker_id(colour="green", pawn="4/3", face="black")
    twice = read_image(render(pos(), None, extra=[(white, *centre("c3"), 0), (white, *centre("g3"), 0)]))
    assert "marker-twice" in codes(twice) and not twice.ok
    faces = read_image(render(pos(), None, extra=[(white, *centre("c3"), 0), (black, *centre("g3"), 0)]))
    assert codes(faces) == ["same-piece-twice"]


def test_problem_sticker_between_two_squares():
    x, y = centre("g7")
    image = render(pos(), None, extra=[(sticker_id(colour="red", pawn="6/1", face="white"), x + 15, y, 0)],
                   camera=make_camera())
    reading = read_image(image)
    assert codes(reading) == ["between-squares"]


def test_problem_two_tiles_in_the_card_zone():
    x, y, w, h = SCHEME.card_zone_mm
    image = render(pos(), "8", extra=[(sticker_id(tile="5"), x + w / 2, y + 20, 0)])
    reading = read_image(image)
    assert "two-tiles" in codes(reading) and reading.tile is None


def test_a_hand_over_the_board_is_reported_not_read():
    p = pos(pawns={"red-6/1": pawn("g7", "red", "6/1"), "blue-3/4": pawn("c3", "blue", "3/4")})
    image = render(p, None, camera=make_camera())
    clear = read_image(image)
    assert clear.ok
    hand = draw_hand(image, clear, "g7")
    reading = read_image(hand)
    assert reading.occluded and "occluded" in codes(reading) and not reading.ok
    # The hidden pawn is not silently dropped into an acceptable position.
    assert reading.position is None or "red-6/1" not in reading.to_json()["setup"]["pawns"]


@pytest.mark.parametrize("bad, reason", [
    (None, "empty"),
    (np.zeros((0, 0, 3), np.uint8), "empty"),
    (np.zeros((20, 30, 3), np.uint8), "too small"),
    (np.zeros((100, 100, 5), np.uint8), "unsupported image shape"),
    ("picture.png", "not an image array"),
    (np.full((480, 640, 3), 128, np.uint8), "no corner markers seen"),
    (np.random.default_rng(1).integers(0, 255, (720, 1280, 3), dtype=np.uint8), "no corner markers seen"),
])
def test_bad_input_gives_a_reason_never_an_exception(bad, reason):
    reading = read_image(bad)
    assert not reading.located and reading.position is None
    assert reading.reason.startswith("board not located: ") and reason in reading.reason
    assert reading.to_json() == {"located": False, "tile": None, "problems": reading.problems}


def test_grayscale_and_other_pixel_formats_are_read():
    p = pos(pawns={"red-6/1": pawn("c3", "red", "6/1")})
    image = render(p, "5", camera=make_camera())
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    for frame in (gray, gray[:, :, None], cv2.cvtColor(image, cv2.COLOR_BGR2BGRA),
                  image.astype(np.float32) / 255.0, image.astype(np.uint16) * 257):
        reading = read_image(frame)
        assert reading.ok and reading.position == p and reading.tile == "5"


def test_a_corner_marker_stuck_on_turned_still_locates_the_board():
    import dataclasses as dc
    p = pos(monster="d1", facing="N", pawns={"red-6/1": pawn("c3", "red", "6/1")})
    turned = dc.replace(SCHEME, board_markers=tuple(
        dc.replace(m, rotation=(m.rotation + 90 * (i + 1)) % 360) for i, m in enumerate(SCHEME.board_markers)))
    image = render(p, None, camera=TILTED, scheme=turned)      # every corner marker turned differently
    reading = read_image(image)                                  # read with the file's rotations
    assert reading.ok and reading.position == p
    assert reading.location.reprojection_px < 1.0


def test_a_hand_over_the_card_zone_is_not_read_as_no_tile():
    p = pos(monster="d4", facing="N")
    image = render(p, "7", camera=make_camera())
    loc = read_image(image).location
    x, y, w, h = SCHEME.card_zone_mm
    zone = loc.to_image(np.array([[x - 5, y - 5], [x + w + 5, y + h + 5]])).astype(int)
    covered = image.copy()
    cv2.rectangle(covered, tuple(zone[0]), tuple(zone[1]), (120, 160, 215), -1)     # a palm over the tile
    reading = read_image(covered)
    assert reading.tile is None and "card-zone-unclear" in codes(reading) and not reading.ok
    empty = read_image(render(p, None, camera=make_camera()))
    assert empty.ok and empty.tile is None


@pytest.mark.parametrize("seed", range(6))
def test_random_positions_from_an_independent_renderer(seed):
    """Seeded random positions (every piece type and face) drawn by this file's renderer,
    not the product's synthetic camera, from random camera poses."""
    from vision.twin.positions import random_position
    position, tile = random_position(seed=500 + seed)
    on_board = dataclasses.replace(position, pawns=tuple(p for p in position.pawns if p.on_board))
    rng = np.random.default_rng(seed)
    width = int(rng.choice([1280, 1920]))
    camera = make_camera(width=width, height=width * 9 // 16, height_mm=float(rng.uniform(800, 1000)),
                         tilt_deg=float(rng.uniform(0, 25)), rotation_deg=float(rng.uniform(-8, 8)))
    image = render(on_board, tile, camera=camera, noise=3.0, seed=seed)
    reading = read_image(image)
    # A tilted camera may not see behind the monster: then it says so, and nothing else.
    assert {p["code"] for p in reading.problems} <= {"hidden-square"}
    assert reading.position.to_setup() == on_board.to_setup() and reading.tile == tile


def test_texture_of_a_partly_hidden_square_ignores_the_light_ramp():
    """A square partly hidden behind a tall piece is judged on what is visible; a lamp's
    gradient across it is not texture (it was, and read as an undecoded sticker)."""
    from vision.occlusion import _texture
    side = 8
    ys, xs = np.mgrid[0:side, 0:side]
    rng = np.random.default_rng(3)
    ramp = (40 + 3.0 * xs + 2.0 * ys + rng.normal(0, 0.5, (side, side))).astype(np.float32)
    ink = ramp.copy()
    ink[2:6, 2:6] += 40          # a sticker's black-and-white pattern
    light = np.stack([ramp.ravel(), ramp.ravel(), ink.ravel()]).reshape(1, 3, -1)
    light[0, 1, :10] = np.nan     # the second square: its first row and more hidden
    light[0, 2, :10] = np.nan
    std = _texture(light, side)
    assert std[0, 0] < 1.0 and std[0, 1] < 1.0      # the plain spread would be ~7
    assert std[0, 2] > 10.0
