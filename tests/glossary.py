"""The glossary of the game's words (companion_app/translations/GLOSSARY.md) as data, for the i18n tests.

The tests check rendered step logs and status lines against this table, so the glossary the
translators read and the words the players see cannot drift apart.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parent.parent / "companion_app" / "translations" / "GLOSSARY.md"
COLUMNS = ("en", "fr", "de", "es")


@lru_cache(maxsize=None)
def glossary() -> dict[str, dict[str, str]]:
    """{key: {"en": …, "fr": …, "de": …, "es": …}} from the table rows whose first cell is a `key`."""
    terms = {}
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].startswith("`") and cells[0].endswith("`"):
            terms[cells[0].strip("`")] = dict(zip(COLUMNS, cells[1:5]))
    return terms


def term(key: str, lang: str) -> str:
    return glossary()[key][lang]
