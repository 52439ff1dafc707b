"""``flure vision read`` on images made by an outside party from the scheme file alone.

``vision_outside_renderer`` does not import the product: it reads ``marker_scheme.json``
itself and draws tables in its own styles (a plain white sheet without board art, other
table colours, thin or wide sticker margins, any resolution, phone-sized frames, a camera
turned, tilted, far away with a long lens, close with a wide one, or a flat top-down scan).
Every such image must be read exactly, or refused with a problem — never read wrong.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import vision_outside_renderer as out
from companion_app.cli import main
from vision.detect import border_corners, check_frame, detect_markers
from vision.reader import read_image
from vision.scheme import load_scheme

SCHEME = out.load()


def reads(image, setup, tile):
    r = read_image(image).to_json()
    return r, out.same_setup(r.get("setup"), out.expected_setup(setup)) and r["tile"] == tile


def monster_at(square, facing="N"):
    return {"monster": {"at": square, "facing": facing}, "stones": {}, "pool_tiles": [], "teleporters": {},
            "pawns": {}}


@pytest.mark.parametrize("style", sorted(out.STYLES))
def test_outside_styles_read_exactly(style):
    for setup, tile in ((out.BASIC, "8"), (out.MIXED, "prey-2")):
        r, right = reads(out.render(setup, tile, out.STYLES[style]), setup, tile)
        assert r["problems"] == [] and right, (style, r)


EDGES = "a1 l1 p5 p11 e11 a7 h6".split()


@pytest.mark.parametrize("name,style", [
    ("flat scan", out.Style(width=1600, height=1200, cam_height_mm=0, bodies=False, ignore_heights=True)),
    ("long lens 2.5 m up", out.Style(width=1920, height=1080, cam_height_mm=2500, hfov_deg=22)),
    ("wide lens 45 cm up", out.Style(width=1920, height=1080, cam_height_mm=450, hfov_deg=95,
                                     monster_top_mm=26)),
    ("wide lens tilted 6°", out.Style(width=1920, height=1080, cam_height_mm=560, hfov_deg=88, tilt_deg=6,
                                      tilt_towards_deg=200, monster_top_mm=26)),
])
def test_the_monster_on_its_square_whatever_the_lens(name, style):
    """Without a calibration the reader cannot know the lens from the corner markers when the
    camera looks straight down; a 60 mm high sticker's shift was taken from an assumed 60°
    field of view, which put the monster a square off for a flat scan or a wide lens.  Its
    apparent size measures the shift instead."""
    for sq in EDGES:
        setup = monster_at(sq, "W")
        r, right = reads(out.render(setup, "5", style), setup, "5")
        assert right and r["problems"] == [], (name, sq, r)


def test_a_tilted_image_that_ignores_the_heights_is_never_read_wrong():
    """Stickers drawn flat under a tilted camera contradict the scheme's heights: the pose says
    one square, the sticker's size another.  Where that matters the reading says so."""
    style = out.fit_camera(out.Style(width=1920, height=1080, tilt_deg=25, tilt_towards_deg=60,
                                     ignore_heights=True, bodies=False), slack=1.1)
    codes = set()
    for sq in ("a1", "l1", "h6", "p5", "e11"):
        setup = monster_at(sq)
        r, right = reads(out.render(setup, "8", style), setup, "8")
        assert right or r["problems"], (sq, r)
        codes |= {p["code"] for p in r["problems"]}
    assert "unsure-square" in codes


def test_random_outside_scenes_are_read_or_refused_never_wrong():
    """Seeded random positions (every piece type, turned stickers, pieces off-centre by up to
    3 mm) in random styles: most are read exactly, none is read wrong without a problem."""
    ok = 0
    for seed in range(14):
        rng = np.random.default_rng(1000 + seed)
        setup, tile = out.random_setup(rng, SCHEME)
        style = out.random_fitted_style(rng, SCHEME, flat_share=0.25, max_size=(2592, 1944), slack=(1.15, 1.5))
        r, right = reads(out.render(setup, tile, style, SCHEME, jitter_mm=float(rng.uniform(0, 3))), setup, tile)
        assert right or r["problems"], (seed, style, r)
        ok += right and not r["problems"]
    assert ok >= 9


