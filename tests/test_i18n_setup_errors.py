"""Bad files and bad setups refused in four languages: a position JSON, a saved game and a new
game's settings raise InvalidSetupError with wording data; English is exactly the engine's ``str(err)``,
French, German and Spanish keep the field, the squares and the rule ids."""
import copy

import pytest

from companion_app.i18n.text import error_text, render
from engine.errors import FlureError, GameActionError, InvalidSetupError
from engine.game import Game
from engine.position import Position
from tests.test_i18n_errors import check_all_languages

GOOD = {"monster": {"at": "a1", "facing": "E"}, "stones": {"c3": "stone"}, "pools": ["e5"],
        "teleporters": {"g7": {"pair": 1, "arrow": "N"}, "h8": {"pair": 1, "arrow": "S"}},
        "pawns": {"A": {"at": "d4", "color": "red", "pawn": "3/4"}}}


def changed(change):
    setup = copy.deepcopy(GOOD)
    change(setup)
    return setup


BAD_POSITIONS = {
    "not an object": lambda s: ["a1"],
    "unknown key": lambda s: changed(lambda d: d.update(walls=[])),
    "no monster": lambda s: changed(lambda d: d.pop("monster")),
    "monster extra key": lambda s: changed(lambda d: d["monster"].update(size=2)),
    "square case": lambda s: changed(lambda d: d["monster"].update(at="A1")),
    "direction case": lambda s: changed(lambda d: d["monster"].update(facing="e")),
    "stones not object": lambda s: changed(lambda d: d.update(stones=["c3"])),
    "stone kind": lambda s: changed(lambda d: d["stones"].update(c3="boulder")),
    "pools not list": lambda s: changed(lambda d: d.update(pools="e5")),
    "teleporters not object": lambda s: changed(lambda d: d.update(teleporters=["g7"])),
    "teleporter not object": lambda s: changed(lambda d: d["teleporters"].update(g7=1)),
    "pair": lambda s: changed(lambda d: d["teleporters"]["g7"].update(pair=3)),
    "pawns not object": lambda s: changed(lambda d: d.update(pawns=["A"])),
    "label": lambda s: changed(lambda d: d["pawns"].update({"red 3": {"at": None}})),
    "pawn no at": lambda s: changed(lambda d: d["pawns"].update(A={"color": "red"})),
    "pawn extra": lambda s: changed(lambda d: d["pawns"]["A"].update(hat=1)),
    "colour": lambda s: changed(lambda d: d["pawns"]["A"].update(color="pink")),
    "pawn kind": lambda s: changed(lambda d: d["pawns"]["A"].update(pawn="9/9")),
    "face": lambda s: changed(lambda d: d["pawns"]["A"].update(face="grey")),
    "place": lambda s: changed(lambda d: d["pawns"]["A"].update(at=None, place="home")),
    "place with square": lambda s: changed(lambda d: d["pawns"]["A"].update(place="out")),
    "stone on teleporter": lambda s: changed(lambda d: d["stones"].update(g7="stone")),
    "pawn on teleporter": lambda s: changed(lambda d: d["pawns"]["A"].update(at="h8")),
    "teleporter on pool": lambda s: changed(lambda d: d.update(pools=["g7"])),
    "lone teleporter": lambda s: changed(lambda d: d["teleporters"].pop("h8")),
}


def refusal(call) -> FlureError:
    with pytest.raises(FlureError) as caught:
        call()
    return caught.value


def check(exc: FlureError, field: str | None = None) -> None:
    assert exc.text is not None and not isinstance(exc.text, str), f"still plain English: {exc}"
    texts = check_all_languages(exc)
    english = render(exc.text, "en")
    for lang, text in texts.items():
        assert english not in text, (lang, text)
        if field:
            assert text.startswith(f"{field}: "), (lang, text)
    if field:
        assert exc.field == field


def test_the_good_position_loads():
    Position.from_setup(GOOD)


@pytest.mark.parametrize("name", BAD_POSITIONS)
def test_a_bad_position_file_in_each_language(name):
    exc = refusal(lambda: Position.from_setup(BAD_POSITIONS[name](None)))
    assert isinstance(exc, InvalidSetupError)
    check(exc, exc.field)


def test_a_pawn_on_a_teleporter_keeps_its_square():
    exc = refusal(lambda: Position.from_setup(BAD_POSITIONS["pawn on teleporter"](None)))
    assert str(exc) == "setup.pawns.A.at: pawn A stands on the teleporter on h8"
    assert error_text(exc, "fr") == "setup.pawns.A.at: le pion A se trouve sur le téléporteur en h8"
    assert error_text(exc, "de") == "setup.pawns.A.at: die Figur A steht auf dem Teleporter auf h8"


def saved():
    return Game.new(["red", "blue"], first_player="red", seed=4).to_json()


BAD_SAVES = {
    "format": lambda d: d.update(format="chess"),
    "missing": lambda d: d.pop("round"),
    "text": lambda d: d.update(to_move=5),
    "whole": lambda d: d.update(seed="x"),
    "texts": lambda d: d.update(deck=[1]),
    "players": lambda d: d.update(players="red"),
    "prey3": lambda d: d.update(prey3_variant="no"),
    "pieces": lambda d: d.update(pieces_left="x"),
    "last": lambda d: d.update(last=3),
    "first player": lambda d: d.update(first_player="green"),
    "pawns": lambda d: d["position"]["pawns"].popitem(),
    "round": lambda d: d.update(round=3),
    "colour": lambda d: d.update(players=["red", "pink"]),
    "twice": lambda d: d.update(players=["red", "red"]),
    "too few": lambda d: d.update(players=["red"]),
    "position": lambda d: d["position"].update(monster=None),
}


