"""``flure`` in four languages: ``--lang`` anywhere on the line, else the locale, else English;
JSON outputs and the ``ok``/``FIX`` column never change with the language."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import companion_app.cli as cli
from companion_app.cli.lang import LanguageError, from_locale, set_language, take_option
from companion_app.i18n.text import localize
from engine.monster import resolve
from engine.position import Position
from engine.wording import OS_REASONS

REPO = Path(__file__).resolve().parent.parent
SCENARIO = REPO / "tests" / "scenarios" / "b1-pawn-slides-back-over-same-pool.json"


@pytest.fixture(autouse=True)
def english_afterwards():
    """main() sets the process's CLI language: later tests in this process start in English again."""
    yield
    set_language("en")


def flure(*args: str, lang_env: str | None = "C.UTF-8", **env) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")}
    if lang_env is not None:
        environ["LANG"] = lang_env
    environ.update(env)
    return subprocess.run([sys.executable, "-m", "companion_app.cli", *args], capture_output=True, text=True,
                          cwd=REPO, env=environ, timeout=120)


def demo_plan():
    from companion_app.cli.engine import DEMO_SETUP
    return resolve(Position.from_setup(DEMO_SETUP), "8")


# --- choosing the language --------------------------------------------------------------------

@pytest.mark.parametrize("environ, lang", [
    ({"LANG": "de_DE.UTF-8"}, "de"),
    ({"LANG": "fr_CA.UTF-8"}, "fr"),
    ({"LANG": "es_ES@euro"}, "es"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, "es"),
    ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "es_ES.UTF-8", "LC_ALL": "fr_FR.UTF-8"}, "fr"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "POSIX"}, "en"),
    ({"LANG": "it_IT.UTF-8"}, "en"),      # a language we do not have: English, not an error
    ({"LC_ALL": "", "LANG": "de_DE.UTF-8"}, "de"),   # an empty variable does not count
    ({}, "en"),
], ids=lambda v: str(v))
def test_the_locale_decides_as_gettext_reads_it(environ, lang):
    assert from_locale(environ) == lang


def test_lang_is_taken_off_the_line_wherever_it_stands():
    assert take_option(["--lang", "de", "demo"]) == ("de", ["demo"])
    assert take_option(["resolve", "p.json", "--tile", "8", "--lang=fr"]) == ("fr", ["resolve", "p.json", "--tile", "8"])
    assert take_option(["--lang", "en", "play", "--lang", "es"]) == ("es", ["play"])     # the last one wins
    assert take_option(["--lang", "de-AT", "demo"]) == ("de", ["demo"])
    assert take_option(["demo"]) == (None, ["demo"])
    assert take_option(["vision", "read", "--", "--lang"]) == (None, ["vision", "read", "--", "--lang"])
    with pytest.raises(LanguageError):
        take_option(["demo", "--lang"])
    with pytest.raises(LanguageError):
        take_option(["--lang", "it", "demo"])


def test_an_unknown_lang_is_refused_in_plain_words(capsys):
    assert cli.main(["--lang", "klingon", "demo"]) == 2
    assert capsys.readouterr().err == ("flure: --lang 'klingon' is not a language flure speaks: use en, fr, de or es\n")
    assert cli.main(["demo", "--lang"]) == 2
    assert capsys.readouterr().err == "flure: --lang needs a language: en, fr, de or es\n"


def test_an_unknown_lang_is_refused_in_the_locales_language():
    r = flure("--lang", "it", "demo", lang_env="de_DE.UTF-8")
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr == "flure: --lang 'it' ist keine Sprache, die flure spricht: nehmt en, fr, de oder es\n"


# --- the plan, the status lines, the errors ---------------------------------------------------------

