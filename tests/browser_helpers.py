"""Headless Debian Chromium driven by Playwright (executable_path), shared by the browser tests."""
from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")


@pytest.fixture(scope="module")
def browser():
    from playwright import sync_api

    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


def referee_login(page, url: str, path: str = "referee") -> None:
    """Open the referee view (or ``path``, the Setup page) at ``url`` and log in with the test PIN."""
    from web_helpers import TOKEN

    page.goto(url + path)
    page.fill("#pin", TOKEN)
    page.click("#login-form button")
    page.wait_for_selector("#login", state="hidden")


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
    if (r.right > window.innerWidth + 1
        || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "hidden")
      out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} ${Math.round(r.right)}: `
               + el.textContent.slice(0, 40));
  }
  return { page: document.documentElement.scrollWidth, cut: out };
}"""


def fits_360_px(page, name: str) -> None:
    """A screenshot under tests/output/, and nothing sticking out of the 360 px screen."""
    from web_helpers import OUTPUT

    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)
    fit = page.evaluate(OVERFLOW)
    assert fit["page"] <= 360 and fit["cut"] == [], fit


def phone(browser, locale="en-US"):
    """A new page on a 360 px touch phone (its own context) whose speech is recorded (``SPEECH_STUB``);
    the page's script errors gather in ``page.errors``."""
    context = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale=locale)
    context.add_init_script(SPEECH_STUB)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def open_phone(browser, url: str, lang: str | None = None, *shown: str, locale: str = "en-US"):
    """The phone view at ``url`` (in ``lang`` when given, else the browser's), once it is live with the
    board drawn and every selector of ``shown`` is there."""
    page = phone(browser, locale=locale)
    page.goto(f"{url}?lang={lang}" if lang else url)
    for selector in (".link.live", "svg.board .monster", *shown):
        page.wait_for_selector(selector)
    return page
