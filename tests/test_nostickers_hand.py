"""A hand over the board is never read as a change without stickers (issue 27; NOSTICKERS.md: refuse rather than guess).

Single frames of the simulated table drawn without stickers (``SimulatedCamera(stickers=False)``) with a
player's hand and arm over a square (``PhysicalTable.hand_over``), each read by the table's reader
(``PiecesReader`` against ``allowed_now``) and judged as the table judges it (``judge.reconcile_observation``).
At the table the stable-frame gate waits while a hand is over the board, but the reader alone (one frame,
``flure vision explain --pieces`` with one photo) must never accept a change nobody made.  The frames below
were found by sweeping a hand over every square of advanced-setup tables of several looks: a finger read as a
stone tile, a skin or sleeve the pools' colour read as a pool put down (``looks.occluded``: under a hand no face
is trusted, and no pool is read).  The same tiles truly put down, with no hand, are still read.
"""
from __future__ import annotations

import pytest

from companion_app.table.camera.judge import reconcile_observation
from companion_app.table.camera.nostickers import PiecesReader, allowed_now
from companion_app.table.camera.port import Prior
from engine.game import Game
from engine.geometry import COLS, SQUARES, parse_square, square_name
from engine.placement import parse_placement
from engine.reconcile_place import legal_placements
from test_nostickers_tiles import _taught  # each look's box, taught once
from vision.change import observe
from vision.nostickers import Pieces, explain_change
from vision.twin.table import PhysicalTable, SimulatedCamera


def _advanced(seed: int, placed: int) -> Game:
    """An advanced game (A1) with ``placed`` pieces put down (A2), each a legal placement picked by ``seed``."""
    game = Game.new(["red", "blue"], seed=seed, setup="advanced")
    for i in range(placed):
        options = sorted(legal_placements(game.position, dict(game.pieces_left)),
                         key=lambda c: (c.place.piece, c.place.square))
        game = game.apply(options[(i * 37 + seed * 11) % len(options)].place)
    return game


def _judged(pieces: Pieces, game: Game, table: PhysicalTable, look: int):
    """(the table's answer to one frame of ``table``, the reading); the answer is None when the reading
    itself blocks (nothing to reconcile)."""
    frame = SimulatedCamera(table, seed=look, stickers=False, look_seed=look).read()
    reading = PiecesReader(pieces, lambda: allowed_now(Prior.of(game))).read(frame)
    observation, blocking = observe(reading)
    if blocking:
        return None, reading
    return reconcile_observation(game, observation, ([reading], None, None)), reading


# (look, game seed, pieces placed, the hand's square, what the old reader accepted there)
FOUND = [
    (9, 9, 3, "k8", "stone on l11"),              # a finger over l11 read as a plain stone tile
    (9, 9, 0, "g3", "pool-2x2 on i3"),            # the hand's skin the pools' colour, a pool's size
    (9, 0, 6, "m5", "pivot-right on m8"),
    (7, 0, 0, "b4", "stone on b3"),
]


@pytest.mark.parametrize("look, seed, placed, hand, was", FOUND)
def test_a_hand_over_the_advanced_setup_is_never_read_as_a_placement(look, seed, placed, hand, was):
    game = _advanced(seed, placed)
    table = PhysicalTable(game.position, seed=look)
    table.hand_over(hand)
    result, reading = _judged(_taught(look), game, table, look)
    if result is not None and result.accepted:
        assert result.after == game.position, (f"accepted {result.place} under a hand over {hand} "
                                               f"(it once was {was})")
    assert reading.unseen.get(parse_square(hand)) == "occluded", reading.unseen
    square = parse_square(was.split(" on ")[1])
    assert square not in reading.read, f"{square_name(square)} read as {reading.read[square]} under the hand"


@pytest.mark.parametrize("look, seed, placed, piece, square", [(9, 9, 3, "stone", "l11"), (9, 9, 0, "pool-2x2", "i3"),
                                                               (7, 0, 0, "stone", "b3")])
def test_the_same_tiles_truly_put_down_with_no_hand_are_read(look, seed, placed, piece, square):
    game = _advanced(seed, placed)
    place = next(c.place for c in legal_placements(game.position, {piece: 1})
                 if c.place.piece == piece and c.place.square == square)
    table = PhysicalTable(game.position, seed=look)
    placement = parse_placement(place, game.position)
    table.put_piece(placement.piece, placement.squares, arrow=placement.arrow, pair=placement.pair)
    result, _reading = _judged(_taught(look), game, table, look)
    assert result is not None and result.accepted and result.place == place, \
        None if result is None else [p.message for p in result.problems]
    # … and with the hand back over a far square, that one frame is refused or read right, never wrong
    at = parse_square(square)
    table.hand_over(max(SQUARES, key=lambda sq: (sq % COLS - at % COLS) ** 2 + (sq // COLS - at // COLS) ** 2))
    result, _reading = _judged(_taught(look), game, table, look)
    assert result is None or not result.accepted or result.after == game.apply(place).position


def test_a_hand_over_the_pawns_in_one_photo_is_never_read_as_a_move():
    """The pawn phase, ``flure vision explain --pieces`` with one photo: a hand over the board while no pawn
    moved, and while one did, is refused or read right."""
    look = 9
    pieces = _taught(look)
    game = Game.new(["red", "blue"], seed=look)
    game = game.apply({"type": "move", "pawn": "red-3/4", "moves": next(
        t["moves"] for t in game.targets("red-3/4") if t["square"] == "o10")})
    moved = next(t for t in game.targets("blue-3/4") if t["square"] not in (None, "out"))
    after = game.apply({"type": "move", "pawn": "blue-3/4", "moves": moved["moves"]}).position
    for position, hand in ((game.position, "o10"), (game.position, "h5"), (after, "n10"), (after, moved["square"])):
        table = PhysicalTable(position, seed=look)
        table.hand_over(hand)
        image = SimulatedCamera(table, seed=look, stickers=False, look_seed=look).read()
        answer = explain_change(game.position, [image], pieces, player=game.to_move)
        assert not answer.accepted or answer.after == position, (hand, answer.to_json())


def test_a_patch_of_the_pools_colours_larger_than_a_pool_tile_is_no_pool():
    """``tiles.pool_sized``, which keeps a sleeve of the pools' colour that reaches past a pool tile from being
    read as a pool where the arm is not taken for a hand: a patch of a 2 × 2 pool's size is a pool, one over
    2 × 3 squares is not."""
    import numpy as np

    from vision.nostickers import looks as L
    from vision.nostickers.tiles import pool_sized

    canvas = _taught(9).board.canvas
    ref = np.full((canvas.height, canvas.width, 3), 128.0, np.float32)
    palette = np.array([[90.0, 170.0, 160.0]], np.float32)

    def patch(names):
        frame = ref.copy()
        for sq in map(parse_square, names):
            x0, y0, x1, y1 = L.square_box(canvas, sq, (L.SQUARE_MM - L.MIDDLE_MM) / 2 - 1.0)
            frame[y0:y1, x0:x1] = palette[0]
        return sorted(pool_sized(frame, ref, canvas, sorted(map(parse_square, names)), palette))

    pool = ["g5", "h5", "g6", "h6"]
    assert patch(pool) == sorted(map(parse_square, pool))
    assert patch([*pool, "i5", "i6"]) == []
