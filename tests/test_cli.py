"""The ``flure`` front door (companion_app/cli): every package's commands from one list, one way to fail."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import companion_app.cli as cli
import companion_app.cli.engine as engine_commands
from engine.errors import InvalidSetupError

REPO = Path(__file__).resolve().parent.parent


def commands(parser) -> list[str]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return list(sub.choices)


def test_every_command_module_registers_its_commands():
    assert commands(cli.build_parser()) == ["scenario", "resolve", "demo", "replay", "play", "config", "doctor",
                                            "vision", "teach", "stickers", "calibrate", "leds"]


def test_python_m_companion_app_cli_is_the_flure_command():
    r = subprocess.run([sys.executable, "-m", "companion_app.cli", "--help"], capture_output=True, text=True,
                       cwd=REPO, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("usage: flure ")
    assert all(name in r.stdout for name in commands(cli.build_parser()))


def test_fail_is_one_plain_line_and_status_2(capsys):
    assert cli.fail("g7 is not on the board") == 2
    assert cli.fail("the engine failed", 1) == 1
    assert capsys.readouterr().err == "flure: g7 is not on the board\nflure: the engine failed\n"


def test_a_plain_language_error_a_command_lets_through_exits_2_without_a_traceback(monkeypatch, capsys):
    def refuses(args):
        raise InvalidSetupError("there is no square q5", "setup.monster.at")

    monkeypatch.setattr(engine_commands, "cmd_demo", refuses)
    assert cli.main(["demo"]) == 2
    assert capsys.readouterr().err == "flure: setup.monster.at: there is no square q5\n"


def test_a_bug_is_not_hidden_as_a_plain_error(monkeypatch):
    def broken(args):
        raise KeyError("oops")

    monkeypatch.setattr(engine_commands, "cmd_demo", broken)
    with pytest.raises(KeyError):
        cli.main(["demo"])


def test_the_text_board_has_one_symbol_per_thing_and_its_key_under_it(tmp_path, capsys):
    """Red 6/1 and a pivot-right stone are not both ``r``; the key names every symbol and each pawn's letter."""
    import json

    position = tmp_path / "position.json"
    position.write_text(json.dumps({
        "monster": {"at": "j8", "facing": "E"}, "stones": {"k8": "pivot-right", "k5": "crystal"},
        "pools": ["k6", "l6", "k7", "l7"], "teleporters": {"j5": {"pair": 1, "arrow": "E"}, "o7": {"pair": 1, "arrow": "N"}},
        "pawns": {"red-6/1": {"at": "j3", "color": "red", "pawn": "6/1"}}}))
    assert cli.main(["resolve", str(position), "--tile", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    board = out[2:13]
    cells = {name: row.split()[1 + "abcdefghijklmnop".index(name[0])] for name in ("j3", "k8", "k5", "k6", "j5", "j8")
             for row in board if row.split()[0] == name[1:]}
    assert cells == {"j3": "A", "k8": "r", "k5": "c", "k6": "~", "j5": "1", "j8": ">"}
    key = "\n".join(out[13:16])
    for symbol, meaning in (("^ > v <", "monster"), ("A B C", "pawns"), ("o", "stone"), ("c", "crystal"),
                            ("r", "pivot-right"), ("u", "pivot-about"), ("~", "pool"), ("1 2", "teleporter"), ("#", "wall")):
        assert f"{symbol} " in key and meaning in key
    assert "Pawns: A red 6/1" in key


@pytest.mark.parametrize("argv", [["calibrate"], ["config"], ["scenario"], ["leds"], ["vision"]])
def test_a_command_group_without_its_action_is_a_usage_error_with_status_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith(f"usage: flure {argv[0]} ") and "choose an action: " in err


def test_an_output_folder_that_cannot_be_made_is_one_sentence_and_status_2(capsys):
    assert cli.main(["stickers", "-o", "/proc/flure-nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("flure: ") and "/proc/flure-nope" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv, usage", [(["resolve", "p.json", "--tile", "8", "--fast"], "usage: flure resolve "),
                                         (["calibrate", "check", "x.png", "--fast"], "usage: flure calibrate check "),
                                         (["vision", "render", "--fast"], "usage: flure vision render "),
                                         (["--fast"], "usage: flure [-h]")])
def test_an_option_a_command_does_not_take_shows_that_commands_usage(capsys, argv, usage):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith(usage) and err.rstrip().endswith("unrecognized arguments: --fast"), err


@pytest.mark.parametrize("argv, said", [(["--speed", "0"], "--speed: 0 is not from 0.1 to 100"),
                                        (["--speed", "-1"], "--speed: -1 is not from 0.1 to 100"),
                                        (["--speed", "nan"], "--speed: nan is not from 0.1 to 100"),
                                        (["--mistakes", "2"], "--mistakes: 2 is not from 0 to 1")])
def test_a_demo_pace_or_mistake_chance_out_of_range_is_a_usage_error(capsys, argv, said):
    """``flure play --speed -1`` used to start a session 'at -1x their pace'; a chance above 1 was taken too."""
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "--demo", *argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: flure play ") and said in err, err


def _leds_show(tmp_path, env_extra: dict, tty: bool) -> str:
    """``flure leds show`` of a resolved plan on the simulated device, its output read through a pty
    (``tty``) or a pipe."""
    import os
    import pty

    plan = tmp_path / "plan.json"
    r = subprocess.run([sys.executable, "-m", "companion_app.cli", "resolve",
                        str(REPO / "tests" / "scenarios" / "p1-stay.json"), "--tile", "8", "--json"],
                       capture_output=True, text=True, cwd=REPO, timeout=60)
    plan.write_text(r.stdout)
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | env_extra
    argv = [sys.executable, "-m", "companion_app.cli", "leds", "show", str(plan)]
    if not tty:
        return subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, timeout=120).stdout
    main_fd, child_fd = pty.openpty()
    proc = subprocess.Popen(argv, stdout=child_fd, stderr=subprocess.DEVNULL, cwd=REPO, env=env)
    os.close(child_fd)
    out = b""
    while True:
        try:
            chunk = os.read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(main_fd)
    return out.decode()


@pytest.mark.parametrize("env, tty, coloured", [({}, True, True), ({"NO_COLOR": "1"}, True, False), ({}, False, False)])
def test_leds_show_colours_only_a_terminal_and_honours_no_color(tmp_path, env, tty, coloured):
    out = _leds_show(tmp_path, env, tty)
    assert "frames sent" in out
    assert ("\x1b[48;2;" in out) == coloured, out[-800:]
    if not coloured:
        assert "\x1b" not in out and ". off  R red" in out
