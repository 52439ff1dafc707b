"""The catalogs: complete in every language, in step with the code, and served to pages."""
import re

from babel.messages.pofile import read_po

from companion_app.i18n import LANGUAGES, catalog, po_path
from companion_app.i18n.__main__ import extract
from tests.web_helpers import make_app

FIELD = re.compile(r"%\((\w+)\)s")


def read(path):
    with open(path, "rb") as f:
        return read_po(f)


def keys(cat):
    return {(m.context, m.id) for m in cat if m.id and not m.id == ""}


def test_every_message_in_the_code_is_in_every_catalog_and_translated(tmp_path):
    pot = tmp_path / "messages.pot"
    extract(str(pot))
    used = keys(read(pot))
    assert ("direction", "W") in used and (None, "Game log") in used and ("the piece, object", "the stone") in used
    assert (None, ("%(num)s tile left in the deck", "%(num)s tiles left in the deck")) in used
    for lang in LANGUAGES:
        cat = read(po_path(lang))
        missing = used - keys(cat)
        assert not missing, f"{lang}: msgids used in the code but missing from the catalog: {sorted(map(str, missing))}"
        stale = keys(cat) - used
        assert not stale, f"{lang}: msgids no code uses any more (run update): {sorted(map(str, stale))}"
        assert not cat.obsolete, f"{lang}: obsolete #~ entries left by update: {sorted(map(str, cat.obsolete))}"
        if lang == "en":
            continue   # the English wording is the msgid itself
        for m in cat:
            if not m.id or (m.context, m.id) not in used:
                continue
            forms = m.string if isinstance(m.string, tuple) else (m.string,)
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            assert forms and all(forms), f"{lang}: untranslated {m.id!r}"
            assert not m.fuzzy, f"{lang}: fuzzy {m.id!r}"
            for form in forms:   # every plural form keeps the msgid's fields
                assert sorted(FIELD.findall(form)) == sorted(FIELD.findall(ids[-1])), f"{lang}: fields differ in {m.id!r}"


def test_the_browser_catalog_is_the_po_file(tmp_path):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    fr = client.get("/api/i18n/fr.json")
    assert fr.status_code == 200 and fr.get_json()["Game log"] == "Journal de la partie" == catalog("fr")["Game log"]
    assert client.get("/api/i18n/en.json").get_json()["Game log"] == "Game log"
    bad = client.get("/api/i18n/xx.json")
    assert bad.status_code == 404 and "fr" in bad.get_json()["error"]


def test_the_phone_page_language_from_query_cookie_then_accept_language(tmp_path):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    page = client.get("/", headers={"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"})
    assert '<html lang="es">' in page.text and "Registro de la partida" in page.text
    page = client.get("/?lang=de", headers={"Accept-Language": "es"})
    assert '<html lang="de">' in page.text and "Spielverlauf" in page.text and "<h2>Game log</h2>" not in page.text
    assert "lang=de" in page.headers["Set-Cookie"]
    page = client.get("/", headers={"Accept-Language": "es"})   # the phone remembers its choice
    assert '<html lang="de">' in page.text
    page = client.get("/?lang=xx", headers={"Accept-Language": "fr"})
    assert '<html lang="de">' in page.text   # an unknown ?lang= is ignored: the cookie still decides
    fresh = app.test_client().get("/", headers={"Accept-Language": "ja"})
    assert '<html lang="en">' in fresh.text and "<h2>Game log</h2>" in fresh.text


def test_the_referee_page_in_french(tmp_path):
    app, _ = make_app(tmp_path)
    page = app.test_client().get("/referee?lang=fr").text
    assert '<html lang="fr">' in page and "Nouvelle partie" in page and "Commencer la partie" in page
    assert "<code>flure play</code>" in page and ">New game<" not in page


def french_punctuation_faults(text: str, msgid: str) -> list[str]:
    """Where ``text`` lacks the no-break space (U+00A0) French sets before : ; ? ! and inside « ».
    Code is left alone: host:port, https://, %(a)s:%(b)s, or a token kept from the msgid (Authorization:)."""
    faults = []
    for hit in re.finditer(r"[:;?!»]", text):
        at = hit.start()
        after = text[at + 1:at + 2]
        if after and (after.isalnum() or after in "/%="):
            continue
        word = re.search(r"\S+$", text[:at])   # a token kept from the msgid: Authorization:, {"color":
        if word and not re.fullmatch(r"%\(\w+\)s", word.group(0)) and word.group(0) + text[at] in msgid:
            continue
        if at == 0 or text[at - 1] != "\u00a0":
            faults.append(text[max(0, at - 20):at + 1])
    faults += [text[at.start():at.start() + 20] for at in re.finditer(r"«(?!\u00a0)", text)]
    return faults


def test_french_sets_a_no_break_space_before_double_punctuation():
    """translations/GLOSSARY.md: U+00A0 before : ; ? ! and inside « » in every French msgstr, never a plain
    space nor none."""
    assert french_punctuation_faults("Tuiles jouées :", "Tiles played:") == ["Tuiles jouées :"]
    assert french_punctuation_faults("hôte:port, https://x, Authorization: Bearer", "Authorization: Bearer") == []
    assert french_punctuation_faults("%(path)s: x", "%(path)s: x") == ["%(path)s:"]
    wrong = []
    for path in sorted(po_path("fr").parent.glob("*.po")):   # every domain: messages, rules…
        for m in read(path):
            if not m.id:
                continue
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            for text in m.string if isinstance(m.string, tuple) else (m.string,):
                wrong += [f"{path.name} {ids[0]!r}: …{f}" for f in french_punctuation_faults(text or "", ids[-1])]
    assert not wrong, "French punctuation needs a no-break space (U+00A0):\n" + "\n".join(wrong)


def test_compiling_the_catalogs_is_quiet():
    """bootstrap.sh and install.sh compile on every run: no per-catalog statistics on stderr (English's
    "0 of 82 messages (0%) translated" reads like a failure), nothing but errors."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, "-m", "companion_app.i18n", "compile"], capture_output=True, text=True,
                       cwd=repo, timeout=120)
    assert r.returncode == 0 and r.stderr == "" and r.stdout == "", (r.stdout, r.stderr)
