"""The table configuration file (issue 14 item 1): defaults, file, command line, and one
plain line naming the file and the key for everything wrong."""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion_app.cli import main as flure
from companion_app.config import (
    DEFAULT_PATH,
    READER_RANGES,
    TableConfigError,
    default_dict,
    default_text,
    load_table_config,
    set_in_text,
)

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path: Path, text: str | bytes, name: str = "table.toml") -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


def test_the_defaults_are_one_documented_file_holding_every_section():
    data = tomllib.loads(default_text())
    assert set(data) == {"camera", "table", "web", "speaker", "layout", "serial", "power", "animation", "buttons"}
    # the hardware sections come from hardware/default.toml, not a copy of it
    assert not any(line.startswith("[serial]") for line in DEFAULT_PATH.read_text().splitlines())
    cfg = load_table_config()
    assert cfg.camera.source == "simulated" and cfg.camera.resolution == (1920, 1080)
    assert cfg.table.mode == "confirm" and cfg.table.stable_frames == 3
    assert cfg.web.port == 8000 and cfg.hardware.serial.url == "emulator"
    assert set(cfg.origins.values()) == {"default"}


def test_a_file_holds_only_what_differs_and_the_command_line_overrides_it(tmp_path):
    path = write(tmp_path, """
[camera]
source = "0"
resolution = [1280, 720]
calibration = "cal/lens.json"
[camera.reader]
size_tolerance = 0.4
decorated_squares = ["a1"]
[table]
mode = "auto"
stable_frames = 5
[web]
port = 8080
pin = "2468"
[serial]
url = "/dev/flure-leds"
[buttons]
pins = { monster = 5 }
""")
    cfg = load_table_config(path, {"web.port": 9000, "camera.source": "picamera"})
    assert cfg.camera.source == "picamera" and cfg.camera.resolution == (1280, 720)
    assert cfg.camera.calibration == tmp_path / "cal" / "lens.json"     # relative to the file's folder
    reader = cfg.camera.reader_config()
    assert reader.size_tolerance == 0.4 and reader.decorated_squares == ("a1",) and reader.speck_ratio == 0.5
    assert (cfg.table.mode, cfg.table.stable_frames) == ("auto", 5)
    assert cfg.web.port == 9000 and cfg.web.read_pin() == "2468"
    assert cfg.hardware.serial.url == "/dev/flure-leds" and cfg.hardware.buttons.pins["monster"] == 5
    assert cfg.origins["web.port"] == "command line" and cfg.origins["camera.source"] == "command line"
    assert cfg.origins["table.mode"] == f"file {path}" and cfg.origins["web.host"] == "default"
    assert cfg.origins["power.budget_ma"] == "default"


@pytest.mark.parametrize("text, message", [
    ("[web]\nport = 70000", r"\[web\] port = 70000 must be between 0 and 65535"),
    ("[web]\nport = 80.5", r"\[web\] port must be a whole number"),
    ("[camera]\nfps = nan", r"\[camera\] fps = nan must be between"),
    ("[camera]\nfps = inf", r"\[camera\] fps = inf must be between"),
    ("[power]\nbudget_ma = 1e300", r"\[power\] budget_ma = 1e\+300 must be between"),
    ("[power]\nbudget_ma = -inf", r"\[power\] budget_ma = -inf must be between"),
    ("[animation]\nbeat_ms = \"fast\"", r"\[animation\] beat_ms must be a number"),
    ("[table]\nmode = \"sometimes\"", r"\[table\] mode 'sometimes' is not known"),
    ("[table]\nstable_frames = 0", r"\[table\] stable_frames = 0 must be between 1 and 100"),
    ("[camera]\nresolution = [1920]", r"\[camera\] resolution must be \[width, height\]"),
    ("[camera]\nresolution = [99999, 1080]", r"\[camera\] resolution width = 99999 must be between"),
    ("[camera]\nsource = 0", r"\[camera\] source must be text in quotes"),
    ("[camera.reader]\nsize_tolerance = nan", r"\[camera.reader\] size_tolerance = nan must be between 0 and 5"),
    ("[camera.reader]\nmin_board_markers = 9", r"\[camera.reader\] min_board_markers = 9 must be between 1 and 4"),
    ("[camera.reader]\nsharpness = 3", r"\[camera.reader\] has an unknown key sharpness"),
    ("[camera.reader]\nestimate_distortion = 1", r"\[camera.reader\] estimate_distortion must be true or false"),
    ("[camera.exposure]\ncolour_gains = [1.5]", r"\[camera.exposure\] colour_gains must be \[\]"),
    ("[camera.exposure]\nanalogue_gain = 0.5", r"\[camera.exposure\] analogue_gain = 0.5 must be 0"),
    ("[web]\npin = \"12\"", r"\[web\] pin must be 4 to 64 letters or digits"),
    ("[web]\npublic_host = \"http://flure.local\"", r"\[web\] public_host"),
    ("[webb]\nport = 1", r"top level\] has an unknown key webb"),
    ("web = 3", r"web must be a section"),
    ("[serial]\nbaud = 1e300", r"\[serial\] baud = 1e\+300 must be between"),
    ("[buttons]\npins = { monster = 99 }", r"\[buttons.pins\] monster = 99 is not a BCM GPIO number"),
    ("[layout]\nleds_per_square = 40", r"\[layout\] leds_per_square = 40"),
])
def test_every_error_names_the_file_and_the_key(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(TableConfigError, match=message) as err:
        load_table_config(path)
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)


