"""The referee view, the Setup page and the error pages in each language, in headless Chromium.

A French, German or Spanish family meets no English word: every visible text node, every
aria-label, title, alt and placeholder, the options of the visible menus and the page's title are
checked twice —
  1. against the catalog: a text that is an English msgid (or one filled in, ``Fix square g7``)
     whose translation differs is an untranslated message;
  2. against the same page in English: a text shown unchanged is a word nobody wrapped, unless it
     is the same in both languages (a square, a rule id, a number, or ALLOWED below).
Each page is also drawn at 360 px wide without anything sticking out (German words are long),
with a screenshot per language under tests/output/.
"""
from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from browser_helpers import fits_360_px, needs_chromium, open_phone, phone, referee_login
from companion_app.i18n import catalog
from companion_app.i18n.text import localize
from companion_app.web.server import Server
from web_helpers import make_app, play_pawn_phase, served_game, session_with

pytestmark = needs_chromium
LANGS = ["fr", "de", "es"]

# Texts that are the same in every language (besides catalog words whose translation is the
# English word, such as "Monster" in German): names, codes, commands.
ALLOWED = {"Finstere Flure", "EN", "FR", "DE", "ES", "PIN", "JSON", "flure play", "flure replay FILE", "·", "–", "…", "OK"}
SAME = re.compile(r"^([a-p]\d{1,2}|[GPMTBA]\d{1,2}|[\d\W_×]+|\d+ ?(px|cm|mm|°|s)|https?://\S+)$")
WALL = re.compile(r"^[A-Z]$")   # the wall letters round the board (B2, M7 name them)
# The server's own sentences (log lines, device and camera messages): the server says them in the page's
# language; the catalog check (1) covers them, the English-page check (2) not.
SERVER_SENTENCES = ["#log", "#devices", "#differences", "#table-needs", "#follow", "#camera-why", "#applied",
                    "#banner-text", "#join-url", "#rule-text", "#stickers-list", "#doctor-list", "#advice",
                    "#lens-advice", "#no-picture", "#lens-message", "#leds-message", "#exposure-message"]

# Every text a person meets on the page, with where it is (the closest element with an id).
TEXTS = """(server) => {
  const out = [];
  const where = (el) => { const x = el.closest("[id]"); return x ? "#" + x.id : el.tagName.toLowerCase(); };
  const shown = (el) => !el.closest(".hidden") && el.getClientRects().length > 0;
  const serverText = (el) => server.some((sel) => el.closest(sel));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement, text = n.textContent.replace(/\\s+/g, " ").trim();
    if (!text || el.closest("script, style, title, option") || !shown(el)) continue;
    out.push({ text, where: where(el), server: serverText(el) });
  }
  for (const el of document.querySelectorAll("[aria-label], [title], [alt], [placeholder]")) {
    for (const a of ["aria-label", "title", "alt", "placeholder"]) {
      if (el.hasAttribute(a)) out.push({ text: el.getAttribute(a).trim(), where: `${where(el)}[${a}]`, server: false });
    }
  }
  for (const el of document.querySelectorAll("svg title")) {
    out.push({ text: el.textContent.trim(), where: "svg title", server: false });
  }
  for (const el of document.querySelectorAll("select option")) {
    if (shown(el.parentElement)) out.push({ text: el.textContent.trim(), where: where(el), server: false });
  }
  out.push({ text: document.title, where: "title", server: false });
  return out.filter((x) => x.text);
}"""


def msgid_patterns(lang: str) -> list[tuple[str, re.Pattern]]:
    """Each English msgid whose ``lang`` words differ, as a pattern a shown text would match in full
    (``%(square)s`` matches anything).  Msgids with no word of their own (``%(why)s:``) are left out."""
    out = []
    for msgid, words in catalog(lang).items():
        if "\x04" in msgid or words == msgid:
            continue
        bare = re.sub(r"%\(\w+\)s", " ", msgid)
        if not re.search(r"[A-Za-z]{3,}", bare):
            continue
        parts = re.split(r"%\(\w+\)s", msgid.strip())
        out.append((msgid, re.compile(".+?".join(map(re.escape, parts)), re.S)))
    return out


