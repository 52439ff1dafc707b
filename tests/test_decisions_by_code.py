"""Every decision by a code or a type, none by matching English text.

Each test rewords the sentence a decision used to read — a reworded Text, or a message that
starts with the very words the old code looked for — and checks the decision still follows the
code or the type: rewording a message never changes what the program does.
"""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from calibration.store import CalibrationError, load_calibration
from companion_app.table.actors import CAMERA_READ, By, Trigger, read_by
from companion_app.table.camera.judge import explain_observation
from companion_app.table.devices.devices import open_camera
from companion_app.table.devices.fakes import FakeCamera, FakeReading
from companion_app.table.session.store import SQLITE_FULL, Store, is_damaged
from companion_app.table.simulated.demo import journal_counts
from engine import jsontext
from engine.position import basic_position
from engine.reconcile import Problem, refused
from engine.wording import N_, Said, Text
from vision import sources
from web_helpers import AUTH, make_app, session_with, show_table

# -- engine.jsontext: "is not JSON" or "cannot be used" by the error's class ------------------------

def test_text_that_is_not_json_is_its_own_class_and_unusable_json_is_not():
    for text in (b"\xff\xfe", b'{"type": '):
        with pytest.raises(jsontext.NotJsonError):
            jsontext.loads(text)
    for text in ("[" * 100 + "]" * 100, "1" + "0" * 60, "NaN"):
        with pytest.raises(jsontext.JsonTextError) as caught:
            jsontext.loads(text)
        assert not isinstance(caught.value, jsontext.NotJsonError)


def _raising(error):
    def loads(*args, **kwargs):
        raise error
    return loads


def test_a_calibration_file_says_is_or_cannot_be_used_by_the_errors_class(tmp_path, monkeypatch):
    path = tmp_path / "lens.json"
    path.write_text("{}")
    monkeypatch.setattr(jsontext, "loads", _raising(jsontext.NotJsonError(Text(N_("garbled bytes")))))
    with pytest.raises(CalibrationError, match="is garbled bytes; run"):
        load_calibration(path)
    monkeypatch.setattr(jsontext, "loads", _raising(jsontext.JsonTextError(Text(N_("not deep enough")))))
    with pytest.raises(CalibrationError, match=r"cannot be used \(not deep enough\); run"):
        load_calibration(path)


def test_a_request_body_says_is_or_cannot_be_used_by_the_errors_class(tmp_path, monkeypatch):
    app, _session = make_app(tmp_path)
    client = app.test_client()
    monkeypatch.setattr(jsontext, "loads", _raising(jsontext.NotJsonError(Text(N_("garbled bytes")))))
    r = client.post("/api/action", data="{}", headers=AUTH, content_type="application/json")
    assert r.status_code == 400 and r.json["error"] == "The body is garbled bytes"
    monkeypatch.setattr(jsontext, "loads", _raising(jsontext.JsonTextError(Text(N_("not deep enough")))))
    r = client.post("/api/action", data="{}", headers=AUTH, content_type="application/json")
    assert r.status_code == 400 and r.json["error"] == "The body cannot be used: not deep enough"


# -- the camera: an unknown source by its class, a locked exposure by the source's flag -------------

def test_only_a_source_of_no_known_kind_leaves_the_camera_absent_whatever_its_words(monkeypatch):
    monkeypatch.setattr(sources, "open_source", _raising(sources.UnknownSourceError(Text(N_("no such kind")))))
    device = open_camera("gopher", lambda: (basic_position(), None))
    assert device.obj is None and "no such kind" in str(device.why)
    monkeypatch.setattr(sources, "open_source",      # unplugged now, whatever it says: the worker retries
                        _raising(sources.SourceError(Text(N_("unknown camera source for now")))))
    device = open_camera("0", lambda: (basic_position(), None), read_timeout=0.2)
    try:
        assert device.obj is not None, device.why
    finally:
        device.obj.close()


class _LockedSource:
    """A camera that gives black frames and says what it did with the exposure in its own words."""

    def __init__(self, honoured: bool, note: str):
        self.exposure_honoured = honoured
        self.exposure_note = Said(Text(note))

    def read(self):
        return np.zeros((1080, 1920, 3), np.uint8)

    def close(self):
        pass


@pytest.mark.parametrize("honoured,note", [(True, N_("all set, as asked")),
                                           (False, N_("exposure locked: but the gain was not"))])