@pytest.mark.parametrize("content, message", [
    (bytes(range(256)), "not a TOML text file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a TOML text file"),
    (b"[web\nport = 1", "not valid TOML"),
    (b"[web]\nport = = 1", "not valid TOML"),
])
def test_a_binary_or_mistyped_file_gets_one_plain_line(tmp_path, content, message):
    path = write(tmp_path, content)
    with pytest.raises(TableConfigError, match=message) as err:
        load_table_config(path)
    assert str(err.value).startswith(str(path)) and "\n" not in str(err.value)


def test_a_missing_file_and_a_bad_command_line_value_say_where(tmp_path):
    with pytest.raises(TableConfigError, match="cannot read the configuration file"):
        load_table_config(tmp_path / "nope.toml")
    with pytest.raises(TableConfigError, match=r"^command line: \[web\] port = 70000"):
        load_table_config(None, {"web.port": 70000})


def test_the_pin_file_is_read_and_a_bad_one_refused(tmp_path):
    (tmp_path / "pin").write_text("135790\n")
    path = write(tmp_path, '[web]\npin_file = "pin"\n')
    assert load_table_config(path).web.read_pin() == "135790"
    (tmp_path / "pin").write_text("no\n")
    with pytest.raises(TableConfigError, match="PIN file's first line"):
        load_table_config(path).web.read_pin()
    (tmp_path / "pin").unlink()
    with pytest.raises(TableConfigError, match=r"cannot read the PIN file \(\[web\] pin_file\)"):
        load_table_config(path).web.read_pin()


def test_the_journal_goes_to_systemds_state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert load_table_config().web.database_path() == tmp_path / "state" / "session.sqlite3"
    path = write(tmp_path, '[web]\ndatabase = "/srv/flure.sqlite3"\n')
    assert load_table_config(path).web.database_path() == Path("/srv/flure.sqlite3")


def test_every_reader_threshold_has_a_range_within_which_its_default_lies():
    import dataclasses

    from vision.config import ReaderConfig
    for f in dataclasses.fields(ReaderConfig):
        if isinstance(f.default, (int, float)) and not isinstance(f.default, bool):
            lo, hi = READER_RANGES.get(f.name, (0, 10_000))
            assert lo <= f.default <= hi, f.name


def test_settings_written_into_the_documented_file_keep_its_comments():
    text = set_in_text(default_text(), {"web.pin_file": "/etc/flure/pin", "web.public_host": "flure.local",
                                        "web.port": 8000})
    data = tomllib.loads(text)
    assert data["web"]["pin_file"] == "/etc/flure/pin" and data["web"]["public_host"] == "flure.local"
    assert text.count("\n#") == default_text().count("\n#")
    assert 'public_host = "flure.local" # the name phones open' in text


def test_flure_config_show_says_where_each_value_came_from(tmp_path, capsys):
    path = write(tmp_path, '[table]\nmode = "auto"\n[serial]\nbaud = 115200\n')
    assert flure(["config", "show", "--config", str(path), "--port", "8123"]) == 0
    out = capsys.readouterr().out
    lines = {line.split("#")[0].strip(): line.split("#")[-1].strip() for line in out.splitlines() if "=" in line}
    assert lines['mode = "auto"'] == f"file {path}"
    assert lines["baud = 115200"] == f"file {path}"
    assert lines["port = 8123"] == "command line"
    assert lines['source = "simulated"'] == "default"
    assert flure(["config", "show", "--config", str(write(tmp_path, "[web]\nport = -1", "bad.toml"))]) == 2
    assert "[web] port = -1 must be between" in capsys.readouterr().err


