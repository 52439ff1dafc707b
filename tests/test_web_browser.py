"""Real-browser tests: headless Debian Chromium driven by Playwright against the real waitress server.

The phone view (360 px) must animate the monster's path after the referee,
in a second browser context, resolves the monster's turn.  Screenshots go to
tests/output/ for a human to look at.
"""
from __future__ import annotations

import time

import pytest

from browser_helpers import needs_chromium
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.web.server import Server
from web_helpers import OUTPUT, TOKEN, WifiProxy, longest, make_app, play_pawn_phase, session_with

pytestmark = needs_chromium


@pytest.fixture
def live(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera)
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue", "green"], "red", seed=6)
    with Server(app) as server:
        yield server, session, camera


def login(page, url):
    page.goto(url + "referee")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")


def test_phone_follows_a_monster_move_made_on_the_referee_tablet(browser, live):
    server, session, camera = live
    # A turn of real play, then a pawn phase: the next tile (2 prey) wraps and eats twice.
    play_pawn_phase(session, longest)
    session.act({"type": "draw"})
    play_pawn_phase(session, longest)

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
    # While it moves: the status says so, and the step being drawn is written right under the board.
    assert phone.locator("#summary").inner_text().startswith("The monster moves: ")
    assert phone.locator("#turnline .pill.monster-turn").count() == 1 and phone.locator("#turnline .pill.turn").count() == 0
    now = phone.locator("#now")
    assert now.is_visible() and now.inner_text().startswith("Step ")
    assert now.bounding_box()["y"] < 780                                  # on screen without scrolling
    phone.screenshot(path=str(OUTPUT / "phone-animating.png"), full_page=True)
    phone.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    phone.wait_for_timeout(300)
    phone.screenshot(path=str(OUTPUT / "phone-after.png"), full_page=True)
    assert phone.locator("#now").is_hidden()
    assert phone.locator("#summary").inner_text() == str(session.state()["summary"])

    plan = session.game.last_plan.to_json()
    monster = phone.locator("svg.board .monster")
    assert monster.get_attribute("data-square") == plan["end"]["at"]
    assert monster.get_attribute("data-facing") == plan["end"]["facing"]
    badges = phone.locator("svg.board .step-badge").count()
    assert badges == len(plan["steps"])
    lines = phone.locator("#steps li").all_inner_texts()
    assert lines[0].startswith("Step 1:") and len(lines) == len(session.state()["plan_lines"])
    assert sum("eats" in line for line in lines) == 2 and any("through wall" in line for line in lines)
    for label in plan["eaten"]:                                   # eaten pawns are off the board
        assert phone.locator(f"svg.board .pawn[data-pawn='{label}']").count() == 0
    # Fits a 360 px phone: nothing wider than the screen; readable on a tablet too.
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    phone.set_viewport_size({"width": 800, "height": 1280})
    phone.wait_for_timeout(200)
    assert phone.locator("svg.board").bounding_box()["width"] > 700
    phone.screenshot(path=str(OUTPUT / "phone-view-on-tablet.png"))
    referee.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    seen = session.game.position.to_setup()
    seen["stones"]["g8"] = seen["stones"].pop("g7")         # the camera sees a bumped stone
    camera.reading = FakeReading(True, seen)                # pushed to the referee: no click, no polling
    # still in the monster move's follow-up: g8 is a square to empty, g7 one to fill (their own colours)
    referee.wait_for_selector("svg.board .sq.to-empty[data-square='g8']")
    assert referee.locator("svg.board .sq.to-fill[data-square='g7']").count() == 1
    assert referee.locator("svg.board .sq.to-empty, svg.board .sq.to-fill, svg.board .sq.diff").count() == 2
    referee.click("svg.board .sq[data-square='g8']")              # the referee fixes g8 by tapping it
    referee.select_option("#fix-piece", "empty")
    referee.click("#fix-form button.primary")
    referee.wait_for_selector("svg.board .sq.fixed[data-square='g8']")
    assert session.fixes == {"g8": {"piece": "empty"}}
    # A square the camera cannot see (behind the monster) is shown as such, not as "empty".
    hidden_pawn = next(p for p in seen["pawns"].values() if p["at"])
    del seen["pawns"][next(k for k, p in seen["pawns"].items() if p is hidden_pawn)]
    camera.reading = FakeReading(True, seen, problems=[{"code": "hidden-square", "square": hidden_pawn["at"],
                                                        "message": "hidden behind a piece"}])
    referee.wait_for_selector(f"svg.board .sq.unseen[data-square='{hidden_pawn['at']}']")
    unseen = f"{hidden_pawn['at']}: the camera cannot see this square"
    assert referee.locator(f"#differences li:has-text('{unseen}')").count() == 1
    assert referee.locator(f"svg.board .sq:is(.diff, .to-empty)[data-square='{hidden_pawn['at']}']").count() == 0
    referee.click("#preview-btn")
    referee.wait_for_selector(".preview-row")
    referee.screenshot(path=str(OUTPUT / "referee-tablet.png"), full_page=True)
    # The referee undoes the monster move: the preview made for the later position goes, and the
    # earlier monster move that comes back with the undo is shown, not animated again.
    referee.click("#undo")
    phone.wait_for_selector("#summary:has-text('reveal the monster')")
    referee.wait_for_selector(".preview-row", state="detached")
    phone.wait_for_timeout(400)
    assert session.state()["plan_seq"] is not None                  # an earlier plan is the last one again
    assert phone.locator("svg.board").get_attribute("data-anim") == "done"
    assert phone.locator("#now").is_hidden()
    assert not errors
    phone.context.close()
    referee.context.close()


