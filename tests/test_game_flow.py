"""Game flow: pawn sets (G1), turn order and flipping (G3), first turn (G4), passing (G5),
first player (G6), immediate win (G2), end without G2 (G10), and the errors players see."""
from dataclasses import replace

import pytest

from engine.actions import Correct
from engine.errors import GameActionError, IllegalMoveError, InvalidSetupError
from engine.game import CORRECTED, Game
from engine.geometry import parse_square, square_name
from engine.position import BOARD, WAITING
from tests.game_helpers import COLOURS_BY_COUNT, put, stay_all


def new(n=2, **kw):
    colours = COLOURS_BY_COUNT[n]
    return Game.new(colours, first_player=kw.pop("first_player", colours[0]), seed=kw.pop("seed", 7), **kw)


def mover_labels(game):
    return [x for x in game.unmoved if game.position.pawn(x).colour == game.to_move]


# -- G1 ---------------------------------------------------------------------
@pytest.mark.parametrize("n,kinds", [(2, ["6/1", "4/3", "3/4", "2/5"]), (4, ["6/1", "4/3", "3/4", "2/5"]),
                                     (5, ["6/1", "3/4", "2/5"]), (7, ["6/1", "3/4", "2/5"])])
def test_g1_pawn_sets_start_waiting_white(n, kinds):
    g = new(n)
    assert g.phase == "pawns" and g.round == 1 and g.turn == 1
    assert [p.label for p in g.position.pawns] == [f"{c}-{k}" for c in COLOURS_BY_COUNT[n] for k in kinds]
    assert all(p.place == WAITING and p.face == "white" and p.square is None for p in g.position.pawns)
    assert g.position.monster == parse_square("a1") and g.position.facing == 1  # a1 facing E
    assert g.set_size == len(kinds)


@pytest.mark.parametrize("players,rule", [(["red"], "G1"), (["red", "blue", "green", "yellow", "purple", "black",
                                                              "white", "red"], "G1"),
                                          (["red", "purple"], "G1")])
def test_g1_player_counts_and_colours(players, rule):
    with pytest.raises(GameActionError) as err:
        Game.new(players, seed=1)
    assert err.value.rule == rule


def test_bad_new_game_input_is_named():
    with pytest.raises(InvalidSetupError, match="first_player"):
        Game.new(["red", "blue"], first_player="green")
    with pytest.raises(InvalidSetupError, match="pink"):
        Game.new(["red", "pink"])
    with pytest.raises(InvalidSetupError, match="twice"):
        Game.new(["red", "red"])
    with pytest.raises(InvalidSetupError, match="setup"):
        Game.new(["red", "blue"], setup="expert")


# -- G3 ---------------------------------------------------------------------
def test_g3_clockwise_from_first_player_one_pawn_each_and_flip():
    g = new(3, first_player="blue")
    assert g.to_move == "blue"
    order = []
    while g.phase == "pawns":
        order.append(g.to_move)
        label = mover_labels(g)[0]
        before = g.position.pawn(label)
        g = g.apply({"type": "move", "pawn": label, "moves": ""})
        assert g.position.pawn(label).face == "black" != before.face
    assert order == ["blue", "green", "red"] * 4
    assert g.phase == "monster" and g.to_move is None and g.unmoved == ()
    assert {p.face for p in g.position.pawns} == {"black"}


def test_g3_wrong_player_and_pawn_moved_twice():
    g = new(2)
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "move", "pawn": "blue-6/1", "moves": "I"})
    assert str(err.value) == "It is red's turn, not blue's (G3)"
    g = g.apply({"type": "move", "pawn": "red-6/1", "moves": "I"})
    g = g.apply({"type": "move", "pawn": "blue-6/1", "moves": ""})
    with pytest.raises(GameActionError, match=r"red 6/1 has already moved this turn; red moves red 4/3 or "
                                              r"red 3/4 or red 2/5 \(G3\)"):
        g.apply({"type": "move", "pawn": "red-6/1", "moves": "W"})


def test_g3_monster_only_after_every_pawn_and_pawns_not_during_monster():
    g = new(2)
    with pytest.raises(GameActionError, match="red still moves") as err:
        g.apply({"type": "draw"})
    assert err.value.rule == "G3"
    g = stay_all(g)
    with pytest.raises(GameActionError, match="monster's turn"):
        g.apply({"type": "move", "pawn": "red-6/1", "moves": ""})


