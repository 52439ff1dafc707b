"""``flure vision explain``: which legal change rendered pictures show (VISION.md "Reading a change").

Pictures come from the synthetic camera (``vision.twin``, the position after the change)
and from ``vision_outside_renderer``, which shares none of our code.  A hand over a square
is painted with ``vision_helpers.draw_hand``.
"""
from __future__ import annotations

import json
from dataclasses import replace

import cv2
import pytest

import vision_outside_renderer as outside
from companion_app.cli import main
from engine.geometry import parse_square
from engine.pawns import apply_moves
from engine.position import Position
from vision.reader import read_image
from vision.twin.scene import render, render_burst
from vision_helpers import draw_hand

STONES = {s: "stone" for s in "c3 m4 h5 i6 n6 g7 e8 m8 o9 f10 i10".split()}
BEFORE = {"monster": {"at": "a1", "facing": "E"}, "stones": STONES,
          "pools": "i3 j3 i4 j4 e9 f9 g9 h9".split(), "teleporters": {},
          "pawns": {"red-3/4": {"at": "k5", "color": "red", "pawn": "3/4", "face": "black"},
                    "red-2/5": {"at": "l10", "color": "red", "pawn": "2/5", "face": "white"},
                    "blue-6/1": {"at": "d4", "color": "blue", "pawn": "6/1", "face": "white"},
                    "blue-4/3": {"at": None, "color": "blue", "pawn": "4/3", "face": "white"}}}
CAMERA = dict(width=1920, height=1080, height_mm=900, tilt_deg=4, noise=2.0, jpeg_quality=90)


def played(label: str, moves: str) -> Position:
    before = Position.from_setup(BEFORE)
    after = apply_moves(before, label, moves)
    return after.with_pawn(after.pawn(label).flipped())


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """BEFORE.json and a few pictures of the table after a change (written once)."""
    d = tmp_path_factory.mktemp("explain")
    (d / "before.json").write_text(json.dumps(BEFORE))
    before = Position.from_setup(BEFORE)
    moved = played("red-3/4", "NN")                       # k5 -> k3, flipped to white (P1)
    stones = dict(before.stones)
    stones[parse_square("g6")] = stones.pop(parse_square("g7"))
    scenes = {"move": (moved, None), "none": (before, None), "tile": (before, "8"),
              "stone": (replace(before, stones=stones), None)}
    for name, (pos, tile) in scenes.items():
        for k, (img, _truth) in enumerate(render_burst(pos, tile, frames=2, seed=7, **CAMERA)):
            cv2.imwrite(str(d / f"{name}-{k}.png"), img)
    img = cv2.imread(str(d / "move-0.png"))
    cv2.imwrite(str(d / "move-hand.png"), draw_hand(img, read_image(img), over="k3"))
    img = cv2.imread(str(d / "none-0.png"))
    cv2.imwrite(str(d / "none-hand.png"), draw_hand(img, read_image(img), over="k5"))
    return d


def explain(capsys, *args) -> tuple[int, dict | str]:
    code = main(["vision", "explain", *map(str, args)])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else captured.err)


def accepted(answer: dict) -> bool:
    return answer["change"] in ("none", "move", "tile") and not answer["problems"]


def test_a_legal_move_is_read_from_two_frames(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "move-0.png", files / "move-1.png",
                           "--player", "red")
    assert code == 0 and accepted(answer), answer
    assert answer["move"] == {"pawn": "red-3/4", "moves": "NN"}
    assert answer["setup"] == played("red-3/4", "NN").to_setup()
    assert answer["tile"] is None


def test_a_hand_over_the_destination_is_refused(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "move-hand.png", "--player", "red")
    assert code == 0 and not accepted(answer) and answer["change"] == "unexplained"
    assert answer["setup"] is None and "k3" in answer["unseen"]
    square = answer["problems"][0]["square"]      # the one square to uncover, named in the message
    assert square in answer["unseen"] and f"uncover {square}" in answer["problems"][0]["message"]


def test_a_hand_over_a_pawn_that_may_have_stayed_is_ambiguous(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "none-hand.png", "--player", "red")
    assert code == 0 and not accepted(answer)
    assert answer["problems"][0]["code"] == "ambiguous"
    message = answer["problems"][0]["message"]
    assert "red 3/4" in message and "k5" in message and "uncover" in message


def test_a_stone_moved_by_nobody_is_unexplained(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "stone-0.png", "--player", "red")
    assert code == 0 and answer["change"] == "unexplained" and answer["setup"] is None
    message = answer["problems"][0]["message"]
    assert "g7" in message and "g6" in message and "P7" in message


def test_a_tile_laid_in_the_card_zone(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "tile-0.png", files / "tile-1.png",
                           "--player", "red")
    assert code == 0 and accepted(answer)
    assert answer["change"] == "tile" and answer["tile"] == "8"
    assert answer["setup"] == Position.from_setup(BEFORE).to_setup()


def test_nothing_changed(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "none-0.png")
    assert code == 0 and accepted(answer) and answer["change"] == "none" and answer["move"] is None
    assert answer["setup"] == Position.from_setup(BEFORE).to_setup()


