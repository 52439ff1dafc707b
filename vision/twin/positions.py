"""Plausible random positions for the synthetic camera's test sets (seeded).

They use only the game's physical pieces (11 stone tiles each showing one face, two
teleporter pairs, one 2x2 and one 1x4 pool, the 25 pawns, the 8 tombstone tiles), so every
position can be rendered with the marker scheme; over a few dozen seeds they cover every piece
type and face, every monster heading and teleporter arrow, and they favour the squares along
the cut-away corners where the grid is most easily misread.

The monster's eight neighbours are kept free of pawns, stones, teleporters and the pools'
sticker squares: the figure's top (its 25 mm sticker on a 33 mm cap, 60 mm up) overhangs
its square, and from a tilted camera it hides part of the square behind it, a real limit of
any overhead reading rather than a reader error (``Truth`` reports such stickers as not fully
visible when they do occur).
"""
from __future__ import annotations

import numpy as np

from engine.geometry import COLS, DELTAS, ROWS, SQUARES, around, on_board, square
from engine.position import (
    COLOURS,
    FACES,
    FOUR_PAWN_COLOURS,
    PAWN_KINDS,
    Pawn,
    Position,
    Teleporter,
    pawn_label,
)

TILE_NAMES = ("5", "7", "8", "10", "prey-1", "prey-2")
# The 11 stone tiles by their front face (BOARD.md "Pieces"); each may lie plain side up.
STONE_FRONTS = ("stone",) * 3 + ("crystal",) * 2 + ("pivot-right",) * 4 + ("pivot-about",) * 2
BASIC_POOLS_2X2 = square(8, 2)   # i3
BASIC_POOLS_1X4 = square(4, 8)   # e9, horizontal


def _cut_edge() -> tuple[int, ...]:
    """Squares beside a cut-away corner square (the staircases of BOARD.md)."""
    out = []
    for sq in SQUARES:
        c, r = sq % COLS, sq // COLS
        for dc, dr in DELTAS:
            nc, nr = c + dc, r + dr
            if 0 <= nc < COLS and 0 <= nr < ROWS and not on_board(nc, nr):
                out.append(sq)
                break
    return tuple(out)


CUT_EDGE = _cut_edge()


def all_pawns() -> list[tuple[str, str]]:
    """The 25 pawns of the game as (colour, kind)."""
    return [(c, k) for c in COLOURS for k in PAWN_KINDS if c in FOUR_PAWN_COLOURS or k != "4/3"]


def random_position(seed: int | np.random.Generator = 0, on_pools: float = 0.0) -> tuple[Position, str | None]:
    """A random plausible position and tombstone tile (None one time in ten).

    ``on_pools``: the share of the pawns put on a pool square (a pool's sticker square half of
    those times), where they hide the pool's sticker; none by default."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    pools, anchors = _pools(rng)
    taken: set[int] = set(pools)

    def pick(prefer_edge: float = 0.3) -> int | None:
        pool = [s for s in CUT_EDGE if s not in taken] if rng.uniform() < prefer_edge else []
        if not pool:
            pool = [s for s in SQUARES if s not in taken]
        if not pool:
            return None
        sq = int(pool[int(rng.integers(len(pool)))])
        taken.add(sq)
        return sq

    # Not beside a pool's sticker square either (the monster's top would hide it).
    near_anchor = set().union(*(around(a) for a in anchors))
    taken |= near_anchor
    monster = pick(0.25)
    taken -= near_anchor - set(pools)
    facing = int(rng.integers(4))
    taken |= around(monster)

    teleporters = {}
    for pair in (1, 2)[: int(rng.choice([0, 1, 2], p=[0.25, 0.35, 0.4]))]:
        a, b = pick(), pick()
        if a is None or b is None:
            break
        teleporters[a] = Teleporter(pair, int(rng.integers(4)))
        teleporters[b] = Teleporter(pair, int(rng.integers(4)))

    stones = {}
    n_stones = int(rng.integers(0, 12))
    plain_only = rng.uniform() < 0.3
    for idx in rng.permutation(len(STONE_FRONTS))[:n_stones]:
        sq = pick()
        if sq is None:
            break
        front = STONE_FRONTS[int(idx)]
        stones[sq] = "stone" if plain_only or rng.uniform() < 0.4 else front

    pawns = []
    everyone = all_pawns()
    n_pawns = int(rng.integers(0, 21))
    wet = sorted(set(pools) - around(monster) - {monster}) if on_pools > 0 else []
    for idx in rng.permutation(len(everyone))[:n_pawns]:
        colour, kind = everyone[int(idx)]
        face = FACES[int(rng.integers(2))]
        free = [s for s in wet if s not in stones and s not in teleporters and all(p.square != s for p in pawns)]
        if free and rng.uniform() < on_pools:
            anchors_free = [a for a in anchors if a in free]
            sq = int(anchors_free[0] if anchors_free and rng.uniform() < 0.5 else free[int(rng.integers(len(free)))])
            pawns.append(Pawn(pawn_label(colour, kind), colour, kind, face, "board", sq))
            continue
        sq = pick() if rng.uniform() < 0.85 else None
        place = "board" if sq is not None else "waiting"
        pawns.append(Pawn(pawn_label(colour, kind), colour, kind, face, place, sq))

    tile = None if rng.uniform() < 0.1 else TILE_NAMES[int(rng.integers(len(TILE_NAMES)))]
    return Position(monster, facing, stones, frozenset(pools), teleporters, tuple(pawns)), tile


def _pools(rng) -> tuple[set[int], tuple[int, int]]:
    """One 2x2 and one 1x4 pool (horizontal or vertical), not overlapping, and the two
    squares that carry their stickers; the basic placement a quarter of the time."""
    if rng.uniform() < 0.25:
        a, b = BASIC_POOLS_2X2, BASIC_POOLS_1X4
        return {a, a + 1, a + COLS, a + COLS + 1} | {b + i for i in range(4)}, (a, b)
    while True:
        a = int(SQUARES[int(rng.integers(len(SQUARES)))])
        block = {a, a + 1, a + COLS, a + COLS + 1}
        if not all(on_board(s % COLS, s // COLS) and abs(s % COLS - a % COLS) <= 1 for s in block):
            continue
        b = int(SQUARES[int(rng.integers(len(SQUARES)))])
        step = 1 if rng.uniform() < 0.5 else COLS
        line = {b + i * step for i in range(4)}
        if step == 1 and b % COLS > COLS - 4:
            continue
        if not all(0 <= s < COLS * ROWS and on_board(s % COLS, s // COLS) for s in line):
            continue
        # Keep the two pools apart so they cannot be read as one other shape.
        near = set().union(*(around(s) for s in block))
        if line & near:
            continue
        return block | line, (a, b)
