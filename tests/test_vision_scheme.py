"""The marker scheme file: complete, consistent with the engine, and clear about errors."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from engine.position import COLOURS, FACES, PAWN_KINDS, STONE_KINDS
from vision.scheme import DEFAULT_PATH, SchemeError, load_scheme, marker_corners_mm, parse_scheme, rotation_of_corners

SCHEME = load_scheme()
RAW = json.loads(DEFAULT_PATH.read_text())


def test_one_sticker_per_piece_face():
    stickers = list(SCHEME.stickers.values())
    pawns = {(s.colour, s.pawn, s.face) for s in stickers if s.piece == "pawn"}
    assert len(pawns) == 2 * 25   # 25 pawns, two faces each (BOARD.md)
    assert {c for c, _, _ in pawns} == set(COLOURS) and {f for *_, f in pawns} == set(FACES)
    assert {k for _, k, _ in pawns} == set(PAWN_KINDS)
    stones = [s for s in stickers if s.piece == "stone"]
    assert len({s.tile for s in stones}) == 11 and len(stones) == 22
    assert all(s.kind == "stone" for s in stones if s.side == "plain")
    fronts = sorted(s.kind for s in stones if s.side == "front")
    assert fronts == sorted(["stone"] * 3 + ["crystal"] * 2 + ["pivot-right"] * 4 + ["pivot-about"] * 2)
    assert set(fronts) <= set(STONE_KINDS)
    assert sorted(s.pair for s in stickers if s.piece == "teleporter") == [1, 1, 2, 2]
    assert sorted(s.shape for s in stickers if s.piece == "pool") == ["1x4", "2x2"]
    assert sorted(s.tile for s in stickers if s.piece == "tile") == \
        sorted(["5", "7", "7", "8", "8", "10", "prey-1", "prey-2"])
    assert [s.piece for s in stickers].count("monster") == 1


def test_ids_fit_the_dictionary_and_are_unique():
    dic = SCHEME.aruco_dictionary()
    ids = [m.id for m in SCHEME.board_markers] + list(SCHEME.stickers)
    assert len(ids) == len(set(ids))
    assert max(ids) < dic.bytesList.shape[0]
    assert SCHEME.board_marker_ids == {0, 1, 2, 3}


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotation_convention_round_trips_through_a_real_marker(rotation):
    """Draw a marker at a rotation as the file's convention says, detect it with
    cv2.aruco, and read the same rotation back from its corners."""
    dic = SCHEME.aruco_dictionary()
    img = np.full((300, 300), 255, np.uint8)
    marker = cv2.aruco.generateImageMarker(dic, 57, 120)   # drawn upright: rotation 90
    turns = ((rotation - 90) // 90) % 4                    # clockwise quarter turns needed
    img[90:210, 90:210] = np.rot90(marker, -turns)
    corners, ids, _ = cv2.aruco.ArucoDetector(dic).detectMarkers(img)
    assert ids.ravel().tolist() == [57]
    assert rotation_of_corners(corners[0].reshape(4, 2))[0] == rotation
    assert rotation_of_corners(marker_corners_mm((0, 0), 10, rotation)) == (rotation, 0.0)


def test_headings_cover_every_direction():
    assert sorted(SCHEME.headings.values()) == ["E", "N", "S", "W"]
    for d in "NESW":
        assert SCHEME.rotation_name(SCHEME.rotation_for(d, "monster"), "monster") == d
    assert set(SCHEME.pool_orientations.values()) == {"horizontal", "vertical"}


def test_geometry_helpers():
    assert SCHEME.square_at(1, 1) == 0                        # a1
    assert SCHEME.square_at(479, 329) == 10 * 16 + 15         # p11
    assert SCHEME.square_at(14 * 30 + 5, 5) is None           # o1: cut-away corner
    assert SCHEME.square_at(-1, 5) is None
    x, y, w, h = SCHEME.card_zone_mm
    assert SCHEME.in_card_zone(x + w / 2, y + h / 2) and not SCHEME.in_card_zone(240, 165)


def test_per_piece_sizes_override_the_defaults():
    data = json.loads(json.dumps(RAW))
    data["pieces"][0]["size_mm"] = 31.5
    s = parse_scheme(data)
    assert s.stickers[data["pieces"][0]["id"]].size_mm == 31.5


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("dictionary"), "dictionary"),
    (lambda d: d.__setitem__("dictionary", "ARUCO_SOMETHING"), "dictionary"),
    (lambda d: d.__setitem__("square_mm", -30), "square_mm"),
    (lambda d: d["sizes_mm"].pop("pawn"), "sizes_mm.pawn"),
    (lambda d: d["board_markers"][1].__setitem__("center_mm", [1]), "board_markers[1].center_mm"),
    (lambda d: d["board_markers"][2].__setitem__("rotation", 45), "board_markers[2].rotation"),
    (lambda d: d["pieces"][3].__setitem__("id", 4), "pieces[3].id"),
    (lambda d: d["pieces"][40].__setitem__("color", "pink"), "pieces[40].color"),
    (lambda d: d["pieces"][0].__setitem__("piece", "dragon"), "pieces[0].piece"),
    (lambda d: d["headings"].__setitem__("90", "N"), "headings"),
    (lambda d: d.__setitem__("pieces", {}), "pieces"),
])
def test_malformed_scheme_names_the_field(tmp_path, mutate, field):
    data = json.loads(json.dumps(RAW))
    mutate(data)
    path = tmp_path / "scheme.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SchemeError) as exc:
        load_scheme(path)
    assert f" {field}:" in str(exc.value) and str(path) in str(exc.value)


def test_unreadable_scheme_files(tmp_path):
    with pytest.raises(SchemeError, match="cannot read"):
        load_scheme(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    with pytest.raises(SchemeError, match="not valid JSON"):
        load_scheme(bad)