@pytest.mark.parametrize("name", BAD_SAVES)
def test_a_bad_saved_game_in_each_language(name):
    data = saved()
    BAD_SAVES[name](data)
    exc = refusal(lambda: Game.from_json(data))
    assert isinstance(exc, InvalidSetupError)
    check(exc, exc.field)


def test_a_colour_chosen_twice_is_named_in_each_language():
    exc = refusal(lambda: Game.new(["red", "blue", "red"], first_player="red", seed=1))
    assert str(exc) == "players: red is chosen twice; each player takes one colour"
    check(exc, "players")
    assert error_text(exc, "de").startswith("players: Rot ist doppelt")


BAD_NEW = {
    "first": dict(players=["red", "blue"], first_player="green"),
    "setup": dict(players=["red", "blue"], setup="expert"),
    "prey3 type": dict(players=["red", "blue"], prey3_variant="yes"),
    "prey3 few": dict(players=["red", "blue"], prey3_variant=True),
    "seed": dict(players=["red", "blue"], seed=1.5),
    "players": dict(players=5),
    "colour": dict(players=["red", "pink"]),
}


@pytest.mark.parametrize("name", BAD_NEW)
def test_a_bad_new_game_in_each_language(name):
    kwargs = {"seed": 1, **BAD_NEW[name]}
    exc = refusal(lambda: Game.new(**kwargs))
    check(exc, getattr(exc, "field", None))
    if isinstance(exc, GameActionError):
        assert exc.rule == "G11"


def test_two_pieces_on_one_square_of_a_position_file_in_each_language():
    exc = refusal(lambda: Position.from_setup(changed(lambda d: d["stones"].update(d4="stone"))))
    assert str(exc) == "setup.pawns.A.at: a stone and pawn A are both on d4"
    check(exc, "setup.pawns.A.at")
    assert "la ficha A" in error_text(exc, "es") and "le pion A" in error_text(exc, "fr")


def record():
    return {"format": "flure-game/1", "players": ["red", "blue"], "first_player": "red", "seed": 3,
            "actions": [{"type": "move", "pawn": "red-6/1", "moves": ""}]}


BAD_RECORDS = {
    "not object": lambda d: ["x"],
    "format": lambda d: {**d, "format": "chess"},
    "field": lambda d: {**d, "colour": 1},
    "missing": lambda d: {k: v for k, v in d.items() if k != "seed"},
    "players": lambda d: {**d, "players": "red"},
    "first": lambda d: {**d, "first_player": 2},
    "setup": lambda d: {**d, "setup": 2},
    "variant": lambda d: {**d, "prey3_variant": "no"},
    "seed": lambda d: {**d, "seed": -1},
    "actions": lambda d: {**d, "actions": {}},
    "bad action": lambda d: {**d, "actions": [{"type": "move", "pawn": "red-6/1", "moves": "NQ"}]},
    "colour": lambda d: {**d, "players": ["red", "pink"]},
    "too few": lambda d: {**d, "players": ["red"], "first_player": "red"},
}


@pytest.mark.parametrize("name", BAD_RECORDS)
def test_a_bad_game_record_in_each_language(name):
    from engine.record import GameRecord
    exc = refusal(lambda: GameRecord.from_json(BAD_RECORDS[name](record())))
    assert isinstance(exc, InvalidSetupError)
    check(exc, exc.field)


def test_a_record_step_refused_keeps_its_rule_in_each_language():
    from engine.record import GameRecord
    data = {**record(), "actions": [{"type": "move", "pawn": "blue-6/1", "moves": ""}]}
    exc = refusal(lambda: GameRecord.from_json(data).final())
    assert str(exc) == "actions[0]: step 1 (move) is not allowed there: It is red's turn, not blue's (G3)"
    check(exc, "actions[0]")
    assert error_text(exc, "de") == ("actions[0]: Eintrag 1 (move) ist dort nicht erlaubt: "
                                     "Rot ist am Zug, nicht Blau (G3)")


def test_bad_moves_tiles_and_steps_in_each_language():
    from engine.deck import take
    from engine.monster import resolve
    from engine.pawns import apply_moves
    game = Game.new(["red", "blue"], first_player="red", seed=1)
    pos = game.position
    calls = [lambda: apply_moves(pos, "red-9/9", "N"), lambda: apply_moves(pos, "red-6/1", 5),
             lambda: apply_moves(pos, "red-6/1", "NQ"), lambda: apply_moves(pos, "red-6/1", "N", points=-1),
             lambda: resolve(pos, "11"), lambda: resolve(pos, steps=0), lambda: resolve(pos),
             lambda: take(game.deck, "13", first_of_game=True, prey3_variant=False)]
    for call in calls:
        exc = refusal(call)
        assert isinstance(exc, InvalidSetupError)
        check(exc, exc.field)


def test_a_crowded_board_refused_by_the_monster_names_the_square_in_each_language():
    from engine.monster import resolve
    pos = Position.from_setup(changed(lambda d: d["stones"].update(d4="stone")), strict=False)   # a stone on pawn A
    exc = refusal(lambda: resolve(pos, "5"))
    assert "d4" in str(exc)
    check(exc, "position")


def test_a_teleporter_without_its_arrow_in_each_language():
    from engine.actions import Place
    from engine.placement import parse_placement
    exc = refusal(lambda: parse_placement(Place("teleporter", "g7", None), Position.from_setup(GOOD)))
    assert str(exc) == "arrow: a teleporter needs its arrow: N, E, S or W"
    check(exc, "arrow")
