"""A phone as the overhead camera, in a real Chromium whose camera is a fake one playing a video of the
synthetic camera's render of the game's position: the camera page over HTTPS sends frames,
the session reads the position, the referee's /api/camera shows it located and agreeing with the game;
a browser without the PIN cannot send frames."""
from __future__ import annotations

import json
import urllib.request

import pytest

from browser_helpers import ARGS, CHROMIUM, fits_360_px, needs_chromium, referee_login
from phone_helpers import phone_table, render_position, write_y4m
from table_helpers import wait_for
from web_helpers import AUTH, TOKEN

pytestmark = needs_chromium


def get_json(url: str) -> dict:
    with urllib.request.urlopen(urllib.request.Request(url, headers=AUTH), timeout=10) as r:
        return json.loads(r.read())


@pytest.fixture
def fake_camera_browser(tmp_path_factory):
    """Chromium whose camera plays a video of the basic setup as the game of ``phone_table`` has it."""
    from playwright import sync_api

    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store

    folder = tmp_path_factory.mktemp("video")
    game = TableSession(Store(folder / "g.sqlite3"))
    game.new_game(["red", "blue"], "red", seed=3)
    video = write_y4m(folder / "board.y4m", [render_position(game.game.position, frame=i) for i in range(2)])
    game.close()
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS + [
            "--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={video}",
            "--use-fake-ui-for-media-stream"])
        yield b
        b.close()


def test_the_camera_page_over_https_feeds_the_session(fake_camera_browser, tmp_path):
    with phone_table(tmp_path) as (session, phone, server, secure):
        assert secure.url.startswith("https://")
        context = fake_camera_browser.new_context(ignore_https_errors=True, viewport={"width": 360, "height": 780},
                                                 is_mobile=True, has_touch=True)
        context.grant_permissions(["camera"], origin=secure.url.rstrip("/"))
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(secure.url + "camera")
        page.fill("#pin", TOKEN)
        page.click("#login-form button")
        page.wait_for_selector("#camera-main[data-located='yes']", timeout=30000)
        assert page.evaluate("window.isSecureContext")
        assert "frames sent" in page.locator("#sending").inner_text()
        assert page.locator("#advice").inner_text() == "The board is located: keep the phone still."
        fits_360_px(page, "phone-camera-page")

        view = wait_for(lambda: (lambda v: v if v.get("stable") else None)(get_json(server.url + "api/camera")),
                        timeout=30, what="the session reading the phone's frames steadily")
        assert view["reading"]["located"] and view["problems"] == [] and view["differences"] == [], view
        game = session.game.position.to_setup()
        assert view["reading"]["setup"]["stones"] == game["stones"], (view["reading"]["setup"], game)
        assert view["reading"]["setup"]["monster"] == game["monster"]
        status = get_json(server.url + "api/status")
        line = status["phone_camera"]["detail"]
        assert line["connected"] and line["size"] == [1280, 720] and line["message"].startswith(
            "phone camera: connected from 127.0.0.1, 1280×720"), line
        assert session.camera.obj.frames > 0
        assert errors == []

        # a second browser, without the PIN: the page asks for it, and its frames are refused
        stranger = fake_camera_browser.new_context(ignore_https_errors=True).new_page()
        stranger.goto(secure.url + "camera")
        stranger.wait_for_selector("#login:not(.hidden)")
        sent, refused = phone.status()["frames"], phone.status()["refused"]
        answer = stranger.evaluate("""async () => {
            const r = await fetch('/api/camera/phone/frame', {method: 'POST', body: new Uint8Array([255, 216, 255, 0]),
                                   headers: {'Content-Type': 'image/jpeg'}});
            return {status: r.status, body: await r.json()}; }""")
        assert answer["status"] == 401 and "referee" in answer["body"]["error"], answer
        # the stranger's frame never reached the phone's source (which would refuse it as unreadable); the
        # phone's own page may meanwhile have had one refused as too frequent on a loaded machine
        assert phone.status()["frames"] >= sent
        assert phone.status()["refused"] == refused or getattr(phone.last_refusal, "template", None) != \
            "the frame is not a picture that can be read", phone.last_refusal

        # the phone's Wi-Fi drops: the page says so and reconnects by itself when it is back
        context.set_offline(True)
        wait_for(lambda: page.locator("#conn").inner_text().startswith("Connection lost: reconnecting by itself"), 20,
                 "the page saying the connection is lost")
        assert not page.locator("#link").evaluate("e => e.classList.contains('live')")
        context.set_offline(False)
        wait_for(lambda: page.locator("#conn").inner_text() == "Reconnected.", 30, "the page saying it reconnected")
        before = phone.status()["frames"]
        wait_for(lambda: phone.status()["frames"] > before + 2, 20, "frames again after the reconnection")
        context.close()


