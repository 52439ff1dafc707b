"""The referee's hands on the simulated table, in a real browser (TABLE.md "The simulated table":
"the referee can pause them and move the simulated pieces by hand on the referee view").

Real waitress server, real session, the real camera worker filming the simulated table
(``SimulatedRig``): the referee pauses the players with the card's button, moves a stone by
tapping two squares, and the session — which learns of it only through the camera — flags the
squares as a real table's would; moved back and resumed, the players play on.
"""
from __future__ import annotations

import time

from browser_helpers import needs_chromium, referee_login
from companion_app.web.server import Server
from engine.geometry import neighbour, parse_square, square_name
from table_helpers import simulated_table, wait_for
from web_helpers import make_app

pytestmark = needs_chromium
SEED = 28


def free_stone_move(session, rig):
    """A stone with a free orthogonal neighbour, on the table and in the game."""
    pos = session.game.position
    busy = set(pos.stones) | set(pos.teleporters) | set(pos.pools) | {pos.monster} | set(pos.board_pawns())
    for sq in sorted(pos.stones):
        for d in range(4):
            n = neighbour(sq, d)
            if n is not None and n not in busy and rig.table.occupant(n) is None:
                return square_name(sq), square_name(n)
    raise AssertionError("no stone can slide to a free square")


def test_the_referee_pauses_the_players_and_moves_a_piece_by_taps_and_the_camera_sees_it(browser, tmp_path):
    errors: list[str] = []
    with simulated_table(tmp_path, seed=SEED, speed=6, fps=6) as (session, rig):
        app, _ = make_app(tmp_path, session)
        rig.start()
        with Server(app) as server:
            page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            referee_login(page, server.url)
            page.wait_for_selector("#sim-card:not(.hidden) #sim-state:has-text('playing')")
            wait_for(lambda: session.seq >= 1, 120, "a first move read by the camera")

            page.click("#sim-pause")
            page.wait_for_selector("#sim-state:has-text('paused')")
            assert rig.players.paused
            assert page.locator("#sim-pause").inner_text() == "Resume the players"
            assert page.locator("#sim-now").inner_text().startswith("Players: ")   # what they are at (players.now)
            # whatever a player was doing when paused is read (or not) before the referee's hand comes
            wait_for(lambda: rig.players.pending is None or session.loop.view.get("stable"), 60, "a still table")
            time.sleep(1.0)
            wait_for(lambda: session.loop.view.get("stable") and not session.loop.view.get("differences")
                     and session.follow is None, 60, "the camera agreeing with the game")
            seq = session.seq

            frm, to = free_stone_move(session, rig)
            page.click("#sim-move")
            page.click(f"svg.board .sq[data-square='{frm}']")
            page.wait_for_selector(f"svg.board .sq.sim-from[data-square='{frm}']")
            page.click(f"svg.board .sq[data-square='{to}']")
            page.wait_for_selector(f"#sim-hint:has-text('from {frm} to {to}')")
            assert rig.table.occupant(parse_square(to)) is not None and rig.table.occupant(parse_square(frm)) is None

            # The session learns of it only through the camera, and reacts as to a real table.
            page.wait_for_selector(f"#differences li.diff:has-text('{frm}')", timeout=30000)
            page.wait_for_selector(f"#differences li.diff:has-text('{to}')", timeout=30000)
            # the differences show from the first frame that sees them; the refusal once the reading is steady
            page.wait_for_selector("#camera-why:has-text('Cannot confirm')", timeout=30000)
            time.sleep(1.0)
            assert session.seq == seq                       # never applied: no pawn could push it

            # Put back by taps; the camera agrees again; resumed, the players play on.
            page.click(f"svg.board .sq[data-square='{to}']")
            page.click(f"svg.board .sq[data-square='{frm}']")
            page.wait_for_selector(f"#sim-hint:has-text('from {to} to {frm}')")
            page.wait_for_selector("#differences li.ok:has-text('The camera agrees with the game')", timeout=30000)
            page.click("#sim-move")
            page.click("#sim-pause")
            page.wait_for_selector("#sim-state:has-text('playing')")
            wait_for(lambda: session.seq > seq, 120, "the players going on after Resume")
    assert errors == []
    assert rig.players.applied_errors == []