def test_border_corners_find_the_black_border_under_a_thin_margin():
    """A monster sticker with a thin white margin on a dark head: cv2.aruco may outline the
    paper instead of the black border; the size measurement must use the border."""
    style = out.Style(width=1920, height=1080, cam_height_mm=450, hfov_deg=95)
    for sq in ("a1", "h6"):
        img = out.render(monster_at(sq, "E"), None, style)
        cam = out.Camera(style, SCHEME)
        true = cam.project(np.column_stack([out.corners(out.square_centre(sq, 30), 25, 90), np.full(4, -60.0)]))
        gray, _ = check_frame(img)
        det = detect_markers(gray, load_scheme())
        found = det.corners[list(det.ids).index(4)]
        border = border_corners(gray, found, 6)
        side = lambda q: float(np.linalg.norm(q - np.roll(q, 1, axis=0), axis=1).mean())  # noqa: E731
        assert abs(side(border) - side(true)) < 0.5, (sq, side(found), side(border), side(true))


def test_cli_reads_an_outside_photo_as_vision_md_json(tmp_path, capsys):
    import cv2
    path = tmp_path / "outside.jpg"
    cv2.imwrite(str(path), out.render(out.MIXED, "prey-2", out.STYLES["green-felt-grid-tilt"]),
                [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert main(["vision", "read", str(path)]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["located"] is True and got["tile"] == "prey-2" and got["problems"] == []
    assert out.same_setup(got["setup"], out.expected_setup(out.MIXED))
    assert got["setup"]["pawns"]["red-6/1"] == {"at": "p11", "color": "red", "pawn": "6/1", "face": "white"}


def test_cli_plain_messages_for_files_it_cannot_read(tmp_path, capsys):
    assert main(["vision", "read", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"flure: {tmp_path}: is a folder, not an image file"
    import cv2
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), np.full((100, 100, 3), 200, np.uint8))
    broken = tmp_path / "broken.png"
    broken.write_bytes(good.read_bytes()[:60])
    assert main(["vision", "read", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"flure: {broken}: not an image file OpenCV can read", err


def test_a_board_partly_outside_the_picture_is_not_read_as_complete():
    """Three corner markers locate the board even when the camera cuts off the grid's far
    corner; a pawn standing there is not in the picture, so the reading says so."""
    setup = {"monster": {"at": "h6", "facing": "E"}, "stones": {"c3": "stone"}, "pool_tiles": [],
             "teleporters": {}, "pawns": {"green-6/1": {"at": "a1", "color": "green", "pawn": "6/1", "face": "black"}}}
    style = out.Style(width=1600, height=1200, cam_height_mm=800, hfov_deg=66, roll_deg=30, offset_mm=(60, 127))
    r = read_image(out.render(setup, "8", style)).to_json()
    assert r["located"] and "green-6/1" not in r["setup"]["pawns"]
    view = [p for p in r["problems"] if p["code"] == "out-of-view"]
    assert view and view[0]["square"] == "a1" and "outside the picture (a1" in view[0]["message"]
    # The whole board in view: no such problem.
    r = read_image(out.render(setup, "8", out.Style(width=1600, height=1200, cam_height_mm=800))).to_json()
    assert r["problems"] == [] and r["setup"]["pawns"]["green-6/1"]["at"] == "a1"


BASE = out.Style(width=1920, height=1080, cam_height_mm=950, hfov_deg=62, grid=True)


@pytest.mark.parametrize("name,style,tile,tile_at", [
    ("wood table, no tile", out.replace(BASE, wood=True, table_bgr=(60, 110, 160)), None, None),
    ("stone-slab board art", out.replace(BASE, slabs=True, sheet_bgr=(70, 75, 80)), "8", None),
    ("dark sheet on a white table", out.replace(BASE, sheet_bgr=(40, 40, 40), table_bgr=(230, 230, 230)), "7", None),
    ("tile in the card zone's corner", BASE, "prey-1", (578, 208)),
    ("tile at the card zone's edge", BASE, "5", (512, 165)),
])
def test_tables_of_other_looks(name, style, tile, tile_at):
    r, right = reads(out.render(out.MIXED, tile, style, tile_at=tile_at), out.MIXED, tile)
    assert right and r["problems"] == [], (name, r)


def test_a_hard_shadow_is_refused_not_misread():
    r, right = reads(out.render(out.MIXED, "8", out.replace(BASE, shadow=0.4)), out.MIXED, "8")
    assert r["problems"] and r["located"]
