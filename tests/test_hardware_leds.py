"""LedGrid as the web app uses it, and the ``flure leds`` commands, on the emulator."""
import json
import re

import pytest

from companion_app.cli import main
from hardware.animation import ERROR, MONSTER, PlanShow
from hardware.leds import LedGrid
from tests.hardware_helpers import FAST, plan, running_emulator, wait_until


@pytest.fixture
def grid():
    g = LedGrid.from_config(FAST)  # url = "emulator": the grid starts its own simulated device
    yield g
    g.close()


def test_plan_plays_on_the_built_in_emulator(grid, tmp_path):
    p = plan()
    assert grid.show_plan(p) is True
    assert grid.wait_done(10)
    emu = grid.emulator
    assert wait_until(lambda: emu.frames_decoded == grid.status()["frames_sent"])
    assert emu.square_colour(p["end"]["at"]) == MONSTER
    status = grid.status()
    json.dumps(status)
    assert {"connected", "port", "protocol", "frames_sent", "last_error", "reconnects"} <= set(status)
    assert status["connected"] and status["emulated"] and status["showing"] == "plan"
    assert status["estimated_ma"] <= status["peak_ma"] <= status["budget_ma"]
    png = emu.save_png(tmp_path / "board.png")
    from PIL import Image
    img = Image.open(png)
    assert img.size == (16 * 30 + 30, 11 * 30 + 30)
    x, y = 15 + 12 * 30 + 15, 15 + 4 * 30 + 20  # inside m5, the end square (away from its label)
    assert img.getpixel((x, y))[0] > 200
    assert "\x1b[48;2;255;" in emu.terminal()


def test_a_new_show_replaces_the_running_one_at_once(grid):
    grid.show_plan(plan(steps=20))
    grid.show_idle("blue", plan()["position"])
    emu = grid.emulator
    at = plan()["position"]["monster"]["at"]
    assert wait_until(lambda: emu.square_colour(at) == MONSTER and grid.status()["showing"] == "idle")
    assert wait_until(lambda: emu.square_colour("p6")[2] > emu.square_colour("p6")[0])  # blue border


def test_error_blink_and_a_bad_plan_never_raise(grid):
    grid.show_error()
    emu = grid.emulator
    assert wait_until(lambda: emu.square_colour("h6") == ERROR)
    assert wait_until(lambda: emu.square_colour("h6") == (0, 0, 0))
    assert grid.show_plan({"start": {"at": "q1"}}) is False
    assert "cannot show the monster's move" in grid.status()["last_error"]
    assert grid.status()["showing"] == "error"


def test_the_same_plan_again_does_not_set_the_monster_off_again(grid):
    p = plan()
    assert grid.show_plan(p) and grid.wait_done(10)
    played = grid.status()["frames_rendered"]
    assert grid.show_plan(json.loads(json.dumps(p)))        # an equal plan, as the session sends it again
    assert grid.wait_done(10) and grid.status()["frames_rendered"] == played
    assert grid.show_plan(p, restart=True) and grid.wait_done(10)
    assert grid.status()["frames_rendered"] > 1.5 * played
    grid.show_idle("red")
    assert grid.show_plan(p) and grid.wait_done(10)          # after something else: shown again
    assert grid.status()["frames_rendered"] > 2.5 * played


def test_a_drawing_failure_blinks_the_error_and_the_grid_goes_on(grid, monkeypatch):
    def broken(self, t):
        raise ArithmeticError("division by zero in the trail")
    monkeypatch.setattr(PlanShow, "frame_at", broken)
    assert grid.show_plan(plan())
    emu = grid.emulator
    assert wait_until(lambda: grid.status()["showing"] == "error" and emu.square_colour("h6") == ERROR)
    assert "could not be drawn (division by zero in the trail)" in grid.status()["last_error"]
    monkeypatch.undo()
    p = plan()
    assert grid.show_plan(p) and grid.wait_done(10)
    assert wait_until(lambda: emu.square_colour(p["end"]["at"]) == MONSTER) and grid.status()["last_error"] is None


