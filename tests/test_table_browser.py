"""The table playing itself, seen in real browsers: a camera-read move and a tile-triggered monster move
arrive on the referee tablet and a phone without any click, and the LED panel shows the monster's path.

Real waitress server, real session, real LED grid on the built-in emulator (a pseudo-terminal); the
camera is the shipped FakeCamera, which feeds readings through the worker's real stable-frame gate.
"""
from __future__ import annotations

import time

from browser_helpers import needs_chromium, referee_login
from companion_app.table.devices.devices import open_leds
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.web.server import Server
from web_helpers import OUTPUT, make_app, session_with, show_table

pytestmark = needs_chromium
DIM = "030202"     # an idle board square on the LED grid


def test_camera_move_and_tile_arrive_without_a_click_and_the_leds_show_the_path(browser, tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="auto")
    session.leds = open_leds(None)
    assert session.leds.obj is not None, session.leds.why
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=11)
    errors: list[str] = []
    try:
        with Server(app) as server:
            phone = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True).new_page()
            phone.on("pageerror", lambda e: errors.append(str(e)))
            phone.goto(server.url)
            phone.wait_for_selector(".link.live")
            referee = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            referee.on("pageerror", lambda e: errors.append(str(e)))
            referee_login(referee, server.url)

            # The board is not set up yet: both screens list what to put where, nobody clicks.
            camera.reading = FakeReading(True, {**session.game.position.to_setup(), "stones": {}})
            phone.wait_for_selector("#follow-list li:has-text('put a')")
            referee.wait_for_selector("#follow-list li:has-text('put a')")
            assert referee.locator("#camera-confirm").is_disabled()
            assert "Set up the board for the new game first" in referee.locator("#camera-why").inner_text()
            show_table(camera, session)
            phone.wait_for_selector("#follow", state="hidden")

            # Red enters a pawn: read, applied (auto), on both screens, with an Undo on the referee's.
            seen = session.game.position.to_setup()
            seen["pawns"]["red-6/1"].update(at="p11", face="black")
            camera.reading = FakeReading(True, seen)
            phone.wait_for_selector("svg.board .pawn[data-pawn='red-6/1'][data-square='p11']")
            referee.wait_for_selector("svg.board .pawn[data-pawn='red-6/1'][data-square='p11']")
            referee.wait_for_selector("#applied li:has-text('red 6/1 went from beside the board to p11') .undo-camera")

            # Every other pawn stays beside the board (read as no change); then the tile is laid.
            while session.game.phase == "pawns":
                game = session.game
                label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
                session.act({"type": "move", "pawn": label, "moves": ""}, by="camera")
            before = session.game.position.to_setup()
            camera.reading = FakeReading(True, before)
            tile = next(t for t in session.game.deck if not t.startswith("prey"))
            camera.reading = FakeReading(True, before, tile=tile)      # laid in the card zone
            assert session.game.tiles_played == (tile,)
            plan = session.game.last_plan.to_json()
            # while it moves, the phone names the turn the move belongs to (turn 1), not the next one
            phone.wait_for_function("() => document.querySelector('svg.board').dataset.anim === 'running' && "
                                    "[...document.querySelectorAll('#turnline .pill')]"
                                    ".some((p) => p.textContent === 'Turn 1') && "
                                    "document.querySelector('#turnline .pill.monster-turn') !== null", timeout=15000)
            phone.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
            referee.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
            monster = phone.locator("svg.board .monster")
            assert monster.get_attribute("data-square") == plan["end"]["at"]

            # The LED panel on both screens shows the path as the LED grid was sent it.
            path = [sq for sq in plan["path"] if sq != plan["start"]["at"]]
            lit = ("(squares) => squares.every((sq) => { const c = document.querySelector("
                   "`#leds-panel rect[data-square='${sq}']`); return c && c.dataset.sent && c.dataset.sent !== '"
                   + DIM + "'; })")
            referee.wait_for_function(lit, arg=path, timeout=15000)
            phone.wait_for_function(lit, arg=path, timeout=15000)
            OUTPUT.mkdir(exist_ok=True)
            referee.screenshot(path=str(OUTPUT / "referee-table-loop.png"), full_page=True)

            # The follow-up: the table still shows the monster where it was; both screens say so.
            phone.wait_for_selector("#follow-list li:has-text('move the monster from')")
            referee.wait_for_selector("#follow-list li:has-text('move the monster from')")
            leds_page = browser.new_context(viewport={"width": 1024, "height": 700}).new_page()
            leds_page.goto(server.url + "leds")
            leds_page.wait_for_selector("svg.leds[data-showing='follow']", timeout=15000)
            target = session.game.position.to_setup()["monster"]["at"]
            assert leds_page.locator(f"rect[data-square='{target}']").get_attribute("data-sent") != DIM
            camera.reading = FakeReading(True, session.game.position.to_setup(), tile=tile)
            phone.wait_for_selector("#follow", state="hidden")
            phone.wait_for_selector("#log li:has-text('The table matches the game')")
            assert not errors, errors
    finally:
        session.close()