def test_illegal_pawn_move_is_refused_and_the_game_unchanged():
    g = new(2)
    before = g.to_json()
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"type": "move", "pawn": "red-2/5", "moves": "IE"})
    assert err.value.rule == "P6" and "wall" in str(err.value)
    with pytest.raises(IllegalMoveError) as err:
        g.apply({"type": "move", "pawn": "red-6/1", "moves": "IW"})   # the 6/1 shows its white 1
    assert err.value.rule == "P1"
    with pytest.raises(InvalidSetupError, match="red-9/9"):
        g.apply({"type": "move", "pawn": "red-9/9", "moves": ""})
    with pytest.raises(InvalidSetupError, match="jump"):
        g.apply({"type": "jump"})
    with pytest.raises(InvalidSetupError):
        g.apply("draw")
    assert g.to_json() == before


# -- G4 ---------------------------------------------------------------------
def test_g4_first_turn_at_most_two_pawns_enter_others_flip():
    g = new(2)
    g = g.apply({"type": "move", "pawn": "red-6/1", "moves": "I"})
    g = g.apply({"type": "move", "pawn": "blue-2/5", "moves": "IWWWW"})
    g = g.apply({"type": "move", "pawn": "red-4/3", "moves": "IN"})
    g = g.apply({"type": "move", "pawn": "blue-6/1", "moves": ""})
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "move", "pawn": "red-3/4", "moves": "I"})
    assert err.value.rule == "G4"
    assert "red already brought red 6/1 and red 4/3" in str(err.value)
    # targets() offers only the flip beside the board.
    assert g.targets("red-3/4") == [{"square": None, "moves": ""}]
    g = g.apply({"type": "move", "pawn": "red-3/4", "moves": ""})
    assert g.position.pawn("red-3/4").place == WAITING and g.position.pawn("red-3/4").face == "black"


def test_g4_limit_is_only_for_the_very_first_turn():
    g = new(2)
    for label, moves in (("red-2/5", "IWWWW"), ("blue-2/5", "INNNN"), ("red-3/4", "IWWW"), ("blue-3/4", "INNN")):
        g = g.apply({"type": "move", "pawn": label, "moves": moves})
    g = stay_all(g).apply({"type": "draw"})
    assert g.turn == 2 and g.to_move == "blue"
    waiting = [x for x in mover_labels(g) if g.position.pawn(x).place == WAITING]
    assert len(waiting) >= 2
    entering = [t for t in g.targets(waiting[0]) if t["square"] is not None]
    assert entering
    g = g.apply({"type": "move", "pawn": waiting[0], "moves": entering[0]["moves"]})
    assert g.position.pawn(waiting[0]).place == BOARD


# -- G5 ---------------------------------------------------------------------
def test_g5_player_without_pawns_to_move_is_skipped():
    g = new(3, first_player="red")
    g = put(g, {"blue-6/1": "out", "blue-4/3": "out", "blue-3/4": "gone"})   # blue has one pawn left
    seen = []
    while g.phase == "pawns":
        seen.append(g.to_move)
        g = g.apply({"type": "move", "pawn": mover_labels(g)[0], "moves": ""})
    assert seen == ["red", "blue", "green", "red", "green", "red", "green", "red", "green"]


def test_g5_waiting_pawn_may_flip_without_entering_and_targets_include_it():
    g = new(2)
    targets = g.targets("red-2/5")
    assert targets[0] == {"square": None, "moves": ""}
    squares = {t["square"] for t in targets}
    assert {"p11", "l11", "p7"} <= squares and "k11" not in squares   # 5 points: I then up to 4 squares
    assert g.targets("blue-2/5") == []   # not blue's turn


# -- G6 ---------------------------------------------------------------------
def test_g6_first_player_passes_left_after_the_monster():
    g = new(4, first_player="green")
    firsts = []
    for _ in range(5):
        firsts.append(g.first_player)
        assert g.to_move == g.first_player
        g = stay_all(g).apply({"type": "draw"})
    assert firsts == ["green", "yellow", "red", "blue", "green"]
    assert g.turn == 6


