"""The pages' side of the lighter streams (issue 22), in headless Chromium against the real server:
a phone that lost the Wi-Fi mid-game and came back shows what a phone that never dropped shows,
and the LED mirror animates the grid's idle breathing itself, in step with the frames the grid is sent.

Real waitress server, real session and SQLite, the real LED grid on its built-in emulator.
Screenshots go to tests/output/.
"""
from __future__ import annotations

import time

import numpy as np

from browser_helpers import needs_chromium, referee_login
from companion_app.web.server import Server
from engine.geometry import parse_square
from hardware.animation import IdleShow
from hardware.power import cap_current
from web_helpers import OUTPUT, WifiProxy, longest, play_pawn_phase, with_led_grid

pytestmark = needs_chromium

# What a phone shows: the status lines, the cards' text, the pieces on the board and the LED mirror.
SHOWN = """() => ({
  summary: document.querySelector('#summary').innerText,
  turnline: document.querySelector('#turnline').innerText,
  tiles: document.querySelector('#tiles').innerText,
  players: document.querySelector('#players').innerText,
  log: document.querySelector('#log').innerText,
  steps: document.querySelector('#steps').innerText,
  table: document.querySelector('#table-card').innerText,
  pieces: [...document.querySelectorAll('svg.board [data-square]:not(.sq)')]
    .map((p) => `${p.getAttribute('class')} ${p.dataset.pawn || ''} ${p.dataset.square}`).sort(),
  leds: Object.fromEntries([...document.querySelectorAll('#leds-panel rect')]
    .map((r) => [r.dataset.square, r.dataset.sent])),
})"""


def animated(frame: dict) -> set[str]:
    """The squares the animation of a frame as the pages get it (``LedGrid.wire_frame``) moves (the pages
    draw them by the clock, a frame apart)."""
    return {sq for part in frame.get("anim", {}).get("parts", ()) for sq in part["squares"]}


def settle(page) -> None:
    page.wait_for_function("() => !document.querySelector('svg.board').dataset.anim || "
                           "document.querySelector('svg.board').dataset.anim === 'done'", timeout=60000)


def test_a_phone_back_from_a_wifi_drop_mid_game_shows_what_a_phone_that_never_dropped_shows(browser, tmp_path):
    app, session = with_led_grid(tmp_path, ("red", "blue", "green"), seed=6)
    errors: list[str] = []
    with Server(app) as server:
        server.app.config["SSE_HEARTBEAT"] = 0.3
        proxy = WifiProxy(server.port)
        phones = []
        try:
            for url in (server.url, proxy.url):
                context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True)
                context.add_init_script("window.FLURE_SILENCE_MS = 2000;")
                page = context.new_page()
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(url)
                page.wait_for_selector(".link.live")
                phones.append(page)
            steady, dropped = phones
            play_pawn_phase(session, longest)
            session.act({"type": "draw"})                 # a monster move both phones see
            for page in phones:
                page.wait_for_selector("svg.board[data-anim='done']", timeout=60000)
            proxy.drop()                                  # the second phone's Wi-Fi goes silent
            play_pawn_phase(session, longest)
            session.act({"type": "draw"})
            session.undo()                                # the log is rebuilt, not only added to
            session.act({"type": "draw"})
            game = session.game
            label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
            session.act({"type": "move", "pawn": label, "moves": game.targets(label)[0]["moves"]})
            dropped.wait_for_selector(".link.reconnecting", timeout=15000)
            dropped.wait_for_selector(".link.live", timeout=15000)
            for page in phones:
                page.wait_for_function("(seq) => [...document.querySelectorAll('#log li')]"
                                       ".some((li) => li.dataset.seq === String(seq))", arg=session.seq, timeout=30000)
                settle(page)
            time.sleep(0.5)
            moving = animated(session.leds.obj.wire_frame())
            seen = [page.evaluate(SHOWN) for page in phones]
            for shown in seen:
                shown["leds"] = {sq: hex for sq, hex in shown["leds"].items() if sq not in moving}
            assert seen[0] == seen[1]
            assert seen[0]["summary"] == str(session.state()["summary"])
            sent = session.led_frame()["squares"]
            assert seen[0]["leds"] == {sq: hex for sq, hex in sent.items() if sq not in moving}
            OUTPUT.mkdir(exist_ok=True)
            steady.screenshot(path=str(OUTPUT / "wire-phone-never-dropped.png"), full_page=True)
            dropped.screenshot(path=str(OUTPUT / "wire-phone-reconnected.png"), full_page=True)
            assert not errors, errors
        finally:
            for page in phones:
                page.context.close()
            proxy.close()
    session.close()


def test_the_led_mirror_breathes_in_step_with_the_grid_without_a_frame_a_tick(browser, tmp_path):
    """Yellow plays first: at the top of its breath the board draws more than the power budget, and the grid
    is sent every square dimmed (hardware/power.py); the pages dim it the same, by themselves."""
    app, session = with_led_grid(tmp_path, ("yellow", "red"))
    with Server(app) as server:
        pages = {}
        for name, path, size in (("leds", "leds", (1024, 700)), ("phone", "", (360, 780)),
                                 ("referee", "referee", (1280, 900))):
            page = browser.new_context(viewport={"width": size[0], "height": size[1]}).new_page()
            if name == "referee":
                referee_login(page, server.url)
            else:
                page.goto(server.url + path)
            pages[name] = page
        for page in pages.values():
            page.wait_for_selector("#leds-panel svg.leds[data-showing='idle']", timeout=15000)
        frame = session.leds.obj.wire_frame()
        border = sorted(animated(frame))
        assert len(border) >= 30 and frame["anim"]["parts"][0]["kind"] == "pulse"
        grid = session.leds.obj
        show = IdleShow("yellow", session.game.position.to_setup())     # the grid's show, drawn again here

        def sent_at(t: float) -> np.ndarray:
            """What the grid is sent at ``t`` seconds into the show (after the power cap), square by square."""
            return grid.layout.to_canvas(cap_current(grid.layout.to_strip(show.frame_at(max(t, 0.0))), grid.config.power))

        squares = [parse_square(sq) for sq in border]
        levels, capped = set(), 0
        for _ in range(16):                               # four seconds: one whole breath
            time.sleep(0.25)
            capped += any(sent_at(t).sum() < show.frame_at(t).sum() for t in (1.8, 2.0, 2.2))
            for page in pages.values():
                t = grid.wire_frame()["anim"]["t"]
                shown = page.evaluate("(sqs) => sqs.map((sq) => document.querySelector("
                                      "`#leds-panel rect[data-square='${sq}']`).dataset.sent)", border)
                # the page's clock and the grid's thread run apart on a busy machine: a frame the grid
                # sends within a second of now, to a unit
                around = np.stack([sent_at(t + d)[squares] for d in np.arange(-1.0, 1.0, 0.02)]).astype(int)
                mirror = np.array([[int(hex[i:i + 2], 16) for i in (0, 2, 4)] for hex in shown])
                assert ((around.min(axis=0) - 1 <= mirror) & (mirror <= around.max(axis=0) + 1)).all(), (
                    border, shown, around.min(axis=0).tolist(), around.max(axis=0).tolist())
                levels.add(shown[0])
        assert len(levels) >= 4                           # it did breathe on the pages
        assert capped                                     # and the cap dimmed the grid meanwhile
        OUTPUT.mkdir(exist_ok=True)
        for name, page in pages.items():
            page.screenshot(path=str(OUTPUT / f"wire-leds-{name}.png"), full_page=True)
    session.close()
