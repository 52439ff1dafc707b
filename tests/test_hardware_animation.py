"""A monster plan becomes beats and frames that show exactly the plan (never re-derived)."""
import pytest

from engine.geometry import neighbour, parse_direction, parse_square
from hardware.animation import (
    BORDER,
    EAT_OFF,
    EAT_ON,
    EFFECTS,
    HEADING,
    MONSTER,
    PLAYER_COLOURS,
    ErrorShow,
    IdleShow,
    PlanError,
    PlanShow,
    plan_beats,
)
from hardware.config import AnimationConfig
from tests.hardware_helpers import ADVANCED_SETUP, BASIC_SETUP, plan

CFG = AnimationConfig(fps=30, beat_ms=100, hold_s=1.0)


def colour(frame, name):
    return tuple(int(v) for v in frame[parse_square(name)])


def test_every_step_ends_where_the_plan_says():
    p = plan(ADVANCED_SETUP, "8")
    beats = plan_beats(p)
    for step in p["steps"]:
        last = [b for b in beats if b.step == step["number"] and b.kind != "end"][-1]
        assert last.monster == parse_square(step["to"]), step["text"]
        assert last.facing == parse_direction(step["facing"])
    assert beats[-1].kind == "end" and beats[-1].monster == parse_square(p["end"]["at"])


def test_monster_and_heading_are_drawn_at_each_beat():
    show = PlanShow(plan(ADVANCED_SETUP, "8"), CFG)
    for i, beat in enumerate(show.beats[:-1]):
        frame = show.frame_at(i * show.beat_s + 0.01)
        if beat.kind == "eat":
            continue  # the monster flashes while it eats (next test)
        assert tuple(frame[beat.monster]) == MONSTER
        ahead = neighbour(beat.monster, beat.facing)
        if ahead is not None and not beat.marks and ahead not in beat.eaten:
            assert frame[ahead][0] >= HEADING[0] and frame[ahead][1] >= HEADING[1]


def test_teleport_pivot_and_push_are_visible_in_their_beat():
    show = PlanShow(plan(ADVANCED_SETUP, "8"), CFG)
    kinds = {b.kind: (i, b) for i, b in reversed(list(enumerate(show.beats)))}  # first beat of each kind
    i, beat = kinds["teleport"]
    frame = show.frame_at(i * show.beat_s + 0.01)
    assert colour(frame, "j5") == EFFECTS["teleport"]  # the square it jumped from (step 3: j5 → o7)
    assert colour(frame, "o7") == MONSTER               # where it landed
    i, beat = kinds["pivot"]
    assert colour(show.frame_at(i * show.beat_s + 0.01), "m7") == EFFECTS["pivot"]
    i, beat = kinds["push"]
    assert colour(show.frame_at(i * show.beat_s + 0.01), "m5") == EFFECTS["push"]  # C pushed l5 → m5


def test_eaten_square_flashes_then_stays_lit():
    show = PlanShow(plan(ADVANCED_SETUP, "8"), CFG)
    i = next(i for i, b in enumerate(show.beats) if b.kind == "eat")
    assert show.beats[i].monster == parse_square("n7")  # D is eaten on n7 at step 4
    t0 = i * show.beat_s
    half = 1 / (2 * 4.0)  # half a 4 Hz flash
    seen = [colour(show.frame_at(t0 + 0.001 + k * half), "n7") for k in range(2)]
    assert seen == [EAT_ON, MONSTER]  # the monster itself flashes while it eats
    j = next(j for j, b in enumerate(show.beats) if j > i and b.monster != parse_square("n7"))
    t1 = j * show.beat_s
    seen = {colour(show.frame_at(t1 + 0.001 + k * half), "n7") for k in range(2)}
    assert seen == {EAT_ON, EAT_OFF}
    assert colour(show.frame_at(show.duration + 1), "n7") == EAT_ON  # settled: steady


def test_trail_fades_with_the_step_number():
    p = plan(ADVANCED_SETUP, "8")
    show = PlanShow(p, CFG)
    final = show.frame_at(show.duration)
    # j7 was entered at step 1, l5 at step 7: the older trail square is dimmer
    assert sum(colour(final, "j7")) < sum(colour(final, "l5"))
    assert sum(colour(final, "j7")) > sum(colour(final, "a1"))  # but still above the board


def test_wrap_and_slide_in_the_basic_example():
    p = plan(BASIC_SETUP, steps=20)
    beats = plan_beats(p)
    wraps = [b for b in beats if b.kind == "wrap"]
    slides = [m for b in beats for m in b.marks if m[1] == "slide"]
    assert wraps and slides
    events = [e for s in p["steps"] for e in s["events"] if e["kind"] == "wrap"]
    assert {m[0] for m in wraps[0].marks} == {parse_square(events[0]["from"]), parse_square(events[0]["to"])}


def test_a_pawn_crushed_by_a_push_flashes_like_an_eaten_one():
    # M6: the monster pushes n6, o6 east; the pawn on p6 is crushed against the wall
    p = plan({"monster": {"at": "m6", "facing": "E"}, "stones": {"n6": "stone", "o6": "stone"},
              "pawns": {"A": {"at": "p6"}}}, tile=None, steps=1)
    assert p["eaten"] == ["A"] and not any(e["kind"] == "eat" for e in p["steps"][0]["events"])
    show = PlanShow(p, CFG)
    assert show.beats[-1].eaten == (parse_square("p6"),)
    assert colour(show.frame_at(show.duration), "p6") == EAT_ON
    i = next(i for i, b in enumerate(show.beats) if b.eaten)
    half = 1 / (2 * 4.0)
    seen = {colour(show.frame_at(i * show.beat_s + 0.001 + k * half), "p6") for k in range(2)}
    assert seen == {EAT_ON, EAT_OFF}