def test_referee_on_a_phone_or_upright_tablet_gets_the_controls_right_after_the_board(browser, live):
    server, session, _ = live
    for width, height in ((360, 740), (768, 1024)):
        page = browser.new_context(viewport={"width": width, "height": height}, has_touch=True).new_page()
        login(page, server.url)
        page.wait_for_selector(".pawn-btn")
        assert page.evaluate("document.documentElement.scrollWidth") <= width      # nothing sticks out
        assert page.locator("#logout").bounding_box()["x"] + page.locator("#logout").bounding_box()["width"] <= width
        board = page.locator("#board-card").bounding_box()
        pawns, move = page.locator("#pawn-card").bounding_box(), page.locator("#move").bounding_box()
        assert board["y"] < pawns["y"] < move["y"]                          # board, then what to do, then the log
        assert pawns["y"] < page.locator("#monster-card").bounding_box()["y"]   # pawn phase: pawns first
        assert pawns["width"] > width * 0.9                                   # full width, not a narrow column
        page.screenshot(path=str(OUTPUT / f"referee-{width}px.png"))
        page.fill("#rule-id", "")
        page.click("#rule-form button")
        page.wait_for_selector("#rule-text .error:has-text('Type a rule id such as M4')")
        page.fill("#rule-id", "m8")
        page.click("#rule-form button")
        page.wait_for_selector("#rule-text h3:has-text('Pools')")
        if width == 768:                                                     # the monster's turn: its card first
            play_pawn_phase(session, longest)
            page.wait_for_selector("#draw:not([disabled])")
            assert page.locator("#monster-card").bounding_box()["y"] < page.locator("#pawn-card").bounding_box()["y"]
        page.context.close()


def test_referee_before_any_game_is_led_to_the_new_game_form(browser, tmp_path):
    session = session_with(tmp_path)                                      # no game, no camera
    app, _ = make_app(tmp_path, session)
    with Server(app) as server:
        page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
        login(page, server.url)
        page.wait_for_selector("#summary:has-text('No game yet')")
        page.wait_for_selector("#camera-card li:has-text('no camera in this test')")
        assert page.locator("#camera-confirm").is_disabled() and page.locator("#camera-clear").is_disabled()
        assert "No game is running yet" in page.locator("#camera-why").inner_text()       # says why
        assert page.locator("#differences li:has-text('agrees with the game')").count() == 0
        assert not page.locator("#start-game").is_visible() or page.locator("#start-game").bounding_box()["y"] > 768
        page.click("#goto-new-game")
        page.wait_for_function("() => { const r = document.querySelector('#start-game').getBoundingClientRect();"
                               " return r.top >= 0 && r.bottom <= innerHeight; }")
        page.click(".colour-btn[data-colour='red']")
        page.click(".colour-btn[data-colour='blue']")
        page.click("#start-game")
        page.wait_for_selector("#pawn-title:has-text('Red moves a pawn')")
        assert session.game.players == ("red", "blue")
        page.context.close()


