"""A square or direction name that is none, and the LED layout's checks, in fr/de/es.

engine.geometry refuses a bad name with wording data (BadName); every refusal that wraps it (a position
file, an action, a referee's fix, a plan read back, the LED layout) passes that on, so the whole
sentence is in the reader's language: the field, the square and the value stay as written, English
is the sentence it always was.  Each case is real bad input through the code that reads it."""
from __future__ import annotations

import copy

import pytest

from companion_app.i18n.text import error_text
from companion_app.table.camera.readings import check_fix
from engine.actions import parse_action
from engine.errors import InvalidSetupError
from engine.geometry import BadName, parse_direction, parse_square
from engine.position import Position
from hardware.layout import LayoutError, LedLayout
from tests.test_i18n_setup_errors import GOOD, check
from tests.test_i18n_table_config import NBSP, said

LANGS = ("en", "fr", "de", "es")


def refused(call) -> InvalidSetupError:
    with pytest.raises(InvalidSetupError) as caught:
        call()
    return caught.value


def in_each(exc) -> dict[str, str]:
    return {lang: error_text(exc, lang) for lang in LANGS}


def with_monster(**change) -> dict:
    setup = copy.deepcopy(GOOD)
    setup["monster"].update(change)
    return setup


def test_geometry_refuses_with_wording_data_and_the_english_of_old():
    for call, english in ((lambda: parse_square("z9"), "'z9' is not a square name (a1 … p11)"),
                          (lambda: parse_square("p1"), "'p1' is not on the board (a cut-away corner)"),
                          (lambda: parse_square(7), "a square name must be text like 'g7', not 7"),
                          (lambda: parse_direction("Q"), "'Q' is not a direction (N, E, S or W)")):
        with pytest.raises(BadName) as caught:
            call()
        assert isinstance(caught.value, ValueError) and str(caught.value) == english
        assert error_text(caught.value, "en") == english
        assert error_text(caught.value, "fr") != english


def test_a_position_file_with_a_bad_square_or_heading_in_each_language():
    exc = refused(lambda: Position.from_setup(with_monster(at="z9")))
    check(exc, "setup.monster.at")
    assert in_each(exc) == {
        "en": "setup.monster.at: 'z9' is not a square name (a1 … p11)",
        "fr": "setup.monster.at: 'z9' n'est pas un nom de case (a1 … p11)",
        "de": "setup.monster.at: 'z9' ist kein Feldname (a1 … p11)",
        "es": "setup.monster.at: 'z9' no es un nombre de casilla (a1 … p11)"}
    exc = refused(lambda: Position.from_setup(with_monster(at="p1")))
    check(exc, "setup.monster.at")
    assert in_each(exc)["de"] == "setup.monster.at: 'p1' liegt nicht auf dem Spielplan (eine abgeschnittene Ecke)"
    exc = refused(lambda: Position.from_setup(with_monster(facing="X")))
    check(exc, "setup.monster.facing")
    assert in_each(exc)["es"] == "setup.monster.facing: 'X' no es una dirección (N, E, S o W)"
    exc = refused(lambda: Position.from_setup({**copy.deepcopy(GOOD), "pools": [5]}))
    check(exc, "setup.pools[0]")
    assert in_each(exc)["fr"] == "setup.pools[0]: un nom de case doit être un texte comme 'g7', pas 5"


def test_an_action_with_a_bad_square_or_arrow_in_each_language():
    exc = refused(lambda: parse_action({"type": "pawn-at", "pawn": "red-3/4", "square": "q3"}))
    check(exc, "square")
    assert in_each(exc)["fr"] == "square: 'q3' n'est pas un nom de case (a1 … p11)"
    exc = refused(lambda: parse_action({"type": "pawn-at", "pawn": "red-3/4", "square": "e5",
                                        "stones": {"a0": "stone"}}))
    check(exc, "stones.a0")
    exc = refused(lambda: parse_action({"type": "place", "piece": "teleporter", "square": "a1", "arrow": "Q"}))
    check(exc, "arrow")
    assert in_each(exc)["de"] == "arrow: 'Q' ist keine Richtung (N, E, S oder W)"


def test_a_plan_read_back_with_a_bad_square_in_each_language():
    from engine.game import Game
    from engine.monster import resolve
    from engine.plan import Plan

    data = resolve(Game.new(["red", "blue"], first_player="red", seed=3).position, "8").to_json()
    data["final_look"]["at"] = "z9"
    exc = refused(lambda: Plan.from_json(data))
    check(exc, exc.field)
    assert "'z9'" in in_each(exc)["es"] and "casilla" in in_each(exc)["es"]