def english_left(texts: list[dict], lang: str, english: set[str]) -> list[str]:
    """The texts that are still English (see the module's docstring); empty when the page is translated."""
    same_word = {m for m, words in catalog(lang).items() if words == m}
    patterns = msgid_patterns(lang)
    left = []
    for item in texts:
        text = item["text"]
        hit = next((m for m, p in patterns if p.fullmatch(text)), None)
        if hit:
            left.append(f"{item['where']}: {text!r} is the English msgid {hit!r}")
        elif (not item["server"] and text in english and not (item["where"] == "#board" and WALL.match(text))
              and not all(part in ALLOWED or part in same_word or SAME.match(part) for part in text.split(" · "))):
            left.append(f"{item['where']}: {text!r} is shown as on the English page")
    return left


def open_everything(page) -> None:
    """Fold out what a referee folds out (New game), so its words are checked too."""
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """A game in its second turn, after a monster move (so "Save this move" is there)."""
    with served_game(tmp_path_factory.mktemp("i18nweb"), monster_moved=True) as served:
        yield served


def logged_in(browser, server, path: str, lang: str, *shown: str):
    """``path`` in ``lang`` at 360 px, logged in, once every selector of ``shown`` is there."""
    page = phone(browser)
    referee_login(page, server.url, f"{path}?lang={lang}")
    for selector in shown:
        page.wait_for_selector(selector)
    open_everything(page)
    return page


def referee(browser, server, lang: str):
    """The referee view in ``lang``, logged in, the board drawn and the devices read."""
    return logged_in(browser, server, "referee", lang, ".link.live", "svg.board .monster", "#devices li",
                     "#pawn-buttons button", "#save:not(.hidden)")


def texts_of(page) -> list[dict]:
    return page.evaluate(TEXTS, SERVER_SENTENCES)


def english_texts(browser, server, path: str, open_page, then=None) -> set[str]:
    """Every text of ``path`` in English: before logging in, logged in (``open_page``), and after ``then(page)``."""
    texts = {x["text"] for x in login_texts(browser, server, "en", path)}
    page = open_page(browser, server, "en")
    texts |= {x["text"] for x in texts_of(page)}
    if then:
        then(page)
        texts |= {x["text"] for x in texts_of(page)}
    page.context.close()
    return texts


def open_fix_dialog(page) -> None:
    page.click("svg.board rect.sq[data-square='h6']")       # the dialog to fix a square
    page.wait_for_selector("#fix:not(.hidden)")


def login_texts(browser, server, lang: str, path: str = "referee") -> list[dict]:
    """The texts of ``path`` before logging in (the PIN dialog over the page)."""
    page = phone(browser)
    page.goto(f"{server.url}{path}?lang={lang}")
    page.wait_for_selector("#login:not(.hidden)")
    texts = texts_of(page)
    page.context.close()
    return texts


@pytest.fixture(scope="module")
def english_referee(browser, live):
    return english_texts(browser, live[0], "referee", referee, open_fix_dialog)


