"""``python -m companion_app.i18n extract|update|compile``: Babel's pybabel with this project's settings.

Both domains each time: ``messages`` (the app's words) and ``rules`` (the rules reference).

extract  writes the templates companion_app/translations/messages.pot from the code (babel.cfg)
         and rules.pot from web/rules.json (web/make_rules.py: context = the rule id)
update   merges them into each language's messages.po and rules.po (new msgids appear untranslated)
compile  writes the .mo files the server loads (quietly: only an error is printed)
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po, write_po

from . import DOMAINS, LANGUAGES, TRANSLATIONS, po_path

ROOT = TRANSLATIONS.parent.parent
# The Python code's and templates' markers.  The browser's ``t("…")`` is a keyword for the JavaScript files
# only: given to the Python extractor too, newer Babel (2.19) also takes subscripts such as ``t["square"]`` as
# messages.  So each file kind is its own pass with its own keywords, merged into one template.
PY_KEYWORDS = ["_", "gettext", "pgettext:1c,2", "N_", "NP_:1c,2", "ngettext_in:2,3", "_g:2", "n_:1,2",
               "Plural:1,2"]
JS_KEYWORDS = ["t", "N_", "pgettext:1c,2"]
CODE = ("companion_app", "engine", "calibration", "hardware", "vision")
# calibration/: the Setup page's advice; hardware/: device errors; vision/: a reading's problems and the
# camera's exposure note (all engine.wording), the problems shown on the referee's camera card


def _pass(workdir: Path, method: str, keywords: list[str], folders: tuple[str, ...]):
    """One ``pybabel extract`` over ``folders`` with only ``method``'s section of babel.cfg and its keywords."""
    config = (ROOT / "babel.cfg").read_text(encoding="utf-8")
    sections = [s for s in config.split("\n[")[1:] if s.startswith(method)]
    mapping = workdir / f"{method}.cfg"
    mapping.write_text("".join("[" + s.strip() + "\n" for s in sections), encoding="utf-8")
    part = workdir / f"{method}.pot"
    CommandLineInterface().run(
        ["pybabel", "extract", "-F", str(mapping), "--no-location", "--sort-output", "--no-wrap",
         *(a for k in keywords for a in ("-k", k)), "-o", str(part), *(str(ROOT / f) for f in folders)])
    with open(part, "rb") as f:
        return read_po(f)


def extract(output: str) -> None:
    """Writes the ``messages`` template to ``output``: the Python and templates pass, and the JavaScript pass,
    merged (also used by the catalog test, into a temporary file)."""
    with tempfile.TemporaryDirectory() as tmp:
        merged = _pass(Path(tmp), "python", PY_KEYWORDS, CODE)
        for method in ("jinja2", "javascript"):
            for message in _pass(Path(tmp), method, PY_KEYWORDS if method == "jinja2" else JS_KEYWORDS, CODE):
                if message.id and (message.id, message.context) not in merged:
                    merged.add(message.id, context=message.context, auto_comments=message.auto_comments)
        from vision.teaching_layout import load_layout  # the teaching steps' words (NOSTICKERS.md), from data
        for step in load_layout():
            if (step.say, None) not in merged:
                merged.add(step.say, auto_comments=["a step of vision/teaching_layout.json"])
    with open(output, "wb") as f:
        write_po(f, merged, width=0, sort_output=True, no_location=True)


def run(command: str) -> None:
    cli = CommandLineInterface()
    if command == "extract":
        from ..web.make_rules import write_template
        from ..web.rules import load_rules

        extract(str(TRANSLATIONS / "messages.pot"))
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
            for lang in LANGUAGES:
                compile_atomically(cli, po_path(lang, domain), lang)
    else:
        raise SystemExit(__doc__)


def compile_atomically(cli: CommandLineInterface, po: Path, lang: str) -> None:
    """The .mo beside its .po, written whole or not at all: compiled into a temporary file that then
    replaces it, so a server (or a test) reading the catalogs meanwhile never reads half a file.  Quiet:
    no per-catalog lines (English's "0 of 82 messages translated" reads like a failure); an error still
    shows."""
    mo = po.with_suffix(".mo")
    with tempfile.NamedTemporaryFile(dir=mo.parent, prefix=f".{mo.stem}-", suffix=".mo", delete=False) as tmp:
        part = Path(tmp.name)
    try:
        cli.run(["pybabel", "--quiet", "compile", "-i", str(po), "-o", str(part), "-l", lang])
        part.chmod(0o644)
        part.replace(mo)
    finally:
        part.unlink(missing_ok=True)


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "")
