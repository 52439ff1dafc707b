"""The Setup page in headless Chromium against the real waitress server: the live overlay
arrives, captures add views and fill the coverage map, the calibration is saved into the table
configuration and the running session's camera uses it; exposure and LED marks are stored.

The camera is the real camera worker and reader fed by frames the synthetic camera renders of a
ChArUco sheet (known lens); the LED grid is the real one on its built-in emulator.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from browser_helpers import needs_chromium
from calibration.intrinsics import CharucoSpec
from calibration.store import load_calibration
from companion_app.config import load_table_config
from companion_app.i18n.text import localize
from companion_app.table.camera.watcher import CameraWorker
from companion_app.table.devices.devices import Device, open_leds
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from companion_app.web.server import Server
from vision.pipeline import TableCamera
from vision.twin.plane import calibration_poses, render_sheet
from web_helpers import AUTH, OUTPUT, TOKEN, make_app

SPEC = CharucoSpec()


def until(check, timeout: float = 10.0, what: str = "the page"):
    """Poll ``check()`` (the page's CSP forbids Playwright's eval-based wait_for_function)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not get there in {timeout:g} s")
        time.sleep(0.1)


def loaded(page) -> int:
    return int(page.get_attribute("#overlay", "data-loaded") or 0)


class Frames:
    """A frame source showing one of ``frames``, the test's choice (``show(i)``)."""

    def __init__(self, frames):
        self.frames, self.index = frames, 0

    def show(self, i: int) -> None:
        self.index = i

    def read(self):
        return self.frames[self.index]

    def close(self) -> None:
        pass


@pytest.fixture(scope="module")
def sheet_frames():
    sheet = SPEC.image(200, margin_mm=10)
    return [render_sheet(cam, sheet, 200 / 25.4) for cam in calibration_poses(12, 1280, 720, distortion=-0.1, seed=3)]


@pytest.fixture
def table(tmp_path, sheet_frames):
    config_path = tmp_path / "table.toml"
    config_path.write_text('[camera]\nsource = "synthetic"\nresolution = [1280, 720]\n\n'
                           f'[web]\ndatabase = "{tmp_path / "session.sqlite3"}"\n', encoding="utf-8")
    config = load_table_config(config_path)
    session = TableSession(Store(tmp_path / "session.sqlite3"))
    frames = Frames(sheet_frames)
    reader = TableCamera(None)
    worker = CameraWorker(lambda: frames, reader.feed, session.on_camera, fps=8)
    worker.reader = reader
    session.camera = Device("camera", worker.start(), why="")
    session.leds = open_leds(None)
    app, _ = make_app(tmp_path, session, table_config=config)
    with Server(app) as server:
        yield server, session, frames, config_path
    session.close()


@needs_chromium
def test_setup_page_calibrates_the_lens_and_the_session_uses_it(browser, table):
    server, session, frames, config_path = table
    page = browser.new_context(viewport={"width": 1024, "height": 1366}, device_scale_factor=1).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "setup")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")
    # The live overlay arrives (a real JPEG from the camera's last frame).
    until(lambda: loaded(page) >= 1, 15, "the overlay")
    assert int(page.get_attribute("#overlay", "data-width")) > 0
    until(lambda: "corners (yellow dots)" in page.text_content("#charuco"))   # the board is seen before a tap
    # A capture adds a view and the coverage map fills.
    page.click("#capture")
    until(lambda: page.text_content("#views") == "1")
    assert int(page.get_attribute("#coverage", "data-filled")) > 0
    assert page.locator("#coverage div.seen1, #coverage div.seen2, #coverage div.seen3").count() > 0
    page.click("#capture")                     # the same picture again: refused, and said why
    until(lambda: "nearly the same" in page.text_content("#lens-message"))
    for i in range(1, len(frames.frames)):
        frames.show(i)
        time.sleep(0.3)                        # the worker's next frame
        page.click("#capture")
        until(lambda: page.text_content("#views") == str(i + 1), 5, f"view {i + 1}")
    page.click("#calibrate")
    page.wait_for_selector("#save:not([disabled])")
    assert "reprojection error" in page.text_content("#lens-result")
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "setup-tablet.png"), full_page=True)
    page.click("#save")
    until(lambda: page.get_attribute("#lens-result", "data-saved"), 10, "the save")
    saved = Path(page.get_attribute("#lens-result", "data-saved"))
    cal = load_calibration(saved)
    assert cal.image_size == (1280, 720) and abs(cal.camera_matrix[0, 0] / 1108.5 - 1) < 0.03
    assert f'calibration = "{saved}"' in config_path.read_text()
    assert load_table_config(config_path).camera.calibration == saved
    # The running session now reads with it: a new camera worker whose reader holds the calibration.
    reader = session.camera.obj.reader
    assert reader.calibration is not None and tuple(reader.calibration.image_size) == (1280, 720)
    assert "lens calibration" in session.camera.status()["note"]

    # Camera settings are stored in [camera.exposure].
    page.fill("#exposure-us", "8000")
    page.fill("#gain", "2")
    page.click("#exposure-save")
    until(lambda: "updated" in page.text_content("#exposure-message"))
    assert load_table_config(config_path).camera.exposure.exposure_us == 8000
    page.reload()                              # the stored settings come back on the page
    until(lambda: page.input_value("#exposure-us") == "8000")
    assert page.input_value("#gain") == "2"

    # LED check: a row lights on the real LED grid; a tapped square is stored as wrong.
    page.select_option("#light-line", "row 3")
    page.click("#light-line-go")
    until(lambda: "row 3 is lit" in page.text_content("#leds-message"))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        sent = session.leds.obj.sent_frame()
        if sent and sent["showing"] == "follow" and sent["squares"]["g3"] != sent["squares"]["g4"]:
            break
        time.sleep(0.1)
    assert sent["showing"] == "follow" and sent["squares"]["g3"] != sent["squares"]["g4"]
    page.click("#led-grid button[data-square='g7']")
    page.wait_for_selector("#led-grid button.wrong[data-square='g7']")
    assert json.loads((config_path.parent / "led-check.json").read_text())["wrong"] == ["g7"]
    until(lambda: page.locator("#doctor-list li").count() > 3)
    page.screenshot(path=str(OUTPUT / "setup-tablet-saved.png"), full_page=True)

    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                is_mobile=True, has_touch=True).new_page()
    phone.goto(server.url + "setup")
    phone.fill("#pin", TOKEN)
    phone.click("#login-form button")
    until(lambda: loaded(phone) >= 1, 15, "the phone's overlay")
    phone.screenshot(path=str(OUTPUT / "setup-phone.png"), full_page=True)
    assert errors == []