@pytest.mark.parametrize("lang, first", [
    ("en", "The rulebook's advanced example: pivots, a crystal, a pool and a teleporter pair."),
    ("fr", "L'exemple avancé de la règle\u00a0: pierres de pivot, un cristal, une flaque de sang et une paire "
           "de téléporteurs."),
    ("de", "Das Fortgeschrittenen-Beispiel der Spielregel: Dreh- und Wendesteine, ein Kristall, eine Blutlache und "
           "ein Teleporterpaar."),
    ("es", "El ejemplo avanzado del reglamento: piedras de giro, un cristal, un charco de sangre y "
           "un par de teletransportadores."),
])
def test_demo_prints_the_plan_in_the_locales_language_with_the_phones_words(lang, first):
    r = flure("demo", lang_env={"en": "C.UTF-8", "fr": "fr_FR.UTF-8", "de": "de_DE.UTF-8", "es": "es_ES.UTF-8"}[lang])
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == first
    lines = localize(demo_plan().sentences(), lang)   # the same renderer as the phones and the referee log
    assert lines == [line for line in out if line in lines]   # every line, in order
    assert ("Step 1:" in r.stdout) == (lang == "en")
    assert {"fr": "Pas 1\u00a0:", "de": "Schritt 1:", "es": "Paso 1:", "en": "Step 1:"}[lang] in r.stdout


def test_lang_overrides_the_locale():
    r = flure("demo", "--lang", "fr", lang_env="de_DE.UTF-8")
    assert r.returncode == 0 and "Tuile tombale 8\u00a0: le monstre part de j8, tourné vers l'est." in r.stdout
    assert "Schritt" not in r.stdout


def test_resolve_json_is_the_same_in_every_language(tmp_path):
    outs = {lang: flure("--lang", lang, "resolve", str(SCENARIO), "--tile", "8", "--json").stdout
            for lang in ("en", "fr", "de", "es")}
    assert len(set(outs.values())) == 1 and json.loads(outs["de"])["steps"]


@pytest.mark.parametrize("lang, sentence", [
    ("en", "flure: {path}: cannot read the file (No such file or directory)"),
    ("fr", "flure: {path}\u00a0: impossible de lire le fichier (Aucun fichier ou dossier de ce nom)"),
    ("de", "flure: {path}: die Datei kann nicht gelesen werden (Datei oder Verzeichnis nicht gefunden)"),
    ("es", "flure: {path}: no se puede leer el archivo (No existe el archivo o el directorio)"),
])
def test_fail_says_it_in_the_commands_language(tmp_path, capsys, lang, sentence):
    missing = tmp_path / "nowhere.json"
    assert cli.main(["--lang", lang, "replay", str(missing)]) == 2
    assert capsys.readouterr().err == sentence.format(path=missing) + "\n"


def test_the_systems_reason_is_worded_too_and_stays_the_c_librarys_in_english(tmp_path, capsys):
    """An OSError's reason (engine.wording.OS_REASONS, by errno) is translated; its English is strerror's."""
    for code, english in OS_REASONS.items():
        assert english == os.strerror(code)
    assert cli.main(["--lang", "de", "resolve", str(tmp_path), "--tile", "5"]) == 2     # a folder, not a file
    assert capsys.readouterr().err == f"flure: {tmp_path}: die Datei kann nicht gelesen werden (Ist ein Verzeichnis)\n"
    bad = tmp_path / "latin1.json"
    bad.write_bytes("{\"caf\xe9\": 1}".encode("latin-1"))
    assert cli.main(["--lang", "es", "replay", str(bad)]) == 2
    assert capsys.readouterr().err == f"flure: {bad}: no se puede leer el archivo (no es un archivo de texto en UTF-8)\n"


