"""``flure vision render``: a scenario, a setup or a random position drawn by the synthetic camera,
with its ground truth, and read back by ``flure vision read``."""
import json

import cv2
import pytest

from companion_app.cli import main

SMALL = ["--width", "640", "--height", "360"]

SETUP = {"monster": {"at": "h6", "facing": "W"},
         "stones": {"c3": "stone", "k9": "crystal", "n6": "pivot-right"},
         "pools": ["e7", "f7", "e8", "f8", "i10", "j10", "k10", "l10"],
         "teleporters": {"d9": {"pair": 1, "arrow": "N"}, "o6": {"pair": 1, "arrow": "E"}},
         "pawns": {"red-6/1": {"at": "d5", "color": "red", "pawn": "6/1", "face": "white"},
                   "blue-2/5": {"at": "l2", "color": "blue", "pawn": "2/5", "face": "black"}}}


def _read(capsys, image) -> dict:
    capsys.readouterr()
    assert main(["vision", "read", str(image)]) == 0
    return json.loads(capsys.readouterr().out)


def test_render_then_read_gives_back_the_setup(tmp_path, capsys):
    """The newcomer's path: a setup file → an image → ``flure vision read`` → the same position."""
    setup = tmp_path / "position.json"
    setup.write_text(json.dumps({"setup": SETUP}))
    image = tmp_path / "table.png"
    assert main(["vision", "render", "--setup", str(setup), "--tile", "8", "--tilt", "12",
                 "--noise", "3", "--light", "0.3", "--seed", "5", "-o", str(image)]) == 0
    truth = json.loads(image.with_suffix(".json").read_text())
    reading = _read(capsys, image)
    assert reading["located"] and reading["problems"] == []
    assert reading["setup"] == truth["setup"] and reading["tile"] == truth["tile"] == "8"
    assert reading["setup"]["monster"] == SETUP["monster"] and reading["setup"]["pawns"] == SETUP["pawns"]


def test_render_a_random_position_with_a_hand_away_and_back(tmp_path, capsys):
    image = tmp_path / "random.png"
    assert main(["vision", "render", "--random", "11", "--rotation", "4", "--seed", "2", "-o", str(image)]) == 0
    truth = json.loads(image.with_suffix(".json").read_text())
    assert _read(capsys, image)["setup"] == truth["setup"]
    same = tmp_path / "again.png"
    assert main(["vision", "render", "--random", "11", "--rotation", "4", "--seed", "2", "-o", str(same)]) == 0
    assert same.read_bytes() == image.read_bytes()          # seeded: the same arguments, the same image


def test_renders_a_rules_scenario_with_named_pawns(shared_dir, tmp_path, capsys):
    out = tmp_path / "adv.png"
    scenario = shared_dir / "scenarios" / "official-monster-advanced.json"
    assert main(["vision", "render", "--setup", str(scenario), "--name-pawns", "--tile", "8",
                 "-o", str(out), *SMALL]) == 0
    assert "pawn A is drawn as blue-6/1" in capsys.readouterr().out
    img = cv2.imread(str(out))
    assert img.shape == (360, 640, 3)
    truth = json.loads(out.with_suffix(".json").read_text())
    want = json.loads(scenario.read_text())["setup"]
    assert truth["setup"]["monster"] == want["monster"] and truth["tile"] == "8"
    assert truth["setup"]["pawns"]["blue-6/1"]["at"] == want["pawns"]["A"]["at"]


def test_frames_and_random_positions(tmp_path):
    out = tmp_path / "r.png"
    assert main(["vision", "render", "--random", "5", "--frames", "2", "--noise", "4", "-o", str(out), *SMALL]) == 0
    a, b = cv2.imread(str(tmp_path / "r-0.png")), cv2.imread(str(tmp_path / "r-1.png"))
    assert a.shape == b.shape and (a != b).any()


def test_bad_input_is_a_plain_message(tmp_path, capsys):
    unnamed = tmp_path / "unnamed.json"
    unnamed.write_text(json.dumps({"setup": {"monster": {"at": "a1", "facing": "E"}, "pawns": {"A": {"at": "j3"}}}}))
    assert main(["vision", "render", "--setup", str(unnamed), "-o", str(tmp_path / "x.png"), *SMALL]) == 2
    err = capsys.readouterr().err
    assert "pawn A on j3 has no colour and kind" in err and "--name-pawns" in err
    assert main(["vision", "render", "--setup", str(tmp_path / "missing.json")]) == 2
    assert f"cannot read the setup {tmp_path / 'missing.json'}: No such file or directory\n" in capsys.readouterr().err
    bad_square = tmp_path / "bad-square.json"           # the file named once, not twice
    bad_square.write_text(json.dumps({"monster": {"at": "z99", "facing": "E"}}))
    assert main(["vision", "render", "--setup", str(bad_square), "-o", str(tmp_path / "x.png"), *SMALL]) == 2
    assert capsys.readouterr().err == (f"flure: cannot read the setup {bad_square}: setup.monster.at: 'z99' is not "
                                       "a square name (a1 … p11)\n")
    assert main(["vision", "render", "--offset", "7", "-o", str(tmp_path / "y.png")]) == 2
    with pytest.raises(SystemExit) as usage:                # the option's range, as its --help gives it
        main(["vision", "render", "--tilt", "85", "-o", str(tmp_path / "z.png"), *SMALL])
    assert usage.value.code == 2
    assert main(["vision", "render", "-o", str(tmp_path / "no-such-folder" / "w.png"), *SMALL]) == 2
    assert main(["vision", "render", "-o", str(tmp_path / "v.png"), "--truth", str(tmp_path / "nope" / "v.json"),
                 *SMALL]) == 2
    err = capsys.readouterr().err
    assert "--offset" in err and "--tilt: 85 is not from 0 to less than 80" in err and "Traceback" not in err
    # checked before rendering, by flure's one output-path check
    assert "no-such-folder for the image does not exist" in err and "nope for the ground truth does not exist" in err
    assert main(["vision", "render", "-o", str(tmp_path / "w.txt"), *SMALL]) == 2
    assert "the image must end in .png or .jpg or .jpeg, not .txt" in capsys.readouterr().err


def test_render_is_in_the_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["vision", "--help"])
    assert done.value.code == 0 and "render" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["vision", "render", "--help"])
    out = capsys.readouterr().out
    assert "flure vision read" in out and "--setup" in out and "--seed" in out


@pytest.mark.parametrize("option, value, said", [("--tilt", "80", "80 is not from 0 to less than 80"),
                                                 ("--tilt", "-1", "-1 is not from 0 to less than 80"),
                                                 ("--light", "5", "5 is not from 0 to 1"),
                                                 ("--glare", "1.5", "1.5 is not from 0 to 1")])
def test_a_value_outside_the_range_its_help_gives_is_refused_in_that_range(tmp_path, capsys, option, value, said):
    """The range in the refusal is the range in --help (never "80 must be between 0 and 80"); nothing is written."""
    image = tmp_path / "x.png"
    with pytest.raises(SystemExit) as exc:
        main(["vision", "render", option, value, "-o", str(image)])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: flure vision render") and said in err, err
    assert not image.exists()
