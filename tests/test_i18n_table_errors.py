"""The table's own errors (its configuration file, the demo's end lines) in fr/de/es, rendered
from the real error raised by bad input; English stays the sentence it always was."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion_app.config import TableConfigError, load_table_config, parse_setting
from companion_app.i18n.text import error_text

REPO = Path(__file__).resolve().parent.parent


def config_error(tmp_path, text: str | bytes | None, **overrides) -> TableConfigError:
    path = tmp_path / "table.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    elif text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(TableConfigError) as info:
        load_table_config(path, overrides)
    return info.value


def test_a_corrupt_toml_file_is_named_in_each_language(tmp_path):
    err = config_error(tmp_path, "[web\nport = 80\n")
    path = str(tmp_path / "table.toml")
    assert str(err).startswith(f"{path}: not valid TOML (")              # English as it always was
    assert error_text(err, "en") == str(err)
    detail = str(err).split("(", 1)[1]                                     # tomllib's own detail, kept as is
    assert error_text(err, "fr") == f"{path}\u00a0: TOML non valide ({detail}"
    assert error_text(err, "de") == f"{path}: kein gültiges TOML ({detail}"
    assert error_text(err, "es") == f"{path}: TOML no válido ({detail}"


def test_a_missing_file_and_a_binary_file(tmp_path):
    err = config_error(tmp_path, None)
    assert "cannot read the configuration file" in str(err)
    assert "impossible de lire le fichier de configuration" in error_text(err, "fr")
    assert "die Konfigurationsdatei kann nicht gelesen werden" in error_text(err, "de")
    assert "no se puede leer el archivo de configuración" in error_text(err, "es")
    err = config_error(tmp_path, b"\xff\xfe[web]")
    assert "bytes that are not UTF-8 text" in str(err)
    assert "pas un fichier texte TOML" in error_text(err, "fr")
    assert "keine TOML-Textdatei" in error_text(err, "de")


def test_unknown_key_wrong_type_and_unknown_language(tmp_path):
    path = str(tmp_path / "table.toml")
    err = config_error(tmp_path, "[web]\nprot = 80\n")
    assert str(err).startswith(f"{path}: [web] has an unknown key prot; known keys: ")
    assert error_text(err, "de").startswith(f"{path}: [web] hat einen unbekannten Schlüssel: prot; bekannte Schlüssel: ")
    assert error_text(err, "fr").startswith(f"{path}\u00a0: [web] contient une clé inconnue\u00a0: prot")
    assert error_text(err, "es").startswith(f"{path}: [web] tiene una clave desconocida: prot; claves conocidas: ")
    err = config_error(tmp_path, "[web]\nprot = 80\nhots = 1\n")   # two: the plural, in each language's words
    assert str(err).startswith(f"{path}: [web] has unknown keys hots, prot; known keys: ")
    assert error_text(err, "fr").startswith(f"{path}\u00a0: [web] contient des clés inconnues\u00a0: hots, prot")

    err = config_error(tmp_path, "[web]\nport = \"eighty\"\n")
    assert str(err) == f"{path}: [web] port must be a whole number, not 'eighty'"
    assert error_text(err, "fr") == f"{path}\u00a0: [web] port doit être un nombre entier, pas 'eighty'"
    assert error_text(err, "es") == f"{path}: [web] port debe ser un número entero, no 'eighty'"

    err = config_error(tmp_path, "[table]\nlanguage = \"it\"\n")
    assert str(err) == (f"{path}: [table] language = 'it' is not a language the table speaks: "
                        "use 'en', 'fr', 'de' or 'es'")
    assert error_text(err, "de") == (f"{path}: [table] language = 'it' ist keine Sprache, die der Tisch spricht: "
                                     "'en', 'fr', 'de' oder 'es' verwenden")

    err = config_error(tmp_path, "[web]\nport = 99999\n")
    assert str(err) == f"{path}: [web] port = 99999 must be between 0 and 65535"
    assert error_text(err, "es") == f"{path}: [web] port = 99999 debe estar entre 0 y 65535"


def test_a_value_from_the_command_line_is_blamed_in_the_language(tmp_path):
    err = config_error(tmp_path, "", **{"web.port": "x"})
    assert str(err) == "command line: [web] port must be a whole number, not 'x'"
    assert error_text(err, "fr") == "ligne de commande\u00a0: [web] port doit être un nombre entier, pas 'x'"
    assert error_text(err, "de") == "Befehlszeile: [web] port muss eine ganze Zahl sein, nicht 'x'"
    with pytest.raises(TableConfigError) as info:
        parse_setting("web.port")
    assert "give a setting as section.key=value" in str(info.value)
    assert "eine Einstellung als Abschnitt.Schlüssel=Wert angeben" in error_text(info.value, "de")


def test_flure_config_check_says_it_in_the_lang_option(tmp_path):
    bad = tmp_path / "table.toml"
    bad.write_text("[table]\nmode = \"fast\"\n", encoding="utf-8")
    run = lambda *lang: subprocess.run([sys.executable, "-m", "companion_app.cli", *lang, "config", "check",
                                        "--config", str(bad)], capture_output=True, text=True, cwd=REPO,
                                       env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    en, fr = run(), run("--lang", "fr")
    assert en.returncode == fr.returncode == 1
    assert en.stderr.strip() == f"flure: {bad}: [table] mode 'fast' is not known (use \"auto\" or \"confirm\")"
    assert fr.stderr.strip() == f"flure: {bad}\u00a0: [table] mode 'fast' est inconnu (utilisez \"auto\" ou \"confirm\")"


SCENARIO = REPO / "tests" / "scenarios" / "p1-stay.json"


def flure_err(*argv: str) -> str:
    """``flure``'s one error line on stderr (the real CLI, the locale English unless --lang says)."""
    proc = subprocess.run([sys.executable, "-m", "companion_app.cli", *argv], capture_output=True, text=True, cwd=REPO,
                          env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    assert proc.returncode == 2, proc
    return proc.stderr.strip()


def test_a_bad_scenario_file_in_each_language(tmp_path):
    import json

    data = json.loads(SCENARIO.read_text(encoding="utf-8"))
    data["action"] = {"pawn": "A", "moves": "NQ"}          # pawn A is in p1-stay's setup; Q is no move letter
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert flure_err("scenario", "run", str(bad)) == \
        f"flure: {bad}: invalid scenario: action.moves: unknown move letter 'Q' at position 2 (use N E S W I X)"
    assert flure_err("--lang", "de", "scenario", "run", str(bad)).endswith(
        "action.moves: unbekannter Zugbuchstabe 'Q' an Stelle 2 (N E S W I X verwenden)")
    assert flure_err("--lang", "es", "scenario", "run", str(bad)).endswith(
        "action.moves: letra de movimiento desconocida 'Q' en la posición 2 (usa N E S W I X)")
    assert flure_err("--lang", "fr", "scenario", "run", str(bad)).endswith(
        "lettre de déplacement inconnue 'Q' à la position 2 (utilisez N E S W I X)")
    data["action"] = {"pawn": "nobody", "moves": "N"}
    bad.write_text(json.dumps(data), encoding="utf-8")
    assert flure_err("scenario", "run", str(bad)).endswith("action.pawn: names pawn 'nobody', which is not in the setup")
    assert flure_err("--lang", "de", "scenario", "run", str(bad)).endswith(
        "action.pawn: nennt die Figur 'nobody', die nicht im Aufbau steht")


def test_a_file_that_is_not_json_in_each_language(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": ', encoding="utf-8")
    en = flure_err("scenario", "run", str(bad))
    assert en == f"flure: {bad}: not valid JSON (line 1, column 12: Expecting value)"
    assert flure_err("--lang", "de", "scenario", "run", str(bad)) == \
        f"flure: {bad}: kein gültiges JSON (Zeile 1, Spalte 12: Expecting value)"
    assert flure_err("--lang", "fr", "scenario", "run", str(bad)) == \
        f"flure: {bad}\u00a0: JSON non valide (ligne 1, colonne 12\u00a0: Expecting value)"   # the path's colon too
    assert flure_err("--lang", "es", "resolve", str(bad), "--tile", "8") == \
        f"flure: {bad}: JSON no válido (línea 1, columna 12: Expecting value)"
