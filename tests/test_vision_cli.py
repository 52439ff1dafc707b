"""``flure vision read|show|watch|eval`` through the real command entry point."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_app.cli import main
from vision_helpers import make_camera, pawn, pos, render

P = pos(monster="a1", facing="E", stones={"c3": "stone"}, pawns={"red-6/1": pawn("p11", "red", "6/1")})


@pytest.fixture(scope="module")
def table_png(tmp_path_factory):
    path = tmp_path_factory.mktemp("vision") / "table.png"
    cv2.imwrite(str(path), render(P, "8", camera=make_camera(width=1280, height=720, tilt_deg=10)))
    return path


def test_read_prints_the_vision_md_json(table_png, capsys):
    assert main(["vision", "read", str(table_png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"located": True, "setup": P.to_setup(), "tile": "8", "problems": []}


def test_read_not_located_still_exits_0(tmp_path, capsys):
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 128, np.uint8))
    assert main(["vision", "read", str(blank)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["located"] is False and "setup" not in out
    assert out["problems"][0]["message"].startswith("board not located: no corner markers seen")


def test_read_unreadable_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "x.png"
    bad.write_text("not an image")
    assert main(["vision", "read", str(bad)]) == 2
    assert "not an image file" in capsys.readouterr().err
    assert main(["vision", "read", str(tmp_path / "missing.png")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_read_with_a_bad_scheme_or_calibration_exits_2(table_png, tmp_path, capsys):
    bad = tmp_path / "scheme.json"
    bad.write_text('{"dictionary": 5}')
    assert main(["vision", "read", str(table_png), "--scheme", str(bad)]) == 2
    assert "dictionary" in capsys.readouterr().err
    cal = tmp_path / "cal.json"
    cal.write_text("{")
    assert main(["vision", "read", str(table_png), "--calibration", str(cal)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_show_writes_the_annotated_image(table_png, tmp_path, capsys):
    out = tmp_path / "shown.png"
    assert main(["vision", "show", str(table_png), "-o", str(out)]) == 0
    drawn, original = cv2.imread(str(out)), cv2.imread(str(table_png))
    assert drawn.shape == original.shape and (drawn != original).any()
    assert f"wrote {out}" in capsys.readouterr().out


def test_watch_a_folder_until_accepted(table_png, tmp_path, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(3):
        (folder / f"{i}.png").write_bytes(table_png.read_bytes())
    assert main(["vision", "watch", str(folder), "--stable", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["setup"] == P.to_setup()


def test_vision_commands_are_cheap_to_import():
    code = ("import sys, companion_app.cli as c; c.build_parser(); "
            "print('cv2' in sys.modules, 'vision.evaluate' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_missing_usb_camera_is_one_plain_line_without_opencv_log_lines():
    """OpenCV's own warnings ("global cap_v4l.cpp ... can't open camera by index") are not for players."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENCV_LOG_LEVEL"}
    r = subprocess.run([sys.executable, "-m", "companion_app.cli", "vision", "watch", "7", "--frames", "1"],
                       capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parent.parent)
    assert r.returncode == 2
    assert "cannot open camera 7" in r.stderr and "WARN" not in r.stderr and "global" not in r.stderr, r.stderr
