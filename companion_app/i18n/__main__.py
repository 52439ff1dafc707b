"""``python -m companion_app.i18n extract|update|compile``: Babel's pybabel with this project's settings.

extract  writes the template companion_app/translations/messages.pot from the code (babel.cfg)
update   merges it into each language's messages.po (new msgids appear untranslated)
compile  writes the .mo files the server loads
"""
from __future__ import annotations

import sys

from babel.messages.frontend import CommandLineInterface

from . import LANGUAGES, TRANSLATIONS

ROOT = TRANSLATIONS.parent.parent
KEYWORDS = ["-k", "_", "-k", "gettext", "-k", "pgettext:1c,2", "-k", "t", "-k", "N_", "-k", "NP_:1c,2", "-k", "ngettext_in:2,3", "-k", "_g:2"]


def extract_args(output: str) -> list[str]:
    """The pybabel extract command line (also used by the catalog test, into a temporary file)."""
    return ["pybabel", "extract", "-F", str(ROOT / "babel.cfg"), "--no-location", "--sort-output",
            "--no-wrap", *KEYWORDS, "-o", output, str(ROOT / "companion_app")]


def run(command: str) -> None:
    pot = str(TRANSLATIONS / "messages.pot")
    cli = CommandLineInterface()
    if command == "extract":
        cli.run(extract_args(pot))
    elif command == "update":
        for lang in LANGUAGES:
            cli.run(["pybabel", "update", "-i", pot, "-d", str(TRANSLATIONS), "-l", lang,
                     "--no-wrap", "--no-fuzzy-matching"])
    elif command == "compile":
        cli.run(["pybabel", "compile", "-d", str(TRANSLATIONS), "--statistics"])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "")
