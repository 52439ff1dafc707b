"""Monster move properties (M1–M11, T2–T3, B2) on random free positions."""
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidSetupError
from engine.monster import TILE_KINDS, resolve
from engine.plan import Eat, Enter, Pivot, Push, Stop, Teleport
from engine.position import BOARD, GONE, Position
from tests.engine_strategies import positions

tiles = st.sampled_from(TILE_KINDS)


@given(positions(), tiles)
@settings(max_examples=300, deadline=None)
def test_pieces_are_conserved_except_by_the_rules_that_remove_them(pos, tile):
    plan = resolve(pos, tile)
    events = [e for s in plan.steps for e in s.events]
    removed_stones = Counter(e.stone for e in events if type(e) is Push and e.stone and e.to is None)
    before, after = Counter(pos.stones.values()), Counter(plan.result.stones.values())
    assert before - after == removed_stones and after - before == Counter()
    eaten_by_events = [e.pawn for e in events if type(e) is Eat] + \
        [e.pawn for e in events if type(e) is Push and e.eaten]
    assert sorted(eaten_by_events) == sorted(plan.eaten)
    on_before = {p.label for p in pos.pawns if p.place == BOARD}
    on_after = {p.label for p in plan.result.pawns if p.place == BOARD}
    assert on_after == on_before - set(plan.eaten)
    assert set(plan.eaten) <= on_before and len(set(plan.eaten)) == len(plan.eaten)
    assert plan.result.pools == pos.pools and plan.result.teleporters == pos.teleporters  # B1
    # nothing ends on a teleporter, no two pieces share a square, the monster is never on a pool (M8)
    codes = {p["code"] for p in plan.result.status()} - {p["code"] for p in pos.status()}
    assert not codes & {"two-pieces", "on-teleporter"}
    assert plan.result.monster not in pos.pools or pos.monster in pos.pools and not plan.steps


@given(positions(), tiles)
@settings(max_examples=300, deadline=None)
def test_each_step_is_one_look_and_one_move(pos, tile):
    plan = resolve(pos, tile)
    at = pos.monster
    for step in plan.steps:
        assert step.start == at and step.look.at == at
        kinds = [type(e) for e in step.events]
        assert Enter in kinds, "M11: every step moves the monster"
        assert kinds.count(Enter) == 1, "exactly one step onto a new square, the rest slides"
        assert kinds.count(Teleport) <= 1
        assert kinds.count(Pivot) <= 4
        at = step.end
    assert plan.result.monster == at and plan.final_look.at == at
    steps, prey = (None, int(tile[-1])) if tile.startswith("prey") else (int(tile), None)
    if steps:
        assert len(plan.steps) == steps
    else:
        assert len(plan.steps) <= 20
        assert len(plan.eaten) >= prey or len(plan.steps) == 20
        assert all(len(set(plan.eaten[:0])) == 0 for _ in [0])
        # it stops at the first step where enough prey were eaten
        count = 0
        for i, s in enumerate(plan.steps):
            count += len(s.eaten)
            if count >= prey:
                assert i == len(plan.steps) - 1


@given(positions(), tiles)
@settings(max_examples=150, deadline=None)
def test_resolving_is_deterministic_and_json_safe(pos, tile):
    a, b = resolve(pos, tile), resolve(pos, tile)
    assert a.to_json() == b.to_json()
    text = json.dumps(a.to_json())
    again = json.loads(text)
    assert Position.from_setup(again["position"], strict=False) == a.result
    assert again["path"] == [s["to"] for s in again["steps"]]


def test_round_two_eaten_pawns_are_gone():
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"}, "pawns": {"A": {"at": "b5"}}})
    plan = resolve(pos, "prey-1", eaten_place=GONE)
    assert plan.eaten == ("A",) and plan.result.pawn("A").place == GONE
    assert resolve(pos, "prey-1").result.pawn("A").place == "waiting"


def test_prey3_variant_makes_the_five_tile_three_prey():
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"}})
    assert len(resolve(pos, "5", prey3_variant=True).steps) == 20
    assert len(resolve(pos, "5").steps) == 5


@pytest.mark.parametrize("tile", ["4", "prey-4", "", None])
def test_unknown_tiles_are_refused(tile):
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"}})
    with pytest.raises(InvalidSetupError):
        resolve(pos, tile)


def test_step_text_names_squares_pawns_and_rules():
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"},
                               "pawns": {"red-3/4": {"at": "e5", "color": "red", "pawn": "3/4"}}})
    plan = resolve(pos, "5")
    assert "red 3/4 on e5" in str(plan.steps[0].words) and "(M4 nearest" in str(plan.steps[0].words)
    assert "eats red 3/4 on e5 (M5)" in str(plan.steps[3].words)


def test_a_lone_teleporter_does_not_crash_a_free_position():
    """A misread board may show one tile of a pair: status() reports it, resolve still answers."""
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"},
                               "teleporters": {"c5": {"pair": 1, "arrow": "S"}}}, strict=False)
    assert any(p["code"] == "teleporter-pair" for p in pos.status())
    plan = resolve(pos, "5")
    assert plan.path[:3] == ["b5", "c5", "d5"]


def test_a_slide_round_the_board_through_the_walls_stops_instead_of_hanging():
    """M8/M7: the middle row wraps onto itself; pools on all of it would make the slide endless."""
    row = [c + "6" for c in "abcdefghijklmnop"]
    pos = Position.from_setup({"monster": {"at": "a6", "facing": "E"}, "pools": row,
                               "pawns": {"A": {"at": "h6"}}})
    plan = resolve(pos, "8")
    first = plan.steps[0]
    assert plan.eaten == ("A",)  # eaten on the way round (M5), then the board no longer changes
    assert type(first.events[-1]) is Stop and first.events[-1].rule == "M8"
    assert len(plan.steps) == 8


def test_a_board_with_two_pieces_on_one_square_is_refused_with_the_square_named():
    """A referee's correction gone wrong (two pawns on k5) is refused in words, never a KeyError."""
    from engine.errors import InvalidSetupError
    from engine.position import Position

    setup = {"monster": {"at": "a5", "facing": "E"}, "stones": {"g5": "stone"},
             "pawns": {"A": {"at": "k5"}, "B": {"at": "k5"}}}
    pos = Position.from_setup(setup, strict=False)
    with pytest.raises(InvalidSetupError, match="k5"):
        resolve(pos, "5")
    setup["pawns"] = {"A": {"at": "g5"}}
    with pytest.raises(InvalidSetupError, match="g5"):
        resolve(Position.from_setup(setup, strict=False), "5")
