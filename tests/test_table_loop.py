"""The camera-driven table loop (TABLE.md): modes, the one gate, the tile trigger, the follow-up, refusals.

The session is real (SQLite, engine); the camera is ``FakeCamera``, which feeds each reading
through the worker's real stable-frame gate into the session, as the worker thread does.
"""
from __future__ import annotations

import copy

import pytest

from companion_app.table.devices.fakes import FakeCamera, FakeLeds, FakeReading
from engine.actions import parse_action
from engine.deck import tile_words
from engine.errors import GameActionError
from web_helpers import session_with, show_table


def _started(tmp_path, mode="auto", players=("red", "blue"), seed=8):
    camera, leds = FakeCamera(), FakeLeds()
    s = session_with(tmp_path, camera=camera, leds=leds, mode=mode)
    s.new_game(list(players), players[0], seed=seed)
    return s, camera, leds


def _entered(s, label, face="black"):
    """The table after pawn ``label`` entered onto p11 (flipped: P1)."""
    seen = s.game.position.to_setup()
    pawn = seen["pawns"][label]
    pawn.update(at="p11", face=face)
    return seen


def test_no_game_means_nothing_to_confirm(tmp_path):
    camera = FakeCamera()
    s = session_with(tmp_path, camera=camera)
    camera.reading = FakeReading(True, {"monster": {"at": "a1", "facing": "E"}})
    view = s.camera_view()
    assert view["can_confirm"] is False and view["differences"] == []
    assert str(view["why_not"]) == "No game is running yet: start a new game from the referee view"


def test_new_game_waits_for_the_setup_then_auto_applies_a_move_with_an_undo(tmp_path):
    s, camera, leds = _started(tmp_path)
    wrong = s.game.position.to_setup()
    stone = next(iter(wrong["stones"]))
    del wrong["stones"][stone]
    camera.reading = FakeReading(True, wrong)
    view = s.camera_view()
    assert str(view["follow"]["why"]) == "Set up the board for the new game"
    kind = s.game.position.to_setup()["stones"][stone]
    assert [str(f["text"]) for f in view["follow"]["fixes"]] == [f"put a {kind} on {stone}"]
    assert leds.calls[-1] == ("follow", {"empty": [], "fill": [stone]})
    show_table(camera, s)
    assert s.follow is None and str(s.state()["log"][-1]["text"]).startswith("The table matches the game")
    camera.reading = FakeReading(True, _entered(s, "red-6/1"))
    assert s.game.position.pawn("red-6/1").where() == "p11"          # applied at once (auto)
    view = s.camera_view()
    assert str(view["applied"][-1]["text"]).startswith("red 6/1 went from beside the board to p11")   # (its English)
    assert s.store.history(s.game_id)[-1].action["by"] == "camera"
    s.undo()                                                         # the referee's Undo
    assert s.game.position.pawn("red-6/1").place == "waiting"
    view = s.camera_view()                                           # the table still shows the move
    assert [str(f["text"]) for f in view["follow"]["fixes"]] == ["take red 6/1 from p11 back beside the board"]
    assert s.game.position.pawn("red-6/1").place == "waiting"        # not applied again by itself


def test_confirm_mode_proposes_and_the_screen_applies(tmp_path):
    s, camera, _ = _started(tmp_path, mode="confirm")
    show_table(camera, s)
    camera.reading = FakeReading(True, _entered(s, "red-2/5"))
    view = s.camera_view()
    assert view["can_confirm"] and view["proposal"]["action"] == {"type": "move", "pawn": "red-2/5", "moves": "I"}
    assert s.game.position.pawn("red-2/5").place == "waiting"        # proposed, not applied
    state = s.confirm_reading(expect=parse_action(view["proposal"]["action"]))   # typed at the web edge
    assert state["position"]["pawns"]["red-2/5"]["at"] == "p11" and state["to_move"] == "blue"


def test_a_hand_in_motion_is_never_a_move(tmp_path):
    s, camera, _ = _started(tmp_path)
    show_table(camera, s)
    hand = [{"code": "occluded", "message": "something covers the board over 6 squares (p11 …)", "square": "p11"}]
    for frame in range(6):       # the pawn is seen under a moving hand: frames differ and carry a problem
        seen = _entered(s, "red-6/1") if frame % 2 else s.game.position.to_setup()
        camera.show(FakeReading(True, seen, problems=hand), frames=1)
    assert s.game.position.pawn("red-6/1").place == "waiting"
    view = s.camera_view()
    assert not view["can_confirm"] and "something covers the board" in str(view["why_not"])
    for frame in range(2):       # still, but not yet for stable_frames frames
        camera.show(FakeReading(True, _entered(s, "red-6/1")), frames=1)
        assert s.game.position.pawn("red-6/1").place == "waiting"
    camera.show(FakeReading(True, _entered(s, "red-6/1")), frames=1)
    assert s.game.position.pawn("red-6/1").where() == "p11"


