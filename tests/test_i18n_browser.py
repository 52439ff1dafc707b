"""The phone view in each language, in headless Chromium: the page's words, the move's
step log, 360 px without overflow (German words are long), and the moves read aloud."""
from __future__ import annotations

import pytest

from browser_helpers import fits_360_px, needs_chromium, open_phone, phone
from companion_app.i18n import catalog
from companion_app.i18n.text import localize, render
from companion_app.table.session.state import public_state
from web_helpers import served_game

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    with served_game(tmp_path_factory.mktemp("i18n")) as served:
        yield served


@pytest.mark.parametrize("lang", ["en", "fr", "de", "es"])
def test_the_phone_view_in_each_language_fits_360_px(browser, live, lang):
    server, session = live
    page = open_phone(browser, server.url, lang, "#turnline .pill")
    words = catalog(lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.text_content("#move h2").startswith(words["Monster move"])
    assert page.inner_text("#players").count(words["%(n)s waiting"].replace("%(n)s", "").strip()) == 3
    assert words["Round %(n)s"].replace("%(n)s", "1") in page.inner_text("#turnline")
    assert page.inner_text("#link") == words["live"]
    assert page.inner_text("#speak") == words["Read the moves aloud"]
    assert page.inner_text("#summary") == render(session.game.summary(), lang)
    fits_360_px(page, f"phone-{lang}")
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
    page = open_phone(browser, server.url, locale="de-DE")
    page.click("#speak")
    assert page.get_attribute("#speak", "aria-pressed") == "true"
    session.act({"type": "draw"})
    state = public_state(session.game, version=0, seq=0, game_id=None, log=[], plan_seq=None)
    german = localize(state["plan_lines"], "de")
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


def test_switching_language_re_renders_the_live_lines_in_the_new_language(browser, tmp_path):
    """The server says the live stream's sentences in the language the stream opened in: a phone that
    switches language reopens it, and the move's lines, the status line and the log (and every later
    change) come in the new language."""
    from web_helpers import played

    lines = "els => els.map((e) => e.textContent)"
    with served_game(tmp_path, monster_moved=True) as (server, session):
        plan = session.game.last_plan
        page = open_phone(browser, server.url, None, "#steps li", locale="en-US")
        assert page.eval_on_selector_all("#steps li", lines) == plan.lines()
        assert page.inner_text("#summary") == str(session.game.summary())
        page.click(".langs a[hreflang=fr]")
        page.wait_for_selector("html[lang=fr]")
        page.wait_for_selector(".link.live")
        french = localize(plan.sentences(), "fr")
        page.wait_for_function("(first) => { const li = document.querySelector('#steps li'); "
                               "return li && li.textContent === first; }", arg=french[0])
        assert page.eval_on_selector_all("#steps li", lines) == french != plan.lines()
        assert page.inner_text("#summary") == render(session.game.summary(), "fr")
        played(session)                                          # a later change: said in French too
        summary = render(session.game.summary(), "fr")
        page.wait_for_function("(text) => document.getElementById('summary').textContent === text", arg=summary)
        assert page.eval_on_selector_all("#log li", lines)[0] == render(session.game.note, "fr")
        assert page.errors == []
        page.context.close()
