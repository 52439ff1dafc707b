"""The teaching layout file (NOSTICKERS.md): the packaged file loads, shows every face of the box, each
step is a setup the engine accepts made of the box's real pieces, and a bad file is a clear error
naming the step and the field."""
from __future__ import annotations

import copy
import json

import pytest

from engine.geometry import neighbour, parse_square, square_name
from engine.placement import PIECES
from engine.position import COLOURS, FOUR_PAWN_COLOURS, PAWN_KINDS, Position
from vision.teaching_layout import DEFAULT_PATH, FORMAT, TILES, TeachingLayoutError, load_layout, parse_layout

RAW = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))


def test_packaged_layout_loads_in_the_fixed_form():
    layout = load_layout()
    assert RAW["format"] == FORMAT
    assert [(s.say, s.setup, s.tile) for s in layout.steps] == [(s["say"], s["setup"], s["tile"]) for s in RAW["steps"]]
    first = layout.steps[0]
    assert first.setup == {} and first.empty and first.tile is None and first.position() is None
    assert all(not s.empty for s in layout.steps[1:])


def test_every_face_of_the_box_is_shown():
    layout = load_layout()
    assert layout.missing() == []
    seen = layout.covered()
    pawns = {f for f in seen if f[0] == "pawn"}
    assert len(pawns) == 50   # 25 pawns, both faces
    assert {(c, k) for _, c, k, _ in pawns} == {(c, k) for c in COLOURS for k in PAWN_KINDS
                                                if c in FOUR_PAWN_COLOURS or k != "4/3"}
    # Both faces of the 11 stone tiles: one step with every marked front up, one with every plain back.
    steps = [s.faces().values() for s in layout.steps]
    stones = [sorted(f[1] for f in faces if f[0] == "stone") for faces in steps]
    fronts = sorted(k for k, n in PIECES.items() if k in ("stone", "crystal", "pivot-right", "pivot-about")
                    for _ in range(n))
    assert fronts in stones and ["stone"] * 11 in stones
    # Every tombstone tile of the box in the card zone, one per step.
    tiles = [s.tile for s in layout.steps if s.tile is not None]
    assert sorted(tiles) == sorted(t for t, n in TILES.items() for _ in range(n))
    # The monster is shown in every heading (its own shape seen from each side).
    assert {f[1] for faces in steps for f in faces if f[0] == "monster"} == {"N", "E", "S", "W"}


def test_each_step_is_a_legal_setup_of_the_engine():
    layout = load_layout()
    for n, step in enumerate(layout.steps[1:], 2):
        pos = step.position()
        assert isinstance(pos, Position), n
        assert pos.status() == [], (n, pos.status())
        assert Position.from_setup(step.engine_setup(), strict=True) == pos
        # the squares the step lists are the squares of its faces, one piece each
        faces = step.faces()
        assert len(faces) == len(pos.board_pawns()) + len(pos.stones) + len(pos.pools) + len(pos.teleporters) + 1
        # teaching sees each pawn on its own: no piece on a square beside it
        taken = {parse_square(sq) for sq in faces}
        for sq in pos.board_pawns():
            near = {neighbour(sq, d) for d in range(4)} - {None}
            assert not near & taken, (n, square_name(sq))


def _bad(mutate):
    data = copy.deepcopy(RAW)
    mutate(data)
    return data


