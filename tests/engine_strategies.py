"""Hypothesis strategies for engine tests: random free positions (SCENARIOS.md allows any)."""
from hypothesis import strategies as st

from engine.geometry import SQUARES
from engine.position import BOARD, FACES, PAWN_KINDS, STONE_KINDS, WAITING, Pawn, Position, Teleporter


@st.composite
def positions(draw, max_pawns=8, max_stones=11, teleporters=True, waiting=True):
    squares = draw(st.permutations(SQUARES))
    i = 0

    def take(n):
        nonlocal i
        out = list(squares[i:i + n])
        i += n
        return out

    monster = take(1)[0]
    facing = draw(st.integers(0, 3))
    n_tel = draw(st.sampled_from([0, 2, 4])) if teleporters else 0
    tele = {sq: Teleporter(1 + k // 2, draw(st.integers(0, 3))) for k, sq in enumerate(take(n_tel))}
    stones = {sq: draw(st.sampled_from(STONE_KINDS)) for sq in take(draw(st.integers(0, max_stones)))}
    n_pawns = draw(st.integers(0, max_pawns))
    pawns = []
    for k, sq in enumerate(take(n_pawns)):
        off = waiting and draw(st.booleans()) and k % 3 == 0
        pawns.append(Pawn(f"P{k}", None, draw(st.sampled_from(PAWN_KINDS)), draw(st.sampled_from(FACES)),
                          WAITING if off else BOARD, None if off else sq))
    # pools may lie under stones and pawns but never under teleporters or the monster
    free = [sq for sq in squares[i:]] + [sq for sq in stones] + [p.square for p in pawns if p.square is not None]
    pools = draw(st.sets(st.sampled_from(free), max_size=8)) if free else set()
    return Position(monster, facing, stones, frozenset(pools), tele, tuple(pawns))
