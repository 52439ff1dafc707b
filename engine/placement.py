"""Advanced setup (A1, A2): the players place the 17 board pieces one by one.

A piece is placed by naming its north-west square: a pool's top-left square,
a 1×4 pool with an orientation.  This module only checks and places one
piece; whose turn it is belongs to the game (engine/game.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .errors import GameActionError, InvalidSetupError
from .geometry import CORNER_ZONE, DIRECTION_NAMES, NEIGHBOUR, parse_direction, parse_square, square_name
from .pools import pool_squares
from .position import STONE_KINDS, Position, Teleporter

if TYPE_CHECKING:
    from .actions import Place

# A1: the stone tiles on their marked faces, two pools, two teleporter pairs.
PIECES: dict[str, int] = {
    "stone": 3, "crystal": 2, "pivot-right": 4, "pivot-about": 2,
    "pool-2x2": 1, "pool-1x4": 1, "teleporter": 4,
}
PIECE_NAMES = {
    "stone": "plain stone", "crystal": "crystal", "pivot-right": "right-turn pivot stone",
    "pivot-about": "about-turn pivot stone", "pool-2x2": "2×2 pool", "pool-1x4": "1×4 pool",
    "teleporter": "teleporter",
}
TELEPORTER_PAIRS = (1, 2)


@dataclass(frozen=True)
class Placement:
    """What a ``place`` action puts down, already checked for shape (not yet for the board)."""

    piece: str
    squares: tuple[int, ...]
    arrow: int | None = None
    pair: int | None = None

    def describe(self) -> str:
        where = square_name(self.squares[0])
        if len(self.squares) > 1:
            where = f"{where}–{square_name(self.squares[-1])}"
        extra = ""
        if self.piece == "teleporter":
            extra = f" (pair {self.pair}, arrow {DIRECTION_NAMES[self.arrow]})"
        return f"{PIECE_NAMES[self.piece]} on {where}{extra}"


def pieces_text(left: dict[str, int]) -> str:
    parts = [f"{n} {PIECE_NAMES[p]}{'s' if n > 1 else ''}" for p, n in left.items() if n]
    return ", ".join(parts) if parts else "none"


def parse_placement(action: "Place", position: Position) -> Placement:
    """The squares a well-formed ``place`` action (engine.actions.Place) covers; a teleporter with no
    pair named takes the first pair with room.  A pool sticking out of the board raises GameActionError."""
    piece = action.piece
    corner = parse_square(action.square)
    if piece in ("pool-2x2", "pool-1x4"):
        cells = pool_squares(corner, piece[5:], action.orientation or "horizontal")
        if cells is None:
            raise GameActionError(f"A {PIECE_NAMES[piece]} starting at {action.square} would stick out of the board",
                                  rule="A2")
        return Placement(piece, cells)
    if piece == "teleporter":
        if action.arrow is None:
            raise InvalidSetupError("a teleporter needs its arrow: N, E, S or W", "arrow")
        pair = action.pair
        if pair is None:
            counts = _pair_counts(position)
            pair = next((p for p in TELEPORTER_PAIRS if counts.get(p, 0) < 2), TELEPORTER_PAIRS[-1])
        return Placement(piece, (corner,), parse_direction(action.arrow), pair)
    return Placement(piece, (corner,))


def _pair_counts(position: Position) -> dict[int, int]:
    counts: dict[int, int] = {}
    for tp in position.teleporters.values():
        counts[tp.pair] = counts.get(tp.pair, 0) + 1
    return counts


def check_placement(position: Position, placement: Placement, left: dict[str, int]) -> None:
    """A1/A2: the piece is still available, fits, overlaps nothing, keeps clear of the corners."""
    piece = placement.piece
    if left.get(piece, 0) <= 0:
        placed = (f"The {PIECE_NAMES[piece]} is" if PIECES[piece] == 1
                  else f"All {PIECES[piece]} {PIECE_NAMES[piece]}s are")
        raise GameActionError(f"{placed} already placed (still to place: {pieces_text(left)})", rule="A1")
    taken = set(position.stones) | set(position.pools) | set(position.teleporters) | {position.monster}
    for sq in placement.squares:
        if sq in CORNER_ZONE:
            raise GameActionError(f"No piece may lie on or next to the corner squares a1 and p11, "
                                  f"so not on {square_name(sq)}", rule="A2")
        if sq in taken:
            raise GameActionError(f"{square_name(sq)} is already covered; pieces may not overlap", rule="A2")
    if piece == "teleporter":
        if _pair_counts(position).get(placement.pair, 0) >= 2:
            raise GameActionError(f"Both teleporters of pair {placement.pair} are already placed; "
                                  "place this one as the other pair", rule="A1")
        sq = placement.squares[0]
        for d in range(4):
            n = NEIGHBOUR[sq * 4 + d]
            if n is not None and n in position.teleporters:
                raise GameActionError(f"A teleporter on {square_name(sq)} would touch the teleporter on "
                                      f"{square_name(n)}; two teleporters may not be side by side", rule="A2")


def apply_placement(position: Position, placement: Placement) -> Position:
    if placement.piece in STONE_KINDS:
        stones = dict(position.stones)
        stones[placement.squares[0]] = placement.piece
        return replace(position, stones=stones)
    if placement.piece == "teleporter":
        tele = dict(position.teleporters)
        tele[placement.squares[0]] = Teleporter(placement.pair, placement.arrow)
        return replace(position, teleporters=tele)
    return replace(position, pools=position.pools | set(placement.squares))