def test_a_pairing_link_lets_a_phone_send_frames_without_the_pin(fake_camera_browser, tmp_path):
    with phone_table(tmp_path) as (session, phone, server, secure):
        # the referee makes the code on the referee view (plain HTTP), which also says how to trust the certificate
        referee = fake_camera_browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        referee_login(referee, server.url)
        referee.click("#camera-pair summary")
        assert "Advanced, then Proceed (Android)" in referee.locator("#camera-pair").inner_text()
        referee.click("#camera-pair-make")
        referee.wait_for_selector("#camera-pair-qr svg")
        link = referee.locator("#camera-pair-url").inner_text()
        assert link.startswith(secure.url + "camera?pair="), link
        page = fake_camera_browser.new_context(ignore_https_errors=True).new_page()
        page.goto(link)
        page.wait_for_selector("#camera-main[data-located='yes']", timeout=30000)
        assert page.url == secure.url + "camera"
        assert page.locator("#login").is_hidden()
        # the link works once: another phone opening it is refused
        again = fake_camera_browser.new_context(ignore_https_errors=True).new_page()
        response = again.goto(link)
        assert response.status == 403 and "used already" in again.locator("#pair-error").inner_text()
        # the referee's Devices card lists the phone camera, connected
        wait_for(lambda: "Phone camera: phone camera: connected from 127.0.0.1, 1280×720" in
                 referee.locator("#devices").inner_text(), 20, "the phone on the Devices card")


def test_a_page_that_cannot_have_the_camera_says_no_camera_not_connecting(browser, tmp_path):
    """A browser with no camera (this headless Chromium has none): the header said "connecting…" for ever."""
    with phone_table(tmp_path, https=False) as (_, _phone, server, _secure):
        page = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
        page.goto(server.url + "camera")
        page.fill("#pin", TOKEN)
        page.click("#login-form button")
        page.wait_for_selector("#advice:has-text('The camera could not be opened')", timeout=10000)
        assert page.locator("#link").inner_text() == "no camera"
        page.context.close()


def test_a_table_without_a_phone_camera_does_not_ask_for_the_camera(browser, tmp_path):
    """flure play without --camera phone: the page says so and never asks the browser for the camera."""
    from companion_app.web.camera_page import attach
    from companion_app.web.server import Server
    from web_helpers import make_app

    app, session = make_app(tmp_path)
    attach(app, None)
    try:
        with Server(app) as server:
            page = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
            page.add_init_script("window.__asked = 0; if (navigator.mediaDevices) navigator.mediaDevices"
                                 ".getUserMedia = async () => { window.__asked += 1; throw new Error('no'); };")
            page.goto(server.url + "camera")
            page.fill("#pin", TOKEN)
            page.click("#login-form button")
            page.wait_for_selector("#link:text-is('no camera')", timeout=10000)   # (no wait_for_function: the CSP)
            assert "not using a phone as its camera" in page.locator("#not-phone").inner_text()
            page.wait_for_timeout(500)
            assert page.evaluate("window.__asked") == 0
            page.context.close()
    finally:
        session.close()
