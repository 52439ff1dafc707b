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
from .names import count_words, piece_name
from .pools import pool_squares
from .position import STONE_KINDS, Position, Teleporter
from .wording import N_, Direction, Join, Text, listing

if TYPE_CHECKING:
    from .actions import Place

# A1: the stone tiles on their marked faces, two pools, two teleporter pairs.
PIECES: dict[str, int] = {
    "stone": 3, "crystal": 2, "pivot-right": 4, "pivot-about": 2,
    "pool-2x2": 1, "pool-1x4": 1, "teleporter": 4,
}
TELEPORTER_PAIRS = (1, 2)


@dataclass(frozen=True)
class Placement:
    """What a ``place`` action puts down, already checked for shape (not yet for the board)."""

    piece: str
    squares: tuple[int, ...]
    arrow: int | None = None
    pair: int | None = None

    def teleporter(self) -> Teleporter:
        """The teleporter a teleporter's placement puts down (its pair and arrow are set)."""
        if self.pair is None or self.arrow is None:
            raise ValueError(f"a {self.piece} placement is not a teleporter with a pair and an arrow")
        return Teleporter(self.pair, self.arrow)

    def describe_words(self) -> Text:
        """The piece and where it lies (``a crystal on g7``), as wording data (engine.wording)."""
        where = square_name(self.squares[0])
        if len(self.squares) > 1:
            where = f"{where}–{square_name(self.squares[-1])}"
        if self.piece == "teleporter":
            tele = self.teleporter()
            return Text(N_("%(piece)s on %(square)s (pair %(pair)s, arrow %(direction)s)"),
                        piece=piece_name(self.piece, "a-object"), square=where, pair=tele.pair,
                        direction=Direction(DIRECTION_NAMES[tele.arrow]))
        return Text(N_("%(piece)s on %(square)s"), piece=piece_name(self.piece, "a-object"), square=where)


def pieces_words(left: dict[str, int]) -> Join | Text:
    """``3 stones, 1 crystal`` as wording data; ``none`` when nothing is left."""
    parts = [count_words(p, n) for p, n in left.items() if n]
    return listing(parts) if parts else Text(N_("none"))


def parse_placement(action: "Place", position: Position) -> Placement:
    """The squares a well-formed ``place`` action (engine.actions.Place) covers; a teleporter with no
    pair named takes the first pair with room.  A pool sticking out of the board raises GameActionError."""
    piece = action.piece
    corner = parse_square(action.square)
    if piece in ("pool-2x2", "pool-1x4"):
        cells = pool_squares(corner, piece[5:], action.orientation or "horizontal")
        if cells is None:
            raise GameActionError(Text(N_("A %(piece)s starting at %(square)s would stick out of the board"),
                                       piece=piece_name(piece), square=action.square), rule="A2")
        return Placement(piece, cells)
    if piece == "teleporter":
        if action.arrow is None:
            raise InvalidSetupError(Text(N_("a teleporter needs its arrow: N, E, S or W")), "arrow")
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
        template = (N_("The %(piece)s is already placed (still to place: %(left)s)") if PIECES[piece] == 1
                    else N_("All %(num)s %(piece)s are already placed (still to place: %(left)s)"))
        raise GameActionError(Text(template, num=PIECES[piece], left=pieces_words(left),
                                   piece=piece_name(piece, "name" if PIECES[piece] == 1 else "names")),
                              rule="A1")
    taken = set(position.stones) | set(position.pools) | set(position.teleporters) | {position.monster}
    for sq in placement.squares:
        if sq in CORNER_ZONE:
            raise GameActionError(Text(N_("No piece may lie on or next to the corner squares a1 and p11, so not on "
                                          "%(square)s"), square=square_name(sq)), rule="A2")
        if sq in taken:
            raise GameActionError(Text(N_("%(square)s is already covered; pieces may not overlap"),
                                       square=square_name(sq)), rule="A2")
    if piece == "teleporter":
        if _pair_counts(position).get(placement.teleporter().pair, 0) >= 2:
            raise GameActionError(Text(N_("Both teleporters of pair %(pair)s are already placed; place this one "
                                          "as the other pair"), pair=placement.pair), rule="A1")
        sq = placement.squares[0]
        for d in range(4):
            n = NEIGHBOUR[sq * 4 + d]
            if n is not None and n in position.teleporters:
                raise GameActionError(Text(N_("A teleporter on %(square)s would touch the teleporter on %(other)s; "
                                              "two teleporters may not be side by side"),
                                           square=square_name(sq), other=square_name(n)), rule="A2")


def apply_placement(position: Position, placement: Placement) -> Position:
    if placement.piece in STONE_KINDS:
        stones = dict(position.stones)
        stones[placement.squares[0]] = placement.piece
        return replace(position, stones=stones)
    if placement.piece == "teleporter":
        tele = dict(position.teleporters)
        tele[placement.squares[0]] = placement.teleporter()
        return replace(position, teleporters=tele)
    return replace(position, pools=position.pools | set(placement.squares))
