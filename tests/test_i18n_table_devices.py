"""The devices' own lines in fr/de/es, from real devices: the camera's note (the digital twin with
a lens calibration), a calibration made at another size, the LED grid's startup line in ``flure play`` and
``flure doctor``'s LED finding.  English stays the sentence it always was; paths and sizes are kept."""
from __future__ import annotations

import numpy as np

from calibration.intrinsics import Calibration
from calibration.store import save_calibration
from companion_app.config import load_table_config
from companion_app.i18n.text import render
from companion_app.table.devices.devices import open_camera, open_leds
from engine.position import basic_position
from tests.web_helpers import each_language


def camera_with(tmp_path, text: str):
    save_calibration(Calibration(np.array([[1500.0, 0, 960], [0, 1500.0, 540], [0, 0, 1]]), np.zeros(5),
                                 (1920, 1080), rms_px=0.3), tmp_path / "lens.json")
    (tmp_path / "table.toml").write_text(text, encoding="utf-8")
    cfg = load_table_config(tmp_path / "table.toml")
    return open_camera("synthetic", lambda: (basic_position(), None), cfg.camera)


def test_the_camera_note_in_each_language(tmp_path):
    device = camera_with(tmp_path, '[camera]\nsource = "synthetic"\ncalibration = "lens.json"\n')
    try:
        status = device.status()
    finally:
        device.obj.close()
    lens = tmp_path / "lens.json"
    assert status["note"] == f"digital twin (synthetic camera showing the game's position), lens calibration {lens}"
    note = each_language(status["note"])   # wording data, said in each reader's language
    assert note["en"] == status["note"]
    assert note["fr"] == ("jumeau numérique (caméra de synthèse montrant la position de la partie), "
                                         f"calibration de l'objectif {lens}")
    assert note["de"] == ("digitaler Zwilling (synthetische Kamera, die die Stellung des Spiels "
                                         f"zeigt), Objektivkalibrierung {lens}")
    assert note["es"].startswith("gemelo digital (cámara sintética")


def test_a_calibration_of_another_size_in_each_language(tmp_path):
    device = camera_with(tmp_path, '[camera]\ncalibration = "lens.json"\nresolution = [1280, 720]\n')
    assert device.obj is None
    status = device.status()
    lens = tmp_path / "lens.json"
    message = each_language(status["message"])
    assert f"the calibration {lens} was made at 1920×1080 but [camera] resolution is 1280×720; calibrate again" \
        in status["message"]
    assert f"la calibration {lens} a été faite en 1920×1080 mais [camera] resolution vaut 1280×720\u00a0;" \
        in message["fr"]
    assert f"die Kalibrierung {lens} wurde bei 1920×1080 gemacht, aber [camera] resolution ist 1280×720" \
        in message["de"]
    assert f"la calibración {lens} se hizo a 1920×1080 pero [camera] resolution es 1280×720" \
        in message["es"]


def test_the_led_grids_startup_line_and_the_doctors_finding(tmp_path):
    from companion_app.cli.checks import _wled_answer

    port = tmp_path / "ttyNOPE"
    device = open_leds(str(port))
    try:
        assert device.obj is not None
        assert str(device.startup) == (f"LED device {port} is not there: is it plugged in? (the session goes on and "
                                       "connects by itself once it is)")
        assert render(device.startup, "de").endswith(
            "(die Sitzung läuft weiter und verbindet sich von selbst, sobald es geht)")
        assert render(device.startup, "fr").endswith("(la session continue et se connecte d'elle-même dès que possible)")
        assert "LED device" not in render(device.startup, "es")
    finally:
        device.obj.close()
    serial_cfg = load_table_config().hardware.serial
    en = _wled_answer(str(port), serial_cfg, 100, "en")
    assert not en.ok and en.text == f"LED device {port} is not there: is it plugged in?"
    for lang in ("fr", "de", "es"):
        found = _wled_answer(str(port), serial_cfg, 100, lang)
        assert not found.ok and str(port) in found.text and found.text != en.text, (lang, found.text)
