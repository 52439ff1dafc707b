"""The table's own errors (its configuration file, the demo's end lines) in fr/de/es, rendered
from the real error raised by bad input; English stays the sentence it always was."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from companion_app.i18n.text import error_text, render
from companion_app.table.config import TableConfigError, load_table_config, parse_setting

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
    assert str(err).startswith(f"{path}: [web] has unknown key(s) prot; known keys: ")
    assert error_text(err, "de").startswith(f"{path}: [web] hat unbekannte Schlüssel: prot; bekannte Schlüssel: ")
    assert error_text(err, "fr").startswith(f"{path}\u00a0: [web] contient des clés inconnues\u00a0: prot")
    assert error_text(err, "es").startswith(f"{path}: [web] tiene claves desconocidas: prot; claves conocidas: ")

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
