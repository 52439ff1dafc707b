"""The engine's refusals in four languages: companion_app.i18n.text renders the wording data
the engine raises with (engine.wording); English is exactly ``str(err)``, rule ids and squares never change."""
import random
import re

import pytest

from companion_app.i18n.text import error_text, render
from engine.errors import FlureError, GameActionError, IllegalMoveError, InvalidActionError
from engine.game import Game
from engine.geometry import SQUARES, square_name
from engine.pawns import apply_moves
from tests.game_helpers import full_placement, play_out, put
from tests.web_helpers import AUTH, make_app

NAMES = re.compile(r"\b[a-p](1[01]|[1-9])\b|\b[GPMTBA]\d+\b")   # squares and rule ids


def same_names(english: str, other: str) -> bool:
    return sorted(m.group(0) for m in NAMES.finditer(english)) == sorted(m.group(0) for m in NAMES.finditer(other))


def check_all_languages(exc: FlureError) -> dict[str, str]:
    """The refusal in each language: English (through the renderer, not the shortcut) is str(exc)."""
    assert exc.frame(render(exc.text, "en")) == str(exc) == error_text(exc, "en")
    texts = {lang: error_text(exc, lang) for lang in ("fr", "de", "es")}
    for lang, text in texts.items():
        assert "%(" not in text and text != str(exc), (lang, text)
        assert same_names(str(exc), text), (lang, str(exc), text)
        if getattr(exc, "rule", None):
            assert text.endswith(f"({exc.rule})")
    return texts


def test_a_walk_through_a_wall_in_each_language():
    game = Game.new(["red", "blue"], first_player="red", seed=1)
    game = put(game, {"red-3/4": "k5"})
    with pytest.raises(IllegalMoveError) as caught:
        apply_moves(game.position, "red-3/4", "NNNNNNNN", points=20)   # k5 north runs into wall K beyond k1
    exc = caught.value
    assert str(exc) == "move 5 (N): red 3/4 cannot walk through wall K from k1 (P6)"
    assert check_all_languages(exc) == {
        "de": "Schritt 5 (N): Rot 3/4 kann nicht von k1 durch die Wand K gehen (P6)",
        "fr": "déplacement 5 (N)\u00a0: le pion rouge 3/4 ne peut pas traverser le mur K depuis k1 (P6)",
        "es": "movimiento 5 (N): la ficha roja 3/4 no puede atravesar la pared K desde k1 (P6)"}


def test_wrong_turn_and_already_moved_name_colours_and_pawns_in_each_language():
    game = Game.new(["red", "blue"], first_player="red", seed=1)
    with pytest.raises(GameActionError) as caught:
        game.apply({"type": "move", "pawn": "blue-6/1", "moves": ""})
    assert str(caught.value) == "It is red's turn, not blue's (G3)"
    texts = check_all_languages(caught.value)
    assert texts == {"fr": "C'est au tour de rouge, pas de bleu (G3)", "de": "Rot ist am Zug, nicht Blau (G3)",
                     "es": "Es el turno de rojo, no de azul (G3)"}


def test_a_malformed_action_keeps_its_field():
    with pytest.raises(InvalidActionError) as caught:
        Game.new(["red", "blue"], first_player="red", seed=1).apply({"type": "move", "pawn": "red-6/1", "moves": "NQ"})
    assert str(caught.value) == "moves: unknown move letter 'Q' at position 2 (use N E S W I X)"
    texts = check_all_languages(caught.value)
    assert texts["de"] == "moves: unbekannter Schrittbuchstabe 'Q' an Stelle 2 (nehmt N E S W I X)"


def random_refusals(game: Game, rng: random.Random):
    """Actions chosen at random, most of them refused: moves of any pawn, tiles, placements."""
    labels = [p.label for p in game.position.pawns]
    for _ in range(6):
        kind = rng.choice(["move", "move", "pawn-at", "tile", "draw", "place"])
        if kind == "move":
            action = {"type": "move", "pawn": rng.choice(labels),
                      "moves": "".join(rng.choice("NESWIX") for _ in range(rng.randint(0, 7)))}
        elif kind == "pawn-at":
            action = {"type": "pawn-at", "pawn": rng.choice(labels),
                      "square": rng.choice([square_name(s) for s in SQUARES] + ["out", None])}
        elif kind == "tile":
            action = {"type": "tile", "tile": rng.choice(["5", "7", "8", "10", "prey-1", "prey-2"])}
        elif kind == "place":
            action = {"type": "place", "piece": rng.choice(["stone", "teleporter", "pool-1x4"]),
                      "square": square_name(rng.choice(SQUARES)), "arrow": "N"}
        else:
            action = {"type": "draw"}
        try:
            game.apply(action)
        except FlureError as exc:
            yield exc


def test_english_is_the_engines_message_for_refusals_met_in_random_games():
    """Through whole random games (basic and advanced setups), every refusal of a random action renders
    in English exactly as the engine says it, and in the other languages with the same squares and rules."""
    kinds, rules = set(), set()
    for seed in range(8):
        colours = ["red", "blue", "green", "yellow", "purple"][: 2 + seed % 4]
        game = Game.new(colours, first_player=colours[0], seed=seed, setup="advanced" if seed % 3 == 0 else "basic")
        rng = random.Random(seed)

        def check(before, action=None, after=None):
            for exc in random_refusals(before, rng):
                check_all_languages(exc)
                kinds.add(type(exc).__name__)
                rules.add(getattr(exc, "rule", None))

        if game.phase == "placement":
            for action in full_placement():
                check(game)
                game = game.apply(action)
        play_out(game, rng, check)
    assert {"IllegalMoveError", "GameActionError"} <= kinds
    assert {"P1", "P2", "P6", "G3", "G7", "A2"} <= rules, rules


def test_api_refusal_in_the_requests_language(tmp_path):
    app, _ = make_app(tmp_path)
    client = app.test_client()
    r = client.post("/api/game", json={"players": ["red", "blue"], "first_player": "red", "seed": 3}, headers=AUTH)
    assert r.status_code == 200
    bad = {"type": "move", "pawn": "blue 6/1", "moves": ""}
    fr = client.post("/api/action", json=bad, headers={**AUTH, "Accept-Language": "fr-FR,fr;q=0.9"})
    assert fr.status_code == 409
    assert fr.get_json() == {"error": "C'est au tour de rouge, pas de bleu (G3)", "rule": "G3", "field": None}
    en = client.post("/api/action", json=bad, headers=AUTH)
    assert en.get_json()["error"] == "It is red's turn, not blue's (G3)"
    de = client.post("/api/action?lang=de", json={"type": "draw"}, headers=AUTH)
    assert de.status_code == 409 and de.get_json()["rule"] == "G3"
    assert de.get_json()["error"].startswith("Das Monster zieht erst, wenn alle Spielfiguren gezogen haben: "
                                            "Rot zieht noch Rot 6/1 oder Rot ")
