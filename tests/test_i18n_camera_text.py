"""What the referee's camera card says about a reading, in four languages.

vision words each problem once, in vision/problems.py (a code and its sentence, as engine.wording
data); a reading keeps it in JSON as ``words`` beside its English ``message``; the table renders it.
The first tests go through every sentence of that registry (and every code a read position's own
status adds), so a new problem cannot reach the card untranslated; the others follow real readings
of rendered images to the card, in Python and in the referee's page in headless Chromium.
"""
import json
import re
from dataclasses import replace

import pytest

from browser_helpers import needs_chromium, referee_login
from companion_app.i18n import gettext, translations
from companion_app.i18n.text import localize, pawn_name
from companion_app.i18n.text import render as say_in
from companion_app.table.devices.fakes import FakeCamera, FakeLeds
from companion_app.web.server import Server
from engine.position import BOARD, STATUS_CODES
from engine.position import Pawn as PlacedPawn
from engine.wording import Term
from tests.web_helpers import each_language, make_app, session_with
from vision import problems
from vision.problems import CODES, SENTENCES, piece_words, problem_words
from vision.reader import read_image
from vision.reading import problem
from vision.scheme import load_scheme
from vision_helpers import draw_hand, make_camera, pawn, pos, render

OTHERS = ("fr", "de", "es")
NAMES = re.compile(r"\b[a-p](1[01]|[1-9])\b|\b[GPMTBA]\d+\b")   # squares and rule ids
SCHEME = load_scheme()
# English words a translation may keep: the same word in that language, or a command or format name.
KEPT = {"fr": {"flure", "calibrate", "camera", "bgra", "image", "angle", "zone", "face", "pivot", "type", "pixel", "photo",
               "table"},
        "de": {"flure", "calibrate", "camera", "bgra", "monster", "teleporter", "marker", "pixel", "array", "hand"},
        "es": {"flure", "calibrate", "camera", "bgra"}}


def names(text: str) -> list[str]:
    return sorted(m.group(0) for m in NAMES.finditer(text))


