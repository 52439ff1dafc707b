"""Board geometry: squares, directions, walls, the wrap rule (BOARD.md).

A square is a small int ``row * 16 + col``; only the 156 squares of the
printed board are valid.  Names are ``a1`` (top left) … ``p11`` (bottom
right).  Directions are ints ``N=0 E=1 S=2 W=3``; turning right adds one.
"""
from __future__ import annotations

import re

from .wording import N_, Text, Worded

COLS = 16
ROWS = 11

N, E, S, W = 0, 1, 2, 3
DIRECTIONS = (N, E, S, W)
DIRECTION_NAMES = "NESW"
DELTAS = ((0, -1), (1, 0), (0, 1), (-1, 0))

# Columns present in each row (BOARD.md "Which squares exist").
_ROW_SPAN = (
    (0, 11), (0, 12), (0, 13), (0, 14), (0, 15), (0, 15), (0, 15),
    (1, 15), (2, 15), (3, 15), (4, 15),
)


def square(col: int, row: int) -> int:
    return row * COLS + col


def square_col(sq: int) -> int:
    return sq % COLS


def square_row(sq: int) -> int:
    return sq // COLS


def on_board(col: int, row: int) -> bool:
    if not (0 <= row < ROWS and 0 <= col < COLS):
        return False
    lo, hi = _ROW_SPAN[row]
    return lo <= col <= hi


SQUARES: tuple[int, ...] = tuple(
    square(c, r) for r in range(ROWS) for c in range(COLS) if on_board(c, r)
)
SQUARE_SET = frozenset(SQUARES)
SQUARE_NAMES: dict[int, str] = {
    sq: "abcdefghijklmnop"[square_col(sq)] + str(square_row(sq) + 1) for sq in SQUARES
}
_BY_NAME = {name: sq for sq, name in SQUARE_NAMES.items()}
_NAME_RE = re.compile(r"^[a-p](?:[1-9]|1[01])$")

EXIT = square(0, 0)        # a1, AUSGANG
ENTRANCE = square(15, 10)  # p11, EINGANG
CORNERS = frozenset((EXIT, ENTRANCE))


class BadName(Worded, ValueError):
    """A square or direction name that is none, as wording data (``text``): whoever wraps it in a
    refusal passes ``exc.text`` on, so the whole refusal is said in the players' language;
    ``str(exc)`` is the English sentence, as it always was."""


def parse_square(name: str) -> int:
    """``"g7"`` -> square; raises BadName (a ValueError) naming the bad input."""
    if not isinstance(name, str):
        raise BadName(Text(N_("a square name must be text like 'g7', not %(value)s"), value=repr(name)))
    key = name.strip().lower()
    if not _NAME_RE.match(key):
        raise BadName(Text(N_("%(value)s is not a square name (a1 … p11)"), value=repr(name)))
    if key not in _BY_NAME:
        raise BadName(Text(N_("%(value)s is not on the board (a cut-away corner)"), value=repr(name)))
    return _BY_NAME[key]


def square_name(sq: int) -> str:
    return SQUARE_NAMES[sq]


def parse_direction(name: str) -> int:
    if not isinstance(name, str) or name.upper() not in ("N", "E", "S", "W") or len(name) != 1:
        raise BadName(Text(N_("%(value)s is not a direction (N, E, S or W)"), value=repr(name)))
    return DIRECTION_NAMES.index(name.upper())


def direction_name(d: int) -> str:
    return DIRECTION_NAMES[d]


def turn_right(d: int) -> int:
    return (d + 1) % 4


def turn_about(d: int) -> int:
    return (d + 2) % 4


def _build_neighbours() -> dict[tuple[int, int], int | None]:
    table: dict[tuple[int, int], int | None] = {}
    for sq in SQUARES:
        c, r = square_col(sq), square_row(sq)
        for d, (dc, dr) in enumerate(DELTAS):
            nc, nr = c + dc, r + dr
            table[(sq, d)] = square(nc, nr) if on_board(nc, nr) else None
    return table


_NEIGHBOURS = _build_neighbours()
# Flat list for the hot paths: NEIGHBOUR[sq * 4 + d] is the square or None.
NEIGHBOUR: list[int | None] = [None] * (COLS * ROWS * 4)
for (_sq, _d), _t in _NEIGHBOURS.items():
    NEIGHBOUR[_sq * 4 + _d] = _t


def neighbour(sq: int, d: int) -> int | None:
    """The square next to ``sq`` heading ``d``, or None behind a wall."""
    return NEIGHBOUR[sq * 4 + d]


def _build_wall_letters() -> dict[tuple[int, int], str]:
    p = parse_square
    letters: dict[tuple[int, int], str] = {}
    top = "ABCDEFGHIJKL"
    for i, ch in enumerate(top):
        letters[(square(i, 0), N)] = ch
    for name, side, ch in (("l1", E, "M"), ("m2", N, "N"), ("m2", E, "O"), ("n3", N, "P"),
                           ("n3", E, "Q"), ("o4", N, "R"), ("o4", E, "S"), ("p5", N, "T")):
        letters[(p(name), side)] = ch
    for i, ch in enumerate("UVWXYZ"):
        letters[(square(15, 4 + i), E)] = ch
    letters[(ENTRANCE, E)] = "*"
    # Bottom and left are the half-turn images of top and right.
    for (sq, side), ch in list(letters.items()):
        img = square(15 - square_col(sq), 10 - square_row(sq))
        letters[(img, turn_about(side))] = ch
    return letters


WALL_LETTERS: dict[tuple[int, int], str] = _build_wall_letters()


def wall_letter(sq: int, d: int) -> str | None:
    """The letter printed on the wall on side ``d`` of ``sq`` (None if no wall)."""
    return WALL_LETTERS.get((sq, d))


def wrap(sq: int, d: int) -> tuple[int, str]:
    """M7: leaving ``sq`` through the wall heading ``d`` re-enters (15-c, 10-r)."""
    letter = WALL_LETTERS[(sq, d)]
    return square(15 - square_col(sq), 10 - square_row(sq)), letter


def monster_next(sq: int, d: int) -> tuple[int, str | None]:
    """Where a monster step from ``sq`` heading ``d`` lands, with the wall letter if it wrapped."""
    t = NEIGHBOUR[sq * 4 + d]
    if t is not None:
        return t, None
    return wrap(sq, d)


def around(sq: int) -> set[int]:
    """The square and its eight neighbours that exist (A2 uses diagonals)."""
    c, r = square_col(sq), square_row(sq)
    return {square(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if on_board(c + dc, r + dr)}


# Basic-game setup (BOARD.md).
BASIC_MONSTER = (EXIT, E)
BASIC_STONES = tuple(parse_square(n) for n in "c3 m4 h5 i6 n6 g7 e8 m8 o9 f10 i10".split())
BASIC_POOLS = tuple(parse_square(n) for n in "i3 j3 i4 j4 e9 f9 g9 h9".split())
# A2: no advanced piece on or next to a corner square.
CORNER_ZONE = frozenset(parse_square(n) for n in "a1 b1 a2 b2 p11 o11 p10 o10".split())
