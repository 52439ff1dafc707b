"""The phone view in each language, in headless Chromium (issue 16): the page's words, the move's
step log, 360 px without overflow (German words are long), and the moves read aloud."""
from __future__ import annotations

import pytest

from companion_app.i18n import catalog
from companion_app.i18n.game_text import all_summaries
from companion_app.table.state import public_state
from companion_app.web.server import Server
from browser_helpers import browser, needs_chromium  # noqa: F401 - browser is a fixture
from web_helpers import OUTPUT, make_app, play_pawn_phase, session_with

pytestmark = needs_chromium

# Records what the page asks the browser to say instead of saying it (the test has no speakers).
SPEECH_STUB = """
window.__spoken = [];
const record = (u) => window.__spoken.push({ text: u.text, lang: u.lang });
if (window.speechSynthesis) { window.speechSynthesis.speak = record; window.speechSynthesis.cancel = () => {}; }
else { Object.defineProperty(window, "speechSynthesis", { value: { speak: record, cancel() {} } }); }
"""

# Every element on the page that sticks out past the 360 px screen, or whose text is cut.
OVERFLOW = """() => {
  const out = [];
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest(".hidden, svg") || !el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "hidden")
      out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(r.right)}: ${el.textContent.slice(0, 40)}`);
  }
  return { page: document.documentElement.scrollWidth, cut: out };
}"""


def longest(targets):
    return max(targets, key=lambda t: (len(t["moves"]), t["square"] or ""))


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("i18n")
    session = session_with(tmp_path)
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue", "green"], "red", seed=6)
    play_pawn_phase(session, longest)
    with Server(app) as server:
        yield server, session


def phone(browser, lang=None, locale="en-US"):
    context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale=locale)
    context.add_init_script(SPEECH_STUB)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


@pytest.mark.parametrize("lang", ["en", "fr", "de", "es"])
def test_the_phone_view_in_each_language_fits_360_px(browser, live, lang):
    server, session = live
    page = phone(browser)
    page.goto(f"{server.url}?lang={lang}")
    page.wait_for_selector(".link.live")
    page.wait_for_selector("svg.board .monster")
    page.wait_for_selector("#turnline .pill")
    words = catalog(lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.text_content("#move h2").startswith(words["Monster move"])
    assert page.inner_text("#players").count(words["%(n)s waiting"].replace("%(n)s", "").strip()) == 3
    assert words["Round %(n)s"].replace("%(n)s", "1") in page.inner_text("#turnline")
    assert page.inner_text("#link") == words["live"]
    assert page.inner_text("#speak") == words["Read the moves aloud"]
    assert page.inner_text("#summary") == all_summaries(session.game)[lang]
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"phone-{lang}.png"), full_page=True)
    fit = page.evaluate(OVERFLOW)
    assert fit["page"] <= 360 and fit["cut"] == [], fit
    assert page.errors == []
    page.context.close()


def test_the_language_switch_is_remembered_on_that_phone(browser, live):
    server, _ = live
    page = phone(browser, locale="es-ES")
    page.goto(server.url)
    assert page.locator("html").get_attribute("lang") == "es"      # the browser's Accept-Language first
    page.click(".langs a[hreflang=de]")
    page.wait_for_selector("html[lang=de]")
    page.goto(server.url)                                            # a later visit: the choice stays
    assert page.locator("html").get_attribute("lang") == "de"
    assert page.text_content("#move h2").startswith("Bewegung des Monsters")
    page.context.close()


def test_each_step_is_read_aloud_in_the_phones_language_as_it_animates(browser, live):
    server, session = live
    page = phone(browser, locale="de-DE")
    page.goto(server.url)
    page.wait_for_selector(".link.live")
    page.wait_for_selector("svg.board .monster")
    page.click("#speak")
    assert page.get_attribute("#speak", "aria-pressed") == "true"
    session.act({"type": "draw"})
    state = public_state(session.game, version=0, seq=0, game_id=None, log=[], plan_seq=None)
    german = state["plan_lines_i18n"]["de"]
    steps = len(session.game.last_plan.steps)
    assert steps >= 1 and german[0].startswith("Schritt 1:")
    page.wait_for_function(f"() => window.__spoken.length >= {steps}", timeout=60_000)
    spoken = page.evaluate("() => window.__spoken")
    assert [s["text"] for s in spoken] == german[:steps]
    assert {s["lang"] for s in spoken} == {"de"}
    # "Save this move" appears with the move, in German, pointing at the server's GIF of it
    page.wait_for_selector("#save:not(.hidden)")
    assert page.inner_text("#save-move") == "Diese Bewegung speichern"
    gif = page.request.get(server.url.rstrip("/") + page.get_attribute("#save-move", "href"))
    assert gif.ok and gif.headers["content-type"] == "image/gif"
    assert page.errors == []
    page.context.close()
