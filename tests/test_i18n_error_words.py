"""The last English sentences in fr/de/es: the API's header, size and stale-state refusals, the
journal's unreadable steps, a calibration that does not fit (the Setup page's save, calibration files, the
lens checks), the camera's exposure note, and French typography in flure's own lines.  Each from real input:
a real request to the test app, a real file, a real video through OpenCV, the real CLI."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.store import Calibration, CalibrationError, check_size, load_calibration
from companion_app.i18n.text import error_text, render
from tests.test_i18n_table_config import NBSP
from tests.web_helpers import AUTH, make_app

LANGS = ("en", "fr", "de", "es")
PLAYERS = {"players": ["red", "blue"], "first_player": "red", "seed": 3}


def no_english_left(texts: dict[str, str], *english: str, kept: tuple[str, ...] = ()) -> None:
    """Each other language differs from English, has no field left unfilled, none of ``english``'s words
    and every one of ``kept`` (a header, a number, a path, a square)."""
    for lang in ("fr", "de", "es"):
        text = texts[lang]
        assert text != texts["en"] and "%(" not in text, (lang, text)
        for words in english:
            assert words not in text, (lang, words, text)
        for part in kept:
            assert part in text, (lang, part, text)


@pytest.fixture
def client(tmp_path):
    app, session = make_app(tmp_path)
    client = app.test_client()
    assert client.post("/api/game", json=PLAYERS, headers=AUTH).status_code == 200
    return client


def errors(client, method: str, path: str, status: int, **kw) -> dict[str, str]:
    out = {}
    for lang in LANGS:
        response = client.open(f"{path}{'&' if '?' in path else '?'}lang={lang}", method=method, **kw)
        assert response.status_code == status, (lang, response.get_data(as_text=True))
        out[lang] = response.get_json()["error"]
    return out


def test_the_state_version_and_idempotency_key_headers_in_each_language(client):
    texts = errors(client, "POST", "/api/undo", 400, json={}, headers={**AUTH, "Flure-State-Version": "x1"})
    assert texts["en"] == "The Flure-State-Version header must be the state's version number, as /api/state gives it"
    assert texts["de"] == ("Der Header Flure-State-Version muss die Versionsnummer des Zustands sein, wie /api/state "
                           "sie angibt")
    no_english_left(texts, "must be", kept=("Flure-State-Version", "/api/state"))
    texts = errors(client, "POST", "/api/undo", 400, json={}, headers={**AUTH, "Idempotency-Key": "k" * 200})
    assert texts["en"] == "The Idempotency-Key header must be 1 to 128 printable characters"
    assert texts["fr"] == "L'en-tête Idempotency-Key doit compter de 1 à 128 caractères imprimables"
    no_english_left(texts, "printable", kept=("Idempotency-Key", "128"))


def test_a_request_against_an_older_state_in_each_language(client):
    old = str(client.get("/api/state").json["version"])
    client.post("/api/action", json={"type": "move", "pawn": "red-6/1", "moves": ""},
                headers={**AUTH, "Flure-State-Version": old})
    texts = errors(client, "POST", "/api/undo", 409, json={}, headers={**AUTH, "Flure-State-Version": old})
    assert texts["en"].startswith(f"The table moved on: this request was made against state {old}, ")
    assert texts["es"].startswith(f"La mesa ha avanzado: esta petición se hizo sobre el estado {old} ")
    no_english_left(texts, "table moved on", "Nothing was done", kept=(f" {old}",))
    r = client.post("/api/undo?lang=fr", json={}, headers={**AUTH, "Flure-State-Version": old})
    assert r.status_code == 409 and r.json["stale"] is True   # what the referee page tests: no English sentence
    assert "stale" not in client.post("/api/undo?lang=fr", json={}, headers=AUTH).json


def test_a_body_too_large_in_each_language_from_one_home(client):
    big = b'{"x": "' + b"a" * 20000 + b'"}'
    texts = errors(client, "POST", "/api/undo", 413, data=big, headers={**AUTH, "Content-Type": "application/json"})
    assert texts["en"] == "What was sent is too large (at most 16384 bytes)."
    assert texts["fr"] == "Ce qui a été envoyé est trop gros (au plus 16384 octets)."
    no_english_left(texts, "too large", kept=("16384",))
    from companion_app.web.errors import error_page
    with client.application.test_request_context("/referee?lang=de"):
        assert texts["de"] in error_page(413, limit=16384)   # a page says the same sentence, from one home
    huge = b'{"x": "' + b"a" * (600 * 1024) + b'"}'   # the record import allows more, and says its own limit
    texts = errors(client, "POST", "/api/game/import", 413, data=huge, headers={**AUTH, "Content-Type": "application/json"})
    assert texts["en"] == "What was sent is too large (at most 524288 bytes)."


def test_werkzeugs_own_english_never_reaches_an_api_client(client):
    texts = errors(client, "GET", "/api/no-such-thing", 404)
    assert texts["en"] == "There is no page /api/no-such-thing here."
    no_english_left(texts, "requested URL", "There is no page", kept=("/api/no-such-thing",))
    texts = errors(client, "GET", "/api/move.gif", 404)
    assert texts["en"] == "The monster has not moved yet in this game: there is no move to save."
    no_english_left(texts, "monster has not moved")
    texts = errors(client, "GET", "/api/targets", 400, headers=AUTH)
    no_english_left(texts, "Give the pawn", kept=("?pawn=red-6/1",))
    texts = errors(client, "POST", "/api/undo", 415, data="x", headers={**AUTH, "Content-Type": "text/plain"})
    no_english_left(texts, "Send the body", kept=("Content-Type: application/json",))


def test_a_calibration_of_another_size_refused_by_the_setup_pages_save_in_each_language(tmp_path):
    app, _session = make_app(tmp_path)
    tool = app.extensions["flure_setup"]
    tool.pending = Calibration(np.array([[2000.0, 0, 1358], [0, 2000, 1004], [0, 0, 1]]), np.zeros(5), (2717, 2008))
    client = app.test_client()
    texts = errors(client, "POST", "/api/setup/save", 409, json={}, headers=AUTH)
    assert texts["en"] == ("calibration: image_size: was made at 2717×2008 but the camera gives 1920×1080: calibrate "
                           "again at that size (flure calibrate camera, or the Setup page)")
    assert texts["fr"] == (f"calibration{NBSP}: image_size{NBSP}: a été faite en 2717×2008 mais la caméra donne "
                           f"1920×1080{NBSP}: calibrez à nouveau à cette taille (flure calibrate camera, ou la page "
                           "Réglage de la table)")
    no_english_left(texts, "was made at", "calibrate again", kept=("image_size", "2717×2008", "1920×1080"))
    assert not (tmp_path / "calibration.json").exists() and tool.pending is not None   # nothing saved


@pytest.mark.parametrize("content, field", [
    (None, None), (b"[1, 2]", None), (b'{"x": 1}', "format"), (b'{"format": "v0"}', "format"),
    (b'{"format": "flure-calibration/1", "image_size": [0, 1]}', "image_size"), (b"\xff\xfe", None),
])
def test_a_calibration_file_that_cannot_be_used_in_each_language(tmp_path, content, field):
    path = tmp_path / "lens.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(CalibrationError) as caught:
        load_calibration(path)
    exc = caught.value
    texts = {lang: error_text(exc, lang) for lang in LANGS}
    assert texts["en"] == str(exc) and texts["en"].startswith(f"calibration file {path}: " + (f"{field}: " if field else ""))
    no_english_left(texts, "calibration file", "run `flure", kept=(str(path),) + ((field,) if field else ()))


def test_check_size_keeps_its_english_and_names_the_file():
    cal = Calibration(np.eye(3) * [1000, 1000, 1], np.zeros(5), (1280, 720))
    with pytest.raises(CalibrationError) as caught:
        check_size(cal, (1920, 1080), "lens.json")
    assert str(caught.value) == ("calibration file lens.json: image_size: was made at 1280×720 but the camera gives "
                                 "1920×1080: calibrate again at that size (flure calibrate camera, or the Setup page)")
    assert error_text(caught.value, "de").startswith("Kalibrierdatei lens.json: image_size: wurde bei 1280×720 erstellt")


def test_an_implausible_lens_and_too_few_views_in_each_language():
    from calibration.intrinsics import CharucoSpec, NotEnoughViews, Views, calibrate
    from calibration.store import lens_problems

    cal = Calibration(np.array([[152678.0, 0, 100], [0, 1000, 360], [0, 0, 1]]), np.zeros(5), (1280, 720), 3.5)
    problems = lens_problems(cal)
    assert len(problems) == 4 and str(problems[1]) == "fx 152678 and fy 1000 px differ by more than 10 %: calibrate again"
    for problem in problems:
        no_english_left({lang: render(problem, lang) for lang in LANGS}, "calibrate again")
    assert render(problems[1], "fr") == f"fx 152678 et fy 1000 px diffèrent de plus de 10 %{NBSP}: calibrez à nouveau"
    with pytest.raises(NotEnoughViews) as caught:
        calibrate(Views(CharucoSpec()), min_views=5)
    texts = {lang: error_text(caught.value, lang) for lang in LANGS}
    assert texts["en"] == "only 0 usable views of the ChArUco board, need 5"
    assert texts["fr"] == "seulement 0 vue utilisable de la mire ChArUco, il en faut 5"   # French: 0 is singular
    no_english_left(texts, "usable", kept=("ChArUco", "5"))


def test_the_exposure_note_of_a_camera_that_ignores_it_in_each_language(tmp_path):
    from companion_app.cli import checks as doctor
    from companion_app.config import load_table_config
    from engine.position import basic_position
    from vision.twin.scene import render as picture

    video = tmp_path / "table.avi"
    image, _ = picture(basic_position(), width=640, height=360)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (640, 360))
    for _ in range(4):
        writer.write(image)
    writer.release()
    (tmp_path / "table.toml").write_text(f'[camera]\nsource = "{video}"\nresolution = [640, 360]\n'
                                         '[camera.exposure]\nexposure_us = 8000\ncolour_gains = [1.8, 1.5]\n')
    config = load_table_config(tmp_path / "table.toml")
    texts = {}
    for lang in LANGS:
        exposure = [f for f in doctor.check_camera(config, lang=lang) if f.topic == "exposure"]
        assert len(exposure) == 1 and not exposure[0].ok
        texts[lang] = exposure[0].text
    assert texts["en"].startswith("not honoured by this camera: manual exposure, exposure 8000 µs, ")
    assert "colour gains (OpenCV has no control for them)" in texts["en"]
    assert texts["de"].startswith("von dieser Kamera nicht umgesetzt: manuelle Belichtung, Belichtung 8000 µs, ")
    no_english_left(texts, "not honoured", "manual exposure", "colour gains", kept=("8000 µs",))


def test_an_unreadable_journal_step_in_each_language(tmp_path):
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store

    db = tmp_path / "s.sqlite3"
    session = TableSession(Store(db))
    session.new_game(**PLAYERS)
    session.act({"type": "move", "pawn": "red-6/1", "moves": ""})
    import sqlite3
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE steps SET state = '{not json' WHERE seq = 1")
    again = TableSession(Store(db))
    again.resume()
    note = again.journal.notes[-1]
    texts = {lang: render(note.text, lang) for lang in LANGS}
    assert texts["en"].startswith("Resumed game 1 at step 0; skipped what could not be read: step 1 cannot be read (")
    assert "l'étape 1 ne peut pas être lue (" in texts["fr"]
    no_english_left(texts, "cannot be read", "Resumed", kept=("1",))


def test_flure_play_words_each_device_line_with_french_spacing(tmp_path, capsys):
    from companion_app.cli.lang import set_language
    from companion_app.cli.play import _print_startup
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store

    session = TableSession(Store(tmp_path / "s.sqlite3"))
    set_language("fr")
    try:
        _print_startup(session, "http://flure.local/", "4321", False, tmp_path / "s.sqlite3")
    finally:
        set_language("en")
    out = capsys.readouterr().out
    assert f"  Caméra{NBSP}: " in out and f"  Grille de LED{NBSP}: " in out and "Caméra: " not in out
    assert f"  Caméra{NBSP}: pas de connexion" in out   # no agreement to get wrong: la caméra, les boutons
    assert "l'en-tête Authorization: Bearer 4321" in out and "  " not in out.split("en-tête")[1].split("\n")[0]


def test_no_msgid_spells_a_plural_with_brackets():
    """``view(s)``, ``key(s)``, ``point(s)``: a plural is Plural/ngettext, so each language says it its own way."""
    from babel.messages.pofile import read_po

    from companion_app.i18n import po_path

    with open(po_path("fr"), "rb") as f:
        catalog = read_po(f)
    bracketed = [m.id for m in catalog if m.id and any("(s)" in i for i in ((m.id,) if isinstance(m.id, str) else m.id))]
    assert not bracketed, bracketed
    assert json.dumps(bracketed) == "[]"


def test_a_stream_refused_in_each_language(tmp_path):
    from companion_app.table.session.events import Broker, StreamRefused

    app, _session = make_app(tmp_path, test_config={"SSE_MAX_CLIENTS": 0})
    texts = errors(app.test_client(), "GET", "/api/stream", 503)
    assert texts["en"] == "Too many screens are following the game right now; this one retries shortly"
    assert texts["fr"] == f"Trop d'écrans suivent la partie en ce moment{NBSP}; celui-ci réessaie dans un instant"
    no_english_left(texts, "screens", "retries")
    broker = Broker()
    broker.open("10.0.0.7", max_streams=10, per_address=1)
    with pytest.raises(StreamRefused) as caught:
        broker.open("10.0.0.7", max_streams=10, per_address=1)
    texts = {lang: error_text(caught.value, lang) for lang in LANGS}
    assert texts["en"] == "This device already follows the game on 1 screens; close one of them (this one retries shortly)" \
        or texts["en"].startswith("This device already follows the game on 1 ")
    no_english_left(texts, "already follows", kept=("1",))


def test_the_referees_hand_on_the_simulated_table_refused_in_each_language():
    from engine.game import Game
    from vision.twin.table import CannotMove, PhysicalTable

    game = Game.new(["red", "blue"], seed=3)
    table = PhysicalTable(game.position)
    stone = next(iter(game.position.stones))
    for call, kept in ((lambda: table.move_piece("c5", "c6"), "c5"), (lambda: table.move_piece(stone, "a1"), "a1"),
                       (lambda: table.move_piece("a1", None), None)):
        with pytest.raises(CannotMove) as caught:
            call()
        texts = {lang: error_text(caught.value, lang) for lang in LANGS}
        assert texts["en"] == str(caught.value)
        no_english_left(texts, "lies", "free", "monster stays", kept=(kept,) if kept else ())
    assert texts["de"] == "das Monster bleibt auf dem Spielplan; gebt ein Feld an, auf das es soll"
    with pytest.raises(CannotMove) as caught:
        table.move_piece(stone, "a1")
    assert error_text(caught.value, "fr") == f"a1 n'est pas libre{NBSP}: le monstre s'y trouve"


def test_the_referees_hand_refused_by_the_api_in_the_requests_language(tmp_path):
    """Move a piece by hand (referee view, simulated table): the 409's sentence in fr/de/es, nothing English."""
    from companion_app.table.simulated.demo import SimulatedRig

    app, session = make_app(tmp_path)
    client = app.test_client()
    session.new_game(["red", "blue"], seed=28)
    session.simulated = SimulatedRig(session, seed=28)
    client.post("/api/simulated", json={"paused": True}, headers=AUTH)
    stone = sorted(session.game.position.to_setup()["stones"])[0]
    for move, kept in (({"from": "c5", "to": "c6"}, "c5"), ({"from": "a1", "to": stone}, stone), ({"from": "a1"}, None)):
        texts = {}
        for lang in LANGS:
            r = client.post(f"/api/simulated?lang={lang}", json={"move": move}, headers=AUTH)
            assert r.status_code == 409, r.get_json()
            texts[lang] = r.get_json()["error"]
        no_english_left(texts, "lies", "free", "monster stays", "to move", kept=(kept,) if kept else ())
    assert texts["es"] == "el monstruo se queda en el tablero; indica una casilla a la que moverlo"


