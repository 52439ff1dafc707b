"""Everyone at the table can follow, in headless Chromium against the real server: a referee's
whole turn with the keyboard alone (log in, move every pawn, draw the monster's tile, fix a square the
camera misread), the PIN dialog keeping the focus, the skip link, visible focus, reduced motion
honoured on the phone, and the board's small texts readable (WCAG contrast, which axe-core cannot
decide on SVG)."""
from __future__ import annotations

import time

import pytest

from browser_helpers import SPEECH_STUB, needs_chromium
from companion_app.palette import PLAYERS
from companion_app.table.devices.fakes import FakeCamera
from companion_app.web.server import Server
from test_palette import contrast
from web_helpers import OUTPUT, TOKEN, longest, make_app, play_pawn_phase, session_with, show_table

pytestmark = needs_chromium

ACTIVE = """() => { const a = document.activeElement;
  return { tag: a.tagName.toLowerCase(), id: a.id, square: a.dataset ? a.dataset.square || null : null,
           inLogin: !!a.closest("#login"), inFix: !!a.closest("#fix"), outline: getComputedStyle(a).outlineStyle,
           outlineWidth: parseFloat(getComputedStyle(a).outlineWidth) }; }"""


@pytest.fixture
def live(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera)
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue", "green"], "red", seed=6)
    show_table(camera, session)
    with Server(app) as server:
        yield server, session, camera


def active(page) -> dict:
    return page.evaluate(ACTIVE)


def tab_to(page, selector: str, limit: int = 300) -> None:
    """Press Tab until the focused element matches ``selector`` (reachable by keyboard alone)."""
    for _ in range(limit):
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {selector}; the focus is on {active(page)}")


def until(check, timeout: float = 10.0, what: str = "the page"):
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not get there in {timeout:g} s")
        time.sleep(0.05)
    return value


def test_a_referee_plays_a_whole_turn_with_the_keyboard_alone(browser, live):
    server, session, camera = live
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.url + "referee")
    page.wait_for_selector("#login:not(.hidden)")
    # The PIN dialog is modal: the focus starts in it and Tab goes round inside it, never to the page behind.
    until(lambda: active(page)["id"] == "pin", what="the focus in the PIN field")
    for _ in range(5):
        page.keyboard.press("Tab")
        assert active(page)["inLogin"], active(page)
    for _ in range(3):
        page.keyboard.press("Shift+Tab")
        assert active(page)["inLogin"], active(page)
    tab_to(page, "#pin")
    page.keyboard.type(TOKEN)
    page.keyboard.press("Enter")
    page.wait_for_selector("#login", state="hidden")
    page.wait_for_selector(".pawn-btn")

    # Every pawn of the turn: the pawn's button, then where it goes, by Tab and Enter.
    moves = 0
    while session.game.phase == "pawns":
        seq = session.seq
        tab_to(page, ".pawn-btn")
        page.keyboard.press("Enter")
        page.wait_for_selector("#target-buttons button")
        assert page.evaluate("() => document.activeElement.matches('.pawn-btn[aria-pressed=\"true\"]')")
        tab_to(page, "#target-buttons button")
        look = active(page)
        assert look["outline"] != "none" and look["outlineWidth"] >= 2, look     # the focus is visible
        page.keyboard.press("Enter")
        until(lambda: session.seq > seq, what="the pawn's move")
        moves += 1
    assert moves >= 3 and session.game.phase == "monster"

    # The monster's tile: the virtual deck's button.
    page.wait_for_selector("#draw:not([disabled])")
    tab_to(page, "#draw")
    page.keyboard.press("Enter")
    until(lambda: session.game.phase == "pawns", what="the monster's move")
    page.wait_for_selector("svg.board[data-anim='done']", timeout=30000)

    # Fixing a square the camera misread: one Tab stop on the board, the arrows to the square, Enter.
    tab_to(page, "svg.board .sq")
    start = active(page)["square"]
    assert start == "a1" and page.locator("svg.board .sq[tabindex='0']").count() == 1
    page.keyboard.press("ArrowRight")
    assert active(page)["square"] == "b1"
    page.keyboard.press("ArrowDown")
    assert active(page)["square"] == "b2"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowUp")
    assert active(page)["square"] == "a1"
    page.keyboard.press("End")                                      # the row's last square
    assert active(page)["square"] == "l1"
    page.keyboard.press("Home")
    for _ in range(6):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    square = active(page)["square"]
    assert square == "c7"
    label = page.get_attribute("svg.board .sq[data-square='c7']", "aria-label")
    assert label.startswith("c7") and page.locator("svg.board .focus-ring:not(.hidden)").count() == 1
    page.keyboard.press("Enter")
    page.wait_for_selector("#fix:not(.hidden)")
    assert until(lambda: active(page)["inFix"], what="the focus in the fix dialog")
    page.keyboard.press("Escape")                                   # Escape cancels, the focus comes back
    page.wait_for_selector("#fix", state="hidden")
    assert active(page)["square"] == square
    page.keyboard.press(" ")                                        # Space acts as Enter does
    page.wait_for_selector("#fix:not(.hidden)")
    until(lambda: active(page)["id"] == "fix-piece", what="the focus on the piece")
    page.keyboard.press("s")                                        # the select's first "s…" option: stone
    assert page.input_value("#fix-piece") == "stone"
    tab_to(page, "#fix-form button.primary")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"svg.board .sq.fixed[data-square='{square}']")
    assert session.fixes == {square: {"piece": "stone"}}
    assert active(page)["square"] == square
    assert "fixed by hand" in page.get_attribute(f"svg.board .sq[data-square='{square}']", "aria-label")
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "keyboard-referee.png"))
    assert not errors
    page.context.close()