def test_the_doctor_trusts_the_sources_flag_not_its_note(tmp_path, monkeypatch, honoured, note):
    from companion_app.cli import checks as doctor
    from companion_app.config import load_table_config

    (tmp_path / "table.toml").write_text('[camera]\nsource = "0"\n[camera.exposure]\nexposure_us = 8000\n')
    monkeypatch.setattr(sources, "open_source", lambda *args, **kwargs: _LockedSource(honoured, note))
    monkeypatch.setattr(doctor, "check_board", lambda *args, **kwargs: [])
    found = [f for f in doctor.check_camera(load_table_config(tmp_path / "table.toml"), timeout=1) if f.topic == "exposure"]
    assert len(found) == 1 and found[0].ok is honoured and str(note) in found[0].text


def test_the_pi_camera_flags_whether_every_exposure_control_was_taken():
    class Camera:
        def __init__(self, refuse: bool):
            self.refuse = refuse

        def set_controls(self, controls):
            if self.refuse:
                raise RuntimeError("no such control")

    asked = {"exposure_us": 10000, "analogue_gain": 2.0}
    assert sources.PicameraSource(camera=Camera(False), exposure=asked).exposure_honoured is True
    assert sources.PicameraSource(camera=Camera(True), exposure=asked).exposure_honoured is False
    assert sources.PicameraSource(camera=Camera(False)).exposure_honoured is False     # automatic: nothing locked


# -- the table loop: an illegal reading is refused by its problem's code ----------------------------

@pytest.mark.parametrize("code,kind", [("unexplained", "refused"), ("ambiguous", "ask")])
def test_a_reading_is_refused_or_asked_by_the_problems_code_and_said_once(tmp_path, monkeypatch, code, kind):
    from companion_app.table.camera import judge
    from engine.observation import Observation

    s = session_with(tmp_path)
    s.new_game(["red", "blue"], "red", seed=8)
    words = Text(N_("a reworded reason"))     # no "explains" in it: said as it is, never wrapped again
    monkeypatch.setattr(judge, "reconcile_observation",
                        lambda game, seen, frames=None: refused(game.position, Problem(code, words)))
    change = explain_observation(s.game, Observation.of(s.game.position))
    assert change.kind == kind and change.blink is (kind == "refused") and change.message is words


# -- who gave an action: an enum whose values are the journal's strings ------------------------------

def test_who_gave_an_action_is_typed_and_saved_as_the_same_strings():
    assert [b.value for b in By] == ["referee", "button", "camera", "camera+screen", "camera+button"]
    assert {b for b in By if b.camera} == CAMERA_READ == {By.CAMERA, By.CAMERA_SCREEN, By.CAMERA_BUTTON}
    assert [t.by for t in Trigger] == [By.CAMERA, By.CAMERA_SCREEN, By.CAMERA_BUTTON]
    assert read_by("camera+screen") is By.CAMERA_SCREEN and read_by("cameraman") is None
    assert f"{By.CAMERA_BUTTON}" == str(By.CAMERA_BUTTON) == "camera+button"


def test_the_journal_keeps_the_strings_and_counts_by_the_enum(tmp_path):
    camera = FakeCamera()
    s = session_with(tmp_path, camera=camera, mode="confirm")
    s.new_game(["red", "blue"], "red", seed=8)
    show_table(camera, s)
    seen = s.game.position.to_setup()
    seen["pawns"]["red-6/1"].update(at="p11", face="black")
    camera.reading = FakeReading(True, seen)
    s.confirm_reading(by=Trigger.BUTTON)                              # the CONFIRM button
    s.act({"type": "move", "pawn": "blue-6/1", "moves": ""}, by="referee")   # a saved string reads as its By
    with pytest.raises(ValueError):
        s.act({"type": "move", "pawn": "red-2/5", "moves": ""}, by="cameraman")
    history = s.store.history(s.game_id)
    assert [step.action["by"] for step in history[1:]] == ["camera+button", "referee"]
    assert all(type(step.action["by"]) is str for step in history[1:])     # plain strings in the journal
    assert journal_counts(s.store, s.game_id) == (1, 0, 1)


# -- SQLite: a damaged or full journal by SQLite's error code ----------------------------------------

def _sqlite_error(cls, message: str, code: int):
    exc = cls(message)
    exc.sqlite_errorcode = code
    return exc


