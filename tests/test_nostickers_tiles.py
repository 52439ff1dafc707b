"""A pool or a teleporter put down at the advanced setup (A1, A2), read without stickers (issue 27).

Frames of the simulated table's twin drawn without stickers (``SimulatedCamera(stickers=False)``), of two
looks of the box (``look_seed``: colours and pictures vary), each box taught from its own teaching
layout's photos; each frame read as the table's reader reads it (``PiecesReader``: ``Reader.read_frame``
and ``pieces_reading`` against ``allowed_now``) and reconciled by the engine (``reconcile_game``) as the
table does.  What is read must be the one placement put down — the pool's shape and orientation, the
teleporter's pair and arrow — and what cannot be told (two pairs alike under this light, an arrow not
seen, a red sleeve over the board, a box taught without its tiles) is never accepted.
"""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from companion_app.table.camera.nostickers import allowed_now, pieces_reading
from companion_app.table.camera.port import Prior
from companion_app.table.simulated.demo import SimulatedRig
from engine.game import Game
from engine.geometry import around, parse_square
from engine.placement import parse_placement
from engine.reconcile import reconcile_game
from engine.reconcile_place import legal_placements
from vision.change import observe
from vision.nostickers import Pieces, PiecesError
from vision.nostickers import looks as L
from vision.nostickers.read import Reader
from vision.nostickers.tiles import POOL_SHARE, TileLooks
from vision.twin.table import PhysicalTable, SimulatedCamera

LOOKS = (5, 6)
_TAUGHT: dict[int, Pieces] = {}


def _taught(look: int) -> Pieces:
    if look not in _TAUGHT:
        game = Game.new(["red", "blue"], seed=look, setup="advanced")
        _TAUGHT[look] = SimulatedRig(SimpleNamespace(game=game), seed=look, stickers=False, look_seed=look).teach()
    return _TAUGHT[look]