def test_a_picture_of_another_size_than_the_lens_calibration_in_each_language():
    from calibration.registration import check_registration
    from engine.position import basic_position
    from vision.twin.scene import render as picture

    image, _ = picture(basic_position(), width=1280, height=720, height_mm=800, hfov_deg=66)
    cal = Calibration(np.array([[2000.0, 0, 1358], [0, 2000, 1004], [0, 0, 1]]), np.zeros(5), (2717, 2008), 0.3)
    rep = check_registration(image, None, cal)
    assert not rep.ok and [str(p) for p in rep.problems] == [str(rep.why)]
    texts = {lang: render(rep.why, lang) for lang in LANGS}
    assert texts["en"].startswith("the lens calibration was made at 2717×2008 but this image is 1280×720: ")
    no_english_left(texts, "was made at", "calibrate again", kept=("2717×2008", "1280×720"))


def test_a_camera_that_cannot_be_opened_in_each_language(tmp_path):
    from companion_app.cli import checks as doctor
    from companion_app.config import load_table_config
    from vision.sources import SourceError, open_source

    (tmp_path / "table.toml").write_text('[camera]\nsource = "97"\n')
    config = load_table_config(tmp_path / "table.toml")
    texts = {lang: next(f.text for f in doctor.check_camera(config, lang=lang) if f.topic == "camera") for lang in LANGS}
    assert texts["en"].startswith("cannot open camera 97 (not connected, or not a video OpenCV can read); set [camera]")
    assert texts["es"].startswith("no se puede abrir la cámara 97 (no está conectada")
    no_english_left(texts, "cannot open", "not connected", kept=("97", "[camera] source"))
    line = next(f for f in doctor.check_camera(config, lang="fr") if f.topic == "camera").line("fr")
    assert line.startswith(f"FIX  caméra{NBSP}: impossible d'ouvrir la caméra 97 ")   # flure doctor's line, French spacing
    with pytest.raises(SourceError) as caught:
        open_source(str(tmp_path / "nothing-here.avi"))
    texts = {lang: error_text(caught.value, lang) for lang in LANGS}
    no_english_left(texts, "unknown camera source", "a folder of images", kept=("nothing-here.avi", "'synthetic'"))