def test_a_damaged_journal_is_known_by_sqlites_code_not_its_words(tmp_path):
    assert is_damaged(_sqlite_error(sqlite3.DatabaseError, "reworded", 11))          # SQLITE_CORRUPT
    assert is_damaged(_sqlite_error(sqlite3.DatabaseError, "reworded", 26))          # SQLITE_NOTADB
    assert not is_damaged(_sqlite_error(sqlite3.DatabaseError, "disk image is malformed", 1))
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"this is a text file, not SQLite" * 100)
    with pytest.raises(sqlite3.DatabaseError) as caught:
        sqlite3.connect(damaged).execute("select * from sqlite_master")
    assert is_damaged(caught.value)                                   # what SQLite itself raises
    store = Store(tmp_path / "s.sqlite3")
    with pytest.raises(Exception) as caught, store._errors():
        raise _sqlite_error(sqlite3.OperationalError, "reworded", SQLITE_FULL)
    assert "the disk is full" in str(caught.value)
    with pytest.raises(sqlite3.OperationalError), store._errors():
        raise _sqlite_error(sqlite3.OperationalError, "database or disk is full", 1)


# -- the LED device: pyserial's failures by the OS error number and the exception's type ------------

def _wrapped(message: str, wrapped: BaseException | None = None):
    import serial

    error = serial.SerialException(message)     # pyserial's form: the number only in its text,
    error.__context__ = wrapped                 # the OS error it was handling as its context
    return error


@pytest.mark.parametrize("exc, said", [
    (_wrapped("reworded", ConnectionRefusedError(111, "reworded")), "connection refused"),
    (_wrapped("reworded", OSError(5, "reworded")), "stopped answering"),
    (_wrapped("reworded", OSError(13, "reworded")), "permission denied"),
    (_wrapped("[Errno 13] Permission denied, No such file, Connection refused"), "LED device /dev/ttyUSB0: [Errno 13]"),
])
def test_an_led_device_failure_is_said_by_its_number_not_its_words(exc, said):
    from hardware.link import plain_error

    assert said in str(plain_error("/dev/ttyUSB0", exc))


def test_pyserials_own_text_goes_into_our_sentence_without_its_full_stop():
    """The LED grid's startup line (companion_app/table/devices) puts the link's error, wording data, inside
    a sentence of its own: the one text not ours, pyserial's, ends no sentence there."""
    from hardware.link import plain_error

    said = plain_error("/dev/ttyUSB0", _wrapped("Could not exclusively lock port /dev/ttyUSB0."))
    assert str(said) == "LED device /dev/ttyUSB0: Could not exclusively lock port /dev/ttyUSB0"
    assert said.text.params["error"] == "Could not exclusively lock port /dev/ttyUSB0"


def test_a_port_that_is_no_terminal_is_known_by_termios_errno():
    import termios

    from hardware.link import os_errno

    assert os_errno(_wrapped("Could not configure port: reworded", termios.error(25, "reworded"))) == 25
    assert os_errno(_wrapped("no number here")) is None


# -- the table configuration: a bad value blamed on the file or the command line by parsing each ----

def test_a_bad_value_is_blamed_on_where_it_came_from_whatever_the_message_says(tmp_path, monkeypatch):
    from companion_app import config as table_config
    from companion_app.config import TableConfigError, load_table_config
    from hardware.config import HardwareConfigError

    real_web = table_config._web

    def web(data, base, origin_of):     # a check whose sentence names no [section] key at all
        if data.get("port") == 1234:
            raise HardwareConfigError(Text(N_("a reworded refusal")))
        return real_web(data, base, origin_of)

    monkeypatch.setattr(table_config, "_web", web)
    path = tmp_path / "table.toml"
    path.write_text("[web]\nport = 1234\n")
    with pytest.raises(TableConfigError, match=f"^{path}: a reworded refusal$"):
        load_table_config(path)
    path.write_text("[web]\nport = 8080\n")
    with pytest.raises(TableConfigError, match="^command line: a reworded refusal$"):
        load_table_config(path, {"web.port": 1234})
    path.write_text("[web]\nport = 1234\n")
    with pytest.raises(TableConfigError, match=f"^{path}: a reworded refusal$"):   # the file's own error first
        load_table_config(path, {"web.pin": "12345"})
    assert load_table_config(path, {"web.port": 8081}).web.port == 8081


# -- flure doctor's sound card: by the form of ALSA's card list, not by its wording for none ---------

def test_sound_card_is_judged_by_the_card_lines(tmp_path):
    from companion_app.cli.checks import _sound_card
    cards = tmp_path / "cards"
    cards.write_text(" 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
                     "                      HDA Intel PCH at 0xf7f10000 irq 32\n")
    assert _sound_card(str(cards))
    for none in ("--- no soundcards ---\n", "", "--- keine Soundkarten ---\n"):
        cards.write_text(none)
        assert not _sound_card(str(cards))
    assert _sound_card(str(tmp_path / "missing"))   # no /proc/asound: not judged