@pytest.mark.parametrize("lang", LANGS)
def test_the_referee_view_has_no_english_word_left_and_fits_360_px(browser, live, english_referee, lang):
    server, session = live
    assert english_left(login_texts(browser, server, lang), lang, english_referee) == []

    page = referee(browser, server, lang)
    words = catalog(lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.inner_text("#save-move") == words["Save this move"]
    assert page.inner_text("#link") == words["live"]
    names = localize(session.state()["tile_names"], lang)      # the tiles' buttons: the game's names for them
    assert page.inner_text("#tile-buttons [data-tile='prey-1']") == names["prey-1"]
    first = page.inner_text("#pawn-buttons button")                # a button starts with a capital ("Le pion bleu 6/1")
    assert first[0].isupper(), first
    assert english_left(texts_of(page), lang, english_referee) == []
    fits_360_px(page, f"referee-{lang}")

    open_fix_dialog(page)
    assert page.inner_text("#fix-title") == words["Fix square %(square)s"].replace("%(square)s", "h6")
    assert english_left(texts_of(page), lang, english_referee) == []
    page.click("#fix-cancel")
    assert page.errors == []
    page.context.close()


def test_the_check_finds_an_english_word(browser, live, english_referee):
    """The check above can fail: an English button on the French page is found, by both rules."""
    server, _ = live
    page = referee(browser, server, "fr")
    page.evaluate("() => { document.getElementById('draw').textContent = 'Draw from the virtual deck'; "
                  "document.getElementById('undo').textContent = 'Take it back'; }")
    left = english_left(texts_of(page), "fr", english_referee | {"Take it back"})
    assert any("'Draw from the virtual deck' is the English msgid" in x for x in left)
    assert any("'Take it back' is shown as on the English page" in x for x in left)
    page.context.close()


def test_the_referee_switches_language_and_keeps_it(browser, live):
    server, _ = live
    page = referee(browser, server, "en")
    page.click(".langs a[hreflang=es]")
    page.wait_for_selector("html[lang=es]")
    page.goto(f"{server.url}referee")                        # a later visit: the choice stays
    assert page.locator("html").get_attribute("lang") == "es"
    page.wait_for_selector("#pawn-buttons button")
    assert page.text_content("#monster-card h2").strip() == catalog("es")["Monster"]
    page.context.close()


def test_the_referees_save_this_move_gives_the_moves_gif(browser, live):
    server, session = live
    page = referee(browser, server, "de")
    assert page.inner_text("#save-move") == "Diese Bewegung speichern"
    href = page.get_attribute("#save-move", "href")
    assert href.startswith("/api/move.gif?seq=")
    gif = page.request.get(server.url.rstrip("/") + href)
    assert gif.ok and gif.headers["content-type"] == "image/gif"
    image = Image.open(io.BytesIO(gif.body()))
    assert image.format == "GIF" and image.n_frames == len(session.game.last_plan.steps) + 1
    still = page.request.get(server.url.rstrip("/") + page.get_attribute("#save-still", "href"))
    assert still.ok and Image.open(io.BytesIO(still.body())).format == "PNG"
    page.context.close()


def setup_page(browser, server, lang: str):
    """The Setup page in ``lang``, logged in, its cards filled (the session has no camera: the
    page says so, in the server's words)."""
    return logged_in(browser, server, "setup", lang, "#doctor-list li", "#coverage div", "#leds-message:not(:empty)",
                     "#no-picture:not(:empty)")


@pytest.fixture(scope="module")
def english_setup(browser, live):
    return english_texts(browser, live[0], "setup", setup_page)


@pytest.mark.parametrize("lang", LANGS)
def test_the_setup_page_has_no_english_word_left_and_fits_360_px(browser, live, english_setup, lang):
    server, _ = live
    assert english_left(login_texts(browser, server, lang, "setup"), lang, english_setup) == []
    page = setup_page(browser, server, lang)
    words = catalog(lang)
    assert page.locator("html").get_attribute("lang") == lang
    assert page.text_content("#lens-card h2").strip() == words["Lens calibration"]
    assert page.inner_text("#coverage-label").startswith(words["Where corners have been seen (%(views)s views, "
                                                               "%(filled)s of %(cells)s parts):"].split("%(")[0])
    assert page.text_content("#views") == "0"
    page.select_option("#light-line", "row 3")
    assert page.locator("#light-line option:checked").inner_text() == words["row %(n)s"].replace("%(n)s", "3")
    assert english_left(texts_of(page), lang, english_setup) == []
    fits_360_px(page, f"setup-{lang}")
    assert page.errors == []
    page.context.close()


def page_texts(browser, url: str) -> list[dict]:
    page = phone(browser)
    page.goto(url)
    page.wait_for_load_state("load")
    texts = texts_of(page)
    assert page.errors == []
    page.context.close()
    return texts


@pytest.mark.parametrize("path", ["leds", "no-such-page"])
def test_the_leds_page_and_the_error_page_have_no_english_word_left(browser, live, path):
    server, _ = live
    english = {x["text"] for x in page_texts(browser, f"{server.url}{path}?lang=en")}
    for lang in LANGS:
        assert english_left(page_texts(browser, f"{server.url}{path}?lang={lang}"), lang, english) == [], lang


@pytest.mark.parametrize("lang, words", [("fr", "Il n'y a pas de page /nowhere ici."),
                                         ("de", "Hier gibt es keine Seite /nowhere."),
                                         ("es", "Aquí no hay ninguna página /nowhere.")])
def test_the_error_pages_speak_the_requests_language(tmp_path, lang, words):
    from html import unescape

    app, _ = make_app(tmp_path)
    client = app.test_client()
    page = client.get("/nowhere", headers={"Accept-Language": lang})
    assert page.status_code == 404 and f'<html lang="{lang}">' in page.text and words in unescape(page.text)
    assert "i18n-catalog" not in page.text and "<script" not in page.text      # a plain page
    wrong = client.post("/rules", headers={"Accept-Language": lang})
    assert wrong.status_code == 405 and catalog(lang)["Not possible here"] in unescape(wrong.text)
    assert client.get("/api/nowhere", headers={"Accept-Language": lang}).is_json   # the API answers JSON
    other = client.get("/", headers={"Host": "evil.example", "Accept-Language": lang})
    assert other.status_code == 400 and other.mimetype == "text/plain"
    assert other.text.strip() == catalog(lang)[
        "This table does not answer to that name: open the address flure play prints."]



def start_state(session, state: str) -> None:
    """A game at the monster's turn (its tile to draw), or in the advanced setup's placement (A2)."""
    if state == "monster":
        session.new_game(["red", "blue", "green", "yellow", "purple", "white"], "blue", seed=3, prey3_variant=True)
        play_pawn_phase(session)
    else:
        session.new_game(["red", "blue"], "red", setup="advanced", seed=4)


def preview(page) -> None:
    """What each tile would do (the monster's turn), or nothing to open (the placement)."""
    if page.is_enabled("#draw"):
        page.click("#preview-btn")
        page.wait_for_selector("#preview .preview-row")


@pytest.mark.parametrize("state, shown", [("monster", "#tile-buttons button:not([disabled])"),
                                          ("placement", "#place-form:not(.hidden)")])
def test_the_referee_view_at_the_monsters_turn_and_in_the_placement_has_no_english_word_left(
        browser, tmp_path, state, shown):
    session = session_with(tmp_path)
    app, _ = make_app(tmp_path, session)
    start_state(session, state)
    with Server(app) as server:
        def opened(browser, server, lang):
            page = logged_in(browser, server, "referee", lang, ".link.live", "#devices li", shown)
            preview(page)
            return page
        english = english_texts(browser, server, "referee", opened)
        for lang in LANGS:
            page = opened(browser, server, lang)
            assert english_left(texts_of(page), lang, english) == [], lang
            assert page.errors == []
            page.context.close()


def phone_view(browser, server, lang: str):
    return open_phone(browser, server.url, lang, "#turnline .pill", "#save:not(.hidden)")


def test_the_phone_view_has_no_english_word_left(browser, live):
    """The phone's own words (test_i18n_browser checks it at 360 px), by the same two rules."""
    server, _ = live
    page = phone_view(browser, server, "en")
    english = {x["text"] for x in texts_of(page)}
    page.context.close()
    for lang in LANGS:
        page = phone_view(browser, server, lang)
        assert english_left(texts_of(page), lang, english) == [], lang
        assert page.errors == []
        page.context.close()


def test_the_setup_steps_say_their_refusals_and_messages_in_the_pages_language(tmp_path):
    from web_helpers import AUTH

    app, _ = make_app(tmp_path)
    client = app.test_client()
    refused = client.post("/api/setup/save", json={}, headers={**AUTH, "Accept-Language": "de"})
    assert refused.status_code == 409
    assert refused.json["error"] == "Noch nichts zu speichern: nehmt Ansichten auf und drückt zuerst auf Kalibrieren."
    english = client.post("/api/setup/save", json={}, headers={**AUTH, "Accept-Language": "en"})
    assert english.json["error"] == "Nothing to save yet: capture views and press Calibrate first."
    look = client.get("/api/setup/look", headers=AUTH).json          # no camera: said in the request's language
    assert look["picture"] is False and look["message"].startswith("The camera has given no picture yet (")
    look = client.get("/api/setup/look", headers={**AUTH, "Accept-Language": "fr"}).json
    assert look["message"].startswith("La caméra n'a encore donné aucune image (")
    calibration = client.get("/api/setup/calibration", headers=AUTH).json   # the lens advice, in the request's language
    assert calibration["advice"][0] == "0 of at least 15 views: keep capturing"
    calibration = client.get("/api/setup/calibration", headers={**AUTH, "Accept-Language": "de"}).json
    assert calibration["advice"][0] == "0 von mindestens 15 Ansichten: weiter aufnehmen"
    doctor = client.get("/api/setup/doctor", headers={**AUTH, "Accept-Language": "es"}).json["findings"]
    assert {f["topic"] for f in doctor} >= {"cámara (en esta sesión)", "más"}


def test_a_wrong_pin_is_refused_in_the_pages_language(browser, live):
    server, _ = live
    page = phone(browser)
    page.goto(f"{server.url}setup?lang=es")
    page.fill("#pin", "000000")
    page.click("#login-form button")
    page.wait_for_selector("#login-error:not(:empty)")
    assert page.inner_text("#login-error") == catalog("es")["Wrong PIN: it is printed in the terminal where flure play runs"]
    referee_login(page, server.url, "setup?lang=es")      # the right one still opens it (and clears the count)
    page.context.close()
