"""Advanced setup: the pieces (A1) and the placement rules and order (A2)."""
import json
import random

import pytest

from engine.errors import GameActionError, InvalidSetupError
from engine.game import Game
from engine.geometry import CORNER_ZONE, E, around, parse_square, square_name
from engine.placement import PIECES
from engine.position import Teleporter
from tests.game_helpers import full_placement, random_placement


def advanced(players=("red", "blue", "green"), first="red"):
    return Game.new(list(players), first_player=first, setup="advanced", seed=3)


def place(g, piece, square, **kw):
    return g.apply({"type": "place", "piece": piece, "square": square, **kw})


def test_a1_pieces_to_place_and_empty_board():
    g = advanced()
    assert g.phase == "placement" and g.placer == "red" and g.to_move is None
    assert dict(g.pieces_left) == {"stone": 3, "crystal": 2, "pivot-right": 4, "pivot-about": 2,
                                   "pool-2x2": 1, "pool-1x4": 1, "teleporter": 4}
    assert not g.position.stones and not g.position.pools and not g.position.teleporters
    assert g.position.monster == parse_square("a1") and g.position.facing == E
    assert "17 left" in str(g.summary())


def test_a2_players_place_in_turn_and_the_next_one_starts():
    g = advanced(first="blue")
    placers = []
    for action in full_placement():
        placers.append(g.placer)
        g = g.apply(action)
        assert Game.from_json(json.loads(json.dumps(g.to_json()))) == g   # a save mid-setup resumes
    players = ["red", "blue", "green"]
    assert placers == [players[(1 + i) % 3] for i in range(17)]
    last = placers[-1]
    starter = players[(players.index(last) + 1) % 3]
    assert g.phase == "pawns" and g.first_player == starter == g.to_move
    assert g.position.status() == []
    assert len(g.position.stones) == 11 and len(g.position.pools) == 8 and len(g.position.teleporters) == 4
    assert g.position.teleporters[parse_square("d5")] == Teleporter(1, E)
    assert {square_name(s) for s in g.position.pools} == {"i3", "j3", "i4", "j4", "e9", "f9", "g9", "h9"}
    assert f"{starter} starts the game" in str(g.note)


def test_a2_pool_shapes_and_orientation():
    g = place(advanced(), "pool-1x4", "d3", orientation="vertical")
    assert {square_name(s) for s in g.position.pools} == {"d3", "d4", "d5", "d6"}
    g = place(g, "pool-2x2", "k6")
    assert {"k6", "l6", "k7", "l7"} <= {square_name(s) for s in g.position.pools}


@pytest.mark.parametrize("square", sorted(square_name(s) for s in CORNER_ZONE))
def test_a2_nothing_on_or_next_to_a_corner(square):
    with pytest.raises(GameActionError) as err:
        place(advanced(), "stone", square)
    assert err.value.rule == "A2" and square in str(err.value)


def test_a2_a_pool_reaching_into_the_corner_zone_is_refused():
    with pytest.raises(GameActionError, match="b2") as err:
        place(advanced(), "pool-2x2", "b2")
    with pytest.raises(GameActionError, match="o10"):
        place(advanced(), "pool-1x4", "o7", orientation="vertical")   # o7 o8 o9 o10
    assert err.value.rule == "A2"


def test_a2_no_overlaps():
    g = place(advanced(), "pool-2x2", "f5")
    with pytest.raises(GameActionError, match="g6 is already covered") as err:
        place(g, "crystal", "g6")
    assert err.value.rule == "A2"
    with pytest.raises(GameActionError, match="f6 is already covered"):
        place(g, "pool-1x4", "c6")   # c6 d6 e6 f6


def test_a2_pool_must_fit_on_the_board():
    with pytest.raises(GameActionError, match="stick out of the board"):
        place(advanced(), "pool-1x4", "m3")      # row 3 ends at n3
    with pytest.raises(GameActionError, match="stick out"):
        place(advanced(), "pool-2x2", "f11")


def test_a2_teleporters_never_side_by_side_but_diagonal_is_fine():
    g = place(advanced(), "teleporter", "g6", pair=1, arrow="N")
    with pytest.raises(GameActionError, match="g6") as err:
        place(g, "teleporter", "g7", pair=1, arrow="S")
    assert err.value.rule == "A2"
    g = place(g, "teleporter", "h7", pair=2, arrow="S")   # diagonal neighbour: allowed
    assert set(g.position.teleporters) == {parse_square("g6"), parse_square("h7")}


