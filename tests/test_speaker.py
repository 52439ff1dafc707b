"""The Pi speaker: each monster step said through ``espeak-ng`` in the table's language.

Mocked at the process boundary only: an ``espeak-ng`` script on ``PATH`` records the argv it is
run with (and can fail, complain on stderr, or hold until released); everything from the session
down to ``subprocess.Popen`` is the real code.
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import threading
import time

import pytest

from companion_app.cli.engine import DEMO_SETUP
from companion_app.config import TableConfigError, load_table_config
from companion_app.i18n import LANGUAGES
from companion_app.i18n.text import render
from companion_app.table.devices.devices import Device, open_speaker
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import Store
from engine.monster import resolve
from engine.position import Position
from hardware.animation import plan_beats, step_times
from hardware.speaker import Speaker, SpeakerMissing, voice_for
from tests.web_helpers import play_pawn_phase

FAKE = """#!{python}
import json, os, sys, time
text = sys.argv[-1]
with open(os.environ["FAKE_ESPEAK_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({{"argv": sys.argv, "at": time.time()}}) + "\\n")
release = os.environ.get("FAKE_ESPEAK_RELEASE")
while release and not os.path.exists(release):
    time.sleep(0.02)
if "xx" in sys.argv:
    sys.stderr.write("Error: The specified espeak-ng voice does not exist.\\n")
    sys.exit(1)
if "bad" in text:
    sys.stderr.write("cannot speak this line\\n")
    sys.exit(1)
if "noisy" in text:
    sys.stderr.write("ALSA lib confmisc.c:855:(parse_card) cannot find card '0'\\n")
"""



@pytest.fixture
def espeak(tmp_path, monkeypatch):
    """A recording espeak-ng first on PATH; returns a reader of what it was run with."""
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "espeak-ng"
    script.write_text(FAKE.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "espeak.log"
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_ESPEAK_LOG", str(log))

    def calls() -> list[dict]:
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    calls.script = str(script)
    return calls


@pytest.fixture
def speakers():
    made = []
    yield made
    for speaker in made:
        speaker.close()


def plan():
    """The rulebook's advanced example (``flure demo``): pivots, a crystal, a pool and a teleporter."""
    return resolve(Position.from_setup(DEMO_SETUP), "8")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_espeak_command_line_for_each_language(espeak, speakers, lang):
    lines = [render(step.words, lang) for step in plan().steps]
    speaker = Speaker(voice_for(lang), 150)
    speakers.append(speaker)
    speaker.announce([(0.0, text) for text in lines])
    assert speaker.wait_idle(60)
    argv = [call["argv"] for call in espeak()]
    assert argv == [[espeak.script, "-v", lang, "-s", "150", "-b", "1", "--", text] for text in lines]
    first = {"en": "Step 1: ", "fr": "Pas 1\u00a0: ", "de": "Schritt 1: ", "es": "Paso 1: "}[lang]
    assert argv[0][-1].startswith(first) and argv[-1][-1].startswith(first.replace("1", str(len(lines))))
    assert speaker.status()["spoken"] == len(lines) and speaker.status()["last_error"] is None


def test_a_configured_voice_and_rate_win_over_the_table_language(espeak, speakers, tmp_path):
    table = tmp_path / "table.toml"
    table.write_text('[table]\nlanguage = "fr"\n[speaker]\nenabled = true\nvoice = "fr-be"\nrate = 210\n')
    config = load_table_config(table)
    device = open_speaker(config.speaker, config.table.language)
    speakers.append(device.obj)
    assert str(device.note) == "espeak-ng, voice fr-be, 210 words a minute"
    device.obj.announce([(0.0, "Pas 1 : il avance en k8.")])
    assert device.obj.wait_idle(30)
    assert espeak()[0]["argv"][1:] == ["-v", "fr-be", "-s", "210", "-b", "1", "--", "Pas 1 : il avance en k8."]


def test_steps_are_said_in_order_and_never_before_the_leds_start_them(espeak, speakers):
    move = plan()
    times = step_times(move, 260)
    beats = plan_beats(move)
    assert len(times) == len(move.steps) and times[0] == 0.26        # the first look is the beat after "start"
    assert all(beats[round(t / 0.26)].kind == "look" and beats[round(t / 0.26)].step == n + 1
               for n, t in enumerate(times))
    speaker = Speaker("en", 150)
    speakers.append(speaker)
    lines = [(0.0, "one"), (0.4, "two"), (0.5, "three")]
    start = time.time()
    speaker.announce(lines)
    assert speaker.wait_idle(30)
    calls = espeak()
    assert [c["argv"][-1] for c in calls] == ["one", "two", "three"]
    assert calls[1]["at"] - start >= 0.4 - 0.01 and calls[2]["at"] - start >= 0.5 - 0.01


def test_a_newer_move_replaces_the_lines_still_waiting(espeak, speakers, tmp_path, monkeypatch):
    release = tmp_path / "release"
    monkeypatch.setenv("FAKE_ESPEAK_RELEASE", str(release))
    speaker = Speaker("de", 150)
    speakers.append(speaker)
    speaker.announce([(0.0, "alt 1"), (0.0, "alt 2"), (0.0, "alt 3")])
    deadline = time.monotonic() + 30
    while not espeak() and time.monotonic() < deadline:
        time.sleep(0.02)
    speaker.announce([(0.0, "neu 1"), (0.0, "neu 2")])     # while "alt 1" is being said
    release.touch()
    assert speaker.wait_idle(30)
    assert [c["argv"][-1] for c in espeak()] == ["alt 1", "neu 1", "neu 2"]


def test_a_failing_call_is_a_status_line_and_the_next_line_is_still_said(espeak, speakers):
    speaker = Speaker("en", 150)
    speakers.append(speaker)
    speaker.announce([(0.0, "bad line"), (0.0, "good line"), (0.0, "noisy line")])
    assert speaker.wait_idle(30)
    assert [c["argv"][-1] for c in espeak()] == ["bad line", "good line", "noisy line"]
    status = speaker.status()
    assert status["spoken"] == 1 and status["failed"] == 2
    assert status["last_error"] == ("espeak-ng reported a problem: ALSA lib confmisc.c:855:(parse_card) cannot find "
                                    "card '0' (is a speaker connected, and may this user use the sound card?)")
    speaker.announce([(0.0, "bad again")])
    assert speaker.wait_idle(30)
    assert speaker.status()["last_error"] == "espeak-ng failed (exit status 1): cannot speak this line"


def test_a_missing_espeak_is_the_speakers_status_not_a_crash(tmp_path, monkeypatch):
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(SpeakerMissing):
        Speaker("fr")
    config = load_table_config(overrides={"speaker.enabled": True, "table.language": "fr"})
    device = open_speaker(config.speaker, config.table.language)
    assert device.obj is None
    status = device.status()
    assert status["present"] is False and status["message"] == ("no speaker: espeak-ng is not installed: sudo apt "
                                                                "install espeak-ng (deploy/install.sh does), or set "
                                                                "[speaker] enabled = false")
    assert render(status["message"], "de") == ("kein Lautsprecher: espeak-ng ist nicht installiert: sudo apt install "
                                               "espeak-ng (deploy/install.sh tut das), oder setzt [speaker] enabled = "
                                               "false")
    session = TableSession(Store(tmp_path / "s.sqlite3"), speaker=device)
    session.new_game(["red", "blue"], "red", seed=2)
    play_pawn_phase(session)
    session.act({"type": "draw"})                    # the move goes on without a voice
    assert session.game.last_plan is not None and not session.device_status()["speaker"]["present"]
    session.close()


def test_the_session_announces_each_move_without_waiting_for_the_voice(espeak, tmp_path, monkeypatch):
    """espeak-ng holds until released: the monster move returns (and the next state is published)
    while the first step is still being said; then every step follows, in the table's language."""
    release = tmp_path / "release"
    monkeypatch.setenv("FAKE_ESPEAK_RELEASE", str(release))
    speaker = Speaker("es", 150)
    session = TableSession(Store(tmp_path / "s.sqlite3"), speaker=Device("speaker", speaker), language="es",
                           beat_ms=10)
    try:
        session.new_game(["red", "blue"], "red", seed=2)
        play_pawn_phase(session)
        done = threading.Event()
        worker = threading.Thread(target=lambda: (session.act({"type": "draw"}), done.set()), daemon=True)
        worker.start()
        assert done.wait(30), "the monster move waited for the speaker"
        deadline = time.monotonic() + 30
        while not espeak() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(espeak()) == 1 and speaker.status()["speaking"]      # still saying step 1: held
        release.touch()
        assert speaker.wait_idle(60)
        said = [c["argv"][-1] for c in espeak()]
        assert said == [render(s.words, "es") for s in session.game.last_plan.steps] and said[0].startswith("Paso 1: ")
        assert session.device_status()["speaker"]["detail"]["spoken"] == len(said)
    finally:
        release.touch()
        session.close()


def test_the_table_language_is_checked_and_the_speaker_section_too(tmp_path):
    assert load_table_config().table.language == "en" and not load_table_config().speaker.enabled
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\nlanguage = "it"\n')
    with pytest.raises(TableConfigError) as exc:
        load_table_config(bad)
    assert str(exc.value) == (f"{bad}: [table] language = 'it' is not a language the table speaks: use 'en', 'fr', "
                              "'de' or 'es'")
    bad.write_text('[speaker]\nrate = 5\n')
    with pytest.raises(TableConfigError, match=r"\[speaker\] rate"):
        load_table_config(bad)
    bad.write_text('[speaker]\nvoice = "fr; rm -rf"\n')
    with pytest.raises(TableConfigError, match="espeak-ng voice name"):
        load_table_config(bad)
    bad.write_text('[table]\nlanguage = "DE"\n[speaker]\nenabled = true\n')
    assert load_table_config(bad).table.language == "de"


def test_doctor_checks_the_speaker(espeak, tmp_path, monkeypatch):
    from companion_app.cli.checks import check_speaker

    def line(toml: str, lang: str = "en") -> str:
        table = tmp_path / "table.toml"
        table.write_text(toml)
        (finding,) = check_speaker(load_table_config(table), lang)
        return finding.line(lang)

    assert line("") == ("ok   speaker: off ([speaker] enabled = false): the steps are not read aloud on the table "
                        "(the phones can read them)")
    on = '[table]\nlanguage = "fr"\n[speaker]\nenabled = true\n'
    assert line(on) == "ok   speaker: espeak-ng speaks with the voice 'fr', 150 words a minute"
    assert espeak()[-1]["argv"][1:] == ["-q", "-v", "fr", "-s", "150", "-b", "1", "--", "ok"]   # -q: no sound
    assert line(on, "de") == "ok   Lautsprecher: espeak-ng spricht mit der Stimme 'fr', 150 Wörter pro Minute"
    assert line(on + 'voice = "xx"\n') == ("FIX  speaker: espeak-ng cannot speak with the voice 'xx' (Error: The "
                                           "specified espeak-ng voice does not exist.): set [speaker] voice to one "
                                           "that espeak-ng --voices lists")
    empty = tmp_path / "nothing-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert line(on, "es") == ("FIX  altavoz: espeak-ng no está instalado: sudo apt install espeak-ng "
                              "(deploy/install.sh lo hace), o ajusta [speaker] enabled = false")


def test_pages_without_a_hint_open_in_the_table_language(tmp_path):
    from tests.web_helpers import make_app

    table = tmp_path / "table.toml"
    table.write_text('[table]\nlanguage = "de"\n')
    app, _session = make_app(tmp_path, table_config=load_table_config(table))
    client = app.test_client()
    assert '<html lang="de">' in client.get("/", headers={"Accept-Language": "ja"}).text     # no match: the table's
    assert '<html lang="de">' in app.test_client().get("/").text                             # no header at all
    assert '<html lang="fr">' in app.test_client().get("/", headers={"Accept-Language": "fr"}).text   # the phone's wins


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed here (Debian package espeak-ng)")
@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_real_espeak_takes_the_command_line_and_has_each_languages_voice(tmp_path, lang):
    """The same argv as the speaker's, with -q (no sound), through flure doctor's check."""
    from companion_app.cli.checks import check_speaker

    table = tmp_path / "table.toml"
    table.write_text(f'[table]\nlanguage = "{lang}"\n[speaker]\nenabled = true\n')
    (finding,) = check_speaker(load_table_config(table))
    assert finding.ok, finding.text
    assert finding.text == f"espeak-ng speaks with the voice '{lang}', 150 words a minute"


def test_the_speakers_live_error_is_said_in_each_language(espeak, speakers):
    """The referee view's device status carries the real failure as wording data, said in each language."""
    from companion_app.table.devices.devices import Device

    speaker = Speaker("en", 150)
    speakers.append(speaker)
    speaker.announce([(0.0, "bad line")])
    assert speaker.wait_idle(30)
    detail = Device("speaker", speaker, why="").status()["detail"]
    assert detail["last_error"] == "espeak-ng failed (exit status 1): cannot speak this line"
    assert {lang: render(detail["last_error"], lang) for lang in LANGUAGES} == {
        "en": "espeak-ng failed (exit status 1): cannot speak this line",
        "fr": "espeak-ng a échoué (code de sortie 1)\u00a0: cannot speak this line",   # espeak-ng's own words stay
        "de": "espeak-ng ist fehlgeschlagen (Exit-Status 1): cannot speak this line",
        "es": "espeak-ng falló (código de salida 1): cannot speak this line"}
