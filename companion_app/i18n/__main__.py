"""``python -m companion_app.i18n extract|update|compile``: Babel's pybabel with this project's settings.

Both domains each time: ``messages`` (the app's words) and ``rules`` (the rules reference).

extract  writes the templates companion_app/translations/messages.pot from the code (babel.cfg)
         and rules.pot from web/rules.json (web/make_rules.py: context = the rule id)
update   merges them into each language's messages.po and rules.po (new msgids appear untranslated)
compile  writes the .mo files the server loads
"""
from __future__ import annotations

import sys

from babel.messages.frontend import CommandLineInterface

from . import DOMAINS, LANGUAGES, TRANSLATIONS, po_path

ROOT = TRANSLATIONS.parent.parent
KEYWORDS = ["-k", "_", "-k", "gettext", "-k", "pgettext:1c,2", "-k", "t", "-k", "N_", "-k", "NP_:1c,2", "-k", "ngettext_in:2,3", "-k", "_g:2", "-k", "n_:1,2", "-k", "Plural:1,2"]


def extract_args(output: str) -> list[str]:
    """The pybabel extract command line (also used by the catalog test, into a temporary file)."""
    return ["pybabel", "extract", "-F", str(ROOT / "babel.cfg"), "--no-location", "--sort-output",
            "--no-wrap", *KEYWORDS, "-o", output, str(ROOT / "companion_app"), str(ROOT / "engine"),
            str(ROOT / "calibration"), str(ROOT / "hardware"), str(ROOT / "vision")]
    # calibration/: the Setup page's advice; hardware/: device errors; vision/: a reading's problems and the
    # camera's exposure note (all engine.wording), the problems shown on the referee's camera card


def run(command: str) -> None:
    cli = CommandLineInterface()
    if command == "extract":
        from ..web.make_rules import write_template
        from ..web.rules import load_rules

        cli.run(extract_args(str(TRANSLATIONS / "messages.pot")))
        print(f"writing rules template to {write_template(load_rules())}")
    elif command == "update":
        for domain in DOMAINS:
            pot = str(TRANSLATIONS / f"{domain}.pot")
            for lang in LANGUAGES:   # a language's first catalog of a domain is made by init
                action = "update" if po_path(lang, domain).exists() else "init"
                cli.run(["pybabel", action, "-D", domain, "-i", pot, "-d", str(TRANSLATIONS), "-l", lang, "--no-wrap",
                         *(["--no-fuzzy-matching"] if action == "update" else [])])
    elif command == "compile":
        for domain in DOMAINS:
            cli.run(["pybabel", "compile", "-D", domain, "-d", str(TRANSLATIONS), "--statistics"])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "")
