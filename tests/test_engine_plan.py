"""The plan as typed values (engine/plan.py): its JSON form, read back exactly, and its one wording."""
import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidSetupError
from engine.monster import TILE_KINDS, resolve
from engine.plan import Enter, Plan, Push, Slide
from engine.position import GONE, WAITING, Position
from tests.engine_strategies import positions

# Plans written by the engine before the plan became typed values (commit c3933ea), chosen so that
# together they hold every event kind, every push result of stones and pawns, each look decision
# and each stop reason: the LEDs, the phones and outside tools read exactly this form.
GOLDEN = json.loads((Path(__file__).parent / "data" / "plans-flure-plan-1.json").read_text())


def _eaten_place(data: dict) -> str:
    places = {data["position"]["pawns"][lab].get("place", WAITING) for lab in data["eaten"]}
    return places.pop() if places else WAITING


@pytest.mark.parametrize("i", range(len(GOLDEN)))
def test_the_json_form_is_the_one_outside_readers_know(i):
    data = GOLDEN[i]
    position = Position.from_setup(data["before"], strict=False)
    plan = resolve(position, data["card"], eaten_place=_eaten_place(data))
    assert json.dumps(plan.to_json()) == json.dumps(data)      # same keys, same order, same words
    assert Plan.from_json(data) == plan and Plan.from_json(data).to_json() == data


def test_the_golden_plans_hold_every_event_kind_and_push_result():
    kinds = {(e["kind"], e.get("slide"), e.get("result"), e.get("piece", {}).get("type"))
             for p in GOLDEN for s in p["steps"] for e in s["events"]}
    assert {k[0] for k in kinds} == {"enter", "wrap", "teleport", "pivot", "eat", "push", "stop"}
    assert {(k[2], k[3]) for k in kinds if k[0] == "push"} >= {
        ("moved", "stone"), ("slid", "stone"), ("removed", "stone"), ("destroyed", "stone"),
        ("moved", "pawn"), ("slid", "pawn"), ("crushed", "pawn"), ("destroyed", "pawn")}
    assert {p["stop"]["reason"] for p in GOLDEN} == {"steps", "prey", "cap"}


@given(positions(), st.sampled_from(TILE_KINDS), st.sampled_from([WAITING, GONE]))
@settings(max_examples=300, deadline=None)
def test_from_json_reads_back_exactly_what_to_json_wrote(pos, tile, place):
    plan = resolve(pos, tile, eaten_place=place)
    data = json.loads(json.dumps(plan.to_json()))
    again = Plan.from_json(data)
    assert again == plan
    assert again.to_json() == data and again.lines() == plan.lines()


def _plan() -> dict:
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"}, "stones": {"c5": "stone"},
                               "pools": ["e5"], "pawns": {"red-3/4": {"at": "h5", "color": "red", "pawn": "3/4"}}})
    return resolve(pos, "5").to_json()


def _set(path, value):
    def change(d):
        *head, last = path
        for k in head:
            d = d[k]
        if value is KeyError:
            del d[last]
        else:
            d[last] = value
    return change