def test_setup_routes_are_referee_only(table):
    import urllib.error
    import urllib.request

    server = table[0]
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(server.url + "api/setup/look")
    assert exc.value.code == 401
    req = urllib.request.Request(server.url + "api/setup/look", headers=AUTH)
    assert json.loads(urllib.request.urlopen(req).read())["picture"] is True


def test_the_sticker_check_names_pieces_in_the_readers_language_and_asks_only_for_the_games_pawns():
    from companion_app.table.setup.setup import sticker_check
    from engine.game import Game, pawn_set
    from vision.scheme import load_scheme

    scheme = load_scheme()
    red = [sid for sid, s in scheme.stickers.items() if s.piece == "pawn" and s.colour == "red"]
    game = Game.new(["red", "blue"], seed=1)
    check = sticker_check(red[:1], scheme, game)
    played = {s.physical for s in scheme.stickers.values()
              if s.piece != "pawn" or (s.colour in ("red", "blue") and s.pawn in pawn_set(2))}
    everything = {s.physical for s in scheme.stickers.values()}
    assert check["pieces"] == len(played) and check["left_out"] == len(everything - played) > 0
    assert set(check["missing"]) == played - set(check["seen"])
    assert not any("green" in p or "purple" in p for p in check["missing"])
    assert set(check["names"]) == set(check["seen"]) | set(check["missing"])   # each piece in words
    for lang, pawn in (("fr", "pion rouge"), ("de", "rot 6/1"), ("es", "ficha roja")):
        names = localize(check["names"], lang)
        assert pawn in names[check["seen"][0]].lower(), names
        words = " ".join(names[p] for p in check["missing"])
        for english in ("pawn ", "stone tile", "teleporter sticker", "monster sticker"):
            assert english not in words, (lang, english)
    assert sticker_check(red[:1], scheme)["left_out"] == 0     # before a game: every piece is asked for


def test_the_setup_doctor_says_devices_in_the_pages_language_and_a_device_off_on_purpose_is_fine(table):
    from companion_app.table.setup.setup import SetupTool
    from engine.wording import N_, Text

    server, session, _frames, config_path = table
    session.buttons = Device("buttons", None, why=Text(N_("no table buttons: this is not a Raspberry Pi (no GPIO)")),
                             off=True)
    session.leds = Device("LED grid", None, why=Text(N_("LED grid not available: %(why)s"), why="no such port"))
    findings = {f["topic"]: f for f in SetupTool(session, load_table_config(config_path)).doctor("fr")}
    buttons = next(f for topic, f in findings.items() if topic.startswith("boutons"))
    leds = next(f for topic, f in findings.items() if "LED" in topic)
    assert buttons["ok"] is True and "Raspberry Pi" in buttons["text"] and "this is not" not in buttons["text"]
    assert leds["ok"] is False and "not available" not in leds["text"]
