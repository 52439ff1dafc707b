"""An independent no-sticker set (issue 27): boxes drawn by ``vision_outside_nostickers`` — its own board
art, pawn discs, tiles, monster and camera, laid out from ``vision/teaching_layout.json`` read directly —
taught by the product from their layout photos, then changes read with ``explain_change``.  Never a wrong
change accepted; the acceptance figures are printed and held above a floor (issue 27's targets: ≥ 90 % of
near-nominal legal changes, ≥ 70 % of all legal changes; vision/README.md has the measured figures)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vision_outside_nostickers as ons
import vision_outside_nostickers_changes as changes

HERE = Path(__file__).resolve().parent
BOXES = (300, 301, 302, 304, 305)   # never looked at while the reader was changed (the dev boxes: 100-107)
PER_BOX = 7                      # (four near-nominal boxes and a harder one of seven scenes: teaching a box
                                 # costs as much as ten scenes, and CI has about a minute for this set)
FLOOR_NEAR = 0.90                # issue 27's targets, met on these boxes (vision/README.md)
FLOOR_ALL = 0.70


def test_the_renderer_imports_no_product_code():
    code = ("import sys; sys.path.insert(0, %r); import vision_outside_nostickers as o; "
            "o.render(o.load_layout()[1]['setup'], '5', o.Look(1), o.camera(__import__('numpy').random."
            "default_rng(1), near=True)); "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('vision', 'engine', 'companion_app')); "
            "print(bad); sys.exit(1 if bad else 0)") % str(HERE)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_box_its_own_look_and_the_layout_read_from_the_file():
    steps = ons.load_layout()
    assert steps[0]["setup"] == {} and len(steps) >= 3
    a, b = ons.Look(1), ons.Look(2)
    assert a.board.shape == b.board.shape and np.abs(a.board.astype(int) - b.board).mean() > 10
    assert a.pawn_bgr["red"] != b.pawn_bgr["red"]
    style = ons.camera(np.random.default_rng(4), near=True)
    empty, full = (ons.render(steps[k]["setup"], steps[k]["tile"], a, style) for k in (0, 1))
    assert empty.shape == (style.height, style.width, 3)
    assert np.abs(empty.astype(int) - full).mean() > 3      # the step's pieces are drawn


def test_fresh_boxes_are_read_or_refused_never_wrong(capsys):
    rows = changes.run(BOXES, PER_BOX)
    table = changes.table(rows)
    with capsys.disabled():
        print("\n" + table)
    s = changes.summary(rows)
    assert all(v["wrong"] == 0 for v in s.values()), table
    assert s["illegal all"]["accepted"] == 0, table
    near, legal = s["legal near-nominal"], s["legal all"]
    assert near["scenes"] >= 12 and legal["scenes"] >= 20, table
    assert near["accepted"] >= FLOOR_NEAR * near["scenes"], table
    assert legal["accepted"] >= FLOOR_ALL * legal["scenes"], table


def test_a_stone_that_looks_like_the_board_moved_by_nobody_is_refused():
    """Box 411's plain stone back looks like its board (taught as faint): moved by nobody from g5 to n10, g5
    shows nothing and n10 differs only in part, so "nothing changed" fitted what was seen and was accepted.
    The faint face clearly nearer than the bare square on n10 now refuses it."""
    (row,) = changes.judge_box(411, 1)
    assert row["kind"] == "illegal" and not row["accepted"] and row["problems"] == ["unexplained"], row


@pytest.mark.parametrize("box", [503, 504])
def test_a_dark_face_and_a_dim_tilted_room_are_taught(box):
    """Box 503's black pawn shows its partly black face on a dark board square: its Lab difference from the
    empty square stays under ``looks.DIFF`` over most of the square's middle, and teaching refused the photo
    ("the square looks empty"); its outline and number enclose it (``looks.differs``).  Box 504 is
    photographed at 25° in a dim room with a shadow: the pieces' differences from the empty board shrink
    with the light, and only 26 of 41 were found to register the board (``board.BRIGHT_L``).  Both are
    taught now, and their first scene read right (or an illegal one refused)."""
    (row,) = changes.judge_box(box, 1)
    assert row["problems"] != ["teach-refused"], row
    assert row["right"] or (row["kind"] == "illegal" and not row["accepted"]), row
