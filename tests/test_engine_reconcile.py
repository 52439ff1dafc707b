"""engine.reconcile: the one legal change that explains what the camera sees, or why not.

The legal outcomes are checked against an oracle built by brute force from
``apply_moves`` over every move string (so the enumeration in ``engine.pawns.outcomes``
is not trusted by its own test), for pawns of at most 3 points.
"""
import itertools
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalMoveError
from engine.geometry import SQUARES, parse_square
from engine.observation import EMPTY, looks
from engine.pawns import apply_moves, explain_change
from engine.position import BOARD, OUT, WAITING, Position
from engine.reconcile import ANY_PAWN, MONSTER_PHASE, UNKNOWN, Observation, legal_changes, reconcile
from tests.engine_strategies import positions

COLOURS = ("red", "blue", "green")
LOW = (("6/1", "white"), ("2/5", "black"), ("4/3", "white"), ("3/4", "black"))   # 1, 2, 3, 3 points


@st.composite
def games(draw):
    """A random position whose pawns are told apart by colour and kind, and the colour to move
    (its pawns have at most 3 points, so the brute-force oracle stays small)."""
    pos = draw(positions(max_pawns=7, max_stones=8))
    mover = draw(st.sampled_from(COLOURS[:2]))
    pawns = []
    for k, p in enumerate(pos.pawns):
        colour = COLOURS[k // 4 % 3] if k < 8 else COLOURS[2]
        kind, face = LOW[k % 4]
        if colour != mover:
            face = draw(st.sampled_from(("white", "black")))
        pawns.append(replace(p, label=f"{colour}-{kind}", colour=colour, kind=kind, face=face))
    return replace(pos, pawns=tuple(pawns)), mover


def oracle(before: Position, mover: str) -> set[Position]:
    """Every position one legal move of ``mover`` can visibly leave (pawn flipped), by brute force."""
    found = set()
    for pawn in before.pawns:
        if pawn.colour != mover or pawn.place not in (BOARD, WAITING):
            continue
        for n in range(pawn.value + 1):
            for letters in itertools.product("NESWIX", repeat=n):
                try:
                    after = apply_moves(before, pawn.label, "".join(letters))
                except IllegalMoveError:
                    continue
                moved = after.pawn(pawn.label)
                if moved.place != WAITING:
                    found.add(after.with_pawn(moved.flipped()))
    return found


def differing(a: Position, b: Position) -> set[int]:
    la, lb = looks(a), looks(b)
    return {sq for sq in la.keys() | lb.keys() if la.get(sq, EMPTY) != lb.get(sq, EMPTY)}


def fits(candidate: Position, truth: Position, hidden: set[int]) -> bool:
    return not (differing(candidate, truth) - hidden)


def destination(before: Position, after: Position) -> int | None:
    moved = [p for p in after.pawns if p != before.pawn(p.label)]
    return moved[0].square if moved and moved[0].place == BOARD else None


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_legal_changes_equal_brute_force(game, data):
    before, mover = game
    moves = {c.after for c in legal_changes(before, mover) if c.kind == "move"}
    assert moves == oracle(before, mover)


@given(games(), st.data())
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_hiding_squares_gives_the_outcome_when_unique_and_ambiguous_otherwise(game, data):
    before, mover = game
    legal = sorted(oracle(before, mover), key=repr)
    if not legal:
        return
    truth = data.draw(st.sampled_from(legal))
    everything = legal + [before]
    relevant = sorted(set().union(*(differing(before, c) for c in everything)))
    dest = destination(before, truth)
    hidden = data.draw(st.sets(st.sampled_from(relevant), max_size=6)) if relevant else set()
    hidden |= data.draw(st.sets(st.sampled_from(SQUARES), max_size=4))
    hidden.discard(dest)
    result = reconcile(before, Observation.of(truth, {sq: "occluded" for sq in hidden}), mover)
    fitting = [c for c in everything if fits(c, truth, hidden)]
    if len(fitting) == 1:
        assert result.accepted and result.change == "move" and result.after == truth
        assert result.moves is not None
        played = apply_moves(before, result.pawn, result.moves)
        assert played.with_pawn(played.pawn(result.pawn).flipped()) == truth
    else:
        assert not result.accepted and result.problems[0].code == "ambiguous"
        assert len(result.candidates) == len(fitting)


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_hiding_what_tells_two_outcomes_apart_is_ambiguous_never_a_guess(game, data):
    before, mover = game
    legal = sorted(oracle(before, mover), key=repr) + [before]
    if len(legal) < 2:
        return
    a, b = data.draw(st.lists(st.sampled_from(legal), min_size=2, max_size=2, unique=True))
    hidden = differing(a, b)
    result = reconcile(before, Observation.of(a, {sq: "occluded" for sq in hidden}), mover)
    assert not result.accepted
    assert result.change == "unexplained" and result.problems[0].code == "ambiguous"
    assert result.to_json()["setup"] is None


def _never_accepted(before, after, mover, data):
    """Neither with every square seen nor with some squares hidden that show no part of the change."""
    assert after not in oracle(before, mover) and after != before
    result = reconcile(before, Observation.of(after), mover)
    assert not result.accepted and result.change == "unexplained"
    assert result.problems and result.problems[0].code == "unexplained"
    said = result.problems[0].message.parts[0]   # wording data: the "no legal change explains" sentence first
    assert said.template == "no legal change explains what the camera sees: %(seen)s."
    calm = [sq for sq in SQUARES if sq not in differing(before, after)]
    hidden = data.draw(st.sets(st.sampled_from(calm), max_size=10))
    assert not reconcile(before, Observation.of(after, hidden), mover).accepted


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_two_pawns_moved_is_never_accepted(game, data):
    before, mover = game
    mine = [p for p in before.pawns if p.colour == mover and p.place in (BOARD, WAITING)]
    if len(mine) < 2:
        return
    first, second = data.draw(st.lists(st.sampled_from(mine), min_size=2, max_size=2, unique=True))
    after = before
    for pawn in (first, second):
        options = [o for o in oracle(after, mover)
                   if o.pawn(pawn.label) != after.pawn(pawn.label) and o.pawn(pawn.label).place != WAITING]
        if not options:
            return
        after = data.draw(st.sampled_from(sorted(options, key=repr)))
    _never_accepted(before, after, mover, data)


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_stone_moved_with_no_pusher_is_never_accepted(game, data):
    before, mover = game
    if not before.stones:
        return
    taken = set(looks(before))
    stone = data.draw(st.sampled_from(sorted(before.stones)))
    to = data.draw(st.sampled_from([sq for sq in SQUARES if sq not in taken]))
    stones = dict(before.stones)
    stones[to] = stones.pop(stone)
    _never_accepted(before, replace(before, stones=stones), mover, data)


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_pawn_beyond_its_points_is_never_accepted(game, data):
    before, mover = game
    mine = [p for p in before.pawns if p.colour == mover and p.place in (BOARD, WAITING)]
    if not mine:
        return
    pawn = data.draw(st.sampled_from(mine))
    legal = oracle(before, mover)
    taken = set(looks(before))
    far = [sq for sq in SQUARES if sq not in taken and sq not in before.teleporters]
    to = data.draw(st.sampled_from(far))
    after = before.with_pawn(replace(pawn.flipped(), place=BOARD, square=to))
    if after in legal:
        return
    _never_accepted(before, after, mover, data)


@given(games(), st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_an_unflipped_or_wrong_colour_pawn_is_never_accepted(game, data):
    before, mover = game
    other = next(c for c in COLOURS if c != mover)
    for colour, unflip in ((mover, True), (other, False)):
        moved = [o for o in oracle(before, colour) if differing(before, o)]
        if not moved:
            continue
        after = data.draw(st.sampled_from(sorted(moved, key=repr)))
        if unflip:
            label = next(p.label for p in after.pawns if p != before.pawn(p.label))
            after = after.with_pawn(after.pawn(label).flipped())
            if after == before or not differing(before, after):
                continue   # stayed and not flipped: that is "nothing moved"
        _never_accepted(before, after, mover, data)


# -- examples with the messages ----------------------------------------------------------------

BASE = {"monster": {"at": "a1", "facing": "E"}, "stones": {"j6": "stone", "l7": "stone"},
        "pools": ["g5", "h5", "g6", "h6"], "teleporters": {"l9": {"pair": 1, "arrow": "N"},
                                                           "c3": {"pair": 1, "arrow": "S"}},
        "pawns": {"red-3/4": {"at": "k3", "color": "red", "pawn": "3/4", "face": "black"},
                  "red-2/5": {"at": "k7", "color": "red", "pawn": "2/5"},
                  "blue-6/1": {"at": None, "color": "blue", "pawn": "6/1"}}}


def play(before, label, moves):
    after = apply_moves(before, label, moves)
    return after.with_pawn(after.pawn(label).flipped())


def hide(*names, why="occluded"):
    return {parse_square(n): why for n in names}


def test_a_move_read_with_unseen_squares_filled_from_the_change():
    before = Position.from_setup(BASE)
    after = play(before, "red-2/5", "NN")
    result = reconcile(before, Observation.of(after, hide("c5", "k6")), "red")
    assert result.accepted and result.change == "move"
    assert result.to_json()["move"] == {"pawn": "red-2/5", "moves": "NN"}
    assert result.to_json()["setup"]["pawns"]["red-2/5"] == {"at": "k5", "color": "red", "pawn": "2/5",
                                                            "face": "black"}
    assert result.to_json()["unseen"] == ["c5", "k6"]


def test_ambiguous_names_the_pawns_and_the_square_to_uncover():
    before = Position.from_setup(BASE)
    # red 3/4 (3 points) goes k3 -> k5; red 2/5 could go k7 -> k5 as well, and a hand covers
    # k3, k5 and k7: the sticker that would tell them apart is under it
    after = play(before, "red-3/4", "SS")
    result = reconcile(before, Observation.of(after, hide("k3", "k5", "k7")), "red")
    problem = result.problems[0]
    assert problem.code == "ambiguous" and not result.accepted and result.to_json()["setup"] is None
    assert "red 3/4" in str(problem.message) and "red 2/5" in str(problem.message)
    assert "k5" in str(problem.message) and "uncover" in str(problem.message) and "hand" in str(problem.message)
    # the one square to uncover, the problem's square: the first of those telling most candidates apart
    assert str(problem.message.params["squares"]) == "k3"   # wording data: the squares to uncover
    assert problem.square == parse_square("k3")
    # a push and a walk back (EW) or staying: only the hidden stone squares tell them apart
    after = play(before, "red-2/5", "EW")
    result = reconcile(before, Observation.of(after, hide("l7", "m7")), "red")
    assert result.problems[0].code == "ambiguous"
    assert "red 2/5 stayed on k7 or red 2/5 pushed a stone and came back to k7 (EW)" in str(result.problems[0].message)
    assert result.problems[0].square == parse_square("l7")


def test_the_moved_pawns_square_must_be_seen():
    before = Position.from_setup(BASE)
    after = play(before, "red-2/5", "NN")
    result = reconcile(before, Observation.of(after, hide("k5")), "red")
    assert not result.accepted and result.problems[0].code == "destination-unseen"
    assert "k5" in str(result.problems[0].message) and result.problems[0].square == parse_square("k5")


def test_a_stone_pushed_onto_a_teleporter_is_destroyed():
    before = Position.from_setup({**BASE, "stones": {"l8": "stone"}})
    after = play(before, "red-2/5", "ES")      # k7 -> l7, then south into l8 pushes the stone onto l9 (T3)
    assert parse_square("l8") in after.stones or not after.stones
    result = reconcile(before, Observation.of(after), "red")
    assert result.accepted and result.after == after


def test_a_tile_in_the_card_zone_and_nothing_and_the_monster_phase():
    before = Position.from_setup(BASE)
    assert reconcile(before, Observation.of(before), "red").change == "none"
    result = reconcile(before, Observation.of(before, tile="8"), MONSTER_PHASE)
    assert result.accepted and result.change == "tile" and result.tile == "8" and result.after == before
    unsure = reconcile(before, Observation.of(before, tile=UNKNOWN), MONSTER_PHASE)
    assert unsure.problems[0].code == "ambiguous" and "card zone" in str(unsure.problems[0].message)
    moved = reconcile(before, Observation.of(play(before, "red-2/5", "N")), MONSTER_PHASE)
    assert not moved.accepted and "monster phase" in str(moved.problems[0].message)


def test_unexplained_says_which_squares_and_rules():
    before = Position.from_setup(BASE)
    stones = {parse_square("j6"): "stone", parse_square("m7"): "stone"}
    result = reconcile(before, Observation.of(replace(before, stones=stones)), "blue")
    message = result.problems[0].message
    assert "l7" in str(message) and "m7" in str(message) and "P7" in str(message) and "blue" in str(message)
    unflipped = reconcile(before, Observation.of(apply_moves(before, "red-2/5", "N")), "red")
    assert "P1" in str(unflipped.problems[0].message) and "k6" in str(unflipped.problems[0].message)
    wrong = reconcile(before, Observation.of(play(before, "red-2/5", "N")), "blue")
    assert "red 2/5" in str(wrong.problems[0].message) and "G3" in str(wrong.problems[0].message)


def test_a_pawn_leaving_by_the_exit_is_not_listed():
    before = Position.from_setup({**BASE, "monster": {"at": "h8", "facing": "W"},
                                  "pawns": {"red-2/5": {"at": "b1", "color": "red", "pawn": "2/5", "face": "black"}}})
    after = play(before, "red-2/5", "WX")
    result = reconcile(before, Observation.of(after), "red")
    assert result.accepted and after.pawn("red-2/5").place == OUT
    assert "red-2/5" not in result.to_json()["setup"]["pawns"]


def test_any_pawn_when_no_player_is_given():
    before = Position.from_setup(BASE)
    after = play(before, "blue-6/1", "I")
    assert reconcile(before, Observation.of(after), ANY_PAWN).to_json()["move"] == {"pawn": "blue-6/1", "moves": "I"}
    assert not reconcile(before, Observation.of(after), "red").accepted


# -- explain_change regressions -------------------------------------------------------

def test_explain_change_pawn_pushes_a_stone_and_walks_back_EW():
    before = Position.from_setup(BASE)
    after = apply_moves(before, "red-2/5", "EW")    # pushes l7 to m7 and returns to k7 (P1, P7)
    assert after.pawn("red-2/5").square == before.pawn("red-2/5").square
    label, moves, message = explain_change(before, after)
    assert label == "red-2/5" and "EW" in moves and "stones moved but no pawn" not in message


def test_explain_change_pawn_stays_and_is_flipped():
    before = Position.from_setup(BASE)
    after = before.with_pawn(before.pawn("red-3/4").flipped())   # 0 points spent, flipped (P1)
    label, moves, message = explain_change(before, after)
    assert label == "red-3/4" and moves == [""] and message != "nothing moved"
    assert reconcile(before, Observation.of(after), "red").to_json()["move"] == {"pawn": "red-3/4", "moves": ""}


@given(games(), st.data())
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_explain_change_explains_every_legal_outcome(game, data):
    """An independent brute-force check: every legal outcome (pushes and walks
    back, stays) is explained by explain_change as a move of the pawn that made it."""
    before, mover = game
    legal = sorted(oracle(before, mover), key=repr)
    if not legal:
        return
    after = data.draw(st.sampled_from(legal))
    label, moves, message = explain_change(before, after)
    moved = next(p.label for p in after.pawns if p != before.pawn(p.label))
    assert label == moved and moves, message
    played = apply_moves(before, label, moves[0])
    assert played.with_pawn(played.pawn(label).flipped()) == after


@pytest.mark.parametrize("mover", ["red", ANY_PAWN])
def test_a_pawn_beside_the_board_only_flipped_is_nothing(mover):
    before = Position.from_setup({**BASE, "pawns": {**BASE["pawns"], "red-6/1": {"at": None, "color": "red",
                                                                                "pawn": "6/1"}}})
    flipped = before.with_pawn(before.pawn("red-6/1").flipped())
    result = reconcile(before, Observation.of(flipped), mover)
    assert result.accepted and result.change == "none"


def test_pools_and_teleporters_come_from_the_game_in_the_pawn_and_monster_phases():
    """Not seeing a pool or a teleporter is no evidence (B1, T1); seeing one where the game has none is."""
    before = Position.from_setup(BASE)     # a pool on g5-h6, teleporters on l9 and c3
    after = play(before, "red-2/5", "NN")
    bare = replace(after, pools=frozenset(), teleporters={})      # the camera read neither
    for mover in ("red", ANY_PAWN):
        result = reconcile(before, Observation.of(bare), mover)
        assert result.accepted and result.after == after, result.problems
    assert reconcile(before, Observation.of(replace(before, pools=frozenset(), teleporters={})),
                     MONSTER_PHASE).change == "none"
    extra = replace(after, pools=after.pools | {parse_square("c8")})
    result = reconcile(before, Observation.of(extra), "red")
    assert not result.accepted and "c8" in str(result.problems[0].message) and "B1" in str(result.problems[0].message)
    moved = replace(after, teleporters={parse_square("l9"): before.teleporters[parse_square("l9")],
                                        parse_square("n3"): before.teleporters[parse_square("c3")]})
    result = reconcile(before, Observation.of(moved), "red")
    assert not result.accepted and "n3" in str(result.problems[0].message)


def test_a_third_pawn_entering_in_the_first_turn_is_never_accepted_from_the_game():
    """G4: once two of a colour's pawns entered in the very first turn, its others may only be flipped beside
    the board.  With the game as prior (``reconcile_game``, the table's ``Prior``) a camera that sees a third one
    on the board is refused, and a still table is that flip (it was accepted as a legal entry before, and the
    demo without stickers stalled on one: "red 4/3 went from beside the board to p9" among the candidates)."""
    from companion_app.table.camera.port import Prior
    from engine.game import Game
    from engine.reconcile import reconcile_game

    game = Game.new(["red", "blue"], seed=1)
    for label, moves in (("red-6/1", "I"), ("blue-2/5", "IWWWW"), ("red-4/3", "IN"), ("blue-6/1", "")):
        game = game.apply({"type": "move", "pawn": label, "moves": moves})
    assert game.to_move == "red" and game.targets("red-3/4") == [{"square": None, "moves": ""}]
    assert set(game.seen_movers()) == set() and {"red-3/4", "red-2/5"} <= set(game.unmoved)
    entered = play(game.position, "red-3/4", "IW")      # what G4 forbids, laid on the table
    result = reconcile_game(game, Observation.of(entered))
    assert not result.accepted
    assert reconcile_game(game, Observation.of(game.position)).change == "none"
    assert Prior.of(game).only == frozenset()
    # the turn after, every pawn may enter again
    later = game
    while later.phase == "pawns":
        label = later.seen_movers()[0] if later.seen_movers() else \
            next(x for x in later.unmoved if later.position.pawn(x).colour == later.to_move)
        later = later.apply({"type": "move", "pawn": label, "moves": ""})
    assert later.phase == "monster" and later.seen_movers() == ()