def test_the_targets_of_a_pawn_not_in_the_game_in_each_language(client):
    texts = errors(client, "GET", "/api/targets?pawn=green-9/9", 400, headers=AUTH)
    assert texts["en"] == "pawn: there is no pawn 'green-9/9' in this game"
    assert texts["de"] == "pawn: in diesem Spiel gibt es keine Figur 'green-9/9'"
    no_english_left(texts, "there is no pawn", kept=("'green-9/9'", "pawn: "))


def test_the_registration_findings_in_each_language(tmp_path, capsys):
    """flure calibrate check's findings (a corner marker off, markers not seen, stickers too small, the
    card zone out of view) as wording data: the JSON keeps its English, the lines on stderr are in
    the command's language, with no English left."""
    from dataclasses import replace

    from calibration.registration import check_registration
    from companion_app.cli import main
    from vision.scheme import load_scheme
    from vision_helpers import make_camera, pos
    from vision_helpers import render as picture

    scheme = load_scheme()
    m0 = scheme.board_markers[0]
    moved = replace(scheme, board_markers=[replace(m0, center_mm=(m0.center_mm[0] + 30, m0.center_mm[1] + 30)),
                                           *scheme.board_markers[1:]])
    images = {"marker-off": picture(pos(), "8", camera=make_camera(), scheme=moved),
              "far": picture(pos(), "8", camera=make_camera(width=640, height=360), hide_board_markers=(2,)),
              "card-zone": picture(pos(), "8", camera=make_camera(height_mm=700, offset=(-60, 0)))}
    found = []
    for name, image in images.items():
        rep = check_registration(image, scheme)
        assert not rep.ok and rep.to_json()["problems"] == [str(f) for f in rep.problems]
        for finding in rep.problems:
            found.append({lang: render(finding, lang) for lang in LANGS})
    off, unseen, small, zone = (next(t for t in found if words in t["en"]) for words in (
        "from where the marker scheme", "not seen", "smallest stickers", "card zone"))
    assert off["en"].startswith("corner marker 0 (top-left) is ") and off["en"].endswith(" mm from where the marker "
                                                                                          "scheme puts it: move the "
                                                                                          "sticker or correct the "
                                                                                          "scheme file")
    assert off["de"].startswith("Eckmarker 0 (oben links) liegt ")
    no_english_left(off, "top-left", "marker scheme", "sticker", kept=("0",))
    assert unseen["en"] == "corner marker 2 not seen: all four should be in view with nothing on them"
    assert unseen["fr"] == f"marqueur d'angle 2 non vu{NBSP}: les quatre doivent être dans le champ, sans rien dessus"
    no_english_left(unseen, "not seen", "in view", kept=("2",))
    assert small["en"].startswith("the smallest stickers (15 mm) are only 9 px wide")
    no_english_left(small, "smallest", "camera or", "resolution", kept=("15 mm", "9 px", "14"))
    assert zone["en"] == "the card zone (where the tombstone tile goes) is not fully in view"
    assert zone["es"] == "la zona de cartas (donde va la lápida) no está del todo a la vista"
    no_english_left(zone, "card zone", "tombstone", "in view")

    far = tmp_path / "far.png"
    cv2.imwrite(str(far), images["far"])
    assert main(["--lang", "de", "calibrate", "check", str(far)]) == 1
    out = capsys.readouterr()
    report = json.loads(out.out)             # the JSON another program reads: English, as always
    assert "corner marker 2 not seen: all four should be in view with nothing on them" in report["problems"]
    lines = out.err.splitlines()
    assert "Problem: Eckmarker 2 nicht gesehen: alle vier sollen im Bild sein, ohne dass etwas darauf liegt" in lines
    assert any(line.startswith("Problem: die kleinsten Aufkleber (15 mm) sind an der entfernten Ecke") for line in lines)
    assert any(line.startswith("Rat: ") for line in lines) and "not seen" not in out.err and "camera" not in out.err


