"""``flure doctor`` with each device present, missing or misconfigured: a real pseudo-terminal
(the WLED emulator, or one that never answers), gpiozero's MockFactory, rendered camera
views with known camera height, real calibration files, a real bound port."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from companion_app.cli import checks as doctor
from companion_app.cli import main as flure
from companion_app.config import load_table_config
from engine.position import basic_position
from hardware.emulator import LedEmulator
from vision.twin.scene import render


def config(tmp_path: Path, text: str = ""):
    path = tmp_path / "table.toml"
    path.write_text(text)
    return load_table_config(path)


def one(findings, topic):
    found = [f for f in findings if f.topic == topic]
    assert len(found) == 1, findings
    return found[0]


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    """Folders of rendered views of the basic setup: 90 cm up at 1080p, 2 m up, and 720p."""
    root = tmp_path_factory.mktemp("views")
    out = {}
    for name, kw in {"good": {}, "far": {"height_mm": 2000.0}, "720p": {"width": 1280, "height": 720}}.items():
        image, _ = render(basic_position(), seed=3, **kw)
        folder = root / name
        folder.mkdir()
        for i in range(5):
            cv2.imwrite(str(folder / f"{i}.png"), image)
        out[name] = folder
    return out


# --- camera -----------------------------------------------------------------------------------

def test_a_good_camera_view_is_located_with_stickers_big_enough(tmp_path, views):
    found = doctor.check_camera(config(tmp_path, f'[camera]\nsource = "{views["good"]}"\nfps = 0.5\n'))
    assert one(found, "camera").ok and "gives 1920×1080" in one(found, "camera").text
    board = one(found, "board")
    assert board.ok and float(board.text.split("camera ")[1].split(" cm")[0]) == pytest.approx(90, abs=6)
    size = one(found, "sticker size")
    assert size.ok and "good" in size.text


def test_a_camera_too_far_away_is_told_to_come_lower(tmp_path, views):
    found = doctor.check_camera(config(tmp_path, f'[camera]\nsource = "{views["far"]}"\nfps = 0.5\n'))
    size = one(found, "sticker size")
    assert not size.ok and "too far" in size.text and "lower the camera to about" in size.text
    px = float(size.text.split("stickers are ")[1].split(" px")[0])
    assert px < 14
    # the advice: the height at which the far corner's stickers reach 14 px (size ∝ 1/height)
    advised_cm = float(size.text.split("about ")[1].split(" cm")[0])
    assert advised_cm == pytest.approx(200 * px / 14, abs=8)


def test_a_camera_giving_another_resolution_than_configured_is_flagged(tmp_path, views):
    found = doctor.check_camera(config(tmp_path, f'[camera]\nsource = "{views["720p"]}"\nfps = 0.5\n'))
    cam = one(found, "camera")
    assert not cam.ok and "gives 1280×720, not the configured 1920×1080" in cam.text


def test_a_camera_that_is_not_there_or_switched_off(tmp_path):
    found = doctor.check_camera(config(tmp_path, '[camera]\nsource = "7"\n'))
    assert not one(found, "camera").ok and "cannot open camera 7" in one(found, "camera").text
    found = doctor.check_camera(config(tmp_path, '[camera]\nsource = "none"\n'))
    assert one(found, "camera").ok and "switched off" in one(found, "camera").text


def test_an_empty_picture_is_no_board(tmp_path):
    folder = tmp_path / "blank"
    folder.mkdir()
    for i in range(3):
        cv2.imwrite(str(folder / f"{i}.png"), np.full((1080, 1920, 3), 128, np.uint8))
    found = doctor.check_camera(config(tmp_path, f'[camera]\nsource = "{folder}"\nfps = 0.5\n'))
    board = one(found, "board")
    assert not board.ok and "four corner markers in view" in board.text


# --- calibration ---------------------------------------------------------------------------------

def save_cal(path: Path, fx=1500.0, size=(1920, 1080), cx=None, rms=0.3):
    from calibration.store import Calibration, save_calibration
    k = np.array([[fx, 0, cx if cx is not None else size[0] / 2], [0, fx, size[1] / 2], [0, 0, 1]])
    save_calibration(Calibration(k, np.zeros(5), size, rms_px=rms), path)


def test_calibration_present_matching_and_plausible(tmp_path):
    assert one(doctor.check_calibration(config(tmp_path)), "calibration").ok      # none: the reader estimates
    save_cal(tmp_path / "lens.json")
    good = one(doctor.check_calibration(config(tmp_path, '[camera]\ncalibration = "lens.json"\n')), "calibration")
    assert good.ok and "field of view 65°" in good.text


@pytest.mark.parametrize("kw, message", [
    ({"size": (2717, 2008)}, "made at 2717×2008 but the camera is set to 1920×1080"),
    ({"fx": 152678.0}, "is no real camera's"),        # issue 14's six copies of one flat photo
    ({"cx": 100.0}, "far from the picture's middle"),
    ({"rms": 4.2}, "reprojection error is 4.20 px"),
])
def test_an_unusable_calibration_is_flagged(tmp_path, kw, message):
    save_cal(tmp_path / "lens.json", **kw)
    found = one(doctor.check_calibration(config(tmp_path, '[camera]\ncalibration = "lens.json"\n')), "calibration")
    assert not found.ok and message in found.text


def test_a_missing_or_corrupt_calibration_says_what_to_run(tmp_path):
    found = one(doctor.check_calibration(config(tmp_path, '[camera]\ncalibration = "gone.json"\n')), "calibration")
    assert not found.ok and "no such file" in found.text and "flure calibrate camera" in found.text
    (tmp_path / "bad.json").write_text("{not json")
    found = one(doctor.check_calibration(config(tmp_path, '[camera]\ncalibration = "bad.json"\n')), "calibration")
    assert not found.ok and "bad.json" in found.text


# --- LED device ---------------------------------------------------------------------------------

def test_a_wled_device_on_a_real_pty_answers_the_json_state_request(tmp_path):
    emu = LedEmulator().start()
    try:
        found = one(doctor.check_leds(config(tmp_path, f'[serial]\nurl = "{emu.path}"\n')), "LED device")
        assert found.ok and "answers: WLED 0.15.0, 156 LEDs configured" in found.text
        assert emu.json_requests == [b'{"v":true}']      # read as JSON, its 'v' not as a version request
    finally:
        emu.stop()


def test_a_wled_left_inside_a_cut_frame_still_answers(tmp_path):
    """A table session stopped in the middle of a frame leaves WLED expecting pixels: the doctor's request
    follows the protocol's flush, so it is read as a request, not as the rest of the frame."""
    import serial

    from hardware.protocol import make_encoder

    emu = LedEmulator().start()
    try:
        frame = make_encoder("adalight", 156).encode(bytes((0, 180, 255)) * 156)
        with serial.serial_for_url(emu.path, baudrate=115200) as port:
            port.write(frame[:200])          # cut: 200 of the frame's bytes
        found = one(doctor.check_leds(config(tmp_path, f'[serial]\nurl = "{emu.path}"\n')), "LED device")
        assert found.ok and "answers: WLED" in found.text
        assert emu.json_requests == [b'{"v":true}'] and not emu.baud_requests
    finally:
        emu.stop()


