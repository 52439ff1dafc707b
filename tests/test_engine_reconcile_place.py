"""engine.reconcile_place: the one legal placement of the advanced setup (A1, A2) that explains
what the camera sees, or why not.

The legal placements are checked against an oracle built by brute force through
``Game.apply`` of every ``place`` action there is (every piece, square, pair, arrow and
orientation), so the enumeration and its early filter are not trusted by their own test.
"""
from __future__ import annotations

from dataclasses import replace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.actions import Place
from engine.errors import FlureError
from engine.game import Game
from engine.geometry import CORNER_ZONE, DIRECTION_NAMES, NEIGHBOUR, SQUARES, parse_square, square_name
from engine.observation import EMPTY, Observation, looks
from engine.placement import PIECES
from engine.pools import ORIENTATIONS
from engine.position import Teleporter
from engine.reconcile import reconcile_game
from engine.reconcile_place import legal_placements, reconcile_placement

SLOW = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def every_place_action():
    """Every action there is, written out independently of engine.reconcile_place.place_actions."""
    extras = {"teleporter": [{"pair": p, "arrow": a} for p in (1, 2) for a in "NESW"],
              "pool-1x4": [{"orientation": o} for o in ORIENTATIONS]}
    return [Place(piece, square_name(sq), **extra) for piece in PIECES for sq in SQUARES
            for extra in extras.get(piece, [{}])]


def oracle(game: Game) -> dict:
    """Position after → the placements leading there, by trying every action through Game.apply."""
    found: dict = {}
    for action in every_place_action():
        try:
            after = game.apply(action)
        except FlureError:
            continue
        found.setdefault(after.position, []).append(action)
    return found


@st.composite
def setups(draw, max_placed=16):
    """An advanced setup part done: 0–16 pieces put down by legal placements drawn at random."""
    players = draw(st.sampled_from([["red", "blue"], ["red", "blue", "green"], ["yellow", "green", "blue", "red"]]))
    game = Game.new(players, setup="advanced", seed=draw(st.integers(0, 9)))
    for _ in range(draw(st.integers(0, max_placed))):
        for _try in range(30):   # a random action, kept when the game takes it
            piece = draw(st.sampled_from(sorted(p for p, n in game.pieces_left if n)))
            action = Place(piece, square_name(draw(st.sampled_from(SQUARES))),
                           arrow=draw(st.sampled_from(DIRECTION_NAMES)) if piece == "teleporter" else None,
                           pair=draw(st.sampled_from([1, 2])) if piece == "teleporter" else None,
                           orientation=draw(st.sampled_from(ORIENTATIONS)) if piece == "pool-1x4" else None)
            try:
                game = game.apply(action)
                break
            except FlureError:
                continue
    return game


def differing(a, b) -> set[int]:
    la, lb = looks(a), looks(b)
    return {sq for sq in la.keys() | lb.keys() if la.get(sq, EMPTY) != lb.get(sq, EMPTY)}


