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