def test_an_image_or_marker_scheme_that_cannot_be_read_in_each_language(tmp_path, capsys):
    """The system's reason (engine.wording.os_reason) and the rest of the sentence for a photo or a marker
    scheme flure cannot read: wording data, said in the command's language (flure calibrate check)."""
    import os

    from companion_app.cli import main
    from vision.scheme import SchemeError, load_scheme
    from vision.sources import load_image_file

    missing = tmp_path / "nowhere.json"
    with pytest.raises(SchemeError) as caught:
        load_scheme(missing)
    texts = {lang: error_text(caught.value, lang) for lang in LANGS}
    assert texts["en"] == f"marker scheme {missing}: cannot read the file (No such file or directory)"
    assert texts["de"] == (f"Markerschema {missing}: die Datei kann nicht gelesen werden "
                           "(Datei oder Verzeichnis nicht gefunden)")
    no_english_left(texts, "marker scheme", "cannot read", "No such", kept=(str(missing),))
    with pytest.raises(SchemeError) as caught:
        load_scheme(tmp_path)                       # a folder: stat works, reading does not
    assert error_text(caught.value, "fr") == \
        f"schéma des marqueurs {tmp_path}{NBSP}: impossible de lire le fichier (C'est un dossier)"

    photos = {"folder": tmp_path, "missing": tmp_path / "nowhere.png", "junk": tmp_path / "junk.png"}
    photos["junk"].write_bytes(b"not a picture")
    if os.geteuid() != 0:          # root reads any file: the permission case needs another user
        photos["locked"] = tmp_path / "locked.png"
        photos["locked"].write_bytes(b"x")
        photos["locked"].chmod(0)
    for name, path in photos.items():
        image, why = load_image_file(path)
        assert image is None
        texts = {lang: render(why, lang) for lang in LANGS}
        assert texts["en"] == str(why) and texts["en"].startswith(f"{path}: ")
        no_english_left(texts, "folder", "no such", "not an image", "cannot read", "Permission", kept=(str(path),))
    assert main(["--lang", "es", "calibrate", "check", str(photos["missing"])]) == 2
    assert capsys.readouterr().err == f"flure: {photos['missing']}: no existe ese archivo\n"
    assert main(["--lang", "fr", "calibrate", "check", str(photos["junk"]), "--scheme", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == (f"flure: schéma des marqueurs {missing}{NBSP}: impossible de lire le fichier "
                   "(Aucun fichier ou dossier de ce nom)\n")
