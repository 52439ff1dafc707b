"""Files a ``flure`` command reads or writes that it cannot use: one plain line, status 2, no traceback
(issue 13's reproductions: huge numbers, binary bytes, deep nesting, output paths)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion_app.cli import main

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
DEEP = b"[" * 1000 + b"]" * 1000
HUGE = "9" * 5000


def one_plain_line(capsys, *words) -> str:
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("flure: note:")]
    assert len(lines) == 1 and lines[0].startswith("flure: ") and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def a_scenario() -> dict:
    return json.loads((SCENARIOS / "p1-stay.json").read_text())


@pytest.mark.parametrize("argv", [["resolve", "{file}", "--tile", "8"], ["scenario", "run", "{file}"]])
def test_a_5000_digit_number_in_a_position_file(tmp_path, capsys, argv):
    data = a_scenario()
    data["setup"]["round"] = 10 ** 5   # replaced by 5,000 digits in the text
    text = json.dumps(data).replace("100000", HUGE)
    path = tmp_path / "huge.json"
    path.write_text(text)
    assert main([a.format(file=path) for a in argv]) == 2
    one_plain_line(capsys, str(path), "5000 digits")


@pytest.mark.parametrize("content,words", [(b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "not UTF-8"),
                                           (DEEP, "nested too deeply"),
                                           ('{"steps": [' + HUGE + "]}", "digits")])
def test_a_plan_file_that_is_binary_deep_or_huge(tmp_path, capsys, content, words):
    path = tmp_path / "plan.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert main(["leds", "show", str(path), "--url", "emulator"]) == 2
    one_plain_line(capsys, str(path), words)


@pytest.mark.parametrize("content,words", [(DEEP, "nested too deeply"), (b"\xff\xfe{}", "not UTF-8"),
                                           (b'{"image_size": [1e999, 2]}', "too large")])
def test_a_calibration_file_that_is_deep_binary_or_infinite(tmp_path, capsys, content, words):
    path = tmp_path / "cal.json"
    path.write_bytes(content)
    assert main(["calibrate", "show", str(path)]) == 2
    one_plain_line(capsys, words)


def test_a_marker_scheme_nested_deep(tmp_path, capsys):
    path = tmp_path / "scheme.json"
    path.write_bytes(DEEP)
    image = tmp_path / "x.png"
    image.write_bytes(b"")
    assert main(["vision", "read", str(image), "--scheme", str(path)]) == 2
    one_plain_line(capsys, "nested too deeply")


def test_a_position_before_nested_deep(tmp_path, capsys):
    path = tmp_path / "before.json"
    path.write_bytes(DEEP)
    assert main(["vision", "explain", str(path), str(tmp_path / "x.png")]) == 2
    one_plain_line(capsys, str(path), "nested too deeply")


@pytest.fixture
def image(tmp_path):
    import cv2
    import numpy as np

    from vision.sources import load_image_file  # noqa: F401  (the reader's own loader reads it back)
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), np.zeros((60, 80, 3), np.uint8))
    return path


def output_cases(tmp_path, image):
    return {
        "vision show": lambda out: ["vision", "show", str(image), "-o", out],
        "calibrate board": lambda out: ["calibrate", "board", "-o", out, "--dpi", "50"],
        "calibrate camera": lambda out: ["calibrate", "camera", str(tmp_path), "-o", out],
        "leds show": lambda out: ["leds", "show", str(SCENARIOS.parent / "data" / "plans-flure-plan-1.json"),
                                  "--url", "emulator", "--png", out],
        "leds emulate": lambda out: ["leds", "emulate", "--seconds", "0.1", "--png", out],
        "vision eval": lambda out: ["vision", "eval", "--quick", "--report", out],
    }


WRONG_EXTENSION = {"vision show": "out.txt", "calibrate board": "board.txt", "calibrate camera": "cal.txt",
                   "leds show": "x.txt", "leds emulate": "x.txt", "vision eval": "report.txt"}


@pytest.mark.parametrize("command", sorted(WRONG_EXTENSION))
def test_every_output_path_is_checked_the_same_way_before_any_work(tmp_path, capsys, image, command):
    """A wrong extension, a folder that does not exist (never created) and a folder given as the file:
    one plain sentence each, before the animation, the eval set or the camera frames."""
    import time

    build = output_cases(tmp_path, image)[command]
    start = time.monotonic()
    assert main(build(str(tmp_path / WRONG_EXTENSION[command]))) == 2
    one_plain_line(capsys, "must end in")
    missing = tmp_path / "no-such-folder" / ("x" + {"vision eval": ".json", "calibrate camera": ".json"}
                                             .get(command, ".png"))
    assert main(build(str(missing))) == 2
    one_plain_line(capsys, "does not exist")
    assert not missing.parent.exists()
    assert main(build(str(tmp_path))) == 2
    one_plain_line(capsys, "is a folder")
    assert time.monotonic() - start < 5, "the path was checked only after the work"


@pytest.mark.parametrize("toml,words", [
    (b"serial = 5\n", "serial must be a section"), (b'layout = "x"\n', "layout must be a section"),
    (b"[serial]\nbaud = inf\n", "baud = inf"), (b"[serial]\nbaud = nan\n", "baud = nan"),
    (b"[serial]\nbaud = 1e300\n", "must be between"), (b"[serial]\nkeepalive_s = nan\n", "keepalive_s"),
    (b"\x00\x01\xff\xfe", "not a TOML text file"),
])
def test_a_mistyped_or_binary_hardware_configuration(tmp_path, capsys, toml, words):
    path = tmp_path / "hw.toml"
    path.write_bytes(toml)
    for argv in (["leds", "layout", "--config", str(path)], ["config", "check", "--config", str(path)]):
        code = main(argv)
        out = capsys.readouterr()
        text = out.out + out.err
        assert code in (1, 2) and words in text and "Traceback" not in text, (argv, text)


@pytest.mark.parametrize("argv", [["stickers", "--format", "png", "-o", "{out}"],
                                  ["vision", "eval", "--quick", "--report", "-", "--save-images", "{out}"]])
def test_an_output_folder_may_be_made_but_only_inside_a_folder_that_exists(tmp_path, capsys, argv):
    missing = tmp_path / "no-such-folder" / "out"
    assert main([a.format(out=missing) for a in argv]) == 2
    one_plain_line(capsys, "no-such-folder for the", "does not exist")
    assert not missing.parent.exists()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert main([a.format(out=a_file) for a in argv]) == 2
    one_plain_line(capsys, "is a file; give a folder")


@pytest.mark.parametrize("argv, fmt, words", [
    (["replay", "{file}"], "missing", 'has no "format": "flure-game/1"'),
    (["replay", "{file}"], None, "got null"),
    (["leds", "show", "{file}", "--url", "emulator"], "missing", "missing: a plan has \"format\""),
    (["leds", "show", "{file}", "--url", "emulator"], None, "not null")])
def test_a_position_given_as_a_record_or_a_plan_is_said_in_the_files_words_not_pythons(tmp_path, capsys, argv, fmt,
                                                                                         words):
    """A position file (no "format") or a "format": null: never Python's ``None`` in the sentence."""
    setup = a_scenario()["setup"]
    if fmt is None:
        setup["format"] = None
    path = tmp_path / "position.json"
    path.write_text(json.dumps(setup))
    assert main([a.replace("{file}", str(path)) for a in argv]) == 2
    line = one_plain_line(capsys, str(path), words)
    assert "None" not in line


def test_the_camera_pictures_first_line_says_no_tile_and_counts_its_problems_in_words():
    from vision.draw import headline
    from vision.reading import Reading

    problem = {"code": "occluded", "message": "something covers the board over 2 squares", "square": "g7"}
    assert headline(Reading(located=True)) == "located; no tile seen; no problem"
    assert headline(Reading(located=True, tile="8", problems=[problem])) == "located; tile 8; 1 problem"
    assert headline(Reading(located=False, problems=[problem] * 2)) == "NOT located; no tile seen; 2 problems"
