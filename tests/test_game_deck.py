"""The tombstone deck and rounds: G7 (deck), G8 (first tile), G9 (two rounds), G11 (variant), preview."""
from collections import Counter
from dataclasses import replace

import pytest

from engine.deck import TILES, draw_top, shuffled, take
from engine.errors import GameActionError, InvalidSetupError
from engine.game import Game
from engine.monster import resolve
from engine.position import GONE, WAITING
from engine.wording import Text
from tests.game_helpers import COLOURS_BY_COUNT, put, stay_all


def seed_where(pred, purpose="round-1"):
    """The first seed whose round-1 deck satisfies ``pred`` (a deterministic search, not luck)."""
    return next(s for s in range(10_000) if pred(shuffled(TILES, s, purpose)))


def monster_phase(n=2, seed=1, **kw):
    return stay_all(Game.new(COLOURS_BY_COUNT[n], seed=seed, **kw))


# -- G7 ---------------------------------------------------------------------
def test_g7_deck_is_the_eight_tiles_shuffled_by_the_seed():
    a, b, c = (Game.new(["red", "blue"], seed=s) for s in (1, 1, 2))
    assert Counter(a.deck) == Counter({"5": 1, "7": 2, "8": 2, "10": 1, "prey-1": 1, "prey-2": 1})
    assert a.deck == b.deck and a.deck_left == 8 and a.tiles_played == ()
    decks = {Game.new(["red", "blue"], seed=s).deck for s in range(20)}
    assert len(decks) > 10   # the seed really shuffles


def test_g7_draw_reveals_the_top_tile_and_moves_the_monster():
    s = seed_where(lambda d: not d[0].startswith("prey"))
    g = monster_phase(seed=s)
    top = g.deck[0]
    after = g.apply({"type": "draw"})
    assert after.tiles_played == (top,) and after.deck == g.deck[1:]
    assert after.last_plan.tile == top and after.last_plan.start == g.position
    assert after.position.monster == after.last_plan.result.monster
    assert after.last_plan.to_json() == resolve(g.position, top).to_json()


def test_g7_tile_from_the_table_must_be_in_the_deck():
    g = monster_phase(seed=3)
    g = g.apply({"type": "tile", "tile": "10"})
    g = stay_all(g)
    with pytest.raises(GameActionError, match="There is no 10 steps tile left in the deck") as err:
        g.apply({"type": "tile", "tile": "10"})
    assert err.value.rule == "G7"
    with pytest.raises(InvalidSetupError, match="'prey-3' is not a tombstone tile"):
        g.apply({"type": "tile", "tile": "prey-3"})
    g = g.apply({"type": "tile", "tile": "7"})
    assert g.tiles_played == ("10", "7") and Counter(g.deck) == Counter(TILES) - Counter(["10", "7"])


# -- G8 ---------------------------------------------------------------------
def test_g8_first_tile_skips_prey_and_reshuffles_the_rest():
    s = seed_where(lambda d: d[0].startswith("prey") and d[1].startswith("prey"))
    g = monster_phase(seed=s)
    first_step = next(t for t in g.deck if not t.startswith("prey"))
    after = g.apply({"type": "draw"})
    assert after.tiles_played == (first_step,)
    assert after.deck_left == 7 and Counter(after.deck) == Counter(TILES) - Counter([first_step])
    assert "G8" in str(after.note) and "one prey" in str(after.note) and "two prey" in str(after.note)
    # Reshuffled, not just the old order without that tile.
    rest = list(g.deck)
    rest.remove(first_step)
    assert after.deck == shuffled(rest, s, "first-tile")


def test_g8_step_tile_on_top_is_simply_played():
    s = seed_where(lambda d: not d[0].startswith("prey"))
    g = monster_phase(seed=s)
    after = g.apply({"type": "draw"})
    assert after.deck == g.deck[1:] and "G8" not in str(after.note)


def test_g8_only_the_first_tile_of_the_game():
    g = monster_phase(seed=5).apply({"type": "tile", "tile": "8"})
    g = stay_all(g).apply({"type": "tile", "tile": "prey-1"})   # allowed now
    assert g.tiles_played == ("8", "prey-1")
    g = monster_phase(seed=5)
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "tile", "tile": "prey-2"})
    assert err.value.rule == "G8"