def test_argparse_speaks_the_language_too(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["resolve", "p.json", "--lang", "fr"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("utilisation\u00a0: flure resolve")
    assert "les arguments suivants sont requis\u00a0: --tile/-t" in err
    with pytest.raises(SystemExit):
        cli.main(["--lang", "de", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("Aufruf: flure") and "Finstere Flure Companion: spielt das Monster für euren Tisch." in out
    assert "zeigt die Bewegung des Monsters für ein Grabstein-Plättchen" in out       # a command's help line
    with pytest.raises(SystemExit):
        cli.main(["--lang", "es", "resolve", "--help"])
    out = capsys.readouterr().out
    assert "Muestra el camino del monstruo paso a paso" in out and "argumentos posicionales" in out


def test_scenario_check_summary_and_config_check(tmp_path, capsys):
    assert cli.main(["--lang", "es", "scenario", "check", "-q", str(SCENARIO)]) == 0
    assert capsys.readouterr().out == "escenarios: 1 superados, 0 fallidos, 0 no válidos\n"
    table = tmp_path / "table.toml"
    table.write_text("[web]\nport = 8123\n")
    assert cli.main(["--lang", "fr", "config", "check", "--config", str(table)]) == 0
    assert capsys.readouterr().out == f"ok\u00a0: {table} est une configuration de table valide\n"


def test_doctor_words_each_check_but_keeps_its_ok_fix_column(tmp_path, capsys):
    status = cli.main(["--lang", "de", "doctor", "--port", "0", "--leds", str(tmp_path / "no-leds"),
                       "--db", str(tmp_path / "s.sqlite3"), "--camera", "none"])
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert status == 1 and all(line[:5] in ("ok   ", "FIX  ") for line in lines)
    assert lines[0] == "ok   Konfiguration: die Standardkonfiguration (kein --config) ist gültig"
    assert f"FIX  LED-Controller: {tmp_path / 'no-leds'} ist nicht da: steckt das USB-Kabel" in out.out
    assert "ok   Kamera: ausgeschaltet ([camera] source = \"none\")" in out.out
    assert f"ok   Datenbank: {tmp_path / 's.sqlite3'} ist beschreibbar" in out.out
    assert out.err.endswith("zu beheben (siehe oben).\n")


def test_play_prints_its_start_up_lines_in_the_language(tmp_path):
    """The URL and PIN lines in Spanish; the process is stopped as soon as it serves."""
    from play_process import start_play, stop_play

    proc, out = start_play("--lang", "es", "--host", "127.0.0.1", "--port", "0", "--pin", "2468", "--no-camera",
                           "--no-leds", "--db", str(tmp_path / "s.sqlite3"), ready_line="Pulsa Ctrl+C para detener.")
    stop_play(proc, signal.SIGTERM)
    assert "Sesión de mesa de Finstere Flure" in out, out
    assert "Jugadores: abrid http://127.0.0.1:" in out and "en vuestros móviles" in out
    assert "referee en la tableta e introduce el PIN 2468" in out
    assert "Partida:  ninguna todavía; empieza una desde la vista del árbitro." in out
    assert f"Guardado en {tmp_path / 's.sqlite3'}" in out
    # the devices' fixed sentences are wording data: in the command's language too
    assert "Cámara: apagada (--no-camera)" in out and "Cuadrícula de LED: apagada (--no-leds)" in out
    assert "Altavoz: apagado ([speaker] enabled = false)" in out


def test_the_device_and_camera_commands_speak_too(tmp_path, capsys):
    assert cli.main(["--lang", "de", "leds", "layout"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == ("156 Felder mit LEDs, 156 LEDs auf dem Streifen; '-' keine "
                                                        "LED, '#' ausgeschnittene Ecke.")
    assert cli.main(["--lang", "fr", "stickers", "-o", str(tmp_path / "no" / "such")]) == 2
    assert capsys.readouterr().err == (f"flure: {tmp_path / 'no' / 'such'}\u00a0: le dossier {tmp_path / 'no'} (planches "
                                       "d'autocollants) n'existe pas (créez-le, ou indiquez un autre chemin)\n")
    assert cli.main(["--lang", "es", "calibrate", "board", "-o", str(tmp_path / "board.txt")]) == 2
    assert capsys.readouterr().err == (f"flure: {tmp_path / 'board.txt'}: el archivo (imagen) debe terminar en .png o "
                                       ".jpg o .jpeg, no en .txt\n")
    with pytest.raises(SystemExit):
        cli.main(["--lang", "es", "leds", "test", "emulator", "--seconds-each", "-1"])
    assert "argumento --seconds-each: '-1' no es un número de segundos mayor que 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["--lang", "fr", "vision", "render", "--help"])
    out = capsys.readouterr().out
    assert "Dessine la table comme la voit une caméra au-dessus" in out and "une main et un avant-bras" in out