@given(setups())
@SLOW
def test_legal_placements_equal_brute_force(game):
    found = legal_placements(game.position, dict(game.pieces_left))
    assert {c.after for c in found} == set(oracle(game))
    assert len({c.after for c in found}) == len(found)          # one candidate per resulting position
    for c in found[:: max(1, len(found) // 25)]:
        assert game.apply(c.place).position == c.after          # each is the engine's own place action


@given(setups(), st.data())
@SLOW
def test_a_placement_seen_with_squares_hidden_is_taken_only_when_unique(game, data):
    legal = oracle(game)
    truth = data.draw(st.sampled_from(sorted(legal, key=repr) + [game.position]))
    changed = sorted(differing(game.position, truth))
    hidden = data.draw(st.sets(st.sampled_from(changed), max_size=3)) if changed else set()
    hidden |= data.draw(st.sets(st.sampled_from(SQUARES), max_size=4))
    result = reconcile_game(game, Observation.of(truth, {sq: "occluded" for sq in hidden}))
    everything = list(legal) + [game.position]
    fitting = [p for p in everything if not differing(p, truth) - hidden]
    if len(fitting) == 1:
        assert result.accepted, result.problems
        assert result.after == truth
        if truth == game.position:
            assert result.change == "none"
        else:
            assert result.change == "place"
            assert game.apply(result.place).position == truth
            assert result.to_json()["place"] == result.place.to_json()
    else:
        assert not result.accepted and result.problems[0].code == "ambiguous"
        assert len(result.candidates) == len(fitting)


@given(setups(max_placed=15), st.data())
@SLOW
def test_hiding_what_tells_two_placements_apart_is_ambiguous_never_a_guess(game, data):
    legal = sorted(oracle(game), key=repr) + [game.position]
    a, b = data.draw(st.lists(st.sampled_from(legal), min_size=2, max_size=2, unique=True))
    hidden = differing(a, b)
    result = reconcile_game(game, Observation.of(a, {sq: "occluded" for sq in hidden}))
    assert not result.accepted and result.problems[0].code == "ambiguous"
    assert result.to_json()["setup"] is None
    uncover = result.problems[0].message
    assert "never applied" in str(uncover) and any(square_name(sq) in str(uncover) for sq in hidden)


@st.composite
def two_placements(draw):
    """A setup part done, and two legal placements one after the other (the second from the pieces left)."""
    game = draw(setups(max_placed=14))
    first = draw(st.sampled_from(legal_placements(game.position, dict(game.pieces_left)))).place
    after_one = game.apply(first)
    second = draw(st.sampled_from(legal_placements(after_one.position, dict(after_one.pieces_left)))).place
    return game, first, second


def after_four_stone_tiles() -> Game:
    """An advanced setup (three players) after four stone tiles; Blue places next (A2)."""
    game = Game.new(["red", "blue", "green"], setup="advanced", seed=0)
    for piece, square in (("stone", "e4"), ("crystal", "f6"), ("pivot-right", "k8"), ("stone", "c5")):
        game = game.apply(Place(piece, square))
    return game


@given(two_placements())
@example((after_four_stone_tiles(), Place("pool-2x2", "g1"), Place("pool-1x4", "i1", orientation="horizontal")))
@SLOW
def test_two_pieces_put_down_at_once_are_never_accepted(placements):
    game, first, second = placements
    both = game.apply(first).apply(second).position
    result = reconcile_game(game, Observation.of(both))
    assert not result.accepted and result.problems[0].code == "unexplained"
    message = result.problems[0].message
    assert message.template == "no legal placement explains what the camera sees: %(why)s"   # wording data
    assert "one piece at a time" in str(message) and "(A2)" in str(message)


def test_two_pool_tiles_put_down_at_once_are_named_as_two_pieces():
    game = after_four_stone_tiles()
    assert game.placer == "blue"
    both = game.apply(Place("pool-2x2", "g1")).apply(Place("pool-1x4", "i1", orientation="horizontal"))
    result = reconcile_game(game, Observation.of(both.position))
    assert str(result.problems[0].message) == (
        "no legal placement explains what the camera sees: 2 new pieces are seen (a pool on g1, a pool on i1); "
        "the players place one piece at a time, blue now (A2)")
    assert result.problems[0].square == parse_square("g1")
    from companion_app.i18n.text import render  # the same sentence in the reader's language
    assert "2 nouvelles pièces sont vues" in render(result.problems[0].message, "fr")
    # squares no set of pool tiles covers are still the pool shape's complaint (A1)
    result = reconcile_game(game, Observation.of(replace(both.position, pools=both.position.pools - {parse_square("l1")})))
    assert "the pool squares g1 h1 i1 j1 k1 g2 h2 are not one 2×2 or 1×4 pool (A1)" in str(result.problems[0].message)


@given(setups(max_placed=16), st.data())
@SLOW
def test_a_piece_seen_where_no_legal_placement_goes_is_refused_with_its_rule(game, data):
    pos = game.position
    busy = set(pos.stones) | set(pos.teleporters) | set(pos.pools) | {pos.monster}
    near = CORNER_ZONE | {n for t in pos.teleporters for n in NEIGHBOUR[t * 4:t * 4 + 4] if n is not None}
    free = sorted(sq for sq in SQUARES if sq not in busy)
    sq = data.draw(st.sampled_from(sorted(near - busy) or free) if data.draw(st.booleans()) else st.sampled_from(free))
    kind = data.draw(st.sampled_from(["crystal", "teleporter"]))
    if kind == "crystal":
        after = replace(pos, stones={**pos.stones, sq: "crystal"})
    else:
        after = replace(pos, teleporters={**pos.teleporters, sq: Teleporter(data.draw(st.sampled_from([1, 2])), 0)})
    if after in oracle(game):
        return
    result = reconcile_game(game, Observation.of(after))
    assert not result.accepted and result.problems[0].code == "unexplained"
    message = str(result.problems[0].message)
    assert square_name(sq) in str(message)
    assert "(A1)" in message or "(A2)" in message


def test_the_teleporter_pair_and_arrow_are_read_never_defaulted():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    after = game.apply({"type": "place", "piece": "teleporter", "square": "g7", "arrow": "W", "pair": 2})
    result = reconcile_game(game, Observation.of(after.position))
    assert result.change == "place" and result.place == Place("teleporter", "g7", arrow="W", pair=2)
    assert game.apply(result.place).position == after.position


def test_pool_shapes_and_orientations_are_told_apart_by_their_squares():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    for action in ({"type": "place", "piece": "pool-1x4", "square": "e5", "orientation": "vertical"},
                   {"type": "place", "piece": "pool-1x4", "square": "e5", "orientation": "horizontal"},
                   {"type": "place", "piece": "pool-2x2", "square": "e5"}):
        after = game.apply(action)
        result = reconcile_game(game, Observation.of(after.position))
        assert result.change == "place" and result.after == after.position, result.problems
        assert game.apply(result.place).position == after.position


def test_a_pool_with_a_square_hidden_is_filled_from_the_one_shape_that_fits():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    after = game.apply({"type": "place", "piece": "pool-1x4", "square": "g5", "orientation": "vertical"})
    result = reconcile_game(game, Observation.of(after.position, {parse_square("g8"): "occluded"}))
    assert result.change == "place" and result.place.orientation == "vertical" and result.unseen == (parse_square("g8"),)


def test_a_covered_square_with_a_new_piece_asks_to_uncover_it():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    after = game.apply({"type": "place", "piece": "crystal", "square": "g7"})
    result = reconcile_game(game, Observation.of(after.position, {parse_square("g7"): "occluded"}))
    assert not result.accepted and result.problems[0].code == "ambiguous"
    assert "uncover g7" in str(result.problems[0].message) and "a hand?" in str(result.problems[0].message)


def test_messages_name_the_square_and_the_rule():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    corner = replace(game.position, stones={parse_square("b2"): "crystal"})
    message = str(reconcile_game(game, Observation.of(corner)).problems[0].message)
    assert "b2" in str(message) and "(A2)" in str(message)
    game = game.apply({"type": "place", "piece": "teleporter", "square": "g7", "arrow": "N", "pair": 1})
    game = game.apply({"type": "place", "piece": "crystal", "square": "k3"})
    touching = replace(game.position, teleporters={**game.position.teleporters,
                                                   parse_square("g8"): Teleporter(2, 0)})
    message = str(reconcile_game(game, Observation.of(touching)).problems[0].message)
    assert "g8" in message and "g7" in message and "(A2)" in message
    moved = replace(game.position, stones={parse_square("k4"): "crystal"})
    message = str(reconcile_game(game, Observation.of(moved)).problems[0].message)
    assert "k3" in message and "stays where it was put (A2)" in message
    pawn = game.position.pawns[0]
    early = game.position.with_pawn(replace(pawn, place="board", square=parse_square("h5")))
    message = str(reconcile_game(game, Observation.of(early)).problems[0].message)
    assert "h5" in message and "pawns come onto the board only once every piece is placed (A2)" in message
    game = game.apply({"type": "place", "piece": "crystal", "square": "k5"})
    third = replace(game.position, stones={**game.position.stones, parse_square("c7"): "crystal"})
    message = str(reconcile_game(game, Observation.of(third)).problems[0].message)
    assert "c7" in message and "(A1)" in message


def test_the_whole_setup_read_piece_by_piece_starts_the_game():
    game = Game.new(["red", "blue", "green"], setup="advanced", seed=3)
    placed = 0
    while game.phase == "placement":
        options = legal_placements(game.position, dict(game.pieces_left))
        truth = game.apply(options[len(options) * 7 // 11].place)
        result = reconcile_game(game, Observation.of(truth.position))
        assert result.change == "place", result.problems
        game = game.apply(result.place)
        assert game.position == truth.position
        placed += 1
    assert placed == sum(PIECES.values()) == 17
    assert game.phase == "pawns" and game.to_move == "green"   # blue placed the 17th piece: the player after starts (A2)


def test_reconcile_placement_ignores_the_card_zone():
    game = Game.new(["red", "blue"], setup="advanced", seed=0)
    after = game.apply({"type": "place", "piece": "stone", "square": "h4"})
    obs = Observation.of(after.position, tile="8")
    assert reconcile_placement(game.position, obs, "red", dict(game.pieces_left)).change == "place"
