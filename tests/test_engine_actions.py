"""Actions as typed values (engine/actions.py): the JSON form read back exactly, bad input named."""
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.actions import ACTION_TYPES, Correct, Draw, Move, PawnAt, Place, Tile, format_action, parse_action
from engine.deck import TILES
from engine.errors import GameActionError, InvalidActionError, InvalidSetupError
from engine.game import Game
from engine.geometry import SQUARES, square_name
from engine.placement import PIECES
from engine.position import STONE_KINDS
from tests.engine_strategies import positions

squares = st.sampled_from(SQUARES).map(square_name)
pawns = st.one_of(st.sampled_from(["red-6/1", "blue 2/5", "A"]),
                  st.text(min_size=1, max_size=12).map(str.strip).filter(bool))
stones = st.dictionaries(st.sampled_from(SQUARES), st.sampled_from(STONE_KINDS), max_size=5).map(
    lambda d: tuple((square_name(sq), kind) for sq, kind in sorted(d.items())))
actions = st.one_of(
    st.builds(Move, pawns, st.text("NESWIX", max_size=6)),
    st.builds(PawnAt, pawns, st.one_of(st.none(), st.just("out"), squares), st.one_of(st.none(), stones)),
    st.just(Draw()),
    st.builds(Tile, st.sampled_from(TILES)),
    st.builds(Place, st.sampled_from(list(PIECES)), squares, st.one_of(st.none(), st.sampled_from("NESW")),
              st.sampled_from([None, 1, 2]), st.sampled_from([None, "horizontal", "vertical"])),
    st.builds(Correct, positions()),
)


@given(actions)
@settings(max_examples=400, deadline=None)
def test_parse_reads_back_exactly_what_format_wrote(action):
    data = json.loads(json.dumps(format_action(action)))
    assert parse_action(data) == action
    assert format_action(parse_action(data)) == data


def test_every_type_has_its_field_lists():
    assert list(ACTION_TYPES) == ["move", "pawn-at", "draw", "tile", "place", "correct"]
    for cls in ACTION_TYPES.values():
        assert not set(cls.REQUIRED) & set(cls.OPTIONAL)


def test_parse_writes_squares_letters_and_tiles_as_the_engine_does():
    assert parse_action({"type": "move", "pawn": " red-6/1 ", "moves": "iwwn"}) == Move("red-6/1", "IWWN")
    assert parse_action({"type": "pawn-at", "pawn": "A", "square": "K5"}) == PawnAt("A", "k5")
    assert parse_action({"type": "pawn-at", "pawn": "A", "square": "OUT"}).square == "out"
    seen = parse_action({"type": "pawn-at", "pawn": "A", "square": None, "stones": {"G7": "stone", "c3": "crystal"}})
    assert seen.stones == (("c3", "crystal"), ("g7", "stone"))
    assert parse_action({"type": "tile", "tile": 8}) == Tile("8")
    assert parse_action({"type": "place", "piece": "pool-1x4", "square": "e9", "orientation": " Vertical"}) \
        == Place("pool-1x4", "e9", orientation="vertical")


@pytest.mark.parametrize("data, field", [
    (None, "action"), ([], "action"), ({"type": "jump"}, "type"), ({}, "type"),
    ({"type": "move", "pawn": "A"}, "moves"),
    ({"type": "move", "pawn": "A", "moves": "NQ"}, "moves"),
    ({"type": "move", "pawn": "A", "moves": 3}, "moves"),
    ({"type": "move", "pawn": "", "moves": "N"}, "pawn"),
    ({"type": "move", "pawn": "A", "moves": "N", "square": "g7"}, "square"),
    ({"type": "pawn-at", "pawn": "A"}, "square"),
    ({"type": "pawn-at", "pawn": "A", "square": "q4"}, "square"),
    ({"type": "pawn-at", "pawn": "A", "square": "g7", "stones": ["g8"]}, "stones"),
    ({"type": "pawn-at", "pawn": "A", "square": "g7", "stones": {"g8": "rock"}}, "stones.g8"),
    ({"type": "pawn-at", "pawn": "A", "square": "g7", "stones": {"g8": "stone", "G8": "stone"}}, "stones.G8"),
    ({"type": "draw", "tile": "8"}, "tile"),
    ({"type": "tile", "tile": "prey-3"}, "tile"),
    ({"type": "tile"}, "tile"),
    ({"type": "place", "piece": "tree", "square": "g7"}, "piece"),
    ({"type": "place", "piece": "teleporter", "square": "g7", "arrow": "up"}, "arrow"),
    ({"type": "place", "piece": "teleporter", "square": "g7", "arrow": "N", "pair": True}, "pair"),
    ({"type": "place", "piece": "pool-1x4", "square": "g7", "orientation": "diagonal"}, "orientation"),
    ({"type": "correct"}, "position"),
    ({"type": "correct", "position": {"monster": {"at": "a1", "facing": "up"}}}, "position.monster.facing"),
])
def test_bad_input_is_refused_naming_the_field(data, field):
    with pytest.raises(InvalidActionError) as err:
        parse_action(data)
    assert err.value.field == field and isinstance(err.value, InvalidSetupError)


def test_the_game_takes_typed_actions_and_their_json_form_alike():
    game = Game.new(["red", "blue"], "red", seed=5)
    typed = game.apply(Move("red-6/1", "I"))
    assert typed == game.apply({"type": "move", "pawn": "red 6/1", "moves": "i"})
    with pytest.raises(GameActionError, match="G3"):      # well formed, but not allowed now: a rule error
        typed.apply(Draw())
    with pytest.raises(InvalidActionError):
        game.apply({"type": "move", "pawn": "red-6/1", "moves": "I", "extra": 1})
