"""Pawn moves: the reachable set equals brute force; explain finds the moves behind a change."""
import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalMoveError, InvalidSetupError
from engine.geometry import parse_square, square_name
from engine.pawns import apply_moves, explain, reachable
from engine.position import BOARD, Position
from tests.engine_strategies import positions


def brute_force(pos, label, points):
    ends = {}
    for n in range(points + 1):
        for moves in itertools.product("NESWIX", repeat=n):
            moves = "".join(moves)
            try:
                after = apply_moves(pos, label, moves, points)
            except IllegalMoveError:
                continue
            p = after.pawn(label)
            if p.place == BOARD:
                ends.setdefault(square_name(p.square), moves)
            elif p.place == "out":
                ends.setdefault("out", moves)
    return ends


@given(positions(max_pawns=5), st.integers(0, 3), st.data())
@settings(max_examples=120, deadline=None)
def test_reachable_equals_brute_force(pos, points, data):
    if not pos.pawns:
        return
    label = data.draw(st.sampled_from([p.label for p in pos.pawns]))
    if pos.pawn(label).place != BOARD and pos.pawn(label).place != "waiting":
        return
    found = reachable(pos, label, points)
    assert set(found) == set(brute_force(pos, label, points))
    for target, moves in found.items():  # each listed move string really gets there
        p = apply_moves(pos, label, moves, points).pawn(label)
        assert (square_name(p.square) if p.place == BOARD else "out") == target


@given(positions(max_pawns=5), st.data())
@settings(max_examples=80, deadline=None)
def test_explain_recovers_a_played_move(pos, data):
    if not pos.pawns:
        return
    label = data.draw(st.sampled_from([p.label for p in pos.pawns]))
    options = reachable(pos, label, 3)
    if not options:
        return
    target = data.draw(st.sampled_from(sorted(options)))
    after = apply_moves(pos, label, options[target], 3)
    found = explain(pos, label, target, after=after, points=3)
    assert found and all(apply_moves(pos, label, m, 3) == after for m in found)


BASE = {"monster": {"at": "a1", "facing": "E"}, "stones": {"j6": "stone", "j8": "stone", "i8": "stone"},
        "pools": ["g5", "h5", "g6", "h6"], "teleporters": {"l8": {"pair": 1, "arrow": "N"}, "c3": {"pair": 1, "arrow": "S"}},
        "pawns": {"one": {"at": "f5", "pawn": "6/1"}, "five": {"at": "k7", "pawn": "2/5"},
                  "out": {"at": None, "pawn": "4/3"}}}


@pytest.mark.parametrize("label,moves,rule,index", [
    ("five", "NNWWW", "P4", 4),      # the slide ends on pawn one with no point left
    ("five", "SWW", "P7", 1),        # j8 would be pushed into the stone on i8
    ("five", "E", None, None),
    ("five", "SE", "T1", 1),         # l8 is a teleporter
    ("five", "NNNNNN", "P1", 5),     # six moves with five points
    ("out", "N", "P2", 0),           # must enter first
    ("out", "IW", None, None),
    ("five", "X", "P3", 0),
])
def test_unit_move_rules(label, moves, rule, index):
    pos = Position.from_setup(BASE)
    if rule is None:
        apply_moves(pos, label, moves)
        return
    with pytest.raises(IllegalMoveError) as exc:
        apply_moves(pos, label, moves)
    assert exc.value.rule == rule and exc.value.index == index
    assert f"({rule})" in str(exc.value)


@pytest.mark.parametrize("label,moves,points,also", [
    ("five", "NNWWW", None, "P8"),   # ends on a pawn at the end of a slide: P4, and P8 says why
    ("five", "SE", None, "P6"),      # a teleporter is a wall for pawns: T1 by way of P6
    ("out", "I", 0, "P2"),           # entering costs a point (none left)
])
def test_reasons_also_cite_the_rule_behind_the_case(label, moves, points, also):
    with pytest.raises(IllegalMoveError) as exc:
        apply_moves(Position.from_setup(BASE), label, moves, points)
    assert also in str(exc.value)


def test_unknown_move_letter_is_bad_input_not_illegal():
    with pytest.raises(InvalidSetupError):
        apply_moves(Position.from_setup(BASE), "five", "NQ")


def test_monster_blocks_pawns_and_entering():
    pos = Position.from_setup({"monster": {"at": "p11", "facing": "N"}, "pawns": {"A": {"at": None, "pawn": "6/1"}}})
    with pytest.raises(IllegalMoveError) as exc:
        apply_moves(pos, "A", "I", 1)
    assert exc.value.rule == "P5"


def test_leaving_needs_a_point_on_a1():
    pos = Position.from_setup({"monster": {"at": "p11", "facing": "N"}, "pawns": {"A": {"at": "b1", "pawn": "4/3"}}})
    assert reachable(pos, "A", 2)["out"] == "WX"
    assert "out" not in reachable(pos, "A", 1)
    assert apply_moves(pos, "A", "WX", 2).pawn("A").place == "out"


def test_explain_says_none_when_no_legal_move_does_it():
    pos = Position.from_setup(BASE)
    assert explain(pos, "five", "e11", points=5) == []
    assert explain(pos, "out", None) == [""]


def test_explain_change_finds_the_pawn_and_its_moves():
    from engine.pawns import explain_change
    before = Position.from_setup(BASE)
    after = apply_moves(before, "five", "NWW")
    label, moves, message = explain_change(before, after)
    assert label == "five" and "NWW" in moves and "k7" in message and "i6" in message
    assert explain_change(before, before)[2] == "nothing moved"
    teleported = before.with_pawn(replace(before.pawn("five"), square=parse_square("e11")))
    label, moves, message = explain_change(before, teleported)
    assert label == "five" and moves == [] and "no legal move" in message


@pytest.mark.parametrize("place,rule", [("gone", "G9"), ("out", "P3")])
def test_a_pawn_off_the_game_or_out_has_no_move(place, rule):
    pos = Position.from_setup({"monster": {"at": "a1", "facing": "E"},
                               "pawns": {"A": {"at": None, "place": place, "pawn": "6/1"}}})
    assert reachable(pos, "A") == {}
    assert apply_moves(pos, "A", "").pawn("A").place == place  # staying does not change where it is
    with pytest.raises(IllegalMoveError) as err:
        apply_moves(pos, "A", "I")
    assert err.value.rule == rule
