"""Seeded random games played to their end, checking the invariants after every action;
replaying an action list gives an equal game; the JSON form round-trips."""
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InvalidSetupError
from engine.game import Game
from tests.game_helpers import COLOURS_BY_COUNT, check_invariants, play_out, random_placement


def start(n: int, seed: int, setup: str = "basic", variant: bool = False) -> tuple[Game, random.Random, list]:
    colours = COLOURS_BY_COUNT[n]
    rng = random.Random(seed)
    game = Game.new(colours, first_player=colours[seed % n], setup=setup, prey3_variant=variant, seed=seed)
    actions = []
    if setup == "advanced":
        game, actions = random_placement(game, rng)
    return game, rng, actions


CASES = [(n, seed, setup, n >= 6 and seed % 2 == 1)
         for n in range(2, 8) for seed in (1, 2, 3, 4) for setup in ("basic", "advanced")]


@pytest.mark.parametrize("n,seed,setup,variant", CASES)
def test_random_game_to_the_end_keeps_every_invariant(n, seed, setup, variant):
    game, rng, _ = start(n, seed, setup, variant)
    end, actions = play_out(game, rng, check_invariants)
    assert end.phase == "over" and end.winner is not None
    assert end.end_rule in ("G2", "G10")
    if end.end_rule == "G10":
        assert end.round == 2


def test_the_random_games_reach_every_ending():
    """The play-outs above are worth something only if they cover wins by G2, G10 and the monster."""
    endings = set()
    for n, seed, setup, variant in CASES:
        game, rng, _ = start(n, seed, setup, variant)
        end, _ = play_out(game, rng)
        endings.add(end.end_rule if end.winner != "monster" else "monster")
    assert endings == {"G2", "G10", "monster"}


def replay(n, seed, setup, variant, actions):
    colours = COLOURS_BY_COUNT[n]
    game = Game.new(colours, first_player=colours[seed % n], setup=setup, prey3_variant=variant, seed=seed)
    for action in actions:
        game = game.apply(json.loads(json.dumps(action)))
    return game


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 7), seed=st.integers(0, 2**32), setup=st.sampled_from(["basic", "advanced"]),
       policy=st.integers(0, 1000), stop=st.integers(1, 400))
def test_replaying_the_same_actions_gives_an_equal_game(n, seed, setup, policy, stop):
    variant = n >= 6 and policy % 2 == 0
    game, _, placements = start(n, seed, setup, variant)
    game, actions = play_out(game, random.Random(policy), max_actions=stop)
    again = replay(n, seed, setup, variant, placements + actions)
    assert again == game
    assert again.to_json() == game.to_json()
    assert Game.from_json(json.loads(json.dumps(game.to_json()))) == game


def test_same_seed_same_deck_other_seed_other_deals():
    a, _, _ = start(4, 10)
    b, _, _ = start(4, 10)
    assert a == b
    decks = {start(4, s)[0].deck for s in range(10)}
    assert len(decks) > 5


def test_json_is_plain_and_round_trips_mid_game():
    game, rng, _ = start(3, 5, "advanced")
    game, _ = play_out(game, rng, max_actions=40)
    data = game.to_json()
    text = json.dumps(data)
    assert json.loads(text) == data
    back = Game.from_json(json.loads(text))
    assert game.phase == "pawns"
    assert back == game and back.summary() == game.summary()
    assert back.targets(back.unmoved[0]) == game.targets(game.unmoved[0])


@pytest.mark.parametrize("bad,field", [({}, "format"), ({"format": "flure-game/1"}, "players"),
                                       ("nonsense", "format")])
def test_from_json_rejects_what_is_not_a_saved_game(bad, field):
    with pytest.raises(InvalidSetupError, match=field):
        Game.from_json(bad)


def test_from_json_names_a_bad_position_field():
    game, _, _ = start(2, 1)
    data = game.to_json()
    data["position"]["pawns"]["red-6/1"]["at"] = "z99"
    with pytest.raises(InvalidSetupError, match="position.pawns.red-6/1.at"):
        Game.from_json(data)


