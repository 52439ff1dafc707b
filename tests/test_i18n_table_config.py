"""The table's configuration checks (camera, hardware, speaker, web, PIN file) and the Setup page's
refusals in fr/de/es, each from real bad input: a real file, a real request to the test app.
English stays the sentence it always was; keys, values and squares are kept as written."""
from __future__ import annotations

import pytest

from companion_app.config import TableConfigError, load_table_config, set_in_text
from companion_app.i18n.text import error_text
from tests.test_i18n_api_schema import answers

NBSP = "\u00a0"


def said(tmp_path, text: str) -> dict[str, str]:
    """The error for a table.toml holding ``text``, in each language."""
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TableConfigError) as info:
        load_table_config(path)
    err = info.value
    assert error_text(err, "en") == str(err)
    return {lang: error_text(err, lang) for lang in ("en", "fr", "de", "es")}


class Start(str):
    """An expected text given by its beginning (the rest names a path or a long list)."""


def expect(texts: dict[str, str], expected: dict[str, str], path=None) -> None:
    """Each language's text is the expected one (``{p}`` is ``path``), or starts with a ``Start``."""
    for lang, want in expected.items():
        want_text = want.replace("{p}", str(path)) if path is not None else str(want)
        if isinstance(want, Start):
            assert texts[lang].startswith(want_text), (lang, texts[lang])
        else:
            assert texts[lang] == want_text, (lang, texts[lang])


# A bad table.toml (its text) and what the check says; ``{p}`` is the file's path.
BAD_TABLE_FILES = {
    "camera source": ('[camera]\nsource = ""\n', {
        "en": '{p}: [camera] source must name a camera: "0", "picamera", a file, "simulated", "synthetic" or "none"',
        "fr": f'{{p}}{NBSP}: [camera] source doit nommer une caméra{NBSP}: "0", "picamera", un fichier, '
              '"simulated", "synthetic" ou "none"',
        "de": Start("{p}: [camera] source muss eine Kamera nennen: "),
        "es": Start("{p}: [camera] source debe nombrar una cámara: ")}),
    "camera resolution": ("[camera]\nresolution = [640]\n", {
        "en": "{p}: [camera] resolution must be [width, height] like [1920, 1080], not [640]",
        "de": "{p}: [camera] resolution muss [Breite, Höhe] wie [1920, 1080] sein, nicht [640]"}),
    "camera exposure": ("[camera.exposure]\nanalogue_gain = 0.5\n", {
        "en": "{p}: [camera.exposure] analogue_gain = 0.5 must be 0 (automatic) or 1.0 to 64",
        "es": "{p}: [camera.exposure] analogue_gain = 0.5 debe ser 0 (automático) o de 1.0 a 64"}),
    "camera reader": ("[camera]\nreader = 3\n", {
        "en": "{p}: [camera.reader] must be a section, not 3",
        "fr": f"{{p}}{NBSP}: [camera.reader] doit être une section, pas 3"}),
    "serial protocol": ('[serial]\nprotocol = "dmx"\n', {
        "en": "{p}: [serial] protocol 'dmx' is not supported (use adalight or tpm2)",
        "de": "{p}: [serial] Protokoll 'dmx' wird nicht unterstützt (adalight oder tpm2 verwenden)"}),
    "button pin": ("[buttons]\npins = { monster = 99 }\n", {
        "en": "{p}: [buttons.pins] monster = 99 is not a BCM GPIO number (0–27)",
        "fr": f"{{p}}{NBSP}: [buttons.pins] monster = 99 n'est pas un numéro de GPIO BCM (0–27)",
        "es": "{p}: [buttons.pins] monster = 99 no es un número de GPIO BCM (0–27)"}),
    "serial not a section": ("serial = 5\n", {
        "en": "{p}: serial must be a section [serial], not 5",
        "de": "{p}: serial muss ein Abschnitt [serial] sein, nicht 5"}),
    "speaker enabled": ('[speaker]\nenabled = "yes"\n', {
        "en": "{p}: [speaker] enabled must be true or false, not 'yes'",
        "fr": f"{{p}}{NBSP}: [speaker] enabled doit valoir true ou false, pas 'yes'"}),
    "speaker voice": ('[speaker]\nvoice = "f r"\n', {
        "en": Start("{p}: [speaker] voice = 'f r' must be an espeak-ng voice name"),
        "es": Start("{p}: [speaker] voice = 'f r' debe ser un nombre de voz de espeak-ng")}),
    "web public_host": ('[web]\npublic_host = "http://x"\n', {
        "en": '{p}: [web] public_host = \'http://x\' must be a bare name like "flure.local" (no http://, no port)',
        "de": '{p}: [web] public_host = \'http://x\' muss ein bloßer Name wie "flure.local" sein '
              '(ohne http://, ohne Port)'}),
    "web pin": ('[web]\npin = "12"\n', {
        "en": "{p}: [web] pin must be 4 to 64 letters or digits",
        "fr": f"{{p}}{NBSP}: [web] pin doit compter 4 à 64 lettres ou chiffres"}),
}


