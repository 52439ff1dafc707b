"""Real-browser tests: headless Debian Chromium driven by Playwright against the real waitress server.

The phone view (360 px) must animate the monster's path after the referee,
in a second browser context, resolves the monster's turn.  Screenshots go to
tests/output/ for a human to look at.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from companion_app.server import Server

from web_helpers import OUTPUT, TOKEN, make_app, play_pawn_phase

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright drives Chromium")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture
def live(tmp_path):
    app, session = make_app(tmp_path)
    session.new_game(["red", "blue", "green"], "red", seed=11)
    with Server(app) as server:
        yield server, session


def login(page, url):
    page.goto(url + "referee")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")


def test_phone_follows_a_monster_move_made_on_the_referee_tablet(browser, live):
    server, session = live
    # Two turns of real play so the board has pawns for the monster to see.
    play_pawn_phase(session)
    session.act({"type": "tile", "tile": "5"})
    play_pawn_phase(session)

    phone = browser.new_context(viewport={"width": 360, "height": 780}, device_scale_factor=2,
                                is_mobile=True, has_touch=True).new_page()
    errors = []
    phone.on("pageerror", lambda e: errors.append(str(e)))
    phone.goto(server.url)
    phone.wait_for_selector(".link.live")
    phone.wait_for_selector("svg.board .monster")
    OUTPUT.mkdir(exist_ok=True)
    phone.screenshot(path=str(OUTPUT / "phone-before.png"), full_page=True)

    referee = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    referee.on("pageerror", lambda e: errors.append(str(e)))
    login(referee, server.url)
    referee.wait_for_selector("#draw:not([disabled])")
    referee.click("#draw")

    phone.wait_for_selector("svg.board[data-anim='running']", timeout=5000)
    phone.wait_for_selector("#steps li.current[data-step='2']", timeout=5000)
    phone.screenshot(path=str(OUTPUT / "phone-animating.png"), full_page=True)
    phone.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    phone.wait_for_timeout(300)
    phone.screenshot(path=str(OUTPUT / "phone-after.png"), full_page=True)

    plan = session.game.last_plan.to_json()
    monster = phone.locator("svg.board .monster")
    assert monster.get_attribute("data-square") == plan["end"]["at"]
    assert monster.get_attribute("data-facing") == plan["end"]["facing"]
    badges = phone.locator("svg.board .step-badge").count()
    assert badges == len(plan["steps"])
    lines = phone.locator("#steps li").all_inner_texts()
    assert lines[0].startswith("step 1:") and len(lines) == len(session.state()["plan_lines"])
    # Fits a 360 px phone: nothing wider than the screen.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    referee.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    referee.screenshot(path=str(OUTPUT / "referee-tablet.png"), full_page=True)
    assert not errors
    phone.context.close()
    referee.context.close()


def test_referee_login_refuses_a_wrong_pin_and_phone_reconnects(browser, live):
    server, session = live
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    page.goto(server.url + "referee")
    page.fill("#pin", "000000")
    page.click("#login-form button")
    page.wait_for_selector("#login-error:has-text('Wrong PIN')")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")
    page.wait_for_selector("#qr svg")
    # A phone whose stream is cut catches up by itself.
    phone = browser.new_context(viewport={"width": 360, "height": 700}).new_page()
    phone.goto(server.url)
    phone.wait_for_selector(".link.live")
    session.broker.close_all()          # the server drops every stream, as a Wi-Fi drop would
    session.act({"type": "move", "pawn": "red-6/1", "moves": "I"})
    phone.wait_for_selector("#summary:has-text('blue moves')", timeout=10000)
    phone.wait_for_selector(".link.live")
    assert phone.locator("svg.board .pawn[data-pawn='red-6/1']").get_attribute("data-square") == "p11"
    phone.context.close()
    page.context.close()
