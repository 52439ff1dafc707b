"""Game-flow speed: medians over seeded random games, against interactive budgets.

Run: .venv/bin/python benchmarks/bench_game.py
No target is set by an issue for game flow; the budgets below are what a referee
tapping a tablet should never notice (a web request does several of these):
apply one action ≤ 5 ms, targets of one pawn ≤ 10 ms, preview of every tile ≤ 10 ms,
JSON save + load ≤ 5 ms, a whole random game ≤ 1000 ms.
"""
from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.game import Game  # noqa: E402
from tests.game_helpers import COLOURS_BY_COUNT, play_out, random_action  # noqa: E402


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def main() -> int:
    apply_ms, targets_ms, preview_ms, json_ms, game_ms = [], [], [], [], []
    for seed in range(12):
        n = 2 + seed % 6
        colours = COLOURS_BY_COUNT[n]
        start = Game.new(colours, first_player=colours[0], seed=seed)
        ms, _ = timed(lambda: play_out(start, random.Random(seed)))
        game_ms.append(ms)
        game, rng = start, random.Random(seed)
        while game.phase != "over":
            if game.phase == "pawns":
                label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
                ms, _ = timed(lambda: game.targets(label))
                targets_ms.append(ms)
                ms, _ = timed(game.preview)
                preview_ms.append(ms)
            ms, _ = timed(lambda: Game.from_json(json.loads(json.dumps(game.to_json()))))
            json_ms.append(ms)
            action = random_action(game, rng)
            ms, game = timed(lambda: game.apply(action))
            apply_ms.append(ms)
    rows = [
        ("apply one action (move, pawn-at, draw, tile)", apply_ms, 5.0),
        ("targets() of the pawn to move", targets_ms, 10.0),
        ("preview() of every tile still possible", preview_ms, 10.0),
        ("to_json + from_json (via JSON text)", json_ms, 5.0),
        ("a whole random game, 2-7 players", game_ms, 1000.0),
    ]
    print(f"{'measure':48} {'median ms':>10} {'target ms':>10} {'ratio':>7} {'samples':>8}")
    ok = True
    for name, values, target in rows:
        ms = statistics.median(values)
        ok &= ms <= target
        print(f"{name:48} {ms:10.3f} {target:10.1f} {ms / target:7.2f} {len(values):8d}")
    print("all within target" if ok else "SOME MEASURES ARE OVER TARGET")
    return 0


if __name__ == "__main__":
    sys.exit(main())
