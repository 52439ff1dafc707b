"""Issue 23's rough edges in the views, in real browsers against the real server: what the referee's camera
card and the phones' table card say while the table waits, a hand over the board said once, no camera or
LED grid panels when there is none, the "What would each tile do?" answer kept readable.

The camera is the shipped FakeCamera (readings through the worker's real stable-frame gate)."""
from __future__ import annotations

from contextlib import contextmanager

from browser_helpers import needs_chromium, phone, referee_login
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.web.server import Server
from web_helpers import make_app, session_with, show_table

pytestmark = needs_chromium

HAND = "something covers the board over 20 squares (a1 b1 c1 …)"


@contextmanager
def served(tmp_path, camera: FakeCamera | None = None, mode: str = "confirm"):
    """A red-and-blue game (seed 11) served by the real server; yields (server, session)."""
    session = session_with(tmp_path, camera=camera, mode=mode)
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=11)
    with Server(app) as server:
        yield server, session


def tablet(browser, url: str):
    """The referee view on a 1024 px tablet, logged in; its script errors gather in ``page.errors``."""
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    referee_login(page, url)
    return page


def test_waiting_is_said_as_waiting_and_a_hand_once(browser, tmp_path):
    camera = FakeCamera()
    with served(tmp_path, camera, mode="auto") as (server, session):
        family = phone(browser)
        family.goto(server.url)
        family.wait_for_selector(".link.live")
        referee = tablet(browser, server.url)

        # A steady table as the game has it, in auto mode: the referee waits for red's move, nothing is refused.
        show_table(camera, session)
        referee.wait_for_selector("#camera-why:has-text('Waiting for the table:')")
        assert "Cannot confirm" not in referee.inner_text("#camera-why")
        assert "Red moves" in referee.inner_text("#camera-why")
        family.wait_for_selector("#table-state:has-text('camera: steady')")

        # Not steady yet (one frame of three): the phone says it as a player would, no frame counts.
        seen = session.game.position.to_setup()
        seen["pawns"]["red-6/1"].update(at="p11", face="black")
        camera.show(FakeReading(True, seen), frames=1)
        family.wait_for_selector("#table-needs:has-text('Waiting for the table to be still.')")
        assert family.inner_text("#table-state") .lower() == "camera: waiting"
        assert "frames" not in family.inner_text("#table-needs")

        # A hand over twenty squares: one line on the referee's card, a player's sentence on the phone.
        hidden = [f"{c}{r}" for r in (1, 2) for c in "abcdefghij"]
        hand = FakeReading(True, None, problems=[{"code": "occluded", "message": HAND, "square": "a1"}])
        camera.show(hand, frames=1)
        family.wait_for_selector("#table-needs:has-text('Hands over the board: waiting until they are gone.')")
        referee.wait_for_selector(f"#differences li:has-text('{HAND[:30]}')")
        rows = referee.locator("#differences li").all_inner_texts()
        assert not any(text.startswith(tuple(hidden)) for text in rows), rows
        assert sum(HAND[:30] in text for text in rows + [referee.inner_text("#camera-why")]) <= 2, rows
        assert referee.errors == [] and family.errors == []


def test_no_camera_and_no_led_grid_show_no_controls_or_dark_panels_for_them(browser, tmp_path):
    with served(tmp_path) as (server, session):          # neither a camera nor an LED grid
        family = phone(browser)
        family.goto(server.url)
        family.wait_for_selector("#table-needs:has-text('No camera: the referee enters the moves.')")
        assert family.locator("#leds-box").is_hidden()
        referee = tablet(browser, server.url)
        referee.wait_for_selector("#camera-controls", state="hidden")
        assert referee.locator("#leds-box").is_hidden() and "Cannot confirm" not in referee.inner_text("#camera-why")


def test_the_tile_preview_stays_readable_after_the_next_move(browser, tmp_path):
    from web_helpers import longest, play_pawn_phase

    with served(tmp_path) as (server, session):
        referee = tablet(browser, server.url)
        referee.click("#preview-btn")
        referee.wait_for_selector("#preview .preview-row")
        rows = referee.locator("#preview .preview-row").count()
        play_pawn_phase(session, longest)                  # the table moves on: a live game
        referee.wait_for_selector("#preview.stale")
        assert referee.locator("#preview .preview-row").count() == rows
        assert "ask again" in referee.inner_text("#preview")
        referee.click("#preview-btn")
        referee.wait_for_selector("#preview:not(.stale) .preview-row")