# -- G2 ---------------------------------------------------------------------
def test_g2_wins_at_once_when_all_but_one_pawn_is_out():
    g = new(2)
    g = put(g, {"red-6/1": "out", "red-4/3": "out", "red-2/5": "a2"}, monster="h6")
    assert g.out_counts() == {"red": 2, "blue": 0}
    g = g.apply({"type": "move", "pawn": "red-2/5", "moves": "NX"})
    assert g.phase == "over" and g.winner == "red" and g.end_rule == "G2"
    assert g.to_move is None and g.unmoved == ()
    assert str(g.summary()) == "Red wins with 3 pawns out (G2)."
    with pytest.raises(GameActionError, match="The game is over. Red wins"):
        g.apply({"type": "draw"})


def test_g2_three_pawn_sets_need_two_out():
    g = new(5)
    g = put(g, {"red-6/1": "out", "red-2/5": "b1"}, monster="h6")
    g = g.apply({"type": "move", "pawn": "red-2/5", "moves": "WX"})
    assert g.winner == "red" and g.end_rule == "G2" and g.out_counts()["red"] == 2


def test_out_pawn_cannot_move_again():
    g = new(2)
    g = put(g, {"red-6/1": "out"})
    assert "red-6/1" not in g.unmoved
    with pytest.raises(GameActionError) as err:
        g.apply({"type": "move", "pawn": "red-6/1", "moves": ""})
    assert err.value.rule == "P3"


# -- G10 --------------------------------------------------------------------
def last_tile_of_round_2(game):
    """The game one tile before the end of round 2, in its monster phase."""
    return replace(game, round=2, deck=("7", "8"), tiles_played=("5", "7", "8", "10", "prey-1", "prey-2"))


def test_g10_most_out_wins_and_pawns_left_in_the_fortress_count_as_eaten():
    g = new(3)
    g = put(g, {"red-6/1": "out", "blue-6/1": "out", "blue-4/3": "out", "green-6/1": "k7"})
    g = last_tile_of_round_2(stay_all(g)).apply({"type": "tile", "tile": "7"})
    assert g.phase == "over" and g.end_rule == "G10" and g.winner == "blue"
    assert not any(p.place == BOARD for p in g.position.pawns)
    assert g.position.pawn("green-6/1").place == "gone"
    assert str(g.summary()) == "Blue wins with 2 pawns out (G10)."


@pytest.mark.parametrize("log,winner", [(("blue", "red"), "blue"), (("red", "blue"), "red"),
                                        (("red", "blue", "blue", "red"), "blue")])
def test_g10_tie_goes_to_who_reached_that_number_first(log, winner):
    g = new(2)
    n = len(log) // 2
    outs = {f"red-{k}": "out" for k in ("6/1", "4/3")[:n]} | {f"blue-{k}": "out" for k in ("6/1", "4/3")[:n]}
    g = put(g, outs)
    g = replace(stay_all(g), out_log=log)
    g = last_tile_of_round_2(g).apply({"type": "draw"})
    assert g.winner == winner and g.end_rule == "G10"
    loser = "red" if winner == "blue" else "blue"
    tie = g.result_words().parts[1]   # the tie-break's clause, as wording data
    assert tie.params["num"] == n and str(tie.params["rivals"]) == loser


def test_g10_nobody_out_the_monster_wins():
    g = last_tile_of_round_2(stay_all(new(2))).apply({"type": "draw"})
    assert g.winner == "monster" and str(g.summary()) == "Nobody got a pawn out: the monster wins (G10)."


def test_g10_round_2_ends_when_no_pawn_is_left_in_play():
    g = new(2)
    everyone_else = {p.label: "gone" for p in g.position.pawns if p.label not in ("red-6/1", "blue-2/5")}
    g = put(g, everyone_else | {"red-6/1": "out", "blue-2/5": "b1"})
    g = replace(stay_all(g), round=2, deck=("5", "7", "8", "10", "prey-1", "prey-2", "7"), tiles_played=("8",),
                out_log=("red",))
    g = g.apply({"type": "tile", "tile": "prey-1"})   # a1 facing E: eats blue 2/5 on b1 at once
    assert g.last_plan.eaten == ("blue-2/5",)
    assert g.phase == "over" and g.end_rule == "G10" and g.winner == "red"


# -- physical events: pawn-at --------------------------------------------------
def test_pawn_at_finds_the_legal_move_behind_a_seen_pawn():
    g = new(2)
    g2 = g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "m11"})
    assert g2.position.pawn("red-2/5").where() == "m11"
    assert g2 == g.apply({"type": "move", "pawn": "red-2/5", "moves": "IWWW"})
    stays = g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": None})
    assert stays.position.pawn("red-2/5").place == WAITING and stays.position.pawn("red-2/5").face == "black"