def test_the_skip_link_is_the_first_stop_and_leads_to_the_page(browser, live):
    server, _, _ = live
    page = browser.new_context(viewport={"width": 360, "height": 780}).new_page()
    for path, ready in (("", "svg.board .monster"), ("leds", "#leds-panel svg"), ("rules", "article.rule")):
        page.goto(server.url + path)
        page.wait_for_selector(ready)
        page.keyboard.press("Tab")
        link = page.locator(":focus")
        assert link.get_attribute("class") == "skip-link" and link.is_visible()
        assert link.bounding_box()["y"] >= 0                          # shown once focused
        page.keyboard.press("Enter")
        assert active(page)["id"] == "main", path
    # the current language's link is marked otherwise than by the focus ring
    page.goto(server.url + "?lang=fr")
    current = page.locator(".langs a[aria-current='true']")
    assert current.evaluate("a => getComputedStyle(a).outlineStyle") == "none"
    current.focus()
    assert current.evaluate("a => getComputedStyle(a).outlineStyle") != "none"
    page.context.close()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_phone_honours_reduced_motion(browser, live, motion):
    server, session, _ = live
    play_pawn_phase(session, longest)
    context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True)
    context.add_init_script(SPEECH_STUB)
    page = context.new_page()
    page.emulate_media(reduced_motion=motion)
    page.goto(server.url)
    page.wait_for_selector(".link.live")
    page.wait_for_selector("svg.board .monster")
    page.click("#speak")
    page.evaluate("""() => { window.__anim = []; const svg = document.querySelector("svg.board");
      new MutationObserver(() => window.__anim.push(svg.dataset.anim))
        .observe(svg, { attributes: true, attributeFilter: ["data-anim"] }); }""")
    session.act({"type": "draw"})
    started = time.monotonic()
    page.wait_for_selector("svg.board[data-anim='done']", timeout=30000)
    took = time.monotonic() - started
    lines = [str(line) for line in session.state()["plan_lines"]]   # (wording data: the English page says it)
    seen = page.evaluate("window.__anim")
    piece = page.evaluate("() => getComputedStyle(document.querySelector('svg.board .monster')).transitionDuration")
    page.wait_for_timeout(300)
    steps = page.locator("#steps li").all_inner_texts()
    spoken = [s["text"] for s in page.evaluate("window.__spoken")]
    if motion == "reduce":
        assert "running" not in seen and took < 2.5, (seen, took)   # no travel: the move shown at once
        assert piece == "0s"                                          # and nothing glides
    else:
        assert "running" in seen and piece != "0s"
    # either way every step is listed and spoken, and the board ends where the plan does
    plan = session.game.last_plan.to_json()
    assert steps == lines and spoken == lines[:len(plan["steps"])]
    assert page.get_attribute("svg.board .monster", "data-square") == plan["end"]["at"]
    assert page.locator("svg.board .step-badge").count() == len(plan["steps"])
    page.screenshot(path=str(OUTPUT / f"phone-motion-{motion}.png"), full_page=True)
    context.close()


SQUARE_TEXTS = """() => {
  const out = [];
  const classes = ["", "exit", "entrance", "target", "diff", "to-empty", "to-fill", "sim-from", "fixed", "unseen"];
  const rects = Array.from(document.querySelectorAll("svg.board .sq"));
  for (const cls of classes) {
    for (const rect of rects.slice(0, 2)) {
      if (cls) rect.classList.add(cls);
      const text = rect.nextElementSibling;
      out.push([cls || "plain", rect.dataset.square, getComputedStyle(rect).fill, getComputedStyle(text).fill]);
      if (cls) rect.classList.remove(cls);
    }
  }
  for (const pawn of document.querySelectorAll("svg.board .pawn")) {
    const body = pawn.querySelector(pawn.classList.contains("face-black") ? ".pawn-black-face" : ".pawn-body");
    out.push([pawn.dataset.pawn, pawn.dataset.square, getComputedStyle(body).fill,
              getComputedStyle(pawn.querySelector(".pawn-value")).fill]);
  }
  return out;
}"""


def rgb_hex(css: str) -> str:
    r, g, b = (int(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    return f"#{r:02x}{g:02x}{b:02x}"


def test_the_board_s_small_texts_are_readable(browser, live):
    """Square names on every kind of square, and every pawn's number, at 4.5:1 at least (WCAG AA)."""
    server, session, _ = live
    play_pawn_phase(session, longest)
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(server.url)
    page.wait_for_selector("svg.board .pawn")
    found = page.evaluate(SQUARE_TEXTS)
    pawns = [row for row in found if row[0] not in ("plain", "exit", "entrance", "target", "diff", "to-empty",
                                                     "to-fill", "sim-from", "fixed", "unseen")]
    assert {session.game.position.pawn(label).colour for label, *_ in pawns} == {"red", "blue", "green"}
    low = [(what, sq, rgb_hex(back), rgb_hex(ink), round(contrast(rgb_hex(back), rgb_hex(ink)), 2))
           for what, sq, back, ink in found if contrast(rgb_hex(back), rgb_hex(ink)) < 4.5]
    assert low == []
    for label, _, back, _ in pawns:   # each pawn's body in its colour's screen fill (palette.py)
        pawn = session.game.position.pawn(label)
        if pawn.face == "white":
            assert rgb_hex(back) == PLAYERS[pawn.colour][0]
    page.context.close()