def test_g8_with_the_variant_the_5_is_a_prey_tile_too():
    g = monster_phase(n=6, seed=5, prey3_variant=True)
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "tile", "tile": "5"})
    assert err.value.rule == "G8"
    assert "5" not in g.preview() and "prey-1" not in g.preview() and set(g.preview()) == {"7", "8", "10"}


def test_deck_module_g8_draw_directly():
    d = draw_top(("prey-1", "prey-2", "5", "7", "7", "8", "8", "10"), first_of_game=True, seed=9,
                 prey3_variant=True)
    assert d.tile == "7" and d.set_aside == ("prey-1", "prey-2", "5") and len(d.deck) == 7
    d = take(("5", "7"), "7", first_of_game=False, prey3_variant=False)
    assert d.tile == "7" and d.deck == ("5",)


# -- G9 ---------------------------------------------------------------------
def play_turns(g, k, tile_order=None):
    for _ in range(k):
        g = stay_all(g).apply({"type": "draw"})
    return g


def test_g9_round_1_ends_after_its_7th_tile_and_all_8_are_reshuffled():
    g = Game.new(["red", "blue"], seed=11)
    g = play_turns(g, 6)
    assert g.round == 1 and len(g.tiles_played) == 6 and g.deck_left == 2
    played = list(g.tiles_played)
    g = stay_all(g)
    seventh = g.deck[0]
    g = g.apply({"type": "draw"})
    assert g.last_tile == seventh
    never_played = Counter(TILES) - Counter(played + [seventh])
    assert sum(never_played.values()) == 1       # the last tile is never played
    assert g.round == 2 and g.tiles_played == () and g.deck_left == 8 and g.turn == 8
    assert g.deck == shuffled(TILES, 11, "round-2")
    assert "round 2 begins" in str(g.note) and "G9" in str(g.note)
    assert g.phase == "pawns"


def test_g9_round_2_ends_after_its_7th_tile():
    g = play_turns(Game.new(["red", "blue"], seed=11), 13)
    assert g.round == 2 and len(g.tiles_played) == 6 and g.phase == "pawns"
    g = play_turns(g, 1)
    assert g.phase == "over" and g.end_rule == "G10" and g.deck_left == 1


def eat_setup(game):
    """Blue 2/5 on b1 right in front of the monster (a1 facing E): a one-prey tile eats it at once."""
    return put(game, {"blue-2/5": "b1"})


def test_g9_round_1_eaten_pawns_return_beside_the_entrance_with_their_face():
    g = stay_all(eat_setup(Game.new(["red", "blue"], seed=4)))
    face = g.position.pawn("blue-2/5").face
    g = replace(g, tiles_played=("8",), deck=tuple(t for t in TILES if t != "8"))  # not the first tile any more
    g = g.apply({"type": "tile", "tile": "prey-1"})
    eaten = g.position.pawn("blue-2/5")
    assert g.last_plan.eaten == ("blue-2/5",) and eaten.place == WAITING and eaten.face == face
    assert "blue-2/5" in g.unmoved     # back in play: it must move (or flip) next turn
    assert "back beside the entrance (G9)" in str(g.note)


def test_g9_round_2_eaten_pawns_leave_the_game():
    g = stay_all(eat_setup(Game.new(["red", "blue"], seed=4)))
    g = replace(g, round=2)
    g = g.apply({"type": "tile", "tile": "prey-1"})
    assert g.position.pawn("blue-2/5").place == GONE and "blue-2/5" not in g.unmoved
    assert "out of the game (G9)" in str(g.note)


# -- G11 --------------------------------------------------------------------
def test_g11_only_for_6_or_7_players():
    with pytest.raises(GameActionError) as err:
        Game.new(COLOURS_BY_COUNT[5], prey3_variant=True)
    assert err.value.rule == "G11"
    assert Game.new(COLOURS_BY_COUNT[6], prey3_variant=True).prey3_variant
    assert Game.new(COLOURS_BY_COUNT[7], prey3_variant=True).prey3_variant