@pytest.mark.parametrize("key,value", [("phase", "lunch"), ("round", 3), ("deck", ["8"]), ("to_move", "pink"),
                                       ("unmoved", ["red-9/9"]), ("out_log", ["red"]), ("first_player", "green")])
def test_from_json_rejects_a_save_that_contradicts_itself(key, value):
    game, _, _ = start(2, 1)
    data = game.to_json()
    data[key] = value
    with pytest.raises(InvalidSetupError, match=key):
        Game.from_json(data)


# -- audit regressions ------------------------------------------------------------
@pytest.mark.parametrize("key,value,field", [
    ("prey3_variant", "false", "prey3_variant"), ("prey3_variant", 1, "prey3_variant"),
    ("prey3_variant", True, "prey3_variant"),            # G11 is for 6 or 7 players only
    ("seed", "12", "seed"), ("seed", 1.5, "seed"), ("round", True, "round"), ("turn", 1.7, "turn"),
    ("players", "red", "players"), ("players", ["red"], "players"), ("players", ["blue", "red"], "position.pawns"),
    ("players", ["red", "blue", "green"], "position.pawns"),
    ("to_move", None, "to_move"), ("to_move", "green", "to_move"), ("unmoved", ["red-6/1", "red-6/1"], "unmoved"),
    ("unmoved", [], "unmoved"), ("phase", "monster", "unmoved"), ("phase", "over", "unmoved"),
    ("placer", "red", "placer"), ("pieces_left", {"stone": "x"}, "pieces_left"), ("pieces_left", [1], "pieces_left"),
    ("winner", "red", "winner"), ("end_rule", "G99", "end_rule"), ("note", 5, "note"),
    ("deck", "abc", "deck"), ("tiles_played", None, "tiles_played"), ("out_log", None, "out_log"),
    ("last", "x", "last"), ("last", {"tile": "8"}, "last.before"),
])
def test_from_json_refuses_a_corrupted_save_naming_the_field(key, value, field):
    game, _, _ = start(2, 1)
    data = json.loads(json.dumps(game.to_json()))
    data[key] = value
    with pytest.raises(InvalidSetupError) as err:
        Game.from_json(data)
    assert err.value.field == field


def test_from_json_refuses_pawns_that_are_not_the_players_sets():
    game, _, _ = start(2, 1)
    for change in (lambda p: p["red-6/1"].update(color="green"), lambda p: p["red-6/1"].update(pawn="4/3"),
                   lambda p: p.pop("red-6/1")):
        data = json.loads(json.dumps(game.to_json()))
        change(data["position"]["pawns"])
        with pytest.raises(InvalidSetupError) as err:
            Game.from_json(data)
        assert err.value.field == "position.pawns"


def test_from_json_refuses_a_last_move_with_an_unknown_tile():
    game, rng, _ = start(2, 1)
    game, _ = play_out(game, rng, max_actions=12)
    assert game.last_tile is not None
    data = json.loads(json.dumps(game.to_json()))
    data["last"]["tile"] = "banana"
    with pytest.raises(InvalidSetupError) as err:
        Game.from_json(data)
    assert err.value.field == "last.tile"


@pytest.mark.parametrize("n,seed,setup", [(3, 2, "advanced"), (6, 3, "basic")])
def test_json_round_trip_mid_placement_and_after_game_over(n, seed, setup):
    game, rng, _ = start(n, seed, setup)
    if setup == "advanced":
        colours = COLOURS_BY_COUNT[n]
        game = Game.new(colours, first_player=colours[1], setup="advanced", seed=seed)
        game = game.apply({"type": "place", "piece": "teleporter", "square": "g5", "arrow": "N"})
        assert game.phase == "placement"
    else:
        game, _ = play_out(game, rng)
        assert game.phase == "over"
    back = Game.from_json(json.loads(json.dumps(game.to_json())))
    assert back == game and back.summary() == game.summary()
