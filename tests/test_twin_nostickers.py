"""The synthetic camera draws the box without stickers (NOSTICKERS.md, issue 27): the pieces' own pictures,
colours and numbers and the board's printed art, varied per look seed, no marker anywhere; the teaching
photos (``flure vision render --teach``) are the layout's steps in order."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion_app.cli import main
from engine.geometry import parse_square
from engine.position import Position, basic_position
from vision.scheme import load_scheme
from vision.teaching_layout import load_layout
from vision.twin.look import Edition
from vision.twin.scene import render

SMALL = dict(width=800, height=450)
LAYOUT = load_layout()


def _markers(img) -> int:
    d = load_scheme().aruco_dictionary()
    corners, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(img)
    return 0 if ids is None else len(ids)


def _patch(img, truth, square: str, r: int = 4) -> np.ndarray:
    u, v = truth.camera.project([load_scheme().square_center_mm(parse_square(square))], 8.0)[0]
    return img[int(v) - r:int(v) + r + 1, int(u) - r:int(u) + r + 1].astype(np.float32)


def test_same_arguments_same_bytes_and_each_look_its_own():
    pos, tile = basic_position(), "8"
    a, ta = render(pos, tile, stickers=False, look_seed=5, seed=1, **SMALL)
    b, _ = render(pos, tile, stickers=False, look_seed=5, seed=1, **SMALL)
    assert a.tobytes() == b.tobytes()
    c, _ = render(pos, tile, stickers=False, look_seed=6, seed=1, **SMALL)
    # another look: another board picture (an empty square's floor) and other pieces
    assert np.abs(_patch(a, ta, "h8") - _patch(c, ta, "h8")).mean() > 8
    assert np.abs(a.astype(np.float32) - c).mean() > 8
    looks = [Edition.from_seed(s) for s in range(12)]
    assert len({lk.pawn_colour("red") for lk in looks}) == 12
    assert len({(lk.motif, lk.dark_style, lk.monster_shape) for lk in looks}) > 4
    assert len({round(lk.monster_height_mm) for lk in looks}) > 6
    assert ta.perturbations["stickers"] is False and ta.perturbations["look_seed"] == 5


def test_no_marker_anywhere_and_no_board_markers_in_the_truth():
    pos = LAYOUT.steps[1].position()
    img, truth = render(pos, "5", stickers=False, look_seed=2, width=1280, height=720)
    assert truth.board_markers == []
    assert _markers(img) == 0
    sticker_img, _ = render(pos, "5", width=1280, height=720)
    assert _markers(sticker_img) > 40   # the same scene with stickers: the detector does find them


@pytest.mark.parametrize("look_seed", [0, 7])
def test_every_piece_face_is_drawn_and_both_faces_differ(look_seed):
    fronts, backs = LAYOUT.steps[1], LAYOUT.steps[2]
    a, ta = render(fronts.pieces(), fronts.tile, stickers=False, look_seed=look_seed, width=1280, height=720)
    b, tb = render(backs.pieces(), backs.tile, stickers=False, look_seed=look_seed, width=1280, height=720)
    empty, te = render(LAYOUT.steps[0].pieces(), None, stickers=False, look_seed=look_seed, width=1280, height=720)
    assert te.stickers == [] and te.position.monster is None
    for truth in (ta, tb):   # every piece lies in full view (nothing covers another)
        assert all(s.visible > 0.95 for s in truth.stickers), [s.what for s in truth.stickers if s.visible <= 0.95]
    faces = fronts.faces()
    for sq, face in faces.items():
        if face[0] in ("pawn", "stone"):
            on = _patch(a, ta, sq)
            assert np.abs(on - _patch(empty, te, sq)).mean() > 12, (sq, face)      # the piece is seen
            assert np.abs(on - _patch(b, tb, sq, 6)[2:-2, 2:-2]).mean() > 6, (sq, face)   # its other face differs
    # the pawns' coloured faces: the colour of the look
    look = Edition.from_seed(look_seed)
    for colour in ("red", "blue", "yellow", "green"):
        sq = fronts.setup["pawns"][f"{colour}-6/1"]["at"]
        u, v = ta.camera.project([load_scheme().square_center_mm(parse_square(sq))], 8.0)[0]
        ring = a[int(v) - 9:int(v) + 10, int(u) - 9:int(u) + 10].reshape(-1, 3).astype(np.float32)
        nearest = np.abs(ring - np.float32(look.pawn_colour(colour))).sum(axis=1).min()
        assert nearest < 60, (colour, nearest)


def test_a_hand_and_the_room_apply_as_with_stickers():
    pos = LAYOUT.steps[1].position()
    img, truth = render(pos, "5", stickers=False, look_seed=3, occluder="hand", hand_over="h6", tilt_deg=15,
                        light=0.6, glare=0.5, blur=1.0, noise=3, jpeg_quality=80, **SMALL)
    assert "h6" in truth.occluded_squares
    plain, _ = render(pos, "5", stickers=False, look_seed=3, tilt_deg=15, **SMALL)
    assert np.abs(img.astype(np.float32) - plain).mean() > 3


def test_render_teach_writes_one_photo_per_step_in_order(tmp_path, capsys):
    out = tmp_path / "teach"
    assert main(["vision", "render", "--teach", str(out), "--look-seed", "4", "--width", "640", "--height", "360",
                 "--tilt", "8"]) == 0
    names = sorted(p.name for p in out.glob("*.png"))
    assert names == [f"step-{n:02d}.png" for n in range(1, len(LAYOUT) + 1)]
    for n, step in enumerate(LAYOUT.steps, 1):
        truth = json.loads((out / f"step-{n:02d}.json").read_text())
        assert truth["step"] == n and truth["tile"] == step.tile
        assert truth["perturbations"]["look_seed"] == 4 and truth["pose"]["tilt_deg"] == 8
        want = step.pieces()
        got = truth["setup"]
        if want.monster is None:
            assert "monster" not in got
        else:
            assert Position.from_setup(got) == want
        pieces = {sq for sq, face in step.faces().items() if face[0] != "pool"}
        assert pieces <= {s["square"] for s in truth["stickers"]}
    first = cv2.imread(str(out / "step-01.png"))
    assert first.shape == (360, 640, 3) and _markers(first) == 0


def test_render_no_stickers_option(tmp_path, capsys):
    image = tmp_path / "box.png"
    assert main(["vision", "render", "--no-stickers", "--look-seed", "9", "--width", "640", "--height", "360",
                 "-o", str(image)]) == 0
    truth = json.loads(image.with_suffix(".json").read_text())
    assert truth["board_markers"] == [] and truth["perturbations"]["look_seed"] == 9
    assert _markers(cv2.imread(str(image))) == 0
    assert main(["vision", "render", "--teach", str(tmp_path / "t"), "--layout", str(tmp_path / "none.json")]) == 2
    assert "teaching layout" in capsys.readouterr().err
