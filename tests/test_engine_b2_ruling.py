"""RULES.md B2 ⚖: a pawn the monster pushes onto a pool slides by the pawn rules (P8): a stone in its way, on a
later pool square or on the first square beyond the pool, is pushed on as in P7 and the pawn goes on; a stone
that cannot move stops it.  A pushed stone still stops before any piece.  (The scenario files
tests/scenarios/b2-pushed-*.json pin the boards; this file pins the plan's events, JSON and words.)
"""
import pytest

from companion_app.i18n.text import render
from companion_app.share import step_boards
from engine.errors import InvalidSetupError
from engine.geometry import parse_square as sq
from engine.monster import resolve
from engine.plan import Enter, Plan, Push
from engine.position import Position

# The ruling's example: pool i3–j4, the monster on f4 facing E, a stone on g4, red 6/1 on h4, a stone on k4.
EXAMPLE = {"monster": {"at": "f4", "facing": "E"}, "stones": {"g4": "stone", "k4": "stone"},
           "pools": ["i3", "j3", "i4", "j4"],
           "pawns": {"red-6/1": {"at": "h4", "color": "red", "pawn": "6/1", "face": "white"}}}


def example_plan(**changes) -> Plan:
    return resolve(Position.from_setup({**EXAMPLE, **changes}), steps=1)


def test_the_pushed_pawn_pushes_the_stone_beyond_the_pool_and_ends_there():
    plan = example_plan()
    assert plan.steps[0].events == (
        Enter(sq("g4")),
        Push(sq("k4"), "moved", sq("l4"), (sq("l4"),), None, "stone", None, by="red-6/1"),
        Push(sq("h4"), "slid", sq("k4"), (sq("i4"), sq("j4"), sq("k4")), None, None, "red-6/1"),
        Push(sq("g4"), "moved", sq("h4"), (sq("h4"),), None, "stone", None),
    )
    assert plan.steps[0].events[1].rule == "B2 P7"
    assert dict(plan.result.stones) == {sq("h4"): "stone", sq("l4"): "stone"}
    assert plan.result.pawn("red-6/1").square == sq("k4")


def test_a_stone_that_cannot_move_stops_the_pushed_pawn_on_the_last_pool_square():
    plan = example_plan(stones={"g4": "stone", "k4": "stone", "l4": "crystal"})
    assert not any(getattr(e, "by", None) for e in plan.steps[0].events)
    assert plan.result.pawn("red-6/1").square == sq("j4")
    assert dict(plan.result.stones) == {sq("h4"): "stone", sq("k4"): "stone", sq("l4"): "crystal"}


def test_a_stone_on_a_later_pool_square_is_pushed_on_and_the_pawn_slides_after_it():
    plan = example_plan(stones={"g4": "stone", "j4": "pivot-right"})
    pushed_on = [e for e in plan.steps[0].events if isinstance(e, Push) and e.by]
    # j4 → k4 (off the pool), then the pawn, on j4, meets it again on k4 and pushes it to l4 (P8's reading)
    assert [(e.start, e.to) for e in pushed_on] == [(sq("j4"), sq("k4")), (sq("k4"), sq("l4"))]
    assert plan.result.pawn("red-6/1").square == sq("k4")
    assert dict(plan.result.stones) == {sq("h4"): "stone", sq("l4"): "pivot-right"}


def test_a_pushed_stone_still_stops_before_a_stone():
    plan = resolve(Position.from_setup({**EXAMPLE, "pawns": {}, "stones": {"g4": "stone", "h4": "crystal",
                                                                              "k4": "stone"}}), steps=1)
    assert dict(plan.result.stones) == {sq("h4"): "stone", sq("j4"): "crystal", sq("k4"): "stone"}


def test_the_plan_json_names_the_pawn_that_pushed_the_stone_and_reads_back():
    plan = example_plan()
    event = plan.to_json()["steps"][0]["events"][1]
    assert event["by"] == "red-6/1" and event["rule"] == "B2 P7" and event["from"] == "k4" and event["to"] == "l4"
    assert event["text"] == "red 6/1, sliding across the pool, pushes the stone from k4 to l4 (B2, P7)"
    assert Plan.from_json(plan.to_json()) == plan


def test_a_plan_whose_pawn_push_names_a_pusher_is_refused_naming_the_path():
    data = example_plan().to_json()
    data["steps"][0]["events"][2]["by"] = "red-6/1"   # the pawn's own push
    with pytest.raises(InvalidSetupError) as err:
        Plan.from_json(data)
    assert "steps[0].events[2].by" in str(err.value)


def test_the_move_picture_ends_on_the_plan_result():
    plan = example_plan()
    last = step_boards(plan)[-1]
    assert last.stones == dict(plan.result.stones)
    assert last.pawns == {"red-6/1": sq("k4")}


@pytest.mark.parametrize("lang, words", [
    ("en", "red 6/1, sliding across the pool, pushes the stone from k4 to l4 (B2, P7)"),
    ("fr", "le pion rouge 6/1, en glissant sur la flaque de sang, pousse la pierre de k4 en l4 (B2, P7)"),
    ("de", "Rot 6/1 schiebt beim Rutschen über die Blutlache den Stein von k4 auf l4 (B2, P7)"),
    ("es", "la ficha roja 6/1, al deslizarse por el charco de sangre, empuja la piedra de k4 a l4 (B2, P7)"),
])
def test_the_step_log_of_the_example_reads_right_in_four_languages(lang, words):
    line = render(example_plan().steps[0].words, lang)
    assert words in line
    if lang != "en":
        assert "sliding" not in line and "pushes" not in line