def test_referee_login_refuses_a_wrong_pin_and_phone_reconnects(browser, live):
    server, session, _ = live
    page = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    page.goto(server.url + "referee")
    page.fill("#pin", "000000")
    page.click("#login-form button")
    page.wait_for_selector("#login-error:has-text('Wrong PIN')")
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")
    page.wait_for_selector("#qr svg")
    # A new game from the tablet: four players, blue first, advanced setup.
    page.click("#new-game summary")
    for colour in ("yellow", "blue", "green", "red"):
        page.click(f".colour-btn[data-colour='{colour}']")
    page.select_option("#first-player", "blue")
    page.select_option("#setup", "advanced")
    assert page.locator("#variant").is_disabled()                # G11 is for 6–7 players only
    asked = []
    page.once("dialog", lambda d: (asked.append(d.message), d.accept()))   # a game is running: confirm
    page.click("#start-game")
    page.wait_for_selector("#summary:has-text('Advanced setup: blue places')")
    assert session.game.players == ("yellow", "blue", "green", "red") and session.game.setup == "advanced"
    assert asked and "A game is running" in asked[0]
    page.select_option("#place-piece", "teleporter")             # only the teleporter's own choices show
    assert page.locator("#place-arrow").is_visible() and page.locator("#place-orientation").is_hidden()
    page.select_option("#place-piece", "crystal")
    assert page.locator("#place-arrow").is_hidden() and page.locator("#place-pair").is_hidden()
    page.click("svg.board .sq[data-square='g7']")               # tap to place (A2)
    page.wait_for_selector("svg.board .crystal")
    assert session.game.position.to_setup()["stones"] == {"g7": "crystal"}
    # Two teleporters of pair 1 on the board: pair 2 is offered next.
    session.act({"type": "place", "piece": "teleporter", "square": "c3", "arrow": "N", "pair": 1})
    session.act({"type": "place", "piece": "teleporter", "square": "k8", "arrow": "S", "pair": 1})
    page.wait_for_selector("svg.board .teleporter >> nth=1")
    page.select_option("#place-piece", "teleporter")
    assert page.locator("#place-pair").input_value() == "2"
    session.new_game(["red", "blue", "green"], "red", seed=6)
    # Pawn moves from the tablet: pick the pawn, its targets light up, tap one.
    page.click(".pawn-btn[data-pawn='red-2/5']")
    page.wait_for_selector("svg.board .sq.target[data-square='p9']")
    page.click("svg.board .sq[data-square='p9']")
    page.wait_for_selector("#pawn-title:has-text('Blue moves a pawn')")
    assert session.game.position.pawn("red-2/5").where() == "p9"
    # A phone whose stream is cut catches up by itself.
    phone = browser.new_context(viewport={"width": 360, "height": 700}).new_page()
    phone.goto(server.url)
    phone.wait_for_selector(".link.live")
    session.broker.close_all()          # the server drops every stream, as a Wi-Fi drop would
    session.act({"type": "move", "pawn": "blue-6/1", "moves": "I"})
    phone.wait_for_selector("#summary:has-text('green moves')", timeout=10000)
    phone.wait_for_selector(".link.live")
    assert phone.locator("svg.board .pawn[data-pawn='blue-6/1']").get_attribute("data-square") == "p11"
    phone.context.close()
    page.context.close()


def test_winner_screen_on_phone_and_round_screen_on_tablet(browser, live):
    server, session, _ = live
    referee = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    login(referee, server.url)
    while session.game.round == 1:                                # round 1 at the table
        play_pawn_phase(session, longest)
        session.act({"type": "draw"})
    referee.wait_for_selector("#banner:not(.hidden) #banner-title:has-text('Round 2 begins')", timeout=30000)
    referee.screenshot(path=str(OUTPUT / "referee-round-2.png"))
    while session.game.phase != "over":
        play_pawn_phase(session, longest)
        session.act({"type": "draw"})
    phone = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2).new_page()
    phone.goto(server.url)
    phone.wait_for_selector("#winner:not(.hidden)")
    title = phone.locator("#winner-title").inner_text()
    winner = session.game.winner
    assert title == ("The monster wins" if winner == "monster" else f"{winner.capitalize()} wins!")
    phone.screenshot(path=str(OUTPUT / "phone-winner.png"))
    # the dialog leaves the language switch usable (a click on it is not intercepted by the dialog)
    phone.click(".langs a[hreflang=fr]", timeout=3000)
    phone.wait_for_selector("html[lang=fr] #winner:not(.hidden)")
    assert phone.locator("#winner .eyebrow").text_content() == "Partie terminée"
    phone.click("#winner-close")
    phone.wait_for_selector("#winner", state="hidden")
    phone.context.close()
    referee.context.close()