@pytest.mark.parametrize("variant,steps", [(False, 5), (True, 20)])
def test_g11_the_5_tile_hunts_three_prey(variant, steps):
    # Nobody on the board: a three-prey hunt runs into the 20-step cap (M1); a plain 5 walks 5 steps.
    g = replace(monster_phase(n=6, seed=2, prey3_variant=variant), tiles_played=("8",))
    g = g.apply({"type": "tile", "tile": "5"})
    assert len(g.last_plan.steps) == steps
    assert ("three prey (G11)" in str(g.note)) == variant


# -- preview ----------------------------------------------------------------
def test_preview_plans_every_distinct_tile_still_in_the_deck():
    g = monster_phase(seed=8).apply({"type": "tile", "tile": "7"})
    g = put(g, {"red-2/5": "k7", "blue-2/5": "d1"})
    previews = g.preview()
    assert set(previews) == {"5", "7", "8", "10", "prey-1", "prey-2"}
    for tile, plan in previews.items():
        assert plan.tile == tile and plan.start == g.position
        assert plan.to_json() == resolve(g.position, tile).to_json()
    assert len(previews["prey-1"].eaten) == 1 and len(previews["prey-2"].eaten) == 2
    assert g.preview() == previews and g.position == previews["8"].start   # nothing changed


def test_preview_respects_the_round_and_the_end():
    g = monster_phase(seed=8)
    assert all(not t.startswith("prey") for t in g.preview())   # G8
    over = replace(g, phase="over")
    assert over.preview() == {}


def test_last_plan_survives_json():
    g = monster_phase(seed=8).apply({"type": "draw"})
    back = Game.from_json(g.to_json())
    assert back == g and back.last_plan.to_json() == g.last_plan.to_json()
    assert Game.new(["red", "blue"]).last_plan is None


# -- audit regressions ------------------------------------------------------------
def test_g7_tile_not_in_the_deck_lists_what_is_left_in_plain_words():
    g = stay_all(monster_phase(seed=3).apply({"type": "tile", "tile": "10"}))
    g = stay_all(g.apply({"type": "tile", "tile": "prey-1"}))
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "tile", "tile": "prey-1"})
    assert str(err.value) == ("There is no one prey tile left in the deck (left: 5 steps, 7 steps, 7 steps, "
                              "8 steps, 8 steps, two prey) (G7)")


def test_g7_a_step_tile_given_as_a_number_is_that_tile():
    g = monster_phase(seed=3)
    assert g.apply({"type": "tile", "tile": 8}) == g.apply({"type": "tile", "tile": "8"})
    with pytest.raises(InvalidSetupError, match="tile"):
        g.apply({"type": "tile", "tile": True})


def test_g8_variant_first_tile_5_is_named_as_three_prey():
    g = monster_phase(n=6, seed=5, prey3_variant=True)
    with pytest.raises(GameActionError, match=r"may not be a prey tile \(5 \(three prey, G11\)\)") as err:
        g.apply({"type": "tile", "tile": "5"})
    assert "steps" not in str(err.value)
    s = seed_where(lambda d: d[0] == "5")
    after = monster_phase(n=6, seed=s, prey3_variant=True).apply({"type": "draw"})
    revealed = after.note
    while not isinstance(revealed, Text):   # the note's first sentence names the prey tile set aside (wording data)
        revealed = revealed.parts[0]
    assert "%(tiles)s" in revealed.template and str(revealed.params["tiles"]) == "5 (three prey, G11)"
    assert after.tiles_played[0] != "5"


def test_g8_first_tile_entered_at_the_table_reminds_to_reshuffle():
    g = monster_phase(seed=5)
    with pytest.raises(GameActionError, match="set it aside") as err:
        g.apply({"type": "tile", "tile": "prey-1"})
    assert err.value.rule == "G8"
    after = g.apply({"type": "tile", "tile": "8"})
    assert "shuffle all the other tiles" in str(after.note) and "(G8)" in str(after.note)
    second = stay_all(after).apply({"type": "tile", "tile": "7"})
    assert "G8" not in str(second.note)