def test_the_referee_board_colours_squares_to_empty_and_to_fill_with_a_legend(browser, tmp_path):
    """During a follow-up the board marks the squares to empty and to fill in two colours of their own
    (not the plain difference colour), with a legend; both go once the table matches."""
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="auto")
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=11)
    setup = session.game.position.to_setup()
    busy = set(setup["stones"]) | set(setup["pools"]) | {setup["monster"]["at"]}
    free = next(sq for sq in ("d3", "d4", "e3", "e4", "d5") if sq not in busy)
    seen = {**setup, "stones": {**{sq: k for sq, k in setup["stones"].items() if sq != "c3"}, free: "stone"}}
    errors: list[str] = []
    with Server(app) as server:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        referee_login(page, server.url)
        camera.reading = FakeReading(True, seen)            # the stone on c3 was put down on the wrong square
        page.wait_for_selector(f"svg.board .sq.to-empty[data-square='{free}']")
        page.wait_for_selector("svg.board .sq.to-fill[data-square='c3']")
        assert page.locator("#follow-legend").is_visible()
        assert "take the piece off" in page.locator("#follow-legend").inner_text()
        assert page.locator("svg.board .sq.diff").count() == 0
        def board_and_legend():
            colours = page.evaluate("""(sqs) => sqs.map((sq) => getComputedStyle(
                document.querySelector(`svg.board .sq[data-square='${sq}']`)).fill)""", [free, "c3"])
            legend = page.evaluate("""() => ['to-empty', 'to-fill'].map((c) => getComputedStyle(
                document.querySelector(`#follow-legend .swatch.${c}`)).backgroundColor)""")
            return colours, legend

        def near(colours, legend):   # the board's SVG filter shifts a colour a little
            rgb = [[[int(v) for v in c[4:-1].split(",")] for c in cs] for cs in (colours, legend)]
            return all(abs(a - b) <= 8 for sq, sw in zip(*rgb) for a, b in zip(sq, sw))

        # the squares' fill has a 0.2 s transition: read it once it has settled
        deadline = time.monotonic() + 5
        colours, legend = board_and_legend()
        while not near(colours, legend) and time.monotonic() < deadline:
            page.wait_for_timeout(100)
            colours, legend = board_and_legend()
        assert colours[0] != colours[1] and near(colours, legend), (colours, legend)
        show_table(camera, session)
        page.wait_for_selector("#follow-legend", state="hidden")
        assert page.locator("svg.board .sq.to-empty, svg.board .sq.to-fill").count() == 0
    assert errors == []


def test_the_referee_board_marks_the_one_square_to_uncover(browser, tmp_path):
    """Red's pawn may have entered onto p11, which the camera cannot see: the answer is asked, not
    guessed, and the referee's board marks p11 as the square to uncover."""
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, mode="auto")
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=11)
    errors: list[str] = []
    with Server(app) as server:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        referee_login(page, server.url)
        show_table(camera, session)
        camera.reading = FakeReading(True, session.game.position.to_setup(), problems=[
            {"code": "hidden-square", "message": "p11 is hidden behind a piece", "square": "p11"}])
        page.wait_for_selector("svg.board .sq.uncover[data-square='p11']")
        assert page.locator("svg.board .sq.uncover").count() == 1
        assert "uncover p11" in page.locator("#camera-why").inner_text()
        show_table(camera, session)
        page.wait_for_selector("svg.board .sq.uncover", state="detached")
    assert errors == []