def test_the_round_screen_of_a_finished_game_goes_when_another_game_starts(browser, live):
    """The demo cycle starts the next game unattended: the last game's round screen used to stay over it."""
    server, session, _ = live
    referee = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    login(referee, server.url)
    while session.game.round == 1:
        play_pawn_phase(session, longest)
        session.act({"type": "draw"})
    referee.wait_for_selector("#banner:not(.hidden) #banner-title:has-text('Round 2 begins')", timeout=30000)
    session.new_game(["red", "blue"], "blue", seed=7)
    referee.wait_for_selector("#turnline:has-text('Round 1')", timeout=10000)
    referee.wait_for_selector("#banner", state="hidden", timeout=5000)
    referee.context.close()


def test_phone_reconnects_by_itself_after_a_silent_wifi_drop_and_catches_up(browser, live):
    """The connection goes dead without closing; the page notices the missing pings and reconnects."""
    server, session, _ = live
    server.app.config["SSE_HEARTBEAT"] = 0.3
    proxy = WifiProxy(server.port)
    try:
        context = browser.new_context(viewport={"width": 360, "height": 700})
        context.add_init_script("window.FLURE_SILENCE_MS = 2000;")
        phone = context.new_page()
        phone.goto(proxy.url)
        phone.wait_for_selector(".link.live")
        proxy.drop()                                          # Wi-Fi gone: nothing arrives, nothing closes
        play_pawn_phase(session, longest)
        session.act({"type": "draw"})                         # the monster moves while the phone is away
        phone.wait_for_selector(".link.reconnecting", timeout=10000)
        phone.wait_for_selector("svg.board[data-anim='running']", timeout=15000)   # it shows what it missed
        phone.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
        assert phone.locator("svg.board .monster").get_attribute("data-square") == session.game.position.to_setup()[
            "monster"]["at"]
        assert phone.locator(".link").inner_text() == "live"
        context.close()
    finally:
        proxy.close()


def test_a_phone_that_opens_the_page_as_wifi_drops_still_gets_the_board(browser, live):
    """The page loaded but the board geometry did not come: it asks again instead of staying blank."""
    server, session, _ = live
    page = browser.new_context(viewport={"width": 360, "height": 700}).new_page()
    tries = []

    def flaky(route):
        tries.append(route.request.url)
        if len(tries) == 1:
            route.abort("internetdisconnected")
        else:
            route.continue_()
    page.route("**/api/board", flaky)
    page.goto(server.url)
    page.wait_for_selector(".link.reconnecting")
    page.wait_for_selector("svg.board .monster", timeout=10000)
    page.wait_for_selector(".link.live")
    assert len(tries) == 2
    assert page.locator("#summary").inner_text() == str(session.state()["summary"])
    page.context.close()