@pytest.mark.parametrize("change, where", [
    (_set(["format"], "flure-plan/2"), "format"),
    (_set(["steps", 1, "events", 0, "square"], "z9"), "steps[1].events[0].square"),
    (_set(["steps", 1, "events", 0, "square"], "C5"), "steps[1].events[0].square"),
    (_set(["steps", 1, "events", 1, "rule"], "M5"), "steps[1].events[1].rule"),
    (_set(["steps", 1, "events", 1, "piece", "kind"], "rock"), "steps[1].events[1].piece.kind"),
    (_set(["steps", 1, "events", 1, "to"], None), "steps[1].events[1].to"),
    (_set(["steps", 1, "events", 1, "path"], []), "steps[1].events[1].path"),
    (_set(["steps", 1, "events", 1, "path"], ["d5", 7]), "steps[1].events[1].path[1]"),
    (_set(["steps", 0, "events", 0, "kind"], "dance"), "steps[0].events[0].kind"),
    (_set(["steps", 0, "events", 0, "slide"], "no"), "steps[0].events[0].slide"),
    (_set(["steps", 2, "events"], {}), "steps[2].events"),
    (_set(["steps", 2, "look", "sightings", 0, "side"], "behind"), "steps[2].look.sightings[0].side"),
    (_set(["steps", 2, "look", "decision"], "maybe"), "steps[2].look.decision"),
    (_set(["steps", 2, "look", "rule"], "M4 tie"), "steps[2].look.rule"),
    (_set(["steps", 3, "facing"], "up"), "steps[3].facing"),
    (_set(["steps", 3, "number"], "4"), "steps[3].number"),
    (_set(["steps", 3], KeyError), "path"),
    (_set(["final_look", "new_facing"], None), "final_look.new_facing"),
    (_set(["stop", "reason"], "tired"), "stop.reason"),
    (_set(["before", "monster"], KeyError), "before.monster"),
    (_set(["position", "pawns", "red-3/4", "at"], "q1"), "position.pawns.red-3/4.at"),
    (_set(["end", "at"], "a1"), "end"),
    (_set(["eaten"], [3]), "eaten[0]"),
    (_set(["steps"], KeyError), "steps"),
])
def test_from_json_names_the_path_at_fault(change, where):
    data = _plan()
    Plan.from_json(copy.deepcopy(data))          # the unchanged plan reads
    change(data)
    with pytest.raises(InvalidSetupError) as err:
        Plan.from_json(data)
    assert err.value.field == where and str(err.value).startswith(f"{where}: ")


@pytest.mark.parametrize("data", [None, [], "plan", 7])
def test_from_json_refuses_what_is_not_an_object(data):
    with pytest.raises(InvalidSetupError, match="^plan: must be an object"):
        Plan.from_json(data)


def test_events_are_typed_values_with_their_rule():
    plan = Plan.from_json(_plan())
    first = plan.steps[0].events
    assert first == (Enter(plan.start.monster + 1),) and first[0].rule == "M2"
    push = plan.steps[2].events[1]
    assert type(push) is Push and push.stone == "stone" and push.result == "slid" and push.rule == "M6 B2"
    assert any(type(e) is Slide and e.rule == "M8" for s in plan.steps for e in s.events)


def test_lines_are_the_one_wording_of_steps_final_look_and_stop():
    pos = Position.from_setup({"monster": {"at": "a5", "facing": "E"},
                               "pawns": {"red-3/4": {"at": "e5", "color": "red", "pawn": "3/4"}}})
    plan = resolve(pos, "5")
    lines = plan.lines()
    assert len(lines) == len(plan.steps) + 2
    assert lines[0] == str(plan.steps[0].words) and lines[0].startswith("Step 1: from a5 facing E it sees red 3/4 on e5")
    assert "eats red 3/4 on e5 (M5)" in lines[3]
    assert lines[-2].startswith("Final look: from ") and lines[-2].endswith(".")
    assert lines[-1] == "The move ends: all steps taken (M1); eaten: red 3/4."
    prey = resolve(pos, "prey-1")
    assert prey.lines()[-1] == "The move ends: enough prey eaten (M1); eaten: red 3/4."
    alone = resolve(Position.from_setup({"monster": {"at": "a5", "facing": "E"}}), "prey-2")
    assert alone.lines()[-1] == "The move ends: 20-step cap reached (M1); eaten: nobody."


def test_a_stone_sliding_onto_a_corner_pool_square_is_removed_with_b2_cited():
    """Issue 10 item 7: the corner square a1 is itself a pool square; the stone is removed there."""
    pos = Position.from_setup({"monster": {"at": "a4", "facing": "N"}, "stones": {"a3": "stone"},
                               "pools": ["a2", "a1"]})
    plan = resolve(pos, steps=1)
    push = plan.steps[0].events[1]
    assert type(push) is Push and push.result == "removed" and push.to is None and push.rule == "M6 B2"
    assert str(push.words()) == "pushes the stone from a3; it slides across the pool onto the corner a1: removed (B2)"
    assert dict(plan.result.stones) == {} and Plan.from_json(plan.to_json()) == plan
