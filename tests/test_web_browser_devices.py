"""The referee's device list in a real browser (headless Chromium, the real server): an LED device that
opens but takes nothing is not shown as working."""
from __future__ import annotations

import os
import tty

from browser_helpers import needs_chromium
from companion_app.table.devices.devices import Device, open_leds
from companion_app.table.devices.fakes import FakeLeds
from companion_app.web.server import Server
from web_helpers import TOKEN, make_app, session_with

pytestmark = needs_chromium


class OpenButFailingLeds(FakeLeds):
    """What a link reports when its port is open but the last write failed (as the Leds interface says it)."""

    def status(self) -> dict:
        return {"connected": True, "port": "/dev/ttyACM0",
                "last_error": "LED device /dev/ttyACM0 takes no data (the write timed out)"}


def devices_text(browser, url: str) -> str:
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(url + "referee")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")
    page.wait_for_selector("#devices li")
    return page.locator("#devices").inner_text()


def test_a_last_error_is_shown_even_while_the_port_is_open(browser, tmp_path):
    session = session_with(tmp_path, leds=OpenButFailingLeds())
    app, _ = make_app(tmp_path, session)
    with Server(app) as server:
        text = devices_text(browser, server.url)
    assert "LED grid: not working: LED device /dev/ttyACM0 takes no data" in text, text
    assert "LED grid: working" not in text


def test_a_hung_led_device_on_a_real_pty_is_not_shown_as_working(browser, tmp_path):
    master, slave = os.openpty()
    tty.setraw(slave)
    session = session_with(tmp_path)
    session.leds = open_leds(os.ttyname(slave))    # nothing ever reads the other end
    assert isinstance(session.leds, Device) and session.leds.obj is not None
    app, _ = make_app(tmp_path, session)
    try:
        session.leds.obj.show_error()               # frames to send, until the buffer is full
        import time
        deadline = time.monotonic() + 15
        while session.leds.obj.status()["connected"] and time.monotonic() < deadline:
            time.sleep(0.05)
        with Server(app) as server:
            text = devices_text(browser, server.url)
        assert "LED grid: disconnected: LED device" in text and "takes no data" in text, text
    finally:
        session.leds.obj.close()
        os.close(master)
        os.close(slave)
