"""``flure vision eval --moves --no-stickers`` (issue 27): the sticker evaluation's scenes and conditions,
each case a box of its own look, taught from the teaching layout's photos, then read without stickers."""
from __future__ import annotations

import json

import numpy as np

from companion_app.cli import main
from vision import evaluate_moves as moves
from vision.evaluate_nostickers import TARGET_ALL, TARGET_NEAR_NOMINAL, look_seed, teaching_photos
from vision.teaching_layout import load_layout


def test_the_no_stickers_eval_runs_end_to_end_and_reports_per_condition_and_kind(tmp_path, capsys):
    report = tmp_path / "plain.json"
    assert main(["vision", "eval", "--moves", "--no-stickers", "--levels", "nominal", "--per-level", "1",
                 "--seed", "7", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "--no-stickers" in out and "near-nominal" in out and "by kind" in out
    data = json.loads(report.read_text())
    assert data["format"] == "flure-vision-eval-nostickers/1" and set(data["levels"]) == {"nominal"}
    total = data["all"]
    assert total["legal"] + total["illegal"] + total["skipped"] == 1
    assert total["read"] + total["refused"] + total["wrong"] == total["legal"]
    taught = data["teaching"]
    assert taught["cases_taught"] + taught["refused"] == total["legal"] + total["illegal"]
    # never a wrong change accepted: the first target, reported with the issue's own figures
    assert total["wrong"] == 0 and total["illegal_accepted"] == 0 and data["targets"][0]["met"]
    assert f"{TARGET_NEAR_NOMINAL:.0%}" in data["targets"][1]["target"]
    assert f"{TARGET_ALL:.0%}" in data["targets"][2]["target"]


def test_each_case_its_own_look_and_its_teaching_photos_under_its_camera():
    assert len({look_seed(2024, 100 + i, k) for i in range(14) for k in range(3)}) == 42
    layout = load_layout()
    level = dict((lv.name, lv) for lv in moves.MOVE_LEVELS)["hand"]
    params = moves.scene_params(level, 112, 2024, 0)
    assert params["occluder"] == "hand"
    small = {**params, "width": 480, "height": 270}
    photos = teaching_photos(layout, small, 1, 5)
    assert len(photos) == len(layout) and all(p.shape == (270, 480, 3) for p in photos)
    # no hand while teaching: the empty board's photo is the board alone (same look, same camera)
    from vision.twin.scene import render
    with_hand, truth = render(layout.steps[0].pieces(), None, seed=1, stickers=False, look_seed=5, **small)
    assert truth.occluded_squares
    assert np.abs(photos[0].astype(np.float32) - with_hand).mean() > 1


def test_no_stickers_needs_moves(capsys):
    assert main(["vision", "eval", "--no-stickers", "--quick"]) == 2
    assert "--no-stickers" in capsys.readouterr().err


def test_near_nominal_cases_are_mostly_read_and_never_wrong(tmp_path):
    """Three near-nominal conditions, two cases each, each its own box taught from its photos: no wrong
    change, and most legal changes read (issue 27's targets: >= 90 % near-nominal; the whole set's
    figures are in vision/README.md)."""
    report = tmp_path / "near.json"
    assert main(["vision", "eval", "--moves", "--no-stickers", "--levels", "nominal,blur,noise", "--per-level", "2",
                 "--seed", "2024", "--report", str(report)]) == 0
    total = json.loads(report.read_text())["all"]
    assert total["wrong"] == 0 and total["illegal_accepted"] == 0, total
    assert total["legal"] >= 4 and total["read"] >= 2 * total["legal"] / 3, total
