"""Regenerate ``companion_app/web/rules.json`` from the spec's RULES.md, and the ``rules`` gettext template.

The app ships the rule texts as package data so the referee's rules
reference works on a table with no spec folder beside it.  Run after RULES.md
changes and commit the output, then bring the translations up to date:

    .venv/bin/python -m companion_app.web.make_rules ../shared/spec/RULES.md
    .venv/bin/python -m companion_app.i18n update      # new/changed paragraphs appear untranslated

The template (``translations/rules.pot``, not committed, like ``messages.pot``) has one msgid
per rule title, paragraph and sub-bullet with the rule id as context, the section headings
(context ``section``) and the page's intro (context ``page``).
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from ..i18n import RULES_DOMAIN, TRANSLATIONS
from . import rules as texts

OUT = Path(__file__).with_name("rules.json")
TEMPLATE = TRANSLATIONS / f"{RULES_DOMAIN}.pot"
RULE = re.compile(r"^- \*\*([A-Z]\d+)(?: ([^*]*?))?\.?\*\*\s*(.*)$")
SECTION = re.compile(r"^## (.+?)(?: \(([A-Z])\))?$")


def parse_rules(text: str) -> dict[str, dict]:
    """Rule id → {id, title, section, text}; sub-bullets stay as lines starting with "• "."""
    rules: dict[str, dict] = {}
    section, current = "", None
    for line in text.splitlines():
        heading = SECTION.match(line)
        if heading:
            section, current = heading.group(1), None
            continue
        found = RULE.match(line)
        if found:
            rid, title, rest = found.groups()
            title, rest = (title or "").strip(), rest.strip()
            if title and rest[:1].islower():   # "**M10 Crystals** behave as stones …": the title starts the sentence
                rest = f"{title} {rest}"
            current = {"id": rid, "title": title, "section": section, "lines": [rest]}
            rules[rid] = current
            continue
        if current is None or not line.strip():
            current = None if not line.strip() else current
            continue
        stripped = line.strip()
        if stripped.startswith("- "):
            current["lines"].append("• " + stripped[2:])
        elif line.startswith(" "):
            current["lines"][-1] += " " + stripped
        else:
            current = None
    return {rid: {"id": r["id"], "title": r["title"], "section": r["section"], "text": "\n".join(r["lines"])}
            for rid, r in rules.items()}


def template(rules: dict[str, dict]) -> Catalog:
    """The ``rules`` domain's template: what a translator words, in the page's order."""
    catalog = Catalog(domain=RULES_DOMAIN, project="Finstere Flure Companion", fuzzy=False)
    for sentence in texts.PAGE_TEXTS:
        catalog.add(sentence, context=texts.PAGE, auto_comments=["The rules reference's own words (page, API)."],
                    flags=["python-format"] if "%(" in sentence else [])
    for rule in rules.values():
        catalog.add(rule["section"], context=texts.SECTION, auto_comments=["A section heading of the rules page."])
    for rid, rule in rules.items():
        if rule["title"]:
            catalog.add(rule["title"], context=rid, auto_comments=[f"{rid}: the rule's title."])
        for n, (bullet, line) in enumerate(texts.rule_lines(rule["text"]), 1):
            kind = "a sub-bullet" if bullet else f"paragraph {n}"
            catalog.add(line, context=rid, auto_comments=[
                f"{rid}: {kind}. Keep rule ids, squares (a1, p11), pawn values (6/1), `code` and the ⚖ mark."])
    return catalog


def write_template(rules: dict[str, dict], path: Path = TEMPLATE) -> Path:
    with path.open("wb") as f:
        write_po(f, template(rules), width=0, omit_header=False)
    return path


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "shared" / "spec" / "RULES.md"
    rules = parse_rules(source.read_text(encoding="utf-8"))
    OUT.write_text(json.dumps(rules, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(rules)} rules to {OUT} and their template to {write_template(rules)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