@pytest.mark.parametrize("mutate, words", [
    (lambda d: d.update(format="flure-teach/9"), "format: unknown format"),
    (lambda d: d.update(steps=[]), "steps: must be a list of steps"),
    (lambda d: d["steps"][0]["setup"].update(stones={"c3": "stone"}),
     "step 1: setup: the first step must be the empty board"),
    (lambda d: d["steps"][1]["setup"]["stones"].update(a3="lava"), "step 2: setup.stones.a3: unknown stone kind"),
    (lambda d: d["steps"][1]["setup"]["stones"].update(m1="stone"), "step 2: setup.stones.m1:"),
    (lambda d: d["steps"][1]["setup"]["stones"].update(d1="stone"), "step 2: setup.pawns.blue-6/1.at:"),
    (lambda d: d["steps"][2]["setup"]["stones"].update(k2="stone"),
     "step 3: setup.stones.k2: a stone stands on the teleporter"),
    (lambda d: d["steps"][1]["setup"]["stones"].update(a3="crystal"),
     "step 2: setup.stones: 3 crystal faces up, but the box has 2"),
    (lambda d: d["steps"][2]["setup"]["stones"].update(a3="stone"),
     "step 3: setup.stones: 12 stone tiles, but the box has 11"),
    (lambda d: d["steps"][1]["setup"].update(pools=["a3", "a4", "b3"]),
     "step 2: setup.pools: the pool squares a3 b3 a4 are not"),
    (lambda d: d["steps"][1]["setup"]["pawns"].update({"purple-4/3": {"at": "a3", "color": "purple", "pawn": "4/3"}}),
     "step 2: setup.pawns.purple-4/3: the box has no purple 4/3 pawn"),
    (lambda d: d["steps"][1]["setup"]["pawns"].update({"X": {"at": "a3", "color": "red", "pawn": "6/1"}}),
     "step 2: setup.pawns.X: the label of a red 6/1 pawn is 'red-6/1'"),
    (lambda d: d["steps"][1]["setup"]["pawns"].update({"red-2/5": {"at": None, "color": "red", "pawn": "2/5"}}),
     "step 2: setup.pawns.red-2/5.at: a pawn of a teaching step lies on a square"),
    (lambda d: d["steps"][1]["setup"]["pawns"]["red-6/1"].pop("color"), "step 2: setup.pawns.red-6/1: needs \"color\""),
    (lambda d: d["steps"][3].update(tile="prey-3"), "step 4: tile: 'prey-3' is not a tombstone tile of the box"),
    (lambda d: d["steps"][3].update(say=""), "step 4: say: required"),
    (lambda d: d["steps"][3].update(heading="N"), "step 4: unknown key 'heading'"),
    (lambda d: d["steps"][1]["setup"].update(monster={"at": "i3", "facing": "E"}),
     "step 2: setup.monster: the monster stands on the pool"),
    (lambda d: d["steps"][1]["setup"]["teleporters"].pop("k2"), "step 2: setup.teleporters: pair 1 has 1 tile"),
])
def test_a_bad_layout_names_the_step_and_the_field(mutate, words):
    with pytest.raises(TeachingLayoutError) as info:
        parse_layout(_bad(mutate), "mine.json")
    assert str(info.value).startswith("teaching layout mine.json: ")
    assert words in str(info.value)


def test_a_step_without_the_monster_is_checked_and_has_no_position():
    data = {"format": FORMAT, "steps": [{"say": "Clear the board", "setup": {}, "tile": None},
                                        {"say": "Two pawns", "tile": None, "setup": {"pawns": {
                                            "red-6/1": {"at": "a1", "color": "red", "pawn": "6/1", "face": "black"},
                                            "blue-2/5": {"at": "a1", "color": "blue", "pawn": "2/5"}}}}]}
    with pytest.raises(TeachingLayoutError, match="step 2: setup.pawns.blue-2/5.at: .*both on a1"):
        parse_layout(data)
    data["steps"][1]["setup"]["pawns"]["blue-2/5"]["at"] = "c5"
    layout = parse_layout(data)
    step = layout.steps[1]
    assert step.position() is None and step.engine_setup() is None
    assert step.faces() == {"a1": ("pawn", "red", "6/1", "black"), "c5": ("pawn", "blue", "2/5", "white")}
    assert ("pawn", "blue", "2/5", "black") in layout.missing()


def test_an_unreadable_file_is_a_clear_error(tmp_path):
    with pytest.raises(TeachingLayoutError, match=r"teaching layout .*nope.json: cannot read the file"):
        load_layout(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": ", encoding="utf-8")
    with pytest.raises(TeachingLayoutError, match=r"teaching layout .*bad.json: "):
        load_layout(bad)


def test_each_step_is_told_in_the_readers_language():
    from companion_app.i18n.text import render
    for step in load_layout().steps:
        assert render(step.words, "en") == step.say
        for lang in ("fr", "de", "es"):
            said = render(step.words, lang)
            assert said and said != step.say, (lang, step.say)