def test_frames_that_disagree_are_refused(files, capsys):
    """k3 and k5 are seen two ways: they are unknown, and nothing else tells the move from no move."""
    code, answer = explain(capsys, files / "before.json", files / "none-0.png", files / "move-0.png",
                           "--player", "red")
    assert code == 0 and not accepted(answer) and {"k3", "k5"} <= set(answer["unseen"])
    message = answer["problems"][0]["message"]
    assert answer["problems"][0]["code"] == "ambiguous" and "k3" in message and "frames show it differently" in message


def test_a_square_one_frame_sees_is_seen_though_a_hand_covers_it_in_another(files, capsys):
    """Frames agree square by square: the hand over k3 in one frame, k3 seen in the other."""
    code, answer = explain(capsys, files / "before.json", files / "move-hand.png", files / "move-1.png",
                           "--player", "red")
    assert code == 0 and accepted(answer), answer["problems"]
    assert answer["move"] == {"pawn": "red-3/4", "moves": "NN"} and "k3" not in answer["unseen"]


def test_bad_inputs_exit_2_naming_the_field(files, tmp_path, capsys):
    bad = tmp_path / "before.json"
    bad.write_text(json.dumps({**BEFORE, "monster": {"at": "z9", "facing": "E"}}))
    code, err = explain(capsys, bad, files / "none-0.png")
    assert code == 2 and "monster.at" in err
    bad.write_text(json.dumps({**BEFORE, "pawns": {"A": {"at": "k5", "pawn": "3/4"}}}))
    code, err = explain(capsys, bad, files / "none-0.png")
    assert code == 2 and "BEFORE.pawns.A.color" in err
    bad.write_text("{")
    code, err = explain(capsys, bad, files / "none-0.png")
    assert code == 2 and "not valid JSON" in err
    code, err = explain(capsys, files / "before.json", tmp_path / "missing.png")
    assert code == 2 and "missing.png" in err
    code, err = explain(capsys, files / "before.json", files / "none-0.png", "--player", "pink")
    assert code == 2 and "pink" in err


def test_a_wrong_players_move_is_unexplained(files, capsys):
    code, answer = explain(capsys, files / "before.json", files / "move-0.png", "--player", "blue")
    assert code == 0 and answer["change"] == "unexplained"
    assert "G3" in answer["problems"][0]["message"] and "red 3/4" in answer["problems"][0]["message"]


# -- pictures drawn by the outside renderer (no product code) -----------------------------------

def outside_setup(position: Position) -> dict:
    setup = position.to_setup()
    setup.pop("pools")
    setup["pool_tiles"] = [("2x2", "i3", None), ("1x4", "e9", "horizontal")]
    return setup


@pytest.mark.parametrize("style", ["white-sheet-overhead", "green-felt-grid-tilt", "dim-warm-blur"])
def test_outside_pictures_of_a_move_a_tile_and_an_illegal_change(style, tmp_path, capsys):
    (tmp_path / "before.json").write_text(json.dumps(BEFORE))
    looks = outside.STYLES[style]
    before = Position.from_setup(BEFORE)
    entered = apply_moves(before, "blue-4/3", "INW")   # enters onto p11 and walks to o10 (P2)
    entered = entered.with_pawn(entered.pawn("blue-4/3").flipped())
    two = apply_moves(entered, "blue-6/1", "N")
    two = two.with_pawn(two.pawn("blue-6/1").flipped())
    cases = {"move": (entered, None), "tile": (before, "prey-1"), "two": (two, None)}
    for name, (pos, tile) in cases.items():
        cv2.imwrite(str(tmp_path / f"{name}.png"), outside.render(outside_setup(pos), tile, looks))
    code, answer = explain(capsys, tmp_path / "before.json", tmp_path / "move.png", "--player", "blue")
    assert code == 0 and accepted(answer), answer
    assert answer["move"]["pawn"] == "blue-4/3" and answer["setup"]["pawns"]["blue-4/3"]["at"] == "o10"
    code, answer = explain(capsys, tmp_path / "before.json", tmp_path / "tile.png")
    assert accepted(answer) and answer["change"] == "tile" and answer["tile"] == "prey-1"
    code, answer = explain(capsys, tmp_path / "before.json", tmp_path / "two.png", "--player", "blue")
    assert answer["change"] == "unexplained" and "G3" in answer["problems"][0]["message"]


def outside_move_scene(seed: int):
    """A random outside position and style, one legal move of a random player, the photo after."""
    import numpy as np

    from engine.reconcile import legal_changes

    rng = np.random.default_rng(3000 + seed)
    setup, _tile = outside.random_setup(rng, SCHEME)
    style = outside.random_fitted_style(rng, SCHEME, flat_share=0.2, max_size=(1920, 1440), slack=(1.15, 1.4))
    before = Position.from_setup(outside.expected_setup(setup), strict=False)
    colours = sorted({p.colour for p in before.pawns})
    if not colours:
        return None
    mover = colours[int(rng.integers(len(colours)))]
    moves = [c for c in legal_changes(before, mover) if c.kind == "move"]
    if not moves:
        return None
    change = moves[int(rng.integers(len(moves)))]
    after = change.after.to_setup()
    after.pop("pools")
    after["pool_tiles"] = setup["pool_tiles"]
    return before, mover, change.after, outside.render(after, None, style, SCHEME)


