"""The follow-up list: what to do on the table to bring it into the game's position (TABLE.md)."""
from __future__ import annotations

import copy

from engine.game import Game
from engine.position import basic_position
from engine.tablediff import squares_to_change, table_fixes


def _texts(target, seen, unknown=()):
    return [str(f.text) for f in table_fixes(target, seen, unknown)]


def _game_with_pawn_on(square="k5"):
    game = Game.new(["red", "blue"], seed=3)
    setup = game.position.to_setup()
    setup["pawns"]["red-3/4"]["at"] = square
    return setup


def test_same_table_needs_nothing():
    setup = _game_with_pawn_on()
    assert table_fixes(setup, copy.deepcopy(setup)) == ()


def test_pawn_eaten_goes_back_beside_the_board():
    seen = _game_with_pawn_on("k5")
    target = copy.deepcopy(seen)
    target["pawns"]["red-3/4"]["at"] = None
    fixes = table_fixes(target, seen)
    assert [str(f.text) for f in fixes] == ["take red 3/4 from k5 back beside the board"]
    assert squares_to_change(fixes) == (["k5"], [])


def test_pawn_out_and_gone_say_where_it_went():
    seen = _game_with_pawn_on("a1")
    target = copy.deepcopy(seen)
    target["pawns"]["red-3/4"].update(at=None, place="out")
    assert _texts(target, seen) == ["take red 3/4 from a1 off the board: it is out (P3)"]
    target["pawns"]["red-3/4"]["place"] = "gone"
    assert _texts(target, seen) == ["take red 3/4 from a1 off the board: it has left the game (G9)"]


def test_pushed_stone_and_turned_monster():
    target = basic_position().to_setup()
    seen = copy.deepcopy(target)
    stone_at = next(sq for sq, k in target["stones"].items() if k == "stone")
    del seen["stones"][stone_at]
    seen["stones"]["h7" if stone_at != "h7" else "h8"] = "stone"
    seen["monster"]["facing"] = "N" if target["monster"]["facing"] != "N" else "S"
    texts = _texts(target, seen)
    wrong = "h7" if stone_at != "h7" else "h8"
    assert f"move the stone from {wrong} to {stone_at}" in texts
    assert f"turn the monster to face {target['monster']['facing']}" in texts
    assert len(texts) == 2


def test_monster_moved_and_turned_is_one_instruction():
    target = basic_position().to_setup()
    seen = copy.deepcopy(target)
    target["monster"] = {"at": "g9", "facing": "W"}
    seen["monster"] = {"at": "g7", "facing": "E"}
    fixes = table_fixes(target, seen)
    assert [str(f.text) for f in fixes] == ["move the monster from g7 to g9 and turn it to face W"]
    assert fixes[0].facing == "W" and squares_to_change(fixes) == (["g7"], ["g9"])


def test_unknown_square_is_not_a_difference():
    """A pawn behind the monster's figure that the camera could not see is not reported missing."""
    target = _game_with_pawn_on("k5")
    seen = copy.deepcopy(target)
    seen["pawns"]["red-3/4"]["at"] = None
    assert _texts(target, seen, unknown=["k5"]) == []
    assert _texts(target, seen) == ["put red 3/4 on k5, white side up"]


def test_monster_resolution_gives_the_follow_up():
    """After a real monster move, the table as it was before lists exactly the plan's changes."""
    game = Game.new(["red", "blue"], seed=5)
    before = game.position.to_setup()
    after_game = game
    # every pawn stays beside the board (G5), then the monster moves with tile 10
    while after_game.phase == "pawns":
        label = next(x for x in after_game.unmoved if after_game.position.pawn(x).colour == after_game.to_move)
        after_game = after_game.apply({"type": "move", "pawn": label, "moves": ""})
    after_game = after_game.apply({"type": "tile", "tile": "10"})
    target = after_game.position.to_setup()
    before_faces = copy.deepcopy(target)
    before_faces["monster"] = before["monster"]
    before_faces["stones"] = before["stones"]
    fixes = table_fixes(target, before_faces)
    assert fixes, "the monster moved 10 squares: the table must change"
    assert fixes[0].what == "monster" or any(f.what == "monster" for f in fixes)
    assert any(target["monster"]["at"] in f.fill for f in fixes if f.what == "monster")


def test_a_pawn_not_in_the_game_is_taken_off():
    target = _game_with_pawn_on("k5")
    seen = copy.deepcopy(target)
    seen["pawns"]["purple-6/1"] = {"at": "c3", "color": "purple", "pawn": "6/1", "face": "white"}
    assert _texts(target, seen) == ["take purple 6/1 off c3: it is not in this game"]


def test_face_and_move_together():
    target = _game_with_pawn_on("k5")
    seen = copy.deepcopy(target)
    seen["pawns"]["red-3/4"]["face"] = "black"
    assert _texts(target, seen) == ["turn red 3/4 on k5 over to its white side"]
    seen["pawns"]["red-3/4"]["at"] = "k6"
    assert _texts(target, seen) == ["move red 3/4 from k6 to k5, white side up"]


def test_json_form():
    target = basic_position().to_setup()
    seen = copy.deepcopy(target)
    seen["monster"]["facing"] = "W" if target["monster"]["facing"] != "W" else "E"
    (fix,) = table_fixes(target, seen)
    assert fix.to_json() == {"what": "monster", "text": f"turn the monster to face {target['monster']['facing']}",
                             "empty": [], "fill": [target["monster"]["at"]], "facing": target["monster"]["facing"]}