def test_an_ambiguous_change_is_asked_not_guessed(tmp_path):
    """Red's pawn may have entered onto p11, which the camera cannot see: it asks to uncover p11."""
    s, camera, leds = _started(tmp_path, mode="auto")
    show_table(camera, s)
    seen = s.game.position.to_setup()
    camera.reading = FakeReading(True, seen, problems=[
        {"code": "hidden-square", "message": "p11 is hidden behind a piece", "square": "p11"}])
    view = s.camera_view()
    assert not view["can_confirm"] and "uncover p11" in str(view["why_not"]), view["why_not"]
    assert view["uncover"] == "p11"          # the square the referee view marks
    assert view["change"]["kind"] == "ask" and ("error", None) not in leds.calls
    assert s.seq == 0
    with pytest.raises(GameActionError, match="uncover p11"):
        s.confirm_reading()


def test_an_illegal_move_is_refused_shown_and_never_applied(tmp_path):
    s, camera, leds = _started(tmp_path)
    show_table(camera, s)
    seen = _entered(s, "blue-6/1")            # blue moves, but it is red's turn (G3)
    camera.reading = FakeReading(True, seen)
    view = s.camera_view()
    assert view["change"]["kind"] == "refused" and not view["can_confirm"]
    assert "no legal change explains" in str(view["why_not"]) and leds.calls[-1] == ("error", None)
    assert s.game.position.pawn("blue-6/1").place == "waiting" and s.seq == 0
    assert s.store.readings(s.game_id)[-1]["outcome"] == str(view["why_not"])
    show_table(camera, s)                     # the pawn is taken back: the blink ends
    assert leds.calls[-1][0] == "idle"


def _to_monster_phase(s, camera):
    """Every pawn enters or stays through the camera until the monster's turn."""
    while s.game.phase == "pawns":
        game = s.game
        label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        target = game.targets(label)[0]          # stay beside the board: nothing visible changes
        s.act({"type": "move", "pawn": label, "moves": target["moves"]}, by="camera")
    show_table(camera, s)


def test_a_monster_move_made_again_after_an_undo_is_animated_on_the_leds_again(tmp_path):
    s, camera, leds = _started(tmp_path)
    show_table(camera, s)
    _to_monster_phase(s, camera)
    before = s.game.position.to_setup()
    tile = next(t for t in s.game.deck if not t.startswith("prey"))
    camera.reading = FakeReading(True, before, tile=tile)
    assert [c[0] for c in leds.calls].count("plan") == 1
    s.undo()                                                      # the same seq comes again with the next move
    show_table(camera, s)                                         # the tile taken away, the table as before
    camera.reading = FakeReading(True, before, tile=tile)
    assert s.game.tiles_played == (tile,)
    assert [c[0] for c in leds.calls].count("plan") == 2


def test_a_pool_hidden_under_a_pawn_is_no_difference_after_the_monster_moved(tmp_path):
    """The camera reads no pool (a pawn over its sticker): the game's pools stand (B1), so the
    follow-up after the monster's move is done without laying one; a pool seen where the game has
    none is a difference to put right."""
    s, camera, leds = _started(tmp_path)
    show_table(camera, s)
    _to_monster_phase(s, camera)
    before = s.game.position.to_setup()
    assert before["pools"]
    tile = next(t for t in s.game.deck if not t.startswith("prey"))
    camera.reading = FakeReading(True, {**before, "pools": []}, tile=tile)
    assert s.game.tiles_played == (tile,) and s.follow == "monster"
    after = s.game.position.to_setup()
    busy = set(after["pools"]) | set(after["stones"]) | {after["monster"]["at"]}
    extra = next(sq for sq in ("d3", "d4", "e3", "e4", "d5", "f6") if sq not in busy)
    camera.reading = FakeReading(True, {**after, "pools": [*after["pools"], extra]}, tile=tile)
    assert [str(f["text"]) for f in s.camera_view()["follow"]["fixes"]] == [f"take the pool off {extra}"]
    camera.reading = FakeReading(True, {**after, "pools": []}, tile=tile)
    assert s.follow is None and s.camera_view()["follow"] is None


