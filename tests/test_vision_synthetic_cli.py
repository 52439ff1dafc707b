"""python -m vision.twin.cli: render a scenario or a random position, with its ground truth."""
import json

import cv2

from vision.twin.cli import main

SMALL = ["--width", "640", "--height", "360"]


def test_renders_a_rules_scenario_with_named_pawns(shared_dir, tmp_path, capsys):
    out = tmp_path / "adv.png"
    scenario = shared_dir / "scenarios" / "official-monster-advanced.json"
    assert main(["--setup", str(scenario), "--name-pawns", "--tile", "8", "-o", str(out), *SMALL]) == 0
    assert "pawn A is drawn as blue-6/1" in capsys.readouterr().out
    img = cv2.imread(str(out))
    assert img.shape == (360, 640, 3)
    truth = json.loads(out.with_suffix(".json").read_text())
    want = json.loads(scenario.read_text())["setup"]
    assert truth["setup"]["monster"] == want["monster"] and truth["tile"] == "8"
    assert truth["setup"]["pawns"]["blue-6/1"]["at"] == want["pawns"]["A"]["at"]


def test_frames_and_random_positions(tmp_path):
    out = tmp_path / "r.png"
    assert main(["--random", "5", "--frames", "2", "--noise", "4", "-o", str(out), *SMALL]) == 0
    a, b = cv2.imread(str(tmp_path / "r-0.png")), cv2.imread(str(tmp_path / "r-1.png"))
    assert a.shape == b.shape and (a != b).any()


def test_bad_input_is_a_plain_message(shared_dir, tmp_path, capsys):
    scenario = shared_dir / "scenarios" / "official-monster-advanced.json"
    assert main(["--setup", str(scenario), "-o", str(tmp_path / "x.png"), *SMALL]) == 2
    assert "pawn A on j3 has no colour and kind" in capsys.readouterr().err
    assert main(["--setup", str(tmp_path / "missing.json")]) == 2
    assert "cannot read the setup" in capsys.readouterr().err
    assert main(["--offset", "7", "-o", str(tmp_path / "y.png")]) == 2
    assert main(["--tilt", "85", "-o", str(tmp_path / "z.png"), *SMALL]) == 2
    err = capsys.readouterr().err
    assert "--offset" in err and "tilt 85" in err and "Traceback" not in err