def english_left(english: str, text: str, lang: str) -> set[str]:
    """Words of four letters or more of the English sentence still found in ``text``."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", english)}
    found = {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{4,}", text)}
    return (words & found) - KEPT[lang]


def said(words) -> dict[str, str]:
    """``words`` in every language, checked: translated, every square and rule id kept, no English left."""
    every = each_language(words)
    assert every["en"] == str(words)
    for lang in OTHERS:
        assert "%(" not in every[lang] and every[lang] != every["en"], (lang, every[lang])
        assert names(every[lang]) == names(every["en"]), (lang, every["en"], every[lang])
        assert not english_left(every["en"], every[lang], lang), (lang, every[lang], english_left(
            every["en"], every[lang], lang))
    return every


def one_of_each_piece() -> list:
    """A sticker of every piece and face the marker scheme has (both pawn faces, every stone face)."""
    kinds = {}
    for st in SCHEME.stickers.values():
        kinds.setdefault((st.piece, st.face, st.kind, st.shape), st)
    return list(kinds.values())


# A value for each field a problem's sentence takes: squares as squares, numbers as numbers; ``what``
# (a piece) is filled with every piece in turn.  A sentence with a field missing here fails the test.
FIELDS = {"square": "g7", "squares": "f6 g6 h6", "first": "c3", "second": "h8", "other": "h7", "id": 17, "count": 3,
          "num": 3, "ids": "0, 1, 2, 3", "hidden": 2, "total": 4, "shift": "12", "error": "4.2", "type": "str",
          "shape": "2x2", "width": 40, "height": 30, "least": 64, "seen": "31", "size": "22", "x": "512", "y": "-8",
          "degrees": "23", "tiles": "5, 8", "why": problems.NO_FIT(), "who": Term("the monster")}


@pytest.mark.parametrize("sentence", SENTENCES, ids=lambda s: f"{s.code}:{s.template[:30]}")
def test_every_problem_sentence_of_vision_is_said_in_each_language(sentence):
    fields = set(re.findall(r"%\((\w+)\)s", sentence.template + (sentence.plural or "")))
    assert fields <= set(FIELDS) | {"what"}, f"give the new field an example: {fields - set(FIELDS)}"
    for lang in OTHERS:   # the catalog has the sentence itself (not only a translated field inside it)
        assert gettext(lang, sentence.template) != sentence.template, (lang, sentence.template)
        if sentence.plural:
            assert translations(lang).ngettext(sentence.template, sentence.plural, 3) != sentence.plural
    pieces = one_of_each_piece() if "what" in fields else [None]
    for sticker in pieces:
        params = {k: v for k, v in FIELDS.items() if k in fields}
        if sticker is not None:
            params["what"] = piece_words(sticker)
        for num in ((1, 3) if sentence.plural else (None,)):
            if num is not None:
                params["num"] = num
            made = problem(sentence, 6, **params)      # as the reader makes it and the table gets it
            assert made["code"] == sentence.code and made["square"] is not None
            assert json.loads(json.dumps(made))["message"] == str(made["message"])   # VISION.md's English JSON
            words = problem_words(made)
            assert str(words) == made["message"]
            every = said(words)
            if sticker is not None:   # the piece is named in the language's own words, whole
                for lang in OTHERS:
                    assert say_in(piece_words(sticker), lang) in every[lang], (lang, every[lang])


def test_the_registry_is_every_code_and_pieces_are_named_in_the_games_words():
    assert CODES == {s.code for s in SENTENCES} | set(STATUS_CODES)
    assert {"unread-square", "between-squares", "unsure-square", "unclear-heading", "out-of-view", "not-located",
            "marker-twice", "unknown-marker", "marker-size", "overlapping-markers", "misplaced-tile", "off-grid",
            "same-piece-twice", "two-pieces", "occluded", "hidden-square", "no-monster"} <= CODES
    with pytest.raises(AttributeError):
        problem("unread-square", 6)   # a problem is made from a registered sentence only
    red = next(s for s in SCHEME.stickers.values() if s.piece == "pawn" and s.colour == "red" and s.face == "black")
    every = said(piece_words(red))
    assert every["en"] == red.describe() == f"pawn red {red.pawn} (black face)"
    assert every["fr"] == f"{pawn_name('fr', 'red ' + red.pawn)} (face noire)" == f"le pion rouge {red.pawn} (face noire)"
    assert every["de"] == f"Rot {red.pawn} (schwarze Seite)"
    assert every["es"] == f"la ficha roja {red.pawn} (cara negra)"
    crystal = next(s for s in SCHEME.stickers.values() if s.piece == "stone" and s.kind == "crystal")
    assert said(piece_words(crystal))["de"] == f"Stein {crystal.tile} (Seite Kristall)"


def test_every_code_a_read_position_adds_is_said_in_each_language():
    """A read position's own impossibilities (engine.position.STATUS_CODES) reach the card as problems too."""
    teleporter = {"pair": 1, "arrow": "N"}
    positions = [pos(monster="h7", pools=["h7"], pawns={"red-6/1": pawn("h7", "red", "6/1")}),
                 pos(teleporters={"c3": teleporter, "d9": teleporter}, pawns={"blue-3/4": pawn("c3", "blue", "3/4")}),
                 pos(pools=["e5"], teleporters={"e5": teleporter})]
    twice = pos(pawns={"red-6/1": pawn("c3", "red", "6/1")})
    twice = replace(twice, pawns=twice.pawns + (PlacedPawn("red-6/1", "red", "6/1", "white", BOARD, 80),))
    seen = set()
    for position in [*positions, twice]:
        for code, words, square in position.status_words():
            seen.add(code)
            every = said(words)
            assert square is None or square in every["fr"]
    assert seen == set(STATUS_CODES)


def test_a_board_not_located_in_each_language():
    reading = read_image(render(pos(), None, hide_board_markers=(2, 3)))
    assert reading.reason == "board not located: 2 of 4 corner markers hidden (id 2, 3)"
    (made,) = reading.to_json()["problems"]
    assert made["code"] == "not-located" and made["message"] == reading.reason
    every = said(problem_words(made))   # the message keeps its wording (a Said)
    assert every["de"] == "Spielplan nicht gefunden: 2 von 4 Eckmarkern verdeckt (ID 2, 3)"
    assert every["fr"] == "plateau non localisé\u00a0: 2 marqueurs d'angle sur 4 cachés (id 2, 3)"
    blank = read_image(None)
    assert blank.reason == "board not located: no image (the frame is empty)"
    assert said(problem_words(blank.problems[0]))["es"] == "tablero no localizado: no hay imagen (la imagen está vacía)"


def render_between_squares():
    """A rendered image: red 6/1 on the line between g7 and h7."""
    from tests.test_vision_reader import centre, sticker_id

    x, y = centre("g7")
    red = sticker_id(colour="red", pawn="6/1", face="white")
    return render(pos(), None, extra=[(red, x + 15, y, 0)], camera=make_camera())


def between_squares_reading():
    """A real reading of ``render_between_squares``."""
    reading = read_image(render_between_squares())
    assert [p["code"] for p in reading.problems] == ["between-squares"]
    return reading


