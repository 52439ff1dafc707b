"""The advanced setup read by the camera (A1, A2; TABLE.md): the loop turns a stable reading that
shows exactly one new piece into the engine's ``place`` action through the one gate, guides
whose turn it is to place and what is left, and lists what to put right when the table shows
no legal placement.

The session is real (SQLite, engine); the camera is ``FakeCamera``, which feeds each reading
through the worker's real stable-frame gate into the session, as the worker thread does.
"""
from __future__ import annotations

import copy

import pytest

from companion_app.table.devices.fakes import FakeCamera, FakeLeds, FakeReading
from engine.actions import parse_action
from engine.errors import GameActionError
from engine.reconcile_place import legal_placements
from web_helpers import each_language, session_with, show_table


def _advanced(tmp_path, mode="auto", players=("red", "blue")):
    camera, leds = FakeCamera(), FakeLeds()
    s = session_with(tmp_path, camera=camera, leds=leds, mode=mode)
    s.new_game(list(players), players[0], setup="advanced", seed=4)
    show_table(camera, s)                 # the empty board, the monster waiting on a1: the setup is done
    assert s.follow is None
    return s, camera, leds


def _with(s, *, stones=None, teleporters=None, pools=None) -> dict:
    """The game's position with pieces added (setup JSON), as the camera would read the table."""
    seen = copy.deepcopy(s.game.position.to_setup())
    seen["stones"].update(stones or {})
    seen["teleporters"].update(teleporters or {})
    seen["pools"] = sorted(set(seen["pools"]) | set(pools or ()))
    return seen


def test_the_guidance_says_who_places_and_what_is_left_in_every_language(tmp_path):
    s, camera, _ = _advanced(tmp_path)
    view = s.camera_view()
    guide = view["placement"]
    assert guide["placer"] == "red" and sum(guide["left"].values()) == 17
    assert guide["text"] == s.game.summary() and view["why_not"] == s.game.summary()
    said = each_language(guide["text"])            # wording data: each screen says it in its language
    assert said["en"] == str(guide["text"]) and len(set(said.values())) == 4
    assert "rouge" in said["fr"] and "A2" in said["de"]
    assert "on the referee view" not in str(view["why_not"])            # the old limitation is gone
    assert not view["can_confirm"] and view["change"]["kind"] == "wait"


def test_auto_mode_places_the_piece_the_camera_sees_with_an_undo(tmp_path):
    s, camera, leds = _advanced(tmp_path)
    camera.reading = FakeReading(True, _with(s, stones={"g7": "crystal"}))
    assert s.game.position.to_setup()["stones"] == {"g7": "crystal"}          # applied at once (auto)
    step = s.store.history(s.game_id)[-1]
    assert step.action == {"type": "place", "piece": "crystal", "square": "g7", "by": "camera"}
    view = s.camera_view()
    assert str(view["applied"][-1]["text"]) == "red placed a crystal on g7 (A2)"
    assert view["placement"]["placer"] == "blue" and view["placement"]["left"]["crystal"] == 1
    s.undo()                                                                 # the referee's Undo
    assert s.game.position.to_setup()["stones"] == {} and s.game.placer == "red"
    view = s.camera_view()                                                   # the table still shows it
    assert [str(f["text"]) for f in view["follow"]["fixes"]] == ["take the crystal off g7"]
    assert s.game.position.to_setup()["stones"] == {}                        # not applied again by itself
    assert leds.calls[-1] == ("follow", {"empty": ["g7"], "fill": []})


def test_confirm_mode_proposes_and_the_screen_applies(tmp_path):
    s, camera, _ = _advanced(tmp_path, mode="confirm")
    camera.reading = FakeReading(True, _with(s, teleporters={"h5": {"pair": 2, "arrow": "W"}}))
    view = s.camera_view()
    action = {"type": "place", "piece": "teleporter", "square": "h5", "arrow": "W", "pair": 2}
    assert view["can_confirm"] and view["proposal"]["action"] == action
    assert str(view["proposal"]["message"]) == "red placed a teleporter on h5 (pair 2, arrow W) (A2)"
    assert s.game.position.teleporters == {}                                 # proposed, not applied
    state = s.confirm_reading(expect=parse_action(action))
    assert state["position"]["teleporters"] == {"h5": {"pair": 2, "arrow": "W"}} and state["placer"] == "blue"
    assert s.store.history(s.game_id)[-1].action["by"] == "camera+screen"


