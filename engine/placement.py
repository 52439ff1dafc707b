"""Advanced setup (A1, A2): the players place the 17 board pieces one by one.

A piece is placed by naming its north-west square: a pool's top-left square,
a 1×4 pool with an orientation.  This module only checks and places one
piece; whose turn it is belongs to the game (engine/game.py).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .errors import GameActionError, InvalidSetupError
from .geometry import CORNER_ZONE, DIRECTION_NAMES, NEIGHBOUR, parse_direction, parse_square, square, \
    square_col, square_name, square_row, on_board
from .position import STONE_KINDS, Position, Teleporter

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
ORIENTATIONS = ("horizontal", "vertical")


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


def parse_placement(action: dict, position: Position) -> Placement:
    """Read a ``place`` action into squares; bad input raises InvalidSetupError naming the field."""
    piece = action.get("piece")
    if not isinstance(piece, str) or piece not in PIECES:
        raise InvalidSetupError(f"unknown piece {piece!r} (one of {', '.join(PIECES)})", "piece")
    try:
        corner = parse_square(action.get("square"))
    except ValueError as exc:
        raise InvalidSetupError(str(exc), "square") from None
    if piece == "pool-2x2":
        return Placement(piece, _block(corner, 2, 2))
    if piece == "pool-1x4":
        orientation = action.get("orientation") or "horizontal"
        if isinstance(orientation, str):
            orientation = orientation.strip().lower()
        if orientation not in ORIENTATIONS:
            raise InvalidSetupError(f"orientation must be horizontal or vertical, not {orientation!r}",
                                    "orientation")
        return Placement(piece, _block(corner, 4, 1) if orientation == "horizontal" else _block(corner, 1, 4))
    if piece == "teleporter":
        try:
            arrow = parse_direction(action.get("arrow"))
        except ValueError as exc:
            raise InvalidSetupError(f"a teleporter needs its arrow: {exc}", "arrow") from None
        pair = action.get("pair")
        if pair is None:
            counts = _pair_counts(position)
            pair = next((p for p in TELEPORTER_PAIRS if counts.get(p, 0) < 2), TELEPORTER_PAIRS[-1])
        # A whole number only: 1.0 or True would be saved as such and not load again.
        if not isinstance(pair, int) or isinstance(pair, bool) or pair not in TELEPORTER_PAIRS:
            raise InvalidSetupError(f"pair must be 1 or 2, not {pair!r}", "pair")
        return Placement(piece, (corner,), arrow, pair)
    return Placement(piece, (corner,))


def _block(corner: int, width: int, height: int) -> tuple[int, ...]:
    c0, r0 = square_col(corner), square_row(corner)
    cells = []
    for r in range(r0, r0 + height):
        for c in range(c0, c0 + width):
            if not on_board(c, r):
                raise GameActionError(f"A {width}×{height} pool starting at {square_name(corner)} "
                                      "would stick out of the board", rule="A2")
            cells.append(square(c, r))
    return tuple(cells)


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
