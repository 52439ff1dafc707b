"""The rules reference in four languages: the ``rules`` gettext domain is complete and in
step with RULES.md, and the rules page and /api/rules answer in the request's language."""
from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from markupsafe import escape

from companion_app.i18n import LANGUAGES, RULES_DOMAIN, po_path
from companion_app.web.make_rules import parse_rules, template, write_template
from companion_app.web.rules import INTRO, NO_SUCH_RULE, load_rules, page_text, pieces, rules_in
from web_helpers import make_app

TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
# What a translation must carry over unchanged: rule ids, squares, pawn values, `code`, fields, the ruling mark.
KEPT = re.compile(r"\b[GPBMTA]\d{1,2}\b|\b[a-p]\d{1,2}\b|\d+/\d+|`[^`]*`|%\(\w+\)s|⚖|\d+°|15−c, 10−r")


def keys(catalog) -> list[tuple[str | None, str]]:
    return [(m.context, m.id) for m in catalog if m.id]


def read(lang: str):
    with po_path(lang, RULES_DOMAIN).open("rb") as f:
        return read_po(f, locale=lang)


def problems(catalog, lang: str) -> list[str]:
    """What is wrong with ``lang``'s rules catalog against the template made from rules.json."""
    wanted = keys(template(load_rules()))
    have = {(m.context, m.id): m for m in catalog if m.id}
    out = [f"missing [{c}] {i[:50]!r}" for c, i in wanted if (c, i) not in have]
    out += [f"stale [{c}] {i[:50]!r}" for c, i in have if (c, i) not in wanted]
    out += [f"obsolete [{m.context}] {m.id[:50]!r}" for m in catalog.obsolete.values()]
    for (context, msgid), m in have.items():
        name = f"[{context}] {msgid[:50]!r}"
        if not m.string:
            out.append(f"untranslated {name}")
            continue
        if m.fuzzy:
            out.append(f"fuzzy {name}")
        if len(msgid) > 40 and m.string == msgid:
            out.append(f"English left as it is {name}")
        if sorted(KEPT.findall(m.string)) != sorted(KEPT.findall(msgid)):
            out.append(f"ids/squares/values differ in {name}: {sorted(KEPT.findall(m.string))}")
    return out


def test_rules_json_and_the_rules_template_agree_with_the_spec(shared_dir, tmp_path):
    """Regenerate check: RULES.md → rules.json → rules.pot give the same messages as the catalogs hold."""
    spec = parse_rules((shared_dir / "spec" / "RULES.md").read_text(encoding="utf-8"))
    assert spec == load_rules(), "run: .venv/bin/python -m companion_app.web.make_rules ../shared/spec/RULES.md"
    pot = write_template(spec, tmp_path / "rules.pot")
    with pot.open("rb") as f:
        written = keys(read_po(f))
    assert written == keys(template(load_rules()))
    assert ("M4", "Decision") in written and ("section", "Blood pools for pushed objects") in written
    # every sub-bullet is its own message, without its bullet mark
    assert ("P7", "A stone pushed onto a teleporter is destroyed (T3).") in written
    assert len([k for k in written if k[0] == "P8"]) == 1 + 5
    for lang in LANGUAGES:     # the catalogs hold exactly the template's messages (update was run)
        assert keys(read(lang)) == written, f"{lang}: run python -m companion_app.i18n extract && … update"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_rule_title_and_paragraph_is_translated(lang):
    assert problems(read(lang), lang) == []


def test_the_check_catches_an_untranslated_a_stale_and_a_changed_entry():
    catalog = read("fr")
    catalog.get("Decision", context="M4").string = ""
    catalog.add("An old wording of M4.", "Une ancienne formulation de M4.", context="M4")
    catalog.get("A stone pushed onto a teleporter is destroyed (T3).", context="P7").string = \
        "Une pierre poussée sur un téléporteur est détruite."                         # its rule id lost
    m10 = catalog.get("Crystals behave as stones in every respect except that the monster sees through them.",
                      context="M10")
    m10.string = m10.id
    found = problems(catalog, "fr")
    assert "untranslated [M4] 'Decision'" in found
    assert any(p.startswith("stale [M4] 'An old wording") for p in found)
    assert any(p.startswith("ids/squares/values differ in [P7] 'A stone pushed onto a teleporter") for p in found)
    assert any(p.startswith("English left as it is [M10]") for p in found)
    assert len(found) == 4


def test_both_domains_are_compiled_on_first_use(tmp_path, monkeypatch):
    """A fresh checkout has no .mo files: the first look-up compiles messages and rules alike."""
    import shutil

    from babel.support import Translations

    import companion_app.i18n as i18n

    copy = tmp_path / "translations"
    shutil.copytree(i18n.TRANSLATIONS, copy, ignore=shutil.ignore_patterns("*.mo", "*.pot"))
    monkeypatch.setattr(i18n, "TRANSLATIONS", copy)
    done = i18n.ensure_compiled()
    assert {f"{lang}/{domain}" for lang in LANGUAGES for domain in ("messages", "rules")} == set(done)
    assert i18n.ensure_compiled() == []                                  # up to date: nothing to do
    german = Translations.load(str(copy), ["de"], RULES_DOMAIN)
    assert german.pgettext("M4", "Decision") == "Entscheidung"