def test_pawn_at_unreachable_square_says_where_and_why():
    g = new(2)
    with pytest.raises(GameActionError, match=r"red 6/1 cannot legally end its move on k11 from beside the board "
                                              r"with 1 point \(P1\)"):
        g.apply({"type": "pawn-at", "pawn": "red-6/1", "square": "k11"})
    with pytest.raises(InvalidSetupError, match="z9"):
        g.apply({"type": "pawn-at", "pawn": "red-6/1", "square": "z9"})


def red_25_black_on(square):
    """Red to move, red 2/5 on ``square`` showing its black 2."""
    g = new(2)
    pawn = replace(g.position.pawn("red-2/5"), place=BOARD, square=parse_square(square), face="black")
    return g.apply(Correct(g.position.with_pawn(pawn)))


def test_pawn_at_prefers_the_move_that_leaves_the_stones_alone():
    g = red_25_black_on("n4")          # the stone on m4 is to its west
    alone = g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "m5"})   # S W, not W (push) S
    assert alone.position.stones == g.position.stones
    assert alone == g.apply({"type": "move", "pawn": "red-2/5", "moves": "SW"})


def test_pawn_at_with_the_stones_seen_picks_the_push():
    g = red_25_black_on("n4")
    seen = {square_name(sq): k for sq, k in g.position.stones.items() if square_name(sq) != "m4"} | {"l4": "stone"}
    pushed = g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "m5", "stones": seen})
    assert pushed == g.apply({"type": "move", "pawn": "red-2/5", "moves": "WS"})


def test_pawn_at_ambiguous_pushes_ask_for_the_move():
    g = red_25_black_on("n5")          # N W pushes m4 west to l4; W N pushes it north to m3
    with pytest.raises(GameActionError, match=r"red 2/5 can reach m4 in ways that push stones differently "
                                              r"\((NW, WN|WN, NW)\); enter the move itself \(P7\)"):
        g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "m4"})


# -- referee corrections --------------------------------------------------------
def test_correct_corrects_the_board_and_keeps_the_turn():
    g = new(2).apply({"type": "move", "pawn": "red-2/5", "moves": "IWWWW"})
    fixed = put(g, {"red-2/5": "k10"})
    assert fixed.position.pawn("red-2/5").where() == "k10"
    assert fixed.to_move == "blue" and fixed.unmoved == g.unmoved and str(fixed.note) == CORRECTED


def test_correct_pawn_put_out_counts_and_can_win():
    g = new(2)
    g = put(g, {"blue-6/1": "out", "blue-4/3": "out"})
    assert g.out_log == ("blue", "blue") and "blue-6/1" not in g.unmoved
    g = put(g, {"blue-6/1": "waiting"})          # a wrong reading undone
    assert g.out_log == ("blue",) and g.out_counts()["blue"] == 1
    g = put(g, {"blue-6/1": "out", "blue-3/4": "out"})
    assert g.phase == "over" and g.winner == "blue" and g.end_rule == "G2"


def test_correct_removing_the_last_unmoved_pawns_hands_over_to_the_monster():
    g = new(2)
    for label in ("red-6/1", "blue-6/1", "red-4/3", "blue-4/3", "red-3/4", "blue-3/4", "red-2/5"):
        g = g.apply({"type": "move", "pawn": label, "moves": ""})
    assert g.to_move == "blue" and g.unmoved == ("blue-2/5",)
    g = put(g, {"blue-2/5": "gone"})
    assert g.phase == "monster" and g.to_move is None


def test_correct_is_an_action_of_its_own_with_a_json_form():
    g = new(2)
    fixed = put(g, {"red-2/5": "k10"})
    assert g.apply({"type": "correct", "position": fixed.position.to_setup()}) == fixed
    with pytest.raises(InvalidSetupError) as err:
        g.apply({"type": "correct", "position": {"monster": {"at": "z1", "facing": "E"}}})
    assert err.value.field == "position.monster.at"


def test_correct_must_hold_the_games_pawns():
    g = new(2)
    other = new(3).position
    with pytest.raises(InvalidSetupError, match="this game's pawns"):
        g.apply(Correct(other))


# -- audit regressions ------------------------------------------------------------
def test_correct_refuses_a_pawn_with_another_colour_or_number():
    g = new(2)
    for change in ({"colour": "green"}, {"kind": "4/3"}):
        pawn = replace(g.position.pawn("red-6/1"), **change)
        with pytest.raises(InvalidSetupError, match="this game's pawns"):
            g.apply(Correct(g.position.with_pawn(pawn)))


