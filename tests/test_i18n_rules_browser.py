"""The rules reference in each language in headless Chromium: the page, its language
switch, and the referee's rule look-up, each in the page's language (screenshots under tests/output/)."""
from __future__ import annotations

import pytest

from browser_helpers import needs_chromium, referee_login
from companion_app.web.rules import rules_in
from companion_app.web.server import Server
from web_helpers import OUTPUT, make_app

pytestmark = needs_chromium

LANGS = ["en", "fr", "de", "es"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    app, _ = make_app(tmp_path_factory.mktemp("rules"))
    with Server(app) as running:
        yield running


def page_at(browser, width=360, locale="en-US"):
    context = browser.new_context(viewport={"width": width, "height": 780}, locale=locale)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def shown(page, rule_id: str) -> list[str]:
    return page.locator(f"#{rule_id} p").all_inner_texts()


@pytest.mark.parametrize("lang", LANGS)
def test_the_rules_page_in_each_language(browser, server, lang):
    rules = rules_in(lang)
    page = page_at(browser)
    page.goto(f"{server.url}rules?lang={lang}")
    assert page.locator("html").get_attribute("lang") == lang
    sections = page.locator("section.card h2").all_text_contents()   # (drawn in capitals by the CSS)
    assert sections == list(dict.fromkeys(r["section"] for r in rules.values()))
    for rid in ("G1", "P8", "B2", "M9", "T2", "A2"):
        assert page.inner_text(f"#{rid} h3") == f"{rid} {rules[rid]['title']}".strip()
        assert shown(page, rid) == [line.replace("`", "") for line in rules[rid]["text"].split("\n")]
    assert page.inner_text("#P2 code") == "p11"                      # `p11` is drawn as code, not backticks
    page.click("#B2 a[href='#T3']")                                    # a rule a text cites: one tap to its text
    page.wait_for_function("location.hash === '#T3'")
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"rules-{lang}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360   # long German words still fit
    assert page.errors == []
    page.context.close()


def test_the_language_switch_on_the_rules_page_is_remembered(browser, server):
    page = page_at(browser, locale="es-ES")
    page.goto(f"{server.url}rules#M4")
    assert page.locator("html").get_attribute("lang") == "es"       # Accept-Language first
    page.click(".langs a[hreflang=fr]")
    page.wait_for_selector("html[lang=fr]")
    assert page.inner_text("#M4 h3") == "M4 " + rules_in("fr")["M4"]["title"]
    page.goto(f"{server.url}rules")
    assert page.locator("html").get_attribute("lang") == "fr"       # the cookie remembers the switch
    page.context.close()


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_the_referees_rule_look_up_answers_in_the_pages_language(browser, server, lang):
    page = page_at(browser, width=1024)
    page.goto(f"{server.url}referee?lang={lang}")                   # the page's language, remembered
    referee_login(page, server.url)
    assert page.locator("html").get_attribute("lang") == lang
    page.fill("#rule-id", "b2")
    page.click("#rule-form button")
    rule = rules_in(lang)["B2"]
    page.wait_for_selector("#rule-text h3")
    assert page.locator("#rule-text p").all_inner_texts() == rule["text"].split("\n")
    page.fill("#rule-id", "p7")
    page.click("#rule-form button")
    page.wait_for_selector("#rule-text h3:has-text('P7')")
    assert page.locator("#rule-text code").all_inner_texts() == ["a1", "p11"]   # drawn as code, no backticks
    assert page.inner_text("#rule-text h3") == "P7 " + rules_in(lang)["P7"]["title"]
    page.fill("#rule-id", "Z9")
    page.click("#rule-form button")
    page.wait_for_selector("#rule-text .error")
    assert "Z9" in page.inner_text("#rule-text .error") and page.errors == []
    page.context.close()