def test_a_plan_ending_on_a1_ends_on_a1():
    # square a1 is number 0: it must not read as "no square"
    p = plan({"monster": {"at": "b1", "facing": "W"}, "pawns": {"A": {"at": "a4"}}}, tile=None, steps=1)
    end = plan_beats(p)[-1]
    assert (end.monster, end.facing) == (parse_square("a1"), parse_direction("S"))


@pytest.mark.parametrize("change, message", [
    (lambda p: p["steps"][2]["events"][0].update(square="z99"),
     r"the plan is unusable: steps\[2\]\.events\[0\]\.square: 'z99' is not a square name"),
    (lambda p: p["steps"][3]["events"].insert(0, "oops"), r"steps\[3\]\.events\[0\]: must be an object"),
    (lambda p: p["steps"][0].pop("number"), r"steps\[0\]\.number: missing"),
    (lambda p: p["steps"][1].update(number="two"), r"steps\[1\]\.number: must be a whole number"),
    (lambda p: p["steps"][4]["look"].update(new_facing="up"), r"steps\[4\]\.look\.new_facing: must be N, E, S or W"),
    (lambda p: p.update(steps="many"), "steps: must be a list"),
    (lambda p: p["end"].update(facing="X"), "end: must be .* to fit the rest of the plan"),
    (lambda p: p["end"].update(at="p1"), "end: must be .* to fit the rest of the plan"),
    (lambda p: p.pop("start"), "start: missing"),
    (lambda p: p["before"].update(monster="h6"), r"before\.monster: required"),
])
def test_unusable_plans_are_refused_naming_the_step_event_and_field(change, message):
    p = plan(ADVANCED_SETUP, "8")
    change(p)
    with pytest.raises(PlanError, match=message):
        PlanShow(p, CFG)


def test_odd_setups_only_lose_what_cannot_be_drawn():
    with pytest.raises(PlanError, match="plan: must be an object"):
        plan_beats(["a list"])
    frame = IdleShow("red", {"monster": "h6", "pools": 5}).frame_at(0)
    assert tuple(frame[parse_square("h6")]) != MONSTER and frame.any()


def test_idle_shows_first_player_colour_on_the_border_and_the_monster():
    show = IdleShow("green", {"monster": {"at": "a1", "facing": "E"}})
    frame = show.frame_at(show.period_s / 2)  # brightest moment of the breathing
    border = frame[parse_square("p6")].astype(int)
    assert border[1] > border[0] and border[1] > border[2]  # green
    assert tuple(frame[parse_square("a1")]) == MONSTER
    assert tuple(frame[parse_square("b1")]) == HEADING
    assert parse_square("h6") not in BORDER and tuple(frame[parse_square("h6")]) != tuple(frame[parse_square("p6")])
    assert "green" in PLAYER_COLOURS


def test_error_blinks():
    show = ErrorShow()
    assert show.frame_at(0.1).any() and not show.frame_at(0.6).any()


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from engine.monster import resolve  # noqa: E402
from tests.engine_strategies import positions  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(position=positions(), steps=st.integers(1, 20), t=st.floats(0, 1))
def test_any_plan_is_drawn_as_the_plan_says(position, steps, t):
    p = resolve(position, steps=steps).to_json()
    beats = plan_beats(p)
    by_step = {}
    for b in beats[:-1]:
        by_step[b.step] = b
    for step in p["steps"]:
        assert by_step[step["number"]].monster == parse_square(step["to"])
        assert by_step[step["number"]].facing == parse_direction(step["facing"])
    eats = [parse_square(e["square"] if e["kind"] == "eat" else e["from"])
            for s in p["steps"] for e in s["events"] if e["kind"] == "eat" or e.get("eaten")]
    assert list(beats[-1].eaten) == eats and len(eats) == len(p["eaten"])  # eaten and crushed alike
    show = PlanShow(p, CFG)
    frame = show.frame_at(t * show.duration)
    beat = show.beat_at(t * show.duration)
    assert frame.shape == (16 * 11, 3)
    if beat.kind != "eat":
        assert tuple(frame[beat.monster]) == MONSTER


@pytest.mark.parametrize("seconds_each", [0.15, 0.05, 0.1, 0.2, 0.01, 0.07, 1 / 3, 2.5])
def test_the_wiring_test_lights_every_square_once_in_order(seconds_each):
    """Frame i lights square i, at any --seconds-each (at 0.15 s the time-based square index skipped
    g3, d5, i5, i8, n8, e9 and j9); frames as the player asks for them, by number and by time."""
    import numpy as np

    from engine.geometry import SQUARES
    from hardware.animation import SquaresShow

    show = SquaresShow(seconds_each=seconds_each)
    assert show.frame_count() == len(SQUARES) and show.fps * seconds_each == pytest.approx(1)
    for frames in ([show.frame(i) for i in range(show.frame_count())],
                   [show.frame_at(show.frame_time(i)) for i in range(show.frame_count())]):
        lit = [np.flatnonzero(f.sum(axis=1) > 150).tolist() for f in frames]
        assert lit == [[sq] for sq in SQUARES]
