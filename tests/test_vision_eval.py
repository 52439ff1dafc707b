"""flure vision eval: the documented grid, the comparison with the truth, a quick end-to-end run."""
import json

from companion_app.cli import main
from engine.geometry import SQUARES
from vision import evaluate
from vision.evaluate import LEVELS, compare, level_params, square_contents
from vision.reading import Reading


def test_default_set_has_at_least_500_fixed_seed_images():
    import argparse
    p = argparse.ArgumentParser()
    evaluate.add_arguments(p)
    args = p.parse_args([])
    assert args.per_level is None and evaluate.DEFAULT_PER_LEVEL * len(LEVELS) >= 500
    assert level_params(LEVELS[2], 2, 2024, 7) == level_params(LEVELS[2], 2, 2024, 7)
    assert level_params(LEVELS[2], 2, 2024, 7) != level_params(LEVELS[2], 2, 2024, 8)
    assert 27 <= level_params(LEVELS[2], 2, 2024, 7)["tilt_deg"] <= 30


def test_the_grid_is_documented():
    from pathlib import Path
    doc = (Path(evaluate.__file__).with_name("README_eval.md")).read_text()
    for level in LEVELS:
        assert f"`{level.name}`" in doc


SETUP = {"monster": {"at": "a1", "facing": "E"}, "stones": {"c3": "crystal"}, "pools": ["e9"],
         "teleporters": {"g7": {"pair": 1, "arrow": "N"}},
         "pawns": {"red-6/1": {"at": "p11", "color": "red", "pawn": "6/1", "face": "white"},
                   "red-4/3": {"at": None, "color": "red", "pawn": "4/3", "face": "white"}}}


def test_compare_counts_each_wrong_square_and_the_tile():
    right = Reading(located=True, setup=json.loads(json.dumps(SETUP)), tile="8")
    assert compare(SETUP, "8", right) == {"wrong": [], "tile_ok": True, "correct": True}
    flipped = json.loads(json.dumps(SETUP))
    flipped["pawns"]["red-6/1"]["face"] = "black"
    flipped["teleporters"]["g7"]["arrow"] = "S"
    flipped["stones"]["c3"] = "stone"
    out = compare(SETUP, "8", Reading(located=True, setup=flipped, tile="7"))
    assert out["wrong"] == ["c3", "g7", "p11"] and not out["tile_ok"] and not out["correct"]
    lost = compare(SETUP, "8", Reading(located=False, problems=[{"code": "x", "message": "m", "square": None}]))
    assert len(lost["wrong"]) == len(SQUARES) and not lost["correct"]
    assert square_contents(SETUP)["a1"] == ("monster E",)


def test_quick_eval_runs_end_to_end_and_writes_its_report(tmp_path, capsys):
    report = tmp_path / "report.json"
    assert main(["vision", "eval", "--quick", "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "wrong acc" in out and "nominal" in out and "hand" in out
    data = json.loads(report.read_text())
    assert set(data["levels"]) == {lv.name for lv in LEVELS}
    assert data["per_level"] == 1 and data["scheme"]["sha256"]
    nominal = data["levels"]["nominal"]
    assert nominal["images"] == 1 and nominal["frame_ms_median"] > 0
    assert nominal["min_sticker_px_median"] > 14
    assert any(t["target"].startswith("zero wrong") for t in data["targets"])


def test_unknown_level_is_a_clear_error(capsys):
    assert main(["vision", "eval", "--levels", "nominal,sideways", "--report", "-"]) == 2
    assert "sideways" in capsys.readouterr().err


def test_the_report_goes_outside_the_repository_unless_told(tmp_path, monkeypatch, capsys):
    """Running the eval never rewrites the tracked vision/eval_report.json (the recorded run)."""
    import tempfile
    from pathlib import Path
    recorded = Path(evaluate.__file__).with_name("eval_report.json")
    before = recorded.read_bytes()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    assert main(["vision", "eval", "--quick", "--levels", "nominal"]) == 0
    written = tmp_path / "flure-vision-eval-report.json"
    assert f"report: {written}" in capsys.readouterr().out
    assert json.loads(written.read_text())["levels"]["nominal"]["images"] == 1
    assert recorded.read_bytes() == before


def test_a_report_folder_that_does_not_exist_is_refused_not_created(tmp_path, capsys):
    missing = tmp_path / "no-such-folder" / "report.json"
    assert main(["vision", "eval", "--quick", "--report", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"the folder {missing.parent} for the report does not exist" in err and "Traceback" not in err
    assert not missing.parent.exists()
    assert main(["vision", "eval", "--quick", "--report", str(tmp_path)]) == 2
    assert "is a folder; name the report file in it" in capsys.readouterr().err


def test_moves_eval_runs_end_to_end_and_writes_its_report(tmp_path, capsys):
    report = tmp_path / "moves.json"
    assert main(["vision", "eval", "--moves", "--levels", "nominal,hand", "--per-level", "2",
                 "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert "illegal" in out and "near-nominal" in out and "tilt" in out
    data = json.loads(report.read_text())
    assert set(data["levels"]) == {"nominal", "hand"} and data["per_level"] == 2
    total = data["all"]
    assert total["legal"] + total["illegal"] + total["skipped"] == 4
    assert total["wrong"] == 0 and total["illegal_accepted"] == 0
    assert data["targets"][0]["met"]


def test_move_scenes_are_seeded_and_illegal_ones_are_not_legal():
    import numpy as np

    from engine.reconcile import legal_changes
    from vision.evaluate_moves import ILLEGAL_KINDS, make_scene

    kinds = set()
    for k in range(40):
        a, b = make_scene(np.random.default_rng([5, k])), make_scene(np.random.default_rng([5, k]))
        if a is None:
            continue
        assert a.after == b.after and a.kind == b.kind
        kinds.add(a.kind)
        legal = {c.after for c in legal_changes(a.before, a.mover)}
        assert (a.after in legal) == a.legal or a.kind == "tile"
    assert "move" in kinds and "tile" in kinds and kinds & set(ILLEGAL_KINDS)