def test_a_wled_with_too_few_leds_configured_is_flagged(tmp_path):
    emu = LedEmulator().start()        # WLED set up for 156 LEDs
    try:
        text = f'[serial]\nurl = "{emu.path}"\n[layout]\nleds_per_square = 2\n'
        found = one(doctor.check_leds(config(tmp_path, text)), "LED device")
        assert not found.ok and "156 LEDs configured, but the grid needs 312" in found.text
    finally:
        emu.stop()


def test_a_serial_device_that_never_answers(tmp_path):
    master, slave = os.openpty()
    try:
        name = os.ttyname(slave)
        found = one(doctor.check_leds(config(tmp_path, f'[serial]\nurl = "{name}"\nbaud = 115200\n')), "LED device")
        assert not found.ok and "does not answer WLED's state request at 115200 baud" in found.text
        assert os.read(master, 4096).endswith(b'{"v":true}')        # it was asked, after the flush
    finally:
        os.close(master)
        os.close(slave)


def test_a_missing_led_device(tmp_path):
    found = one(doctor.check_leds(config(tmp_path, '[serial]\nurl = "/dev/flure-leds-not-here"\n')), "LED device")
    assert not found.ok and "is not there: plug in the LED controller's USB cable" in found.text
    found = one(doctor.check_leds(config(tmp_path)), "LED device")
    assert found.ok and "simulated device" in found.text