def test_g3_no_pawn_left_in_play_goes_straight_to_the_monster():
    """Only a referee correction can take every pawn out of play in round 1; the game must not get stuck."""
    g = new(2)
    g = put(g, {p.label: "gone" for p in g.position.pawns if p.label != "red-6/1"} | {"red-6/1": "out"})
    assert g.phase == "monster"
    g = g.apply({"type": "draw"})
    assert g.phase == "monster" and g.to_move is None and "No pawn is left to move" in str(g.note)
    status = g.summary()   # wording data: the monster phase's status line, round 1, turn 2
    assert "every pawn has moved" in status.template and (status.params["round"], status.params["turn"]) == (1, 2)


def test_g10_round_2_starting_with_no_pawn_in_play_ends_the_game():
    g = stay_all(new(2))
    g = replace(g, deck=("8", "7"), tiles_played=("5", "7", "8", "10", "prey-1", "prey-2"))
    g = put(g, {p.label: "gone" for p in g.position.pawns if p.label != "red-6/1"} | {"red-6/1": "out"})
    g = g.apply({"type": "tile", "tile": "8"})
    assert g.phase == "over" and g.round == 2 and g.end_rule == "G10" and g.winner == "red"



def test_monster_refuses_to_move_on_an_impossible_board_instead_of_crashing():
    g = stay_all(new(2))
    g = put(g, {"red-6/1": "k5", "red-4/3": "k5"})   # a referee correction gone wrong
    assert g.preview() == {}
    before = g.to_json()
    for action in ({"type": "draw"}, {"type": "tile", "tile": "8"}):
        with pytest.raises(GameActionError, match="red 6/1 and pawn red 4/3 are both on k5") as err:
            g.apply(action)
        assert err.value.rule == "P4"
    assert g.to_json() == before
    g = put(g, {"red-4/3": "k6"})
    assert g.preview() and g.apply({"type": "draw"}).turn == 2


def test_pawn_at_out_in_capitals_and_the_pawn_by_its_plain_name():
    g = put(new(2), {"red-2/5": "a1"}, monster="h6")
    by_label = g.apply({"type": "move", "pawn": "red-2/5", "moves": "X"})
    assert g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "OUT"}) == by_label
    assert g.apply({"type": "pawn-at", "pawn": "red 2/5", "square": "out"}) == by_label


def test_pawn_at_with_stones_seen_wrongly_says_the_stones_not_the_square():
    g = new(2)
    seen = {square_name(sq): k for sq, k in g.position.stones.items() if square_name(sq) != "m4"}   # m4 missing
    with pytest.raises(GameActionError, match=r"red 2/5 can reach m11, but no legal move leaves the stones as they "
                                              r"were seen.*\(P7\)"):
        g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": "m11", "stones": seen})


@pytest.mark.parametrize("where,square,reason,rule", [
    ({"red-2/5": "k5", "blue-6/1": "k6"}, "k6", "k6 holds blue 6/1", "P4"),
    ({"red-2/5": "k5"}, "k4", "the monster stands on k4", "P5"),
    ({"red-2/5": "k5"}, None, "a pawn on the board never goes back beside it", "P2"),
])
def test_pawn_at_a_forbidden_square_says_why(where, square, reason, rule):
    g = new(2)
    pawn = replace(g.position.pawn("red-2/5"), face="black")
    g = put(g.apply(Correct(g.position.with_pawn(pawn))), where, monster="k4")
    with pytest.raises(GameActionError, match=reason) as err:
        g.apply({"type": "pawn-at", "pawn": "red-2/5", "square": square})
    assert err.value.rule == rule and "red 2/5 cannot legally end its move" in str(err.value)


def test_g4_note_says_why_a_pawn_stays_beside_the_board_in_the_first_turn():
    g = new(2)
    for label, moves in (("red-6/1", "I"), ("blue-6/1", ""), ("red-4/3", "IN"), ("blue-4/3", "")):
        g = g.apply({"type": "move", "pawn": label, "moves": moves})
    assert "(G5)" in str(g.note)   # blue chose to stay beside the board
    g = g.apply({"type": "move", "pawn": "red-3/4", "moves": ""})
    assert str(g.note) == "red 3/4 stays beside the board (G4: red already brought 2 pawns in) and is flipped (G3)."