def test_the_ids_squares_and_values_stay_as_they_are():
    fr, de, es = (rules_in(lang) for lang in ("fr", "de", "es"))
    for rules in (fr, de, es):
        assert "`a1`" in rules["P3"]["text"] and "`p11`" in rules["P2"]["text"]
        assert "`6/1 4/3 3/4 2/5`" in rules["G1"]["text"]
        assert rules["M4"]["text"].count("⚖") == 1 and "(T3)" in rules["B2"]["text"]
        assert rules["P8"]["text"].count("\n• ") == 4 and not rules["P8"]["text"].startswith("•")
        assert set(rules) == set(load_rules())


@pytest.mark.parametrize("lang, words", [
    ("fr", {"B2": "flaque de sang", "P8": "flaque de sang", "T3": "téléporteur", "M9": "pierre de pivot",
            "M10": "cristaux", "G7": "tuiles pierres tombales", "P3": "sortie", "P2": "entrée", "M5": "dévore"}),
    ("de", {"B2": "Blutlache", "P8": "Blutlache", "T3": "Teleporter", "M9": "Drehstein", "M10": "Kristalle",
            "G7": "Grabstein", "P3": "Ausgang", "P2": "Eingang", "M5": "frisst"}),
    ("es", {"B2": "charco de sangre", "P8": "charco de sangre", "T3": "teletransportador", "M9": "piedra de giro",
            "M10": "cristales", "G7": "lápida", "P3": "salida", "P2": "entrada", "M5": "devora"}),
])
def test_the_games_own_words_in_each_language(lang, words):
    rules = rules_in(lang)
    for rid, word in words.items():
        assert word.lower() in rules[rid]["text"].lower(), f"{lang} {rid}: {word!r} not in {rules[rid]['text']!r}"
    assert rules["M4"]["title"] != "Decision" and rules["M4"]["lang"] == lang


@pytest.mark.parametrize("lang, title, section", [
    ("en", "Decision", "The monster"), ("fr", "Décision", "Le monstre"),
    ("de", "Entscheidung", "Das Monster"), ("es", "Decisión", "El monstruo")])
def test_the_api_answers_in_the_requests_language(tmp_path, lang, title, section):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    one = client.get(f"/api/rules/m4?lang={lang}")
    assert one.status_code == 200 and one.headers["Content-Language"] == lang
    assert one.json["title"] == title and one.json["section"] == section and one.json["lang"] == lang
    assert one.json["text"] == rules_in(lang)["M4"]["text"]
    every = client.get("/api/rules", headers={"Accept-Language": f"{lang};q=0.9,ja;q=0.5"})
    assert every.headers["Content-Language"] == lang and every.json["M4"]["title"] == title
    assert {r["lang"] for r in every.json.values()} == {lang} and set(every.json) == set(load_rules())
    missing = client.get(f"/api/rules/Z9?lang={lang}")
    assert missing.status_code == 404 and missing.json["error"] == page_text(lang, NO_SUCH_RULE, rule="Z9")
    assert "Z9" in missing.json["error"] and "G1" in missing.json["error"]


def test_the_api_language_from_the_cookie_and_an_unknown_language(tmp_path):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    client.get("/rules?lang=es")                                       # the choice is remembered (cookie)
    assert client.get("/api/rules/T2").json["lang"] == "es"
    fresh = app.test_client().get("/api/rules/T2?lang=xx", headers={"Accept-Language": "ja"})
    assert fresh.json["lang"] == "en" and fresh.json["text"] == load_rules()["T2"]["text"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rules_page_in_each_language(tmp_path, lang):
    app, _ = make_app(tmp_path)
    html = app.test_client().get(f"/rules?lang={lang}").text
    rules = rules_in(lang)
    assert f'<html lang="{lang}">' in html and 'id="M9"' in html
    assert f"<h2>{rules['M9']['section']}</h2>" in html
    assert str(escape(page_text(lang, INTRO))) in html and str(escape(rules["M9"]["title"])) in html
    assert "<code>p11</code>" in html and "`" not in html.split("<main", 1)[1].split("</main>")[0]
    assert '(<a href="#T3">T3</a>)' in html                          # B2, P7, M6 cite T3: a link to it


def test_a_paragraph_in_pieces_code_and_the_rules_it_cites():
    assert pieces("A stone pushed onto a corner square (`a1`, `p11`) is removed (T3); not Z9, G10.") == [
        ("text", "A stone pushed onto a corner square ("), ("code", "a1"), ("text", ", "), ("code", "p11"),
        ("text", ") is removed ("), ("rule", "T3"), ("text", "); not Z9, "), ("rule", "G10"), ("text", ".")]
    assert pieces("`6/1 4/3 3/4 2/5`") == [("code", "6/1 4/3 3/4 2/5")]