def test_a_sticker_between_squares_read_from_an_image_in_each_language():
    reading = between_squares_reading()
    (made,) = reading.to_json()["problems"]
    assert made == {"code": "between-squares", "square": "h7",
                    "message": "pawn red 6/1 (white face) lies on the line between h7 and a neighbour"}
    every = said(problem_words(made))
    assert every["fr"] == "le pion rouge 6/1 (face blanche) est sur la ligne entre h7 et une case voisine"
    assert every["de"].startswith("Rot 6/1 (weiße Seite)")
    assert every["es"].startswith("la ficha roja 6/1 (cara blanca)")


def test_a_hand_over_the_board_on_the_referee_card_in_each_language(tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, leds=FakeLeds())
    session.new_game(["red", "blue"], "red", seed=8)
    p = pos(pawns={"red-6/1": pawn("g7", "red", "6/1"), "blue-3/4": pawn("c3", "blue", "3/4")})
    image = render(p, None, camera=make_camera())
    reading = read_image(draw_hand(image, read_image(image), "g7"))
    assert "occluded" in [q["code"] for q in reading.problems]
    camera.show(reading)
    view = session.camera_view()
    problems_in = each_language(view["problems"])   # wording data, said in each reader's language
    first = problems_in["en"][0]
    assert first.startswith("something covers the board over")
    assert problems_in["fr"][0].startswith("quelque chose couvre le plateau sur")
    assert problems_in["de"][0].startswith("etwas verdeckt den Spielplan auf")
    assert problems_in["es"][0].startswith("algo tapa el tablero en")
    assert str(view["why_not"]) == f"Waiting for a clear view: {first}"
    assert localize(view["why_not"], "de").endswith(problems_in["de"][0])
    json.dumps(localize(view, "de"))   # the card travels to the referee's page as JSON, in its language


@needs_chromium
def test_the_referee_camera_card_in_french_says_a_sticker_between_squares(browser, tmp_path):
    camera = FakeCamera()
    session = session_with(tmp_path, camera=camera, leds=FakeLeds())
    app, _ = make_app(tmp_path, session)
    session.new_game(["red", "blue"], "red", seed=8)
    errors: list[str] = []
    with Server(app) as server:
        page = browser.new_context(viewport={"width": 1280, "height": 900}, locale="fr-FR").new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        referee_login(page, server.url)
        camera.reading = between_squares_reading()
        item = page.wait_for_selector("#differences li.warn:has-text('ligne entre')")
        text = item.inner_text()
        assert text == "le pion rouge 6/1 (face blanche) est sur la ligne entre h7 et une case voisine", text
        why = page.locator("#camera-why").inner_text()
        assert why.endswith(text) and "Waiting" not in why and "Cannot" not in why, why   # its why-not too
        card = page.locator("#differences").inner_text()
        assert "lies on the line" not in card and "white face" not in card and "neighbour" not in card, card
    assert not errors, errors


def test_the_setup_pages_advice_for_a_board_not_located_in_each_language():
    """The registration check (calibration/) keeps vision's reason as wording data for the Setup page."""
    import numpy as np

    from calibration.registration import check_registration

    rep = check_registration(render(pos(), None, hide_board_markers=(0, 1, 2, 3)))
    assert rep.problems == [rep.why] and rep.to_json()["problems"] == [str(rep.why)]
    assert rep.to_json()["problems"][0].startswith("board not located: no corner markers seen (ids ")
    every = said(rep.why)
    assert every["fr"].startswith("plateau non localisé\u00a0: aucun marqueur d'angle vu")
    small = check_registration(np.zeros((20, 30), np.uint8))
    assert [str(p) for p in small.problems] == [
        "board not located: the frame is too small (30×20 px; at least 64 px a side)"]
    assert said(small.why)["de"] == ("Spielplan nicht gefunden: das Bild ist zu klein (30×20 px; mindestens 64 px "
                                     "je Seite)")


def test_flure_vision_show_says_the_problems_in_the_commands_language(tmp_path, capsys):
    import cv2

    import companion_app.cli as cli
    from companion_app.cli.lang import set_language

    picture = tmp_path / "between.png"
    cv2.imwrite(str(picture), render_between_squares())
    try:
        assert cli.main(["--lang", "es", "vision", "show", str(picture), "-o", str(tmp_path / "shown.png")]) == 0
    finally:
        set_language("en")
    out = capsys.readouterr().out
    assert "la ficha roja 6/1 (cara blanca) está sobre la línea entre h7 y una casilla vecina" in out, out
    assert "lies on the line" not in out
    assert cli.main(["vision", "read", str(picture)]) == 0   # the JSON stays VISION.md's English contract
    (made,) = json.loads(capsys.readouterr().out)["problems"]
    assert made["message"] == "pawn red 6/1 (white face) lies on the line between h7 and a neighbour"
    assert set(made) == {"code", "message", "square"}