def test_flure_config_show_says_the_mode_the_simulated_table_plays_in(tmp_path, capsys):
    """The simulated table reads in auto whatever [table] mode says: show says so, and where "confirm" came from."""
    assert flure(["config", "show"]) == 0
    lines = {line.split("#")[0].strip(): line.split("#")[-1].strip() for line in capsys.readouterr().out.splitlines()
             if "=" in line}
    assert lines['mode = "auto"'] == 'the simulated table plays in auto; default says "confirm"'
    assert flure(["config", "show", "--camera", "0"]) == 0   # a real camera: the configured mode is the one in use
    assert 'mode = "confirm"' in capsys.readouterr().out


def test_flure_config_default_prints_a_file_that_loads_to_the_defaults(tmp_path, capsys):
    assert flure(["config", "default"]) == 0
    text = capsys.readouterr().out
    assert tomllib.loads(text) == default_dict()
    path = write(tmp_path, text)
    assert load_table_config(path).values == load_table_config().values
    assert flure(["config", "check", "--config", str(path)]) == 0
    # the installer's way (before the app is installed): the same text from the source tree
    proc = subprocess.run([sys.executable, "-m", "companion_app.config", "web.port=8080"], cwd=REPO,
                          capture_output=True, text=True, check=True)
    assert tomllib.loads(proc.stdout)["web"]["port"] == 8080


def test_the_camera_gets_the_calibration_scheme_reader_settings_and_stable_frames(tmp_path):
    import numpy as np

    from calibration.store import Calibration, save_calibration
    from companion_app.table.devices.devices import open_camera
    from engine.position import basic_position

    k = np.array([[1500.0, 0, 960], [0, 1500.0, 540], [0, 0, 1]])
    save_calibration(Calibration(k, np.zeros(5), (1920, 1080), rms_px=0.3), tmp_path / "lens.json")
    path = write(tmp_path, '[camera]\nsource = "synthetic"\ncalibration = "lens.json"\n'
                           '[camera.reader]\nsize_tolerance = 0.35\n[table]\nstable_frames = 4\n')
    cfg = load_table_config(path)
    device = open_camera("synthetic", lambda: (basic_position(), None), cfg.camera, cfg.table.stable_frames)
    try:
        assert device.obj is not None, device.why
        camera = device.obj.reader
        assert camera.calibration.image_size == (1920, 1080) and camera.calibration.camera_matrix[0, 0] == 1500
        assert camera.config.size_tolerance == 0.35 and device.obj.gate.needed == 4
        assert "lens calibration" in str(device.note)
    finally:
        device.obj.close()
    # a calibration made at another resolution is refused, never used
    wrong = write(tmp_path, '[camera]\ncalibration = "lens.json"\nresolution = [1280, 720]\n', "720.toml")
    cfg = load_table_config(wrong)
    device = open_camera("synthetic", lambda: (basic_position(), None), cfg.camera)
    assert device.obj is None and "made at 1920×1080 but [camera] resolution is 1280×720" in str(device.why)
    # a corrupt one says what is wrong, and the table goes on without the camera
    (tmp_path / "lens.json").write_text(json.dumps({"format": "flure-calibration/1"}))
    device = open_camera("synthetic", lambda: (basic_position(), None), load_table_config(path).camera)
    assert device.obj is None and "image_size" in str(device.why)


def test_flure_play_takes_its_settings_from_the_file_and_prints_the_local_name(tmp_path):
    import signal

    from play_process import start_play, stop_play

    (tmp_path / "pin").write_text("135790\n")
    path = write(tmp_path, '[camera]\nsource = "none"\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                           'public_host = "flure.local"\npin_file = "pin"\ndatabase = "journal.sqlite3"\n')
    proc, out = start_play("--config", str(path), "--no-leds")
    try:
        assert "Players: open http://flure.local:" in out        # the name the QR code carries too
        assert "enter the PIN 135790" in out and f"Saved in {tmp_path / 'journal.sqlite3'}" in out
        assert 'Camera: switched off ([camera] source = "none")' in out
    finally:
        stop_play(proc, signal.SIGINT)
    assert (tmp_path / "journal.sqlite3").exists()
    bad = write(tmp_path, "[table]\nstable_frames = 1e300\n", "bad.toml")
    done = subprocess.run([sys.executable, "-m", "companion_app.cli", "play", "--config", str(bad)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2      # input it cannot use: one line on stderr, and systemd does not restart it
    assert done.stderr.strip() == f"flure: {bad}: [table] stable_frames = 1e+300 must be between 1 and 100"
