"""Engine speed: medians against the targets of the engine issue.

Run: .venv/bin/python benchmarks/bench_engine.py
Targets (this machine, issue 10): one tile ≤ 0.10 ms; all six distinct tiles for one position
≤ 0.6 ms (the referee's preview); the reachable set of a 6-point pawn ≤ 5 ms.  Resolving builds
no text: the words of a plan are made only when the CLI or a view asks for them.
"""
from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.geometry import SQUARES, square_name  # noqa: E402
from engine.monster import resolve  # noqa: E402
from engine.pawns import reachable  # noqa: E402
from engine.position import BOARD, Pawn, Position, Teleporter, basic_position  # noqa: E402

DISTINCT_TILES = ("5", "7", "8", "10", "prey-1", "prey-2")


def random_position(rng: random.Random) -> Position:
    """An advanced-game-like position: 11 stone tiles, 2 pools, 2 teleporter pairs, 12 pawns."""
    squares = rng.sample(SQUARES, 1 + 4 + 11 + 12)
    monster, tele, stones, pawns = squares[0], squares[1:5], squares[5:16], squares[16:]
    kinds = ["stone"] * 3 + ["crystal"] * 2 + ["pivot-right"] * 4 + ["pivot-about"] * 2
    free = [s for s in SQUARES if s not in tele and s != monster]
    pools = rng.sample(free, 6)
    return Position(monster, rng.randrange(4), dict(zip(stones, kinds)), frozenset(pools),
                    {t: Teleporter(1 + i // 2, rng.randrange(4)) for i, t in enumerate(tele)},
                    tuple(Pawn(f"p{i}", "red", "6/1", "black", BOARD, s) for i, s in enumerate(pawns)))


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    rng = random.Random(7)
    positions = [random_position(rng) for _ in range(200)]
    one = statistics.median(median_ms(lambda p=p: resolve(p, "10"), 5) for p in positions)
    worst_tile = statistics.median(median_ms(lambda p=p: resolve(p, "prey-2"), 5) for p in positions)
    all_tiles = statistics.median(
        median_ms(lambda p=p: [resolve(p, t) for t in DISTINCT_TILES], 5) for p in positions)
    pawn_positions = []
    for i in range(100):
        p = positions[i]
        lab = p.pawns[0].label
        pawn_positions.append((p.with_pawn(Pawn(lab, "red", "6/1", "black", BOARD, p.pawns[0].square)), lab))
    reach = statistics.median(median_ms(lambda a=a: reachable(*a), 5) for a in pawn_positions)
    basic = basic_position([Pawn("red-6/1", "red", "6/1", "black", BOARD, SQUARES[70])])
    reach_basic = median_ms(lambda: reachable(basic, "red-6/1"), 50)
    rows = [
        ("resolve one tile (10 steps)", one, 0.10),
        ("resolve prey-2 (up to 20 steps)", worst_tile, 0.10),
        ("all six distinct tiles for one position", all_tiles, 0.6),
        ("reachable set, 6-point pawn (random)", reach, 5.0),
        (f"reachable set, 6-point pawn on {square_name(SQUARES[70])}, basic", reach_basic, 5.0),
    ]
    print(f"{'measure':45} {'median ms':>10} {'target ms':>10} {'ratio':>7}")
    ok = True
    for name, ms, target in rows:
        ratio = ms / target
        ok &= ratio <= 1
        print(f"{name:45} {ms:10.3f} {target:10.2f} {ratio:7.2f}")
    print("all within target" if ok else "SOME MEASURES ARE OVER TARGET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