def test_config_file_with_tpm2_to_an_external_device(tmp_path):
    with running_emulator(tpm2="strict") as emu:   # a plain TPM2 controller
        cfg = tmp_path / "hw.toml"
        cfg.write_text(f'[serial]\nurl = "{emu.path}"\nprotocol = "tpm2"\n[animation]\nhold_s = 0.05\nbeat_ms = 10\n')
        with LedGrid.from_config(cfg) as g:
            assert g.emulator is None
            g.show_plan(plan())
            assert g.wait_done(10)
            assert wait_until(lambda: emu.frames_by_protocol["tpm2"] == g.status()["frames_sent"])
            assert emu.frames_by_protocol["adalight"] == 0
            final = g.render(PlanShow(plan(), g.config.animation).frame_at(1e9))
            assert wait_until(lambda: emu.state_array().tobytes() == final)  # every LED, p11 too
            assert "a WLED controller reads only 155" in g.status()["warning"]


def test_tpm2_to_a_wled_leaves_the_last_led_behind_and_says_so(tmp_path, capsys):
    """The built-in emulator reads TPM2 as WLED does: p11 (LED 155) never changes."""
    with LedGrid({**FAST, "serial": {"protocol": "tpm2"}}) as g:
        assert g.status()["warning"].startswith("TPM2 with 156 LEDs")
        g.show_error()
        assert wait_until(lambda: g.emulator.square_colour("o11") == ERROR)
        assert g.emulator.square_colour("p11") == (0, 0, 0) and g.emulator.frames_by_protocol["tpm2"] > 0
    with LedGrid(FAST) as g:
        assert g.status()["warning"] is None
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan()))
    cfg = tmp_path / "tpm2.toml"
    cfg.write_text('[serial]\nprotocol = "tpm2"\n[animation]\nhold_s = 0.05\nbeat_ms = 10\n')
    assert main(["leds", "show", str(path), "--config", str(cfg)]) == 0
    assert "note: TPM2 with 156 LEDs" in capsys.readouterr().err


def test_cli_show_streams_a_plan_file(tmp_path, capsys):
    with running_emulator() as emu:
        path = tmp_path / "plan.json"
        path.write_text(json.dumps(plan()))
        cfg = tmp_path / "fast.toml"
        cfg.write_text("[animation]\nhold_s = 0.05\nbeat_ms = 10\n[power]\nbudget_ma = 100000\n")
        assert main(["leds", "show", str(path), "--url", emu.path, "--config", str(cfg)]) == 0
        out = capsys.readouterr().out
        assert "monster move (8 steps)" in out and emu.path in out
        # written is not yet read: the emulator's thread decodes what waits on the pty when it next runs
        sent = int(re.search(r"(\d+) frames sent to", out).group(1))
        assert emu.wait_for_frames(sent, 30) and emu.frames_decoded == sent
        assert emu.square_colour("m5") == MONSTER


def test_cli_refuses_bad_input_in_plain_words(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["leds", "show", str(bad)]) == 2
    assert "not valid JSON (line 1" in capsys.readouterr().err
    bad.write_text('{"position": {}}')
    assert main(["leds", "show", str(bad)]) == 2
    assert "not a monster plan: the plan is unusable: format: missing: a plan has \"format\": 'flure-plan/1'" \
        in capsys.readouterr().err
    cfg = tmp_path / "hw.toml"
    cfg.write_text('[layout]\nno_led = ["z1"]\n')
    assert main(["leds", "test", "emulator", "--config", str(cfg)]) == 2
    assert "'z1' is not a square name" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["leds", "test", "emulator", "--seconds-each", "0"])
    assert exit_.value.code == 2 and "'0' is not a number of seconds above 0" in capsys.readouterr().err


def test_cli_test_lights_every_square_in_order(capsys):
    """`flure leds test` as a WLED shows it: the first frame written twice (WLED shows the frame that
    enters realtime mode black), then a1, b1, … p11, each square in exactly one frame, none skipped."""
    import numpy as np

    from engine.geometry import SQUARES
    with running_emulator(keep_frames=True) as emu:
        assert main(["leds", "test", emu.path, "--seconds-each", "0.03"]) == 0
        out = capsys.readouterr().out
        sent = int(re.search(r"square test: (\d+) frames sent", out).group(1))
        assert sent >= 157                         # 156 squares, the first twice (and maybe a keepalive)
        assert emu.wait_for_frames(sent, 5) and emu.frames_decoded == sent
        square_of = {i: sq for sq, idx in emu.layout.leds.items() for i in idx}
        lit = [[square_of.get(i) for i in np.flatnonzero(np.frombuffer(rgb, np.uint8).reshape(-1, 3).sum(axis=1) > 150)]
               for rgb in emu.shown]
        assert lit[0] == [] and emu.blanked == 1                  # the first copy of a1, cleared by WLED
        assert lit[1:157] == [[sq] for sq in SQUARES]             # then every square once, in order, from a1
        assert all(seen == [SQUARES[-1]] for seen in lit[157:])   # p11 kept up


