"""Issue 16's "Done when", end to end: a French, German or Spanish family plays a whole game
without meeting an English word on their phones, hears the monster's move, and can send the
animation.

The simulated table (the demo's players, seeded, at a fast pace) plays a whole game, read by the
real camera worker, served by the real waitress server; a phone and the referee view are open in
headless Chromium in the family's language.  While the game runs, every visible text on both
pages (the camera card, the follow-up guidance, the log, the monster's step lines, toasts,
dialogs, the final result) is collected and checked: no English msgid of the catalog shown
untranslated, no sentence built of English function words.
"""
from __future__ import annotations

import io
import re
import time

import pytest
from PIL import Image

from companion_app.i18n import catalog
from companion_app.table.demo import SimulatedRig
from companion_app.table.devices import open_camera
from companion_app.table.session import TableSession
from companion_app.table.store import Store
from companion_app.web.server import Server
from browser_helpers import browser, needs_chromium, referee_login  # noqa: F401 - browser is a fixture
from test_i18n_browser import SPEECH_STUB
from web_helpers import OUTPUT, make_app

pytestmark = needs_chromium
SEED = 28              # the demo's seed: a game of about 60 pawn moves (table/demo.py)
SPEED = 20             # the players at 20x their pace, as tests/test_simulated_demo.py
GAME_S = 240           # a whole game must end within this

# Every visible text node (and the text of buttons' labels) of the page, outside hidden parts.
VISIBLE_TEXT = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, " ").trim();
    const el = node.parentElement;
    if (!text || !el || el.closest(".hidden, script, style, template, [hidden]")) continue;
    if (!el.getClientRects().length) continue;
    out.push(text);
  }
  for (const el of document.querySelectorAll("input[placeholder], [title], [aria-label]")) {
    if (el.closest(".hidden, [hidden]") || !el.getClientRects().length) continue;
    for (const attr of ["placeholder", "title", "aria-label"]) {
      const v = el.getAttribute(attr);
      if (v && v.trim()) out.push(v.trim());
    }
  }
  return out;
}"""

# English function words, as whole words: a sentence holding one is English (none of them is a
# word of French, German or Spanish).
ENGLISH = re.compile(r"\b(the|is|to|and|moves|with|you|your|this|cannot|of|it|be|are)\b", re.IGNORECASE)
# Texts that are the same in every language: squares, rule ids, numbers, names of pieces' colours
# are translated elsewhere; these few proper names are not.
ALLOWED = {"Finstere Flure", "Finstere Flure Companion"}


def english_leftovers(texts: set[str], lang: str) -> list[str]:
    words = catalog(lang)
    untranslated = {msgid for msgid, text in words.items() if "\x04" not in msgid and text != msgid}
    bad = []
    for text in sorted(texts):
        if text in ALLOWED:
            continue
        if text in untranslated:
            bad.append(f"untranslated msgid: {text!r}")
        elif len(text.split()) >= 3 and ENGLISH.search(re.sub(r"/\S+", "", text)):   # a file's path is no sentence
            bad.append(f"English sentence: {text!r}")
    return bad


def wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_a_family_plays_a_whole_game_in_its_language_without_an_english_word(browser, tmp_path, lang):
    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=SEED)
    session.loop.mode = "auto"
    session.language = lang
    rig = SimulatedRig(session, seed=SEED, speed=SPEED, err_rate=0.0)
    session.simulated = rig
    session.camera = open_camera("simulated", None, None, 2, on_update=session.loop.on_camera, fps=10,
                                 open_frames=rig.open_source)
    app, _ = make_app(tmp_path, session)
    seen: dict[str, set[str]] = {"phone": set(), "referee": set()}
    errors: list[str] = []
    OUTPUT.mkdir(exist_ok=True)
    try:
        with Server(app) as server:
            phone_context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True,
                                                has_touch=True, locale=f"{lang}-{lang.upper()}")
            phone_context.add_init_script(SPEECH_STUB)
            phone = phone_context.new_page()
            phone.on("pageerror", lambda e: errors.append(f"phone: {e}"))
            phone.goto(f"{server.url}?lang={lang}")
            phone.wait_for_selector(".link.live")
            phone.click("#speak")                        # the family taps "read aloud" once
            referee = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            referee.on("pageerror", lambda e: errors.append(f"referee: {e}"))
            referee_login(referee, server.url, f"referee?lang={lang}")
            assert referee.locator("html").get_attribute("lang") == lang
            rig.start()
            deadline = time.monotonic() + GAME_S
            shots = 0
            last_seq = -1
            while True:
                for name, page in (("phone", phone), ("referee", referee)):
                    seen[name].update(page.evaluate(VISIBLE_TEXT))
                if session.seq != last_seq and session.seq in (1, 10, 30):
                    phone.screenshot(path=str(OUTPUT / f"whole-game-{lang}-phone-{session.seq}.png"), full_page=True)
                    shots += 1
                last_seq = session.seq
                if session.game.phase == "over":
                    break
                assert time.monotonic() < deadline, f"the game did not end in {GAME_S} s (step {session.seq})"
                time.sleep(0.15)
            # the end as the family sees it: the result dialog on the phone, the referee's view
            phone.wait_for_selector("#winner:not(.hidden)", timeout=20000)
            referee.wait_for_timeout(1500)
            for name, page in (("phone", phone), ("referee", referee)):
                seen[name].update(page.evaluate(VISIBLE_TEXT))
            phone.screenshot(path=str(OUTPUT / f"whole-game-{lang}-phone-end.png"), full_page=True)
            referee.screenshot(path=str(OUTPUT / f"whole-game-{lang}-referee-end.png"), full_page=True)
            phone.click("#winner-close")
            seen["phone"].update(phone.evaluate(VISIBLE_TEXT))

            # heard: the monster's steps were read aloud, in the family's language
            spoken = phone.evaluate("() => window.__spoken")
            assert spoken and {s["lang"] for s in spoken} == {lang}
            assert not english_leftovers({s["text"] for s in spoken}, lang)
            # sent: "Save this move" points at the server's GIF of the last monster move, which decodes
            phone.wait_for_selector("#save:not(.hidden)")
            gif = phone.request.get(server.url.rstrip("/") + phone.get_attribute("#save-move", "href"))
            assert gif.ok and gif.headers["content-type"] == "image/gif"
            picture = Image.open(io.BytesIO(gif.body()))
            assert picture.format == "GIF" and picture.n_frames >= 2
            picture.seek(picture.n_frames - 1)
            picture.convert("RGB")
            # sanity: the collection did see the game's texts (not an empty page)
            words = catalog(lang)
            assert words["Game over"] in seen["phone"]
            assert any(text.startswith(words["Step %(n)s"].split("%")[0]) for text in seen["phone"] | seen["referee"]) \
                if "Step %(n)s" in words else True
    finally:
        rig.close()
        session.close()
    bad = {name: english_leftovers(texts, lang) for name, texts in seen.items()}
    (OUTPUT / f"whole-game-{lang}-english.txt").write_text(
        "\n".join(f"{name}: {line}" for name, lines in bad.items() for line in lines) + "\n")
    assert bad == {"phone": [], "referee": []}, bad
    assert errors == []
