"""Regenerate ``companion_app/web/rules.json`` from the spec's RULES.md.

The app ships the rule texts as package data so the referee's rules
reference works on a table with no spec folder beside it.  Run after RULES.md
changes and commit the output:

    .venv/bin/python -m companion_app.web.make_rules ../shared/spec/RULES.md
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

OUT = Path(__file__).with_name("rules.json")
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


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else Path(__file__).resolve().parents[3] / "shared" / "spec" / "RULES.md"
    rules = parse_rules(source.read_text(encoding="utf-8"))
    OUT.write_text(json.dumps(rules, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(rules)} rules to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