def test_the_referees_fix_in_each_language():
    exc = refused(lambda: check_fix("zz", {"piece": "empty"}))
    check(exc, "square")
    exc = refused(lambda: check_fix(7, {"piece": "empty"}))
    check(exc, "square")
    for piece, field in (({"piece": "dragon"}, "piece"), ({"piece": "monster", "facing": "up"}, "facing"),
                         ({"piece": "pawn", "color": "pink", "pawn": "3/4"}, "color"),
                         ({"piece": "pawn", "color": "red", "pawn": "9/9"}, "pawn"),
                         ({"piece": "pawn", "color": "red", "pawn": "3/4", "face": "grey"}, "face")):
        exc = refused(lambda: check_fix("g7", piece))
        check(exc, field)
    assert in_each(exc)["fr"] == "face: la face doit être blanche ou noire, pas 'grey'"


@pytest.mark.parametrize("cfg, english, french", [
    ({"kind": "explicit", "squares": {"a1": 0, "b1": 0}}, "[layout.squares] LED 0 is given to both a1 and b1",
     "[layout.squares] la LED 0 est donnée à la fois à a1 et à b1"),
    ({"kind": "explicit", "squares": {"z9": 1}}, "[layout.squares] 'z9' is not a square name (a1 … p11)",
     "[layout.squares] 'z9' n'est pas un nom de case (a1 … p11)"),
    ({"kind": "explicit", "squares": {"c3": -4}},
     "[layout.squares] square c3: LED index -4 must be a whole number from 0 to 65535",
     f"[layout.squares] case c3{NBSP}: le numéro de LED -4 doit être un nombre entier de 0 à 65535"),
    ({"kind": "explicit", "squares": {"c3": []}}, None, None),
    ({"kind": "explicit"}, None, None),
    ({"kind": "ring"}, None, None),
    ({"led_count": 150}, "square k11 needs LED 150 but the strip has only 150 LEDs (0–149)",
     "la case k11 demande la LED 150 mais la bande n'a que 150 LED (0–149)"),
    ({"led_count": "many"}, None, None),
    ({"no_led": ["q3"]}, "[layout] no_led: 'q3' is not a square name (a1 … p11)",
     f"[layout] no_led{NBSP}: 'q3' n'est pas un nom de case (a1 … p11)"),
    ({"no_led": "a1"}, None, None),
    ({"start": "middle"}, None, None),
    ({"order": "spiral"}, None, None),
    ({"run": "diagonals"}, None, None),
    ({"cut_corners": "round"}, None, None),
    ({"leds_per_square": 0}, None, None),
    ({"wiring": "x"}, "[layout] unknown key for a chain layout: wiring",
     f"[layout] clé inconnue pour une disposition en chaîne{NBSP}: wiring"),
    ({"squares": {"a1": 0}, "wiring": 1},
     "[layout] unknown keys for a chain layout: squares, wiring; to list each square's LEDs set kind = \"explicit\"",
     f"[layout] clés inconnues pour une disposition en chaîne{NBSP}: squares, wiring{NBSP}; pour donner les LED "
     "de chaque case, mettez kind = \"explicit\""),
])
def test_every_led_layout_check_in_each_language(cfg, english, french):
    with pytest.raises(LayoutError) as caught:
        LedLayout.from_config(cfg)
    exc = caught.value
    texts = in_each(exc)
    assert texts["en"] == str(exc) and exc.text is not None
    if english:
        assert str(exc) == english
        assert texts["fr"] == french
    for lang in ("fr", "de", "es"):
        assert texts[lang] != texts["en"] and "%(" not in texts[lang], (lang, texts[lang])
        for word in ("[layout", "'z9'", "'q3'", "a1", "b1", "c3", "k11", "150"):
            assert (word in texts["en"]) == (word in texts[lang]), (lang, word, texts[lang])
    assert "is not" not in texts["de"] and "must" not in texts["es"] and "unknown" not in texts["fr"]


def test_a_bad_layout_in_the_table_configuration_in_each_language(tmp_path):
    p = tmp_path / "table.toml"
    t = said(tmp_path, '[layout]\nno_led = ["a1", "q3"]\n')
    assert t["en"] == f"{p}: [layout] no_led: 'q3' is not a square name (a1 … p11)"
    assert t["fr"] == f"{p}{NBSP}: [layout] no_led{NBSP}: 'q3' n'est pas un nom de case (a1 … p11)"
    assert t["de"] == f"{p}: [layout] no_led: 'q3' ist kein Feldname (a1 … p11)"
    assert t["es"] == f"{p}: [layout] no_led: 'q3' no es un nombre de casilla (a1 … p11)"
    t = said(tmp_path, '[layout]\nkind = "explicit"\n[layout.squares]\na1 = 0\nb1 = 0\n')
    assert t["es"] == f"{p}: [layout.squares] el LED 0 está asignado a la vez a a1 y a b1"


def test_flure_leds_says_a_bad_layout_in_its_language(tmp_path, capsys):
    from companion_app.cli import main

    config = tmp_path / "hw.toml"
    config.write_text('[layout]\nstart = "middle"\n', encoding="utf-8")
    assert main(["leds", "layout", "--config", str(config), "--lang", "de"]) == 2
    err = capsys.readouterr().err
    assert "[layout] start 'middle' ist keine Ecke" in err and "is not" not in err