# The check as user 'nobody', in a fresh interpreter (forking this process, which runs threads, may deadlock):
# the configuration is read and the modules loaded while still root, then the process gives up root.
_AS_NOBODY = """
import grp, json, os, sys      # (what the check imports late, loaded before root is given up:
import serial                  # the interpreter's own files may not be readable by 'nobody')
import hardware.layout, hardware.link
from companion_app.cli import checks as doctor
from companion_app.config import load_table_config
cfg = load_table_config(sys.argv[1])
os.setgroups([])
os.setgid(65534)
os.setuid(65534)
found = doctor.check_leds(cfg)[0]
print(json.dumps([found.ok, str(found.text)]))
"""


def test_a_led_device_without_permission_says_dialout(tmp_path):
    master, slave = os.openpty()
    name = os.ttyname(slave)
    try:
        if os.geteuid() == 0:
            # root may open anything: the check runs in a child that has become 'nobody'
            os.chown(name, 0, 0)
            os.chmod(name, 0o600)
            path = tmp_path / "table.toml"
            path.write_text(f'[serial]\nurl = "{name}"\n')
            child = subprocess.run([sys.executable, "-c", _AS_NOBODY, str(path)], capture_output=True, text=True,
                                   timeout=60, cwd=Path(__file__).resolve().parents[1])
            assert child.returncode == 0, child.stderr
            ok, text = json.loads(child.stdout.strip().splitlines()[-1])
        else:
            os.chmod(name, 0)
            found = doctor.check_leds(config(tmp_path, f'[serial]\nurl = "{name}"\n'))[0]
            ok, text = found.ok, found.text
        assert not ok and "no permission to use it" in text and "sudo usermod -aG" in text
    finally:
        os.close(master)
        os.close(slave)


# --- buttons -------------------------------------------------------------------------------------

def write_buttons(cfg):
    import tempfile
    path = Path(tempfile.mkdtemp()) / "buttons.toml"
    path.write_text("[buttons]\npins = { monster = 5 }\n")
    return path


def test_buttons_on_mock_pins():
    factory = MockFactory()
    found = one(doctor.check_buttons(load_table_config(), factory), "buttons")
    assert found.ok and "monster GPIO17, confirm GPIO27, undo GPIO22 open (MockFactory)" in found.text
    cfg = load_table_config(None)
    moved = one(doctor.check_buttons(load_table_config(write_buttons(cfg)), factory), "buttons")
    assert moved.ok and "monster GPIO5" in moved.text


def test_a_button_pin_that_cannot_be_opened(tmp_path):
    factory = MockFactory()
    held = factory.pin(17)
    from gpiozero import Button
    other = Button(17, pin_factory=factory)              # the pin is taken by someone else
    try:
        found = one(doctor.check_buttons(load_table_config(), factory), "buttons")
        assert not found.ok and "monster button on GPIO17" in found.text
    finally:
        other.close()
        del held


def test_no_gpio_on_a_machine_that_is_not_a_pi(tmp_path, monkeypatch):
    if doctor.is_raspberry_pi():
        pytest.skip("this is a Raspberry Pi: GPIO is there")
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")     # gpiozero's own choice, which fails here
    found = one(doctor.check_buttons(config(tmp_path, '[buttons]\nbackend = "lgpio"\n')), "buttons")
    assert found.ok and "not a Raspberry Pi" in found.text


# --- database and port ----------------------------------------------------------------------------

def test_the_database_location(tmp_path):
    found = one(doctor.check_database(config(tmp_path, '[web]\ndatabase = "state/session.sqlite3"\n')), "database")
    assert found.ok and "writable" in found.text and "GB free" in found.text
    (tmp_path / "afile").write_text("x")
    found = one(doctor.check_database(config(tmp_path, '[web]\ndatabase = "afile/session.sqlite3"\n')), "database")
    assert not found.ok and "is not a folder" in found.text