def _placement(game, piece: str, **want):
    """The first legal placement of ``piece`` (A2) with the ``want``ed pair, arrow or orientation, on a square
    away from the monster's corner."""
    left = dict(game.pieces_left)
    options = [c.place for c in legal_placements(game.position, {piece: left[piece]})
               if all(getattr(c.place, k) == v for k, v in want.items())]
    return options[len(options) // 3]


def _read(pieces: Pieces, game, place, look: int, *, hand=None):
    """The engine's answer to a frame of the table ``game`` holds with ``place`` put down (and a ``hand``)."""
    table = PhysicalTable(game.position, seed=look)
    if place is not None:
        placement = parse_placement(place, game.position)
        table.put_piece(placement.piece, placement.squares, arrow=placement.arrow, pair=placement.pair)
    table.hand_over(hand)
    frame = SimulatedCamera(table, seed=look, stickers=False, look_seed=look).read()
    prior = allowed_now(Prior.of(game))
    read = Reader(pieces).read_frame(frame, prior.before, prior.allowed)
    reading = pieces_reading(read, prior)              # as ``PiecesReader.read`` gives it
    observation, blocking = observe(reading)
    assert not blocking, blocking
    reading.measured = read.placed                  # what ``tiles.read_placed`` measured, square by square
    return reconcile_game(game, observation), reading


@pytest.mark.parametrize("look, arrows", [(LOOKS[0], ("NS", "EW")), (LOOKS[1], ("EW", "NS"))])
def test_each_pool_and_teleporter_put_down_is_read_as_placed(look, arrows):
    """Each pool shape and orientation, and over the two looks each teleporter pair with each arrow."""
    pieces = _taught(look)
    game = Game.new(["red", "blue"], seed=look, setup="advanced")
    wanted = [("pool-2x2", {}), ("pool-1x4", {"orientation": "horizontal"}), ("pool-1x4", {"orientation": "vertical"})]
    wanted += [("teleporter", {"pair": pair, "arrow": arrow}) for pair in (1, 2) for arrow in arrows[pair - 1]]
    for piece, want in wanted:
        place = _placement(game, piece, **want)
        result, _reading = _read(pieces, game, place, look)
        assert result.accepted and result.place == place, (place, [p.message for p in result.problems])
        assert result.after == game.apply(place).position


def test_a_pool_is_read_beside_the_placed_stones_and_the_other_pool_and_never_where_none_lies():
    """After a few stone tiles, the pool put down among them is read; then the other pool put down right beside
    it (its own patch, not one with the first); the bare board reads no placement."""
    look = LOOKS[0]
    pieces = _taught(look)
    game = Game.new(["red", "blue"], seed=look, setup="advanced")
    for kind in ("crystal", "stone", "pivot-right"):
        game = game.apply(_placement(game, kind))
    place = _placement(game, "pool-2x2")
    result, _reading = _read(pieces, game, place, look)
    assert result.accepted and result.place == place
    game = game.apply(place)
    left = dict(game.pieces_left)
    beside = next(c.place for c in legal_placements(game.position, {"pool-1x4": left["pool-1x4"]})
                  if any(sq in around(p) for sq in parse_placement(c.place, game.position).squares
                         for p in game.position.pools))
    result, _reading = _read(pieces, game, beside, look)
    assert result.accepted and result.place == beside, [p.message for p in result.problems]
    result, _reading = _read(pieces, game, None, look)
    # nothing put down: never a placement read (a square beside the monster's shadow may stay unknown: refused)
    assert not result.accepted or result.change == "none", result


def test_two_pairs_alike_an_arrow_not_seen_or_a_pair_not_taught_is_asked_never_guessed():
    look = LOOKS[0]
    pieces = _taught(look)
    game = Game.new(["red", "blue"], seed=look, setup="advanced")
    taught = pieces.placed.teleporters
    one = next(s for p, _a, s in taught if p == 1)
    # the two pairs look alike under this light: pair 2 taught with pair 1's look
    alike = dataclasses.replace(pieces, placed=TileLooks(pieces.placed.palette,
                                                         [(p, a, one if p == 2 else s) for p, a, s in taught]))
    # an arrow not seen: each tile taught as its average over every turn
    round_ = dataclasses.replace(pieces, placed=TileLooks(pieces.placed.palette, [
        (p, a, np.broadcast_to(s.mean(axis=0, keepdims=True), s.shape).copy()) for p, a, s in taught]))
    # one pair never taught (a layout without it): a tile of the other pair could be taken for it
    one_pair = dataclasses.replace(pieces, placed=TileLooks(pieces.placed.palette, [t for t in taught if t[0] == 1]))
    for box in (alike, round_, one_pair):
        for pair in (1, 2):
            place = _placement(game, "teleporter", pair=pair, arrow="E")
            result, reading = _read(box, game, place, look)
            assert not result.accepted, (place, result.place)
            assert reading.unseen.get(parse_square(place.square)) == "unknown-piece"


def test_a_box_taught_without_its_tiles_asks():
    """A pieces file taught before the tiles were (no ``placed``): a pool put down is never read, it is asked."""
    look = LOOKS[0]
    pieces = dataclasses.replace(_taught(look), placed=None)
    game = Game.new(["red", "blue"], seed=look, setup="advanced")
    place = _placement(game, "pool-2x2")
    result, _reading = _read(pieces, game, place, look)
    assert not result.accepted


def test_a_red_sleeve_over_the_board_is_no_pool():
    """Look 5's players wear a sleeve of the pools' colour (a hand reaching to f2 crosses the board's lower left):
    its squares show the pools' colours, but they lie under an arm (``looks.occluded``), so no pool is read there."""
    look = 5
    pieces = _taught(look)
    game = Game.new(["red", "blue"], seed=look, setup="advanced")
    result, reading = _read(pieces, game, None, look, hand="f2")
    coloured = [sq for sq, m in reading.measured.items() if (m.get("pool_share") or 0) >= POOL_SHARE]
    assert not coloured, reading.measured                  # no square under the arm is measured for a pool …
    assert len([sq for sq, why in reading.unseen.items() if why == "occluded"]) >= 4, reading.unseen
    assert not reading.setup["pools"]                      # … and is no pool
    assert not (result.accepted and result.change == "place")


def test_the_tiles_taught_are_kept_in_the_pieces_file(tmp_path):
    pieces = _taught(LOOKS[0])
    path = tmp_path / "pieces.json"
    pieces.save(path)
    again = Pieces.load(path)
    assert [(p, a) for p, a, _s in again.placed.teleporters] == [(p, a) for p, a, _s in pieces.placed.teleporters]
    assert {(p, a) for p, a, _s in again.placed.teleporters} == {(1, 2), (1, 1), (2, 3), (2, 0)}   # the layout's
    assert np.allclose(again.placed.palette, pieces.placed.palette, atol=0.01)
    assert all(L.distance(a[2], b[2]) < 0.5 for a, b in zip(again.placed.teleporters, pieces.placed.teleporters))
    import json

    data = json.loads(path.read_text())
    data["placed"]["teleporters"][0]["arrow"] = "X"
    path.write_text(json.dumps(data))
    with pytest.raises(PiecesError) as err:
        Pieces.load(path)
    assert "pieces.json" in str(err.value)
    del data["placed"]
    path.write_text(json.dumps(data))
    assert Pieces.load(path).placed is None            # a file taught before: the tiles are asked


def test_the_pairs_distance_is_the_readers_measure_and_too_near_is_warned():
    """``pairs_distance``: the nearest tiles of the two pairs at any quarter turn (a tile turned is the same tile);
    ``pairs_alike`` below ``pairs_apart``; the reader asks for a tile of pairs taught alike and reads it otherwise."""
    from engine.position import Teleporter
    from vision.nostickers import tiles as T

    rng = np.random.default_rng(27)
    one, two, delta = (rng.uniform(60, 200, (L.ANGLES, L.RINGS, 3)).astype(np.float32) for _ in range(3))
    delta -= 130.0                                          # about ±70 a cell
    unit = T.pairs_distance([(1, 0, one), (2, 0, one + delta)])
    assert unit == pytest.approx(L.distance(one, one + delta), rel=1e-3) and unit > 1.5 * T.pairs_apart()
    for scale, alike in ((0.95, True), (1.05, False)):      # on each side of the line, in the reader's units
        near = one + delta * (scale * T.pairs_apart() / unit)
        taught = [(2, 3, near), (1, 1, one)]
        assert T.pairs_distance(taught) == pytest.approx(scale * T.pairs_apart(), rel=1e-3)
        assert T.pairs_alike(taught) is alike
    # pair 2 taught with pair 1's look turned a quarter (as test_table_nostickers_placement makes them alike)
    alike = [(1, 1, one), (2, 0, np.roll(one, T.QUARTER, axis=0))]
    far = [(1, 1, one), (2, 0, two)]
    assert T.pairs_distance(alike) < 0.01 and T.pairs_alike(alike)
    assert T.pairs_distance(far) > 1.5 * T.pairs_apart() and not T.pairs_alike(far)
    assert T.pairs_distance(far) == pytest.approx(T.pairs_distance(far[::-1]), rel=1e-6)
    seen = one + rng.normal(0, 2, one.shape).astype(np.float32)           # pair 1's tile, as a camera sees it
    assert T.read_teleporter([seen], alike)[0] is None                    # asked …
    assert T.read_teleporter([seen], far)[0] == Teleporter(1, 1)           # … and read when the pairs differ
    # a pair not taught: no distance, no warning of looks (the reader reads no teleporter at all)
    assert T.pairs_distance([(1, 1, one), (1, 2, two)]) is None and not T.pairs_alike([(1, 1, one)])
    assert T.pairs_distance([]) is None
    assert T.pairs_missing([(1, 1, one)]) == [2] and T.pairs_missing([]) == [1, 2] and T.pairs_missing(far) == []
    assert T.read_teleporter([seen], [(1, 1, one)]) == (None, {})          # the reader reads none then