def test_cli_test_reports_a_missing_device(capsys):
    assert main(["leds", "test", "/dev/serial/by-id/usb-nothing-here", "--seconds-each", "0.001"]) == 2   # input
    assert "is not there: is it plugged in?" in capsys.readouterr().err


def test_cli_layout_prints_the_index_of_each_square(tmp_path, capsys):
    cfg = tmp_path / "hw.toml"
    cfg.write_text('[layout]\norder = "row-major"\nno_led = ["b1"]\n')
    assert main(["leds", "layout", "--config", str(cfg)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:4] == ["1", "0", "-", "1"]            # a1 = 0, b1 has none, c1 = 1
    assert lines[2].split()[:3] == ["2", "11", "12"]               # row-major: a2 follows l1
    assert lines[-1].startswith("155 squares with LEDs, 155 LEDs")


def test_flure_leds_emulate_runs_as_a_device_for_another_process(tmp_path):
    """`flure leds emulate` in its own process; this process streams a plan to the path it prints."""
    import subprocess
    import sys
    png = tmp_path / "emu.png"
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "leds", "emulate", "--seconds", "3",
                             "--png", str(png)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        path = proc.stdout.readline().strip()
        assert path.endswith("ttyFLURE")
        with LedGrid({**FAST, "serial": {"keepalive_s": 60}}, url=path) as g:
            assert g.show_plan(plan())
            assert g.wait_done(10)
            sent = g.status()["frames_sent"]
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert f"{sent} frames decoded." in out
    assert png.exists() and png.stat().st_size > 1000


def test_flure_leds_emulate_in_a_terminal_keeps_the_path_on_screen():
    """On a terminal the board is redrawn after clearing the screen: the device path (what
    the user needs for --url) must be part of every redraw, not scrolled away by the first."""
    import os
    import pty
    import subprocess
    import sys
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "leds", "emulate", "--seconds", "1"],
                            stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    try:
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the program ended and closed the terminal
                break
            if not chunk:
                break
            out += chunk
        assert proc.wait(20) == 0, proc.stderr.read()
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    text = out.decode()
    path = re.search(r"listening on:\s+(\S+ttyFLURE)", text).group(1)
    assert "\x1b[2J" in text                                  # it did redraw
    last = text.rsplit("\x1b[2J", 1)[1]
    assert path in last and f"--url {path}" in last and "Ctrl-C to stop" in last


@pytest.mark.parametrize("ending", ["stop", "forgotten", "exception"])
def test_the_emulators_tmp_folder_goes_on_every_exit_path(tmp_path, ending):
    """/tmp/flure-leds-* is removed by stop(), and without it when the process ends (even by an exception)."""
    import os
    import subprocess
    import sys
    code = ("from hardware.emulator import LedEmulator\n"
            "emu = LedEmulator().start()\n"
            "print(emu.path, flush=True)\n"
            + {"stop": "emu.stop()\n", "forgotten": "", "exception": "raise RuntimeError('boom')\n"}[ending])
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                       env={**os.environ, "TMPDIR": str(tmp_path)})
    assert r.stdout.startswith(str(tmp_path / "flure-leds-")), r.stdout + r.stderr
    assert (r.returncode != 0) == (ending == "exception"), r.stderr
    assert list(tmp_path.glob("flure-leds-*")) == []


def test_flure_leds_emulate_stopped_by_sigterm_cleans_up(tmp_path):
    """`kill` (systemd's stop) ends `flure leds emulate` like Ctrl+C: summary printed, folder removed."""
    import os
    import signal
    import subprocess
    import sys
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "leds", "emulate"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        proc.stdout.readline()
        path = proc.stdout.readline().strip()
        assert path.startswith(str(tmp_path / "flure-leds-")) and os.path.islink(path)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "frames decoded." in out and "Traceback" not in err
    assert list(tmp_path.glob("flure-leds-*")) == []


def test_a_grid_whose_link_cannot_start_stops_its_emulator(tmp_path, monkeypatch):
    import tempfile

    import hardware.leds

    def refuse(*args, **kwargs):
        raise OSError("no serial ports left")

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(hardware.leds, "SerialLink", refuse)
    with pytest.raises(OSError, match="no serial ports left"):
        LedGrid.from_config(FAST)
    assert list(tmp_path.glob("flure-leds-*")) == []