def test_the_web_port(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        found = one(doctor.check_port(config(tmp_path, f'[web]\nhost = "127.0.0.1"\nport = {port}\n')), "web port")
        assert not found.ok and f"127.0.0.1:{port} is in use by another program" in found.text
    found = one(doctor.check_port(config(tmp_path, f'[web]\nhost = "127.0.0.1"\nport = {port}\n')), "web port")
    assert found.ok and "is free" in found.text


def test_the_https_port_the_camera_page_needs(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        text = f'[web]\nhost = "127.0.0.1"\nport = 0\nhttps_port = {port}\n'
        found = one(doctor.check_port(config(tmp_path, text)), "HTTPS port")
        assert not found.ok and f"127.0.0.1:{port} is in use by another program" in found.text
        assert "[web] https_port" in found.text
        assert one(doctor.check_port(config(tmp_path, text), "fr"), "HTTPS port").text.startswith(f"127.0.0.1:{port} ")
    found = one(doctor.check_port(config(tmp_path, f'[web]\nhost = "127.0.0.1"\nport = 0\nhttps_port = {port}\n')),
                "HTTPS port")
    assert found.ok and "is free" in found.text
    findings = doctor.check_port(config(tmp_path, '[web]\nhost = "127.0.0.1"\nport = 0\nhttps_port = 0\n'))
    assert [f.topic for f in findings] == ["web port"]      # any free port: nothing to check


# --- the command -------------------------------------------------------------------------------------

def test_flure_doctor_prints_a_line_each_and_exits_1_when_something_needs_fixing(tmp_path, capsys, views):
    good = tmp_path / "good.toml"
    good.write_text(f'[camera]\nsource = "{views["good"]}"\nfps = 0.5\n[web]\nhost = "127.0.0.1"\nport = 0\n'
                    f'database = "{tmp_path}/db.sqlite3"\n[buttons]\nbackend = "auto"\n')
    status = flure(["doctor", "--config", str(good)])
    out = capsys.readouterr().out
    lines = out.strip().splitlines()
    assert lines[0].startswith("ok   configuration:")
    assert all(line[:5] in ("ok   ", "FIX  ") for line in lines)
    assert status == (1 if "FIX" in out else 0)
    assert flure(["doctor", "--config", str(good), "--leds", "/dev/flure-leds-not-here"]) == 1
    assert "FIX  LED device: /dev/flure-leds-not-here is not there" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text("[web]\nport = nan\n")
    assert flure(["doctor", "--config", str(bad)]) == 1
    assert capsys.readouterr().out.startswith(f"FIX  configuration: {bad}: [web] port = nan must be between 0 and 65535")


# --- exposure ------------------------------------------------------------------------------------

class PicameraDouble:
    """The part of Picamera2's interface PicameraSource uses (there is no camera module here)."""

    def __init__(self):
        self.controls = {}

    def set_controls(self, controls):
        self.controls.update(controls)

    def capture_array(self):
        return np.zeros((1080, 1920, 3), np.uint8)

    def stop(self):
        pass

    def close(self):
        pass


def test_the_pi_camera_gets_the_locked_exposure_as_picamera2_controls():
    from vision.sources import PicameraSource
    cam = PicameraDouble()
    source = PicameraSource(camera=cam, exposure={"exposure_us": 10000, "analogue_gain": 2.0,
                                                  "colour_gains": (1.8, 1.5)})
    assert cam.controls == {"AeEnable": False, "ExposureTime": 10000, "AnalogueGain": 2.0,
                            "AwbEnable": False, "ColourGains": (1.8, 1.5)}
    assert source.exposure_note.startswith("exposure locked: AeEnable=False, ExposureTime=10000")
    assert PicameraSource(camera=PicameraDouble()).exposure_note == ""       # automatic: nothing set


def test_a_camera_that_ignores_the_exposure_settings_is_flagged(tmp_path, views):
    video = tmp_path / "table.avi"
    image = cv2.imread(str(sorted(views["good"].iterdir())[0]))
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (image.shape[1], image.shape[0]))
    for _ in range(6):
        writer.write(image)
    writer.release()
    cfg = config(tmp_path, f'[camera]\nsource = "{video}"\nfps = 0.5\n[camera.exposure]\nexposure_us = 8000\n'
                           'colour_gains = [1.8, 1.5]\n')
    found = doctor.check_camera(cfg)
    exposure = one(found, "exposure")
    assert not exposure.ok and "not honoured by this camera" in exposure.text and "colour gains" in exposure.text
    assert one(found, "board").ok      # the picture itself is fine
