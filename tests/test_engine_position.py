import json

import pytest
from hypothesis import given, settings

from engine.errors import InvalidSetupError
from engine.geometry import parse_square
from engine.position import Pawn, Position, basic_position
from tests.engine_strategies import positions


@given(positions())
@settings(max_examples=200, deadline=None)
def test_json_round_trip(pos):
    setup = json.loads(json.dumps(pos.to_setup()))
    again = Position.from_setup(setup, strict=False)
    assert again == pos
    assert hash(again) == hash(pos)
    assert again.to_setup() == setup


def test_out_and_gone_pawns_round_trip():
    pos = basic_position([Pawn("red-6/1", "red", "6/1", "black", "out"), Pawn("red-4/3", "red", "4/3", "white", "gone")])
    assert Position.from_setup(pos.to_setup()) == pos


def test_text_diagram_shows_pieces():
    text = str(basic_position())
    assert text.splitlines()[1].split()[1] == ">"  # monster on a1 facing E
    assert text.count("o") >= 11 and text.count("~") == 8


def test_status_lists_impossible_positions_instead_of_raising():
    setup = {"monster": {"at": "g7", "facing": "N"}, "stones": {"g7": "stone", "c3": "crystal"},
             "teleporters": {"c3": {"pair": 1, "arrow": "N"}}, "pools": ["c3"],
             "pawns": {"A": {"at": "g7"}}}
    pos = Position.from_setup(setup, strict=False)
    codes = {p["code"] for p in pos.status()}
    assert codes == {"two-pieces", "on-teleporter", "teleporter-on-pool", "teleporter-pair"}
    assert any(p["square"] == "g7" for p in pos.status())


def test_basic_setup_is_clean():
    assert basic_position().status() == []


@pytest.mark.parametrize("setup,field", [
    ({"monster": {"at": "z9", "facing": "N"}}, "setup.monster.at"),
    ({"monster": {"at": "a1", "facing": "Q"}}, "setup.monster.facing"),
    ({"monster": {"at": "a1", "facing": "N"}, "stones": {"b2": "boulder"}}, "setup.stones.b2"),
    ({"monster": {"at": "a1", "facing": "N"}, "stones": {"a1": "stone"}}, "setup.stones.a1"),
    ({"monster": {"at": "a1", "facing": "N"}, "pawns": {"A": {"at": "b1"}, "B": {"at": "b1"}}}, "setup.pawns.B.at"),
    ({"monster": {"at": "a1", "facing": "N"}, "teleporters": {"b1": {"pair": 1, "arrow": "N"}}}, "setup.teleporters"),
    ({"monster": {"at": "a1", "facing": "N"}, "pools": ["b1"],
      "teleporters": {"b1": {"pair": 1, "arrow": "N"}, "c1": {"pair": 1, "arrow": "N"}}}, "setup.teleporters.b1"),
    ({"monster": {"at": "a1", "facing": "N"}, "stones": {"b1": "stone"},
      "teleporters": {"b1": {"pair": 1, "arrow": "N"}, "c1": {"pair": 1, "arrow": "N"}}}, "setup.stones.b1"),
    ({"monster": {"at": "a1", "facing": "N"}, "pawns": {"A": {"at": "b1", "face": "grey"}}}, "setup.pawns.A.face"),
    ({"stones": {}}, "setup.monster"),
    ([], "setup"),
])
def test_invalid_setups_name_the_field(setup, field):
    with pytest.raises(InvalidSetupError) as exc:
        Position.from_setup(setup)
    assert exc.value.field == field
    assert str(exc.value).startswith(field)


def test_pawn_values_and_names():
    p = Pawn("x", "red", "3/4", "white", "board", parse_square("g7"))
    assert p.value == 4 and p.flipped().value == 3 and p.name == "red 3/4"