@pytest.mark.parametrize("text, expected", BAD_TABLE_FILES.values(), ids=BAD_TABLE_FILES.keys())
def test_a_bad_table_file_is_refused_in_each_language(tmp_path, text, expected):
    expect(said(tmp_path, text), expected, tmp_path / "table.toml")


def test_the_pin_file_and_set_in_text(tmp_path):
    pin = tmp_path / "pin.txt"
    pin.write_text("12\n", encoding="utf-8")
    (tmp_path / "table.toml").write_text(f'[web]\npin_file = "{pin}"\n', encoding="utf-8")
    with pytest.raises(TableConfigError) as info:
        load_table_config(tmp_path / "table.toml").web.read_pin()
    assert str(info.value) == f"{pin}: the PIN file's first line must be 4 to 64 letters or digits ([web] pin_file)"
    assert error_text(info.value, "de") == (f"{pin}: die erste Zeile der PIN-Datei muss aus 4 bis 64 Buchstaben "
                                            "oder Ziffern bestehen ([web] pin_file)")
    pin.write_bytes(b"\xff\xfe")
    with pytest.raises(TableConfigError) as info:
        load_table_config(tmp_path / "table.toml").web.read_pin()
    assert str(info.value) == f"{pin}: cannot read the PIN file ([web] pin_file): not a text file in UTF-8"
    assert error_text(info.value, "fr") == (f"{pin}{NBSP}: impossible de lire le fichier du code PIN "
                                            f"([web] pin_file){NBSP}: pas un fichier texte en UTF-8")
    assert error_text(info.value, "es") == (f"{pin}: no se puede leer el archivo del PIN ([web] pin_file): "
                                            "no es un archivo de texto en UTF-8")
    with pytest.raises(TableConfigError) as info:
        set_in_text("[web]\nport = 80\n", {"speaker.rate": 120})
    assert str(info.value) == "no [speaker] section to set rate in"
    assert error_text(info.value, "de") == "kein Abschnitt [speaker], in dem rate gesetzt werden kann"


def setup_errors(tmp_path, path: str, body) -> dict[str, str]:
    """A real bad request to the test app's Setup API, refused (409) in each request language."""
    return answers(tmp_path, f"/api/setup{path}", body, status=409)


# A bad request to the Setup page's API (its path under /api/setup, its body) and the refusal.
BAD_SETUP_REQUESTS = {
    "no such row": ("/leds/light", {"what": "row 12"}, {
        "en": "no row '12': rows are 1–11, columns a–p",
        "fr": f"pas de rangée '12'{NBSP}: les rangées vont de 1 à 11, les colonnes de a à p",
        "de": "keine Reihe '12': Reihen sind 1–11, Spalten a–p",
        "es": "no hay fila '12': las filas son 1–11, las columnas a–p"}),
    "what to light": ("/leds/light", {"what": "blink"}, {
        "en": "light 'all', 'row N' (1–11) or 'column X' (a–p)",
        "de": "'all', 'row N' (1–11) oder 'column X' (a–p) leuchten lassen"}),
    "no such square": ("/leds/mark", {"square": "q9", "wrong": True}, {
        "en": "'q9' is not a square of the board (a1 to p11)",
        "fr": "'q9' n'est pas une case du plateau (a1 à p11)",
        "es": "'q9' no es una casilla del tablero (a1 a p11)"}),
    "exposure": ("/exposure", {"exposure_us": -5, "analogue_gain": 0}, {
        "en": "exposure_us must be a whole number of microseconds from 0 (automatic) to 1000000",
        "de": "exposure_us muss eine ganze Zahl von Mikrosekunden von 0 (automatisch) bis 1000000 sein"}),
    "colour gains": ("/exposure", {"exposure_us": 0, "analogue_gain": 0, "colour_gains": [99, 1]}, {
        "en": Start("colour_gains must be [red, blue] gains"),
        "fr": Start("colour_gains doit être des gains [rouge, bleu]")}),
}


@pytest.mark.parametrize("path, body, expected", BAD_SETUP_REQUESTS.values(), ids=BAD_SETUP_REQUESTS.keys())
def test_the_setup_page_refuses_in_the_request_language(tmp_path, path, body, expected):
    expect(setup_errors(tmp_path, path, body), expected)


def test_a_hardware_file_that_cannot_be_read(tmp_path):
    from hardware.config import HardwareConfigError, load_config

    missing, broken = tmp_path / "none.toml", tmp_path / "hw.toml"
    broken.write_text("[serial\n", encoding="utf-8")
    with pytest.raises(HardwareConfigError) as info:
        load_config(missing)
    assert str(info.value) == f"{missing}: cannot read the hardware configuration (No such file or directory)"
    assert error_text(info.value, "de") == (f"{missing}: die Hardware-Konfiguration kann nicht gelesen werden "
                                            "(Datei oder Verzeichnis nicht gefunden)")
    with pytest.raises(HardwareConfigError) as info:
        load_config(broken)
    assert str(info.value).startswith(f"{broken}: not valid TOML (")
    assert error_text(info.value, "fr").startswith(f"{broken}{NBSP}: TOML non valide (")
    assert error_text(info.value, "es").startswith(f"{broken}: TOML no válido (")