SCHEME = outside.load()


def test_outside_random_moves_are_read_or_refused_never_wrong():
    """Random positions and camera styles drawn by the outside renderer; one legal move each."""
    from vision.change import explain_readings

    read = 0
    for seed in range(6):
        scene = outside_move_scene(seed)
        if scene is None:
            continue
        before, mover, after, image = scene
        result = explain_readings(before, [read_image(image)], mover)
        assert not result.accepted or result.after == after, (seed, result.to_json())
        read += result.accepted
    assert read >= 3


def test_pieces_on_the_pools_stickers_leave_the_pools_where_the_game_has_them(tmp_path, capsys):
    """A pawn over a pool's sticker hides the pool from the camera: the game still has it (B1)."""
    setup = json.loads(json.dumps(BEFORE))
    setup["pawns"]["blue-6/1"]["at"] = "i3"        # the 2x2 pool's sticker square
    setup["pawns"]["red-2/5"]["at"] = "e9"         # the 1x4 pool's sticker square
    (tmp_path / "before.json").write_text(json.dumps(setup))
    before = Position.from_setup(setup)
    after = apply_moves(before, "red-3/4", "NN")
    after = after.with_pawn(after.pawn("red-3/4").flipped())
    for k, (img, _truth) in enumerate(render_burst(after, None, frames=2, seed=7, **CAMERA)):
        cv2.imwrite(str(tmp_path / f"after-{k}.png"), img)
    code, answer = explain(capsys, tmp_path / "before.json", tmp_path / "after-0.png", tmp_path / "after-1.png",
                           "--player", "red")
    assert code == 0 and accepted(answer), answer["problems"]
    assert answer["setup"] == after.to_setup() and answer["setup"]["pools"] == setup["pools"]


def test_one_pawn_seen_on_two_squares_by_two_frames_is_kept_on_both():
    """Frames that each cover a different square may show one pawn in two places: the combined
    reading keeps both (neither square is taken as empty), so no legal change explains it."""
    from engine.observation import Observation
    from engine.reconcile import reconcile
    from vision.change import agree, observation_json, observe

    before = Position.from_setup(BEFORE)
    moved = played("red-3/4", "NN")
    k3, k5 = parse_square("k3"), parse_square("k5")
    first = Observation.of(before, {k3: "occluded"})       # k5 still shows the pawn
    second = Observation.of(moved, {k5: "occluded"})       # k3 already shows it
    combined = agree([first, second])
    assert combined.seen[k3].pawn is not None and combined.seen[k5].pawn is not None
    seen, problems = observe(observation_json(combined))
    assert seen.seen == combined.seen and seen.unknown == combined.unknown and not problems
    assert not reconcile(before, seen, "red").accepted


def test_a_sticker_blind_decoding_drops_is_read_where_the_game_expects_it(tmp_path, capsys):
    """Prior-guided decoding (vision.guided): a blurred 720p frame where white 2/5's sticker does not
    decode.  Blind, the change is ambiguous; testing the stickers the legal changes expect there reads
    white 2/5 with the face it shows, which only "stayed and flipped" explains (P1).  The other face,
    not expected by any legal change, is never read there."""
    from vision.change import explain_readings
    from vision.guided import guided_look
    from vision.scheme import load_scheme
    from vision.twin.positions import random_position

    after, _tile = random_position(12)
    pawn = after.pawn("white-2/5")
    before = after.with_pawn(pawn.flipped())
    image, _truth = render(after, None, seed=12, width=1280, height=720, height_mm=1150, blur=1.5, noise=3,
                           jpeg_quality=70, tilt_deg=6)
    reading = read_image(image)
    assert reading.unseen.get(pawn.square) == "unread-square"
    assert not explain_readings(before, [reading], "white").accepted
    (tmp_path / "before.json").write_text(json.dumps(before.to_setup()))
    cv2.imwrite(str(tmp_path / "after.png"), image)
    code, answer = explain(capsys, tmp_path / "before.json", tmp_path / "after.png", "--player", "white")
    assert code == 0 and accepted(answer), answer["problems"]
    assert answer["move"]["pawn"] == "white-2/5" and answer["setup"]["pawns"]["white-2/5"]["face"] == pawn.face
    scheme = load_scheme(None)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    faces = {face: {i for i, st in scheme.stickers.items() if st.piece == "pawn" and st.colour == "white"
                    and st.pawn == "2/5" and st.face == face} for face in ("white", "black")}
    other = "white" if pawn.face == "black" else "black"
    assert guided_look(gray, reading.location, scheme, pawn.square, faces[pawn.face]) in faces[pawn.face]
    assert guided_look(gray, reading.location, scheme, pawn.square, faces[other]) is None
