"""The game's status line in four languages: the engine's one wording (Game.summary, wording data)
rendered by companion_app.i18n.text; English is its ``str()``."""
import random
import re

from companion_app.i18n import LANGUAGES
from companion_app.i18n.text import localize, render
from engine.game import Game
from tests.game_helpers import play_out
from tests.glossary import term


def summary(game: Game, lang: str) -> str:
    return render(game.summary(), lang)


def all_summaries(game: Game) -> dict[str, str]:
    return {lang: summary(game, lang) for lang in LANGUAGES}


def test_each_language_its_own_summary_through_whole_random_games():
    seen = set()
    for seed in range(6):
        colours = ["red", "blue", "green", "yellow"][: 2 + seed % 3]
        game = Game.new(colours, first_player=colours[0], seed=seed)

        def check(before, action, after):
            for g in (before, after):
                if g.phase != "placement":
                    assert summary(g, "en") == str(g.summary()) and "%(" not in str(g.summary())
                    seen.add(g.phase)
                    others = all_summaries(g)
                    assert len(set(others.values())) == 4, others

        play_out(game, random.Random(seed), check)
    assert {"pawns", "monster", "over"} <= seen


def test_german_summary_names_the_pawns_in_german():
    game = Game.new(["red", "blue"], first_player="red", seed=1)
    assert str(game.summary()) == ("Round 1, turn 1: red moves red 6/1 or red 4/3 or red 3/4 or red 2/5 (G3). "
                                   "8 tiles left in the deck.")
    text = summary(game, "de")
    assert text.startswith("Runde 1, Zug 1: Rot zieht Rot ") and "(G3)" in text
    assert "Noch 8 Grabstein-Plättchen im Stapel." in text


def test_status_lines_use_the_glossary_words_for_round_turn_pawn_and_tile():
    """Through a whole random game: the pawn phase, the monster phase and the result in fr, de, es."""
    game = Game.new(["red", "blue", "green"], first_player="green", seed=3)
    lines = {lang: set() for lang in ("fr", "de", "es")}

    def check(before, action, after):
        for lang in lines:
            lines[lang].add((after.phase, summary(after, lang)))

    final, _ = play_out(game, random.Random(3), check)
    assert final.phase == "over"
    for lang, seen in lines.items():
        pawns = [t for phase, t in seen if phase == "pawns"]
        monster = [t for phase, t in seen if phase == "monster"]
        assert pawns and monster
        for text in pawns + monster:
            assert text.startswith(f"{term('round', lang).capitalize()} ") and f", {term('turn', lang)} " in text, text
            assert term("tile", lang).lower() in text.lower(), text
            assert not ENGLISH.search(text), text
        assert all(term("pawn", lang) in text for text in monster), lang          # every pawn has moved (G7)
        if lang != "de":   # French and Spanish pawn names carry the word (le pion rouge 3/4); German: Rot 3/4
            assert all(term("pawn", lang) in text for text in pawns), lang
    # Pawn names agree with the word for pawn (es: la ficha roja), the player's colour is a name (es: rojo).
    es = next(t for _, t in lines["es"] if t.startswith("Ronda 1, turno 1: verde mueve "))
    assert "la ficha verde " in es and "Quedan 8 lápidas en el mazo." in es
    fr = next(t for _, t in lines["fr"] if t.startswith("Manche 1, tour 1\u00a0: vert déplace "))
    assert "le pion vert " in fr and "Il reste 8 tuiles dans la pile." in fr
    end = summary(final, "es")
    assert term("pawn", "es") in end or "monstruo" in end


ENGLISH = re.compile(r"\b(the|pawn|pawns|moves|turn|round|tile|tiles|left|deck|wins|out|red|blue|green)\b")


def test_the_line_before_any_game_in_each_language():
    from companion_app.table.session.state import public_state
    state = public_state(None, version=0, seq=0, game_id=None, log=[], plan_seq=None)
    assert localize(state, "en")["summary"] == "Waiting for the referee to start a game."
    assert localize(state, "de")["summary"] == "Warten, bis der Spielleiter ein Spiel beginnt."


def test_tile_names_in_each_language_english_the_engines():
    from companion_app.table.session.state import public_state
    from engine.deck import TILES
    for variant in (False, True):
        game = Game.new(["red", "blue", "green", "yellow", "purple", "black"], first_player="red", seed=2,
                        prey3_variant=variant)
        state = public_state(game, version=0, seq=0, game_id=1, log=[], plan_seq=None)
        names = {lang: localize(state, lang)["tile_names"] for lang in LANGUAGES}
        assert set(names["en"]) == set(TILES) and names["en"]["8"] == "8 steps"
    assert names["de"]["5"] == "5 (drei Opfer, G11)" and names["fr"]["prey-1"] == "une proie"
    assert names["en"]["5"] == "5 (three prey, G11)" and names["en"]["prey-1"] == "one prey"


def test_the_advanced_setup_line_and_the_placed_line_in_each_language_english_the_engines():
    from engine.reconcile_place import describe_place_words, legal_placements, placed_words

    rng = random.Random(5)
    game = Game.new(["red", "blue", "green"], first_player="red", setup="advanced", seed=5)
    kinds = set()
    while game.phase == "placement":
        lines = all_summaries(game)
        assert lines["en"] == str(game.summary()) and len(set(lines.values())) == 4, lines
        change = rng.choice(legal_placements(game.position, dict(game.pieces_left)))
        placed = {lang: render(placed_words(change.place, game.position, game.placer), lang) for lang in LANGUAGES}
        assert placed["en"] == f"{game.placer} placed {describe_place_words(change.place, game.position)} (A2)"
        assert len(set(placed.values())) == 4 and all(change.place.square in t for t in placed.values())
        kinds.add(change.place.piece)
        game = game.apply(change.place)
    assert kinds == {"stone", "crystal", "pivot-right", "pivot-about", "pool-2x2", "pool-1x4", "teleporter"}
    game = Game.new(["red", "blue"], first_player="blue", setup="advanced", seed=1)
    assert str(game.summary()) == ("Advanced setup: blue places the next piece (A2); 17 left: 3 stones, 2 crystals, "
                                   "4 right-turn pivot stones, 2 about-turn pivot stones, 1 2×2 pool, 1 1×4 pool, "
                                   "4 teleporters.")
    assert summary(game, "de").startswith("Fortgeschrittener Aufbau: Blau legt das nächste Teil (A2); noch 17 Teile")
    assert "3 pierres, 2 cristaux" in summary(game, "fr")
