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
                                            "vision", "stickers", "calibrate", "leds"]


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
