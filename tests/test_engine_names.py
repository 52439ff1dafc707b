"""The pieces' names (engine/names.py): one vocabulary keyed by kind, each grammatical role its own
gettext context, so that a language with cases (German) names a piece as subject and object apart."""
import pytest

from companion_app.i18n.text import render
from engine.names import KINDS, ROLES, count_words, piece_name
from engine.wording import Text, words_from_json, words_json


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_has_every_role_in_english_and_the_roles_differ_by_context_only(kind):
    name = str(piece_name(kind))
    assert str(piece_name(kind, "a")) == str(piece_name(kind, "a-object")) in (f"a {name}", f"an {name}")
    assert str(piece_name(kind, "the")) == str(piece_name(kind, "the-object")) == f"the {name}"
    assert len({piece_name(kind, role).context for role in ROLES}) == len(ROLES)
    assert str(count_words(kind, 1)) == f"1 {name}" and str(count_words(kind, 2)) == f"2 {piece_name(kind, 'names')}"


def test_german_says_the_subject_and_the_object_in_their_own_case():
    assert render(piece_name("pivot-right", "a"), "de") == "ein Drehstein (rechts)"
    assert render(piece_name("pivot-right", "a-object"), "de") == "einen Drehstein (rechts)"
    assert render(piece_name("crystal", "the"), "de") == "der Kristall"
    assert render(piece_name("crystal", "the-object"), "de") == "den Kristall"
    assert render(piece_name("pool-2x2", "a-object"), "fr") == "une flaque de sang 2×2"
    assert render(count_words("stone", 3), "es") == "3 piedras"


def test_a_name_is_wording_data_that_keeps_its_context_through_json():
    name = piece_name("pivot-about", "the-object")
    back = words_from_json(words_json(name))
    assert isinstance(back, Text) and back.context == name.context == "the piece, object"
    assert render(back, "de") == "den Wendestein"


def test_the_sentences_use_the_vocabulary_in_the_role_their_grammar_gives():
    """The role is the slot's grammar in the other languages: a stone a pawn cannot push is what one cannot
    push (de: *man kann den Kristall … nicht schieben*); two pieces on one square are the subject."""
    from engine.errors import IllegalMoveError
    from engine.pawns import apply_moves
    from engine.position import Position
    from engine.tablediff import table_fixes

    (fix,) = table_fixes({"stones": {"g7": "crystal"}}, {"stones": {"g6": "crystal"}})
    assert fix.text.params["stone"] == piece_name("crystal", "the-object")
    assert "den Kristall" in render(fix.text, "de")
    position = Position.from_setup({"monster": {"at": "a6", "facing": "E"}, "stones": {"e1": "crystal"},
                                    "pawns": {"red-6/1": {"color": "red", "pawn": "6/1", "face": "white",
                                                          "at": "e2"}}})
    with pytest.raises(IllegalMoveError) as err:   # pushed north from e1 into the wall (P7)
        apply_moves(position, "red-6/1", "N")
    refused = {lang: render(err.value.text, lang) for lang in ("de", "fr")}
    assert "man kann den Kristall auf e1 nicht" in refused["de"], refused
    assert "impossible de pousser le cristal en e1" in refused["fr"], refused   # no participle to agree with
    both = Position.from_setup({"monster": {"at": "g7", "facing": "E"}, "stones": {"g7": "crystal"}},
                               strict=False).status_words()
    assert "ein Kristall stehen beide auf g7" in render(both[0][1], "de"), render(both[0][1], "de")


def test_a_squares_contents_are_said_as_the_subject_or_the_object_their_sentence_needs():
    """What a square shows (SquareLook.describe_words) is the object of *showed … now shows* (de: *zeigt
    jetzt einen Kristall*) and the subject of *was … now* (de: *war ein Kristall*)."""
    from dataclasses import replace

    from engine.game import Game
    from engine.geometry import parse_square
    from engine.observation import Observation, SquareLook
    from engine.reconcile import reconcile_game

    crystal = SquareLook(stone="crystal")
    assert crystal.describe_words().parts == (piece_name("crystal", "a"),)
    assert crystal.describe_words("a-object").parts == (piece_name("crystal", "a-object"),)
    assert render(SquareLook(stone="pivot-right", pool=True).describe_words("a-object"), "de") == (
        "einen Drehstein (rechts) auf einer Blutlache")
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    game = game.apply({"type": "place", "piece": "crystal", "square": "k3"})
    moved = replace(game.position, stones={parse_square("k4"): "crystal"})
    (problem, *_) = reconcile_game(game, Observation.of(moved)).problems
    german = render(problem.message, "de")
    assert "einen Kristall" in german and "ein Kristall " not in german, german
    assert problem.message.params["why"].params["before"] == crystal.describe_words("a-object")
