"""Blood pools (A1, B1, B2): their shapes, and where a pushed piece slides to.

The pawn pushing a stone (P7) and the monster pushing its line (M6) both end in
:func:`pushed_to`, so B2 and the corner rule hold the same for both; a pawn the monster pushes onto a
pool slides by the pawn rules (B2 ⚖, :func:`pawn_pushed_to`).
"""
from __future__ import annotations

from typing import Callable, Container, MutableMapping

from .geometry import CORNERS, NEIGHBOUR, on_board, square, square_col, square_row

# A1: the two pool tiles, by the squares they cover from their north-west square.
POOL_SHAPES = ("2x2", "1x4")
ORIENTATIONS = ("horizontal", "vertical")

KEPT, TELEPORTER, CORNER = "kept", "teleporter", "corner"


def pool_squares(anchor: int, shape: str, orientation: str = "horizontal") -> tuple[int, ...] | None:
    """The squares a ``shape`` pool covers from its north-west square ``anchor`` (a 1×4 pool lies
    ``horizontal`` or ``vertical``); None when part of it would lie off the board."""
    c, r = square_col(anchor), square_row(anchor)
    if shape == "2x2":
        cells = [(c + dc, r + dr) for dr in (0, 1) for dc in (0, 1)]
    elif orientation == "vertical":
        cells = [(c, r + i) for i in range(4)]
    else:
        cells = [(c + i, r) for i in range(4)]
    if not all(on_board(cc, rr) for cc, rr in cells):
        return None
    return tuple(square(cc, rr) for cc, rr in cells)



def split_pools(pools) -> list[tuple[int, str, str | None]] | None:
    """The pool squares as the game's pool tiles (A1: at most one 2×2 and one 1×4):
    ``(north-west square, shape, orientation or None)`` for each, or None when they are not."""
    def shapes(sq):
        for shape, orient in (("2x2", None), ("1x4", "horizontal"), ("1x4", "vertical")):
            sqs = pool_squares(sq, shape, orient or "horizontal")
            yield shape, orient, set(sqs) if sqs else None

    def solve(left, used):
        if not left:
            return []
        first = min(left)
        for shape, orient, sqs in shapes(first):
            if sqs and shape not in used and sqs <= left:
                rest = solve(left - sqs, used | {shape})
                if rest is not None:
                    return [(first, shape, orient)] + rest
        return None

    return solve(set(pools), frozenset())

def pushed_to(first: int, d: int, pools: Container[int], teleporters: Container[int],
              occupied: Callable[[int], bool], stone: bool) -> tuple[list[int], str]:
    """Where a piece pushed onto the free square ``first``, heading ``d``, comes to rest.

    Returns ``(path, fate)``: every square it reached, ``path[-1]`` the last; ``fate`` is
    ``"kept"`` (it lies on ``path[-1]``), ``"teleporter"`` (destroyed there, T3) or
    ``"corner"`` (a stone reaching a corner square is removed, P7, M6, B2 — also when that
    corner is itself a pool square).  On a pool it slides straight on (B2) until a square
    beyond the pool, or stops on the last pool square before a wall or an ``occupied`` square.
    """
    path = [first]
    cur = first
    while True:
        if cur in teleporters:
            return path, TELEPORTER
        if stone and cur in CORNERS:
            return path, CORNER
        if cur not in pools:
            return path, KEPT
        n = NEIGHBOUR[cur * 4 + d]
        if n is None or occupied(n):
            return path, KEPT
        path.append(n)
        cur = n


def pawn_pushed_to(first: int, d: int, pools: Container[int], teleporters: Container[int],
                   stones: MutableMapping[int, str], pawns: Container[int], monster: int,
                   ) -> tuple[list[int], str, list[tuple[int, str, list[int], str]]]:
    """Where a pawn the monster pushed onto the pool square ``first``, heading ``d``, comes to rest (B2 ⚖: it
    slides by the pawn rules, P8).

    A stone in its way, on a later pool square or on the first square beyond the pool, is pushed on as in P7
    (one stone, onto a square with no stone, pawn or monster and not into a wall; it may slide on a pool, be
    removed on a corner square or destroyed on a teleporter, :func:`pushed_to`) and the pawn goes on; a stone
    that cannot move, a pawn, the monster or a wall stops it on the square before.  Sliding onto a teleporter
    destroys it (T3).  ``stones`` is updated in place.  Returns ``(path, fate, pushed)`` as :func:`pushed_to`
    does, ``pushed`` listing each stone pushed on as ``(square, kind, its path, its fate)``.
    """
    path, cur = [first], first
    pushed: list[tuple[int, str, list[int], str]] = []
    while True:
        if cur in teleporters:
            return path, TELEPORTER, pushed
        if cur not in pools:
            return path, KEPT, pushed
        n = NEIGHBOUR[cur * 4 + d]
        if n is None or n in pawns or n == monster:
            return path, KEPT, pushed
        kind = stones.get(n)
        if kind is not None:
            beyond = NEIGHBOUR[n * 4 + d]
            if beyond is None or beyond in stones or beyond in pawns or beyond == monster:
                return path, KEPT, pushed   # P7: this stone cannot be pushed
            del stones[n]
            spath, sfate = pushed_to(beyond, d, pools, teleporters,
                                     lambda m: m in stones or m in pawns or m == monster, stone=True)
            if sfate == KEPT:
                stones[spath[-1]] = kind
            pushed.append((n, kind, spath, sfate))
        path.append(n)
        cur = n
