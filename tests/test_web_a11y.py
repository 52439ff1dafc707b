"""Everyone at the table can follow: axe-core over the six views in English and French.

axe-core comes from the npm registry (tests/a11y/package.json, installed by ``deploy/bootstrap.sh --dev``
with ``npm ci``); it runs inside headless Chromium on the real server's pages, and any violation fails.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from browser_helpers import needs_chromium, referee_login
from web_helpers import OUTPUT, served_game

pytestmark = needs_chromium

AXE = Path(__file__).resolve().parent / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
RUN_AXE = """async () => {
  const r = await axe.run(document, { resultTypes: ["violations"] });
  return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + ": "
                              + n.failureSummary.split("\\n").slice(0, 3).join(" ")).slice(0, 6) }));
}"""


def axe_violations(page) -> list[dict]:
    """axe-core's violations on ``page`` as it is now (WCAG 2.x A/AA and best practices)."""
    assert AXE.exists(), f"{AXE} is missing: run `bash deploy/bootstrap.sh --dev` (npm ci in tests/a11y)"
    page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    with served_game(tmp_path_factory.mktemp("a11y"), monster_moved=True) as (server, session):
        yield server, session


VIEWS = {   # name: (path, log in first, a selector that shows the page is drawn)
    "phone": ("", False, "svg.board .monster"),
    "referee-login": ("referee", False, "#login:not(.hidden) #pin"),
    "referee": ("referee", True, "#join-url:not(:empty)"),
    "leds": ("leds", False, "#leds-panel svg.leds"),
    "setup": ("setup", True, "#doctor-list li"),
    "rules": ("rules", False, "article.rule"),
}


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("view", VIEWS)
def test_axe_finds_nothing(browser, table, view, lang):
    server, _ = table
    path, log_in, ready = VIEWS[view]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    if log_in:
        referee_login(page, server.url, path)
    page.goto(f"{server.url}{path}?lang={lang}")
    # the join link is filled in even when its card has folded itself (a phone joined)
    page.wait_for_selector(ready, state="attached" if view == "referee" else "visible")
    if view == "referee":   # the new-game form too: the colour buttons, chosen and not
        page.click("#new-game summary")
        page.click(".colour-btn[data-colour='green']")
    page.wait_for_timeout(300)
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"a11y-{view}-{lang}.png"), full_page=True)
    violations = axe_violations(page)
    context.close()
    assert violations == [], violations


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_axe_finds_nothing_while_the_monster_moves(browser, tmp_path, lang):
    with served_game(tmp_path) as (server, session):
        context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True,
                                      bypass_csp=True)
        page = context.new_page()
        page.goto(f"{server.url}?lang={lang}")
        page.wait_for_selector(".link.live")
        page.wait_for_selector("svg.board .monster")
        session.act({"type": "draw"})
        page.wait_for_selector("#steps li.current[data-step='2']", timeout=10000)
        violations = axe_violations(page)
        assert page.get_attribute("svg.board", "data-anim") == "running"   # still moving when axe looked
        context.close()
    assert violations == [], violations


@pytest.mark.parametrize("deficiency", ["deuteranopia", "protanopia", "achromatopsia"])
def test_a_colour_blind_player_tells_every_player_s_pawns_apart(browser, tmp_path, deficiency):
    """Chromium's own simulation of the deficiency (DevTools' Emulation.setEmulatedVisionDeficiency) on the
    phone view of a seven-player game: the players' marks still differ in colour where any colour is left
    (ΔE2000, tests/test_palette.py), and each colour's pawns have a shape of their own on the board."""
    from PIL import Image

    from companion_app.web.server import Server
    from engine.position import COLOURS
    from test_palette import APART, ciede2000, seen
    from web_helpers import longest, make_app, play_pawn_phase, session_with

    session = session_with(tmp_path)
    app, _ = make_app(tmp_path, session)
    session.new_game(list(COLOURS), "blue", seed=3)
    play_pawn_phase(session, longest)
    with Server(app) as server:
        context = browser.new_context(viewport={"width": 360, "height": 780}, device_scale_factor=2)
        page = context.new_page()
        context.new_cdp_session(page).send("Emulation.setEmulatedVisionDeficiency", {"type": deficiency})
        page.goto(server.url)
        page.wait_for_selector("#players .player svg.mark")
        marks = {}
        for row in page.locator("#players .player").all():
            colour = row.get_attribute("data-colour")
            box = row.locator("svg.mark").bounding_box()
            marks[colour] = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        OUTPUT.mkdir(exist_ok=True)
        shot = OUTPUT / f"a11y-phone-{deficiency}.png"
        page.screenshot(path=str(shot), full_page=True)
        picture = Image.open(shot).convert("RGB")
        shown = {c: "#%02x%02x%02x" % picture.getpixel((round(2 * x), round(2 * y))) for c, (x, y) in marks.items()}
        # each colour's pawns on the board drawn in its own outline, whatever the colours look like
        outlines = page.evaluate("""() => { const out = {};
          for (const p of document.querySelectorAll("svg.board .pawn-body")) {
            const colour = [...p.classList].find((c) => c.startsWith("colour-")).slice(7);
            (out[colour] = out[colour] || new Set()).add(p.tagName === "circle" ? "circle" : p.getAttribute("d"));
          }
          return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v]])); }""")
        context.close()
    assert set(marks) == set(COLOURS) == set(outlines)
    assert all(len(v) == 1 for v in outlines.values()) and len({v[0] for v in outlines.values()}) == len(outlines), outlines
    if deficiency == "achromatopsia":   # no colour at all: the shapes alone tell them apart (above)
        return
    close = [(a, b) for i, a in enumerate(COLOURS) for b in COLOURS[i + 1:]
             if ciede2000(seen(shown[a], None), seen(shown[b], None)) < APART]
    assert close == [], shown