SET_HIDDEN = """(hidden) => {
  Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
  Object.defineProperty(document, "visibilityState", { configurable: true, get: () => hidden ? "hidden" : "visible" });
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def test_a_locked_phone_shows_the_monster_move_when_it_is_unlocked(browser, live):
    """A hidden page runs timers slowly: the move must not crawl on in the background, but play on return,
    also when the phone was locked in the middle of it."""
    server, session, _ = live
    page = browser.new_context(viewport={"width": 360, "height": 700}).new_page()
    page.goto(server.url)
    page.wait_for_selector(".link.live")
    play_pawn_phase(session, longest)
    page.wait_for_selector("#summary:has-text('every pawn has moved')")
    page.evaluate(SET_HIDDEN, True)                                  # the phone is locked
    session.act({"type": "draw"})
    page.wait_for_timeout(700)
    assert page.locator("svg.board").get_attribute("data-anim") is None      # nothing started in the background
    page.evaluate(SET_HIDDEN, False)                                 # unlocked
    page.wait_for_selector("svg.board[data-anim='running']", timeout=3000)
    page.wait_for_selector("#steps li.current[data-step='1']")
    page.evaluate(SET_HIDDEN, True)                                  # locked again mid-move
    assert page.locator("svg.board").get_attribute("data-anim") == "stopped"
    page.evaluate(SET_HIDDEN, False)
    page.wait_for_selector("svg.board[data-anim='running']", timeout=3000)   # the whole move again
    page.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    end = session.game.last_plan.to_json()["end"]
    assert page.locator("svg.board .monster").get_attribute("data-square") == end["at"]
    assert page.locator("#summary").inner_text() == str(session.state()["summary"])
    page.context.close()


REPLAY = """async ([plan, geometry]) => {
  const box = document.createElement("div");
  document.body.appendChild(box);
  const board = new Flure.FlureBoard(box, geometry, { stepMs: 40 });
  const realDraw = board.draw.bind(board);
  let draws = 0;
  board.draw = (setup) => { if (++draws === 1) realDraw(setup); };   // keep the replayed result, not the redraw
  await board.animate(plan);
  await new Promise((r) => setTimeout(r, 700));
  const at = (n) => n.dataset.square;
  return {
    monster: [at(board.monsterNode), board.monsterNode.dataset.facing],
    stones: [...box.querySelectorAll(".piece.stone:not(.destroyed)")].map(at).sort(),
    pawns: Object.fromEntries([...box.querySelectorAll(".piece.pawn:not(.eaten)")].map((n) => [n.dataset.pawn, at(n)])),
  };
}"""


@pytest.mark.parametrize("name,kinds", [("official-monster-advanced", {"push", "pivot", "teleport", "eat"}),
                                        ("official-monster-basic-wall", {"push", "wrap", "eat"})])
def test_the_animation_replays_the_plan_events_to_the_engine_result(browser, live, shared_dir, name, kinds):
    """The browser replays the plan's events alone (no final redraw) and must land on the engine's position."""
    import json as _json

    from engine.monster import resolve
    from engine.position import Position

    server, _, _ = live
    scenario = _json.loads((shared_dir / "scenarios" / f"{name}.json").read_text())
    plan = resolve(Position.from_setup(scenario["setup"]), scenario["action"]["card"]).to_json()
    assert kinds <= {e["kind"] for s in plan["steps"] for e in s["events"]}
    page = browser.new_context(bypass_csp=True).new_page()     # only to call the page's own code from the test
    page.goto(server.url)
    page.wait_for_selector("svg.board")
    geometry = _json.loads(page.locator("body").evaluate("() => fetch('/api/board').then(r => r.text())"))
    got = page.evaluate(REPLAY, [plan, geometry])
    end = plan["position"]
    assert got["monster"] == [end["monster"]["at"], end["monster"]["facing"]]
    assert got["stones"] == sorted(end["stones"])
    assert got["pawns"] == {k: p["at"] for k, p in end["pawns"].items() if p["at"]}
    page.context.close()


def test_a_draw_whose_answer_the_wifi_lost_is_sent_again_and_played_once(browser, live):
    """Retries and the journal: the tablet's draw reaches the server and is played, but its
    answer is lost on the way back; the tablet sends it again with the same key and state version and
    gets the first answer — one monster move.  A request made against a state the table has left
    (another screen acted) is refused, not played."""
    server, session, _ = live
    play_pawn_phase(session, longest)
    referee = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors, sent, answers = [], [], []
    referee.on("pageerror", lambda e: errors.append(str(e)))
    login(referee, server.url)
    referee.wait_for_selector("#draw:not([disabled])")

    def lose_the_first_answer(route):
        sent.append(route.request.headers)
        if len(sent) == 1:
            route.fetch()          # the server gets it and plays it …
            route.abort()          # … and the answer never reaches the tablet
        else:
            route.continue_()
    seen = session.version                  # the state the tablet acts on
    referee.route("**/api/action", lose_the_first_answer)
    referee.on("response", lambda r: answers.append(r) if r.url.endswith("/api/action") else None)
    referee.click("#draw")
    referee.wait_for_function("document.querySelector('svg.board')", timeout=5000)
    deadline = time.monotonic() + 10
    while not answers and time.monotonic() < deadline:
        referee.wait_for_timeout(100)
    assert len(sent) == 2 and sent[0]["idempotency-key"] == sent[1]["idempotency-key"]
    assert sent[0]["flure-state-version"] == sent[1]["flure-state-version"]      # the state it acted on …
    assert int(sent[0]["flure-state-version"]) <= seen                           # … before the draw
    assert answers and answers[0].status == 200 and answers[0].headers["idempotent-replayed"] == "true"
    assert len(session.game.tiles_played) == 1
    referee.unroute("**/api/action")

    status = referee.evaluate("""async () => {
        const who = await (await fetch('/api/whoami')).json();
        const r = await fetch('/api/undo', {method: 'POST', headers: {'Content-Type': 'application/json',
          'X-CSRF-Token': who.csrf, 'Flure-State-Version': '1'}, body: '{}'});
        return [r.status, (await r.json()).error];
    }""")
    assert status[0] == 409 and status[1].startswith("The table moved on")
    assert len(session.game.tiles_played) == 1 and not errors