def test_a2_teleporter_pairs_and_arrows():
    g = place(advanced(), "teleporter", "d4", arrow="E")   # pair defaults to the first with room
    g = place(g, "teleporter", "d8", arrow="W")
    g = place(g, "teleporter", "k4", arrow="S")
    assert [t.pair for t in g.position.teleporters.values()] == [1, 1, 2]
    with pytest.raises(GameActionError, match="pair 1 are already placed") as err:
        place(g, "teleporter", "k8", pair=1, arrow="S")
    assert err.value.rule == "A1"
    with pytest.raises(InvalidSetupError, match="arrow"):
        place(g, "teleporter", "k8")
    with pytest.raises(InvalidSetupError, match="pair"):
        place(g, "teleporter", "k8", pair=3, arrow="N")


def test_a1_no_more_pieces_than_the_box_holds():
    g = advanced()
    for sq in ("d3", "d5", "d7"):
        g = place(g, "stone", sq)
    with pytest.raises(GameActionError, match="All 3 stones are already placed") as err:
        place(g, "stone", "d9")
    assert err.value.rule == "A1"


def test_a2_bad_input_and_wrong_phase():
    g = advanced()
    with pytest.raises(InvalidSetupError, match="piece"):
        place(g, "boulder", "g7")
    with pytest.raises(InvalidSetupError, match="square"):
        place(g, "stone", "q3")
    with pytest.raises(InvalidSetupError, match="orientation"):
        place(g, "pool-1x4", "g3", orientation="diagonal")
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "move", "pawn": "red-6/1", "moves": "I"})
    assert err.value.rule == "A2"
    with pytest.raises(GameActionError):
        g.apply({"type": "draw"})
    basic = Game.new(["red", "blue"], seed=1)
    with pytest.raises(GameActionError, match="all placed"):
        place(basic, "stone", "g7")


def test_a2_random_legal_placements_respect_every_rule():
    for seed in range(5):
        g, actions = random_placement(advanced(players=("red", "blue"), first="blue"), random.Random(seed))
        assert len(actions) == sum(PIECES.values()) and g.phase == "pawns"
        pos = g.position
        covered = list(pos.stones) + list(pos.pools) + list(pos.teleporters)
        assert len(covered) == len(set(covered)) == 11 + 8 + 4
        assert not set(covered) & CORNER_ZONE
        assert not any(around(s) & set(covered) & {parse_square("a1"), parse_square("p11")} for s in covered)
        tele = list(pos.teleporters)
        for a in tele:
            for b in tele:
                assert abs(a % 16 - b % 16) + abs(a // 16 - b // 16) != 1
        assert pos.status() == []
        assert g.first_player == "red"   # 17 placements from blue: blue placed last, red starts


# -- audit regressions ------------------------------------------------------------
def test_a2_teleporter_pair_must_be_a_whole_number_so_the_save_loads_again():
    g = advanced()
    for pair in (1.0, True, "1", [1]):
        with pytest.raises(InvalidSetupError, match="pair must be 1 or 2"):
            place(g, "teleporter", "g5", arrow="N", pair=pair)
    g = place(g, "teleporter", "g5", arrow="N", pair=1)
    assert Game.from_json(json.loads(json.dumps(g.to_json()))) == g


def test_a1_fifth_teleporter_says_all_four_are_placed():
    g = advanced()
    for sq in ("d4", "d8", "k4", "k8"):
        g = place(g, "teleporter", sq, arrow="N")
    with pytest.raises(GameActionError, match="All 4 teleporters are already placed") as err:
        place(g, "teleporter", "g6", arrow="N")
    assert err.value.rule == "A1"
    g = place(g, "pool-2x2", "f5")
    with pytest.raises(GameActionError, match=r"^The 2×2 pool is already placed"):
        place(g, "pool-2x2", "f8")


@pytest.mark.parametrize("piece", [{"a": 1}, ["stone"], 3, None])
def test_a2_piece_of_the_wrong_type_is_named_not_a_traceback(piece):
    with pytest.raises(InvalidSetupError, match="piece"):
        place(advanced(), piece, "g5")


def test_a2_pool_orientation_in_capitals_is_understood():
    g = place(advanced(), "pool-1x4", "f3", orientation="Vertical")
    assert {square_name(sq) for sq in g.position.pools} == {"f3", "f4", "f5", "f6"}


def test_a_saved_note_keeps_its_wording_data_and_an_older_saves_english_still_loads():
    g = advanced(first="blue").apply(full_placement()[0])
    saved = json.loads(json.dumps(g.to_json()))
    assert isinstance(saved["note"], dict) and Game.from_json(saved).note == g.note      # the same wording data
    older = Game.from_json({**saved, "note": str(g.note)})                                # a save of before: English
    assert older.note == str(g.note) and older.position == g.position
    with pytest.raises(InvalidSetupError) as err:
        Game.from_json({**saved, "note": {"no": "wording"}})
    assert "note" in str(err.value)