def test_a_tile_in_the_deck_resolves_the_monster_and_the_follow_up_is_checked(tmp_path):
    s, camera, leds = _started(tmp_path, mode="confirm")
    show_table(camera, s)
    _to_monster_phase(s, camera)
    before = s.game.position.to_setup()
    tile = next(t for t in s.game.deck if not t.startswith("prey"))
    camera.reading = FakeReading(True, before, tile=tile)         # laid in the card zone: no click needed
    assert s.game.tiles_played == (tile,) and s.game.phase == "pawns"
    assert any(c[0] == "plan" for c in leds.calls)
    after = s.game.position.to_setup()
    assert after["monster"] != before["monster"]
    view = s.camera_view()
    assert any(f["what"] == "monster" for f in view["follow"]["fixes"]), view["follow"]["fixes"]
    assert str(view["follow"]["why"]) == "Bring the table into the position after the monster's move"
    assert leds.calls[-1][0] == "follow" and after["monster"]["at"] in leds.calls[-1][1]["fill"]
    wrong = copy.deepcopy(after)
    wrong["monster"]["facing"] = {"N": "S", "S": "N", "E": "W", "W": "E"}[after["monster"]["facing"]]
    camera.reading = FakeReading(True, wrong, tile=tile)          # a wrong follow-up: flagged until corrected
    view = s.camera_view()
    assert [str(f["text"]) for f in view["follow"]["fixes"]] == [f"turn the monster to face {after['monster']['facing']}"]
    assert not view["can_confirm"] and s.follow == "monster"
    camera.reading = FakeReading(True, after, tile=tile)
    assert s.follow is None and s.camera_view()["follow"] is None
    assert "The table matches the game: the pawn phase begins." in [str(e["text"]) for e in s.state()["log"]]


def test_a_tile_not_in_the_deck_is_refused_with_the_error_blink(tmp_path):
    s, camera, leds = _started(tmp_path, mode="auto")
    show_table(camera, s)
    _to_monster_phase(s, camera)
    first = next(t for t in s.game.deck if not t.startswith("prey"))
    s.act({"type": "tile", "tile": first}, by="referee")
    show_table(camera, s)
    _to_monster_phase(s, camera)
    played = s.game.position.to_setup()
    # an already played tile: take a tile that is no longer in the deck at all
    gone = next(t for t in ("5", "10", "prey-1", "prey-2", "7", "8") if t not in s.game.deck)
    camera.reading = FakeReading(True, played, tile=gone)
    view = s.camera_view()
    assert view["change"]["kind"] == "refused" and "is not in the deck" in str(view["why_not"])
    assert leds.calls[-1] == ("error", None) and len(s.game.tiles_played) == 1


@pytest.mark.parametrize("mode", ["confirm", "auto"])
def test_the_confirm_button_on_gpiozero_mock_pins(tmp_path, mode):
    from web_helpers import confirm_button

    s, camera, leds = _started(tmp_path, mode=mode)
    press = confirm_button(s)

    try:
        show_table(camera, s)
        press()                                        # nothing to confirm: refused, the LEDs blink
        assert leds.calls[-1] == ("error", None) and s.seq == 0
        assert "nothing" in s.buttons.obj.last_error or "moves" in s.buttons.obj.last_error
        camera.reading = FakeReading(True, _entered(s, "red-6/1"))
        if mode == "confirm":
            assert s.game.position.pawn("red-6/1").place == "waiting"
            press()
        assert s.game.position.pawn("red-6/1").where() == "p11"
        assert s.store.history(s.game_id)[-1].action["by"] == ("camera+button" if mode == "confirm" else "camera")
    finally:
        s.close()


def test_the_reset_between_rounds_has_its_own_guidance_until_the_card_zone_is_clear(tmp_path):
    """G9: the monster move that ends round 1 asks for the position after it *and* round 2's deck built
    from all 8 tiles; a tile still lying in the card zone keeps the follow-up open (it would be read as
    round 2's first tile), which an ordinary monster follow-up does not ask."""
    from web_helpers import play_pawn_phase

    s, camera, leds = _started(tmp_path, mode="auto")
    while len(s.game.tiles_played) < 6:                  # the referee plays round 1 up to its last tile
        play_pawn_phase(s)
        s.act({"type": "draw"})
    play_pawn_phase(s)
    assert s.game.round == 1 and s.game.phase == "monster"
    show_table(camera, s)
    before = s.game.position.to_setup()
    tile = s.game.deck[0]
    camera.reading = FakeReading(True, before, tile=tile)          # the 7th tile of round 1, laid
    assert s.game.round == 2 and s.follow == "round"
    after = s.game.position.to_setup()
    camera.reading = FakeReading(True, after, tile=tile)           # pieces right, the tile still there
    view = s.camera_view()
    assert str(view["follow"]["why"]).startswith("Round 1 is over (G9)")
    texts = [str(f["text"]) for f in view["follow"]["fixes"]]
    assert texts == [f"take the tile {tile_words(tile)} out of the card zone and shuffle all 8 tombstone tiles "
                     "into a new face-down deck for round 2 (G9)"], texts
    assert not view["follow"]["done"] and not view["can_confirm"]
    assert "Round 1 is over" in str(view["why_not"])
    camera.reading = FakeReading(True, after)                       # the card zone is clear
    assert s.follow is None and s.camera_view()["follow"] is None
    assert s.game.round == 2 and s.game.tiles_played == ()          # nothing was read as a round-2 tile