@pytest.mark.parametrize("mode", ["confirm", "auto"])
def test_the_confirm_button_places_on_gpiozero_mock_pins(tmp_path, mode):
    from web_helpers import confirm_button

    s, camera, leds = _advanced(tmp_path, mode=mode)
    press = confirm_button(s)

    try:
        press()                                        # nothing placed yet: refused, the LEDs blink
        assert leds.calls[-1] == ("error", None) and s.seq == 0
        assert "places the next piece" in s.buttons.obj.last_error
        camera.reading = FakeReading(True, _with(s, pools=["e5", "f5", "e6", "f6"]))
        if mode == "confirm":
            assert s.game.position.pools == frozenset()
            press()
        assert s.store.history(s.game_id)[-1].action == {"type": "place", "piece": "pool-2x2", "square": "e5",
                                                         "by": "camera+button" if mode == "confirm" else "camera"}
    finally:
        s.close()


def test_two_pieces_at_once_are_refused_shown_in_plain_words_and_never_applied(tmp_path):
    s, camera, leds = _advanced(tmp_path)
    camera.reading = FakeReading(True, _with(s, stones={"e4": "stone", "k8": "pivot-right"}))
    view = s.camera_view()
    assert view["change"]["kind"] == "refused" and not view["can_confirm"] and s.seq == 0
    assert "one piece at a time" in str(view["why_not"]) and "(A2)" in str(view["why_not"])
    said = each_language(view["why_not"])                  # the refusal in every language (engine.wording)
    assert said["en"] == str(view["why_not"]) and "une pièce à la fois" in said["fr"] and "Drehstein" in said["de"]
    assert all("e4" in t and "k8" in t and "(A2)" in t for t in said.values())
    assert "no legal" not in said["es"] and "piedra de giro" in said["es"]
    assert leds.calls[-2:] == [("error", None), ("follow", {"empty": ["e4", "k8"], "fill": []})]
    follow = view["placement"]["follow"]
    assert [str(f["text"]) for f in follow["fixes"]] == ["take the stone off e4", "take the right-turn pivot stone off k8"]
    assert follow["empty"] == ["e4", "k8"] and view["follow"] is None
    assert s.store.readings(s.game_id)[-1]["outcome"] == str(view["why_not"])
    camera.reading = FakeReading(True, _with(s, stones={"k8": "pivot-right"}))   # one taken back: placed
    assert s.game.position.to_setup()["stones"] == {"k8": "pivot-right"} and s.seq == 1
    assert s.camera_view()["placement"]["follow"] is None


def test_a_piece_where_the_rules_forbid_is_refused_with_its_rule(tmp_path):
    s, camera, leds = _advanced(tmp_path)
    camera.reading = FakeReading(True, _with(s, stones={"b2": "crystal"}))
    view = s.camera_view()
    assert view["change"]["kind"] == "refused" and "b2" in str(view["why_not"]) and "(A2)" in str(view["why_not"])
    assert ("error", None) in leds.calls and s.seq == 0


def test_a_hidden_piece_is_asked_not_guessed(tmp_path):
    """A piece may have been put down on g7, which the camera cannot see: it asks to uncover g7."""
    s, camera, leds = _advanced(tmp_path)
    seen = _with(s, stones={"g7": "crystal"})
    del seen["stones"]["g7"]
    camera.reading = FakeReading(True, seen, problems=[
        {"code": "hidden-square", "message": "g7 is hidden behind a piece", "square": "g7"}])
    view = s.camera_view()
    assert view["change"]["kind"] == "ask" and "uncover g7" in str(view["why_not"]) and s.seq == 0
    assert ("error", None) not in leds.calls
    with pytest.raises(GameActionError, match="uncover g7"):
        s.confirm_reading()


def test_the_whole_setup_read_by_the_camera_starts_the_pawn_phase(tmp_path):
    s, camera, _ = _advanced(tmp_path, players=("red", "blue", "green"))
    placed = 0
    while s.game.phase == "placement":
        options = legal_placements(s.game.position, dict(s.game.pieces_left))
        truth = s.game.apply(options[(placed * 37) % len(options)].place)
        camera.reading = FakeReading(True, truth.position.to_setup())
        assert s.game.position == truth.position, s.camera_view()["why_not"]
        placed += 1
    assert placed == 17 and s.game.phase == "pawns" and s.game.to_move == "green"
    steps = s.store.history(s.game_id)[1:]
    assert [st.action["type"] for st in steps] == ["place"] * 17 and all(st.action["by"] == "camera" for st in steps)
    assert s.follow is None and s.camera_view()["placement"] is None
