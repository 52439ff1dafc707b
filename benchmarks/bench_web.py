"""Live update latency: with 20 phones connected, how soon after the resolve request each one has the update.

Run: .venv/bin/python benchmarks/bench_web.py [--clients 20] [--moves 14]
Target (web-app issue): median ≤ 200 ms from the start of the referee's resolve
request (POST /api/action {"type": "draw"}) to the update's arrival at each phone,
over the real waitress server and real HTTP SSE streams on this machine.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion_app.web.server import Server  # noqa: E402
from web_helpers import AUTH, SseClient, make_app, play_pawn_phase  # noqa: E402

TARGET_MS = 200.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--moves", type=int, default=14, help="monster moves to time (two rounds = 14)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        app, session = make_app(Path(tmp))
        session.new_game(["red", "blue", "green", "yellow"], "red", seed=2024)
        latencies, request_ms = [], []
        with Server(app) as server:
            phones = [SseClient(server.url) for _ in range(args.clients)]
            for p in phones:
                assert p.wait_for(lambda s: s["phase"] == "pawns"), "a phone did not connect"
            for _ in range(args.moves):
                if session.game.phase == "over":
                    break
                play_pawn_phase(session, choose=lambda t: t[len(t) // 2])   # the table moves (not timed)
                body = json.dumps({"type": "draw"}).encode()
                req = urllib.request.Request(server.url + "api/action", data=body, method="POST",
                                             headers={**AUTH, "Content-Type": "application/json"})
                t0 = time.perf_counter()
                with urllib.request.urlopen(req, timeout=10) as r:
                    seq = json.loads(r.read())["seq"]
                request_ms.append((time.perf_counter() - t0) * 1000)
                for p in phones:
                    got = p.wait_for(lambda s, seq=seq: s.get("plan_seq") == seq and s["seq"] == seq)
                    assert got, "a phone missed an update"
                    latencies.append((got[0] - t0) * 1000)
            for p in phones:
                p.close()

    median = statistics.median(latencies)
    p95 = statistics.quantiles(latencies, n=20)[-1]
    print(f"{args.clients} live phones, {len(request_ms)} monster moves, {len(latencies)} deliveries")
    print(f"  resolve request (POST draw), median      {statistics.median(request_ms):7.1f} ms")
    print(f"  update at each phone after request, median {median:7.1f} ms   (target ≤ {TARGET_MS:.0f} ms: "
          f"{median / TARGET_MS:.2f} of target) {'OK' if median <= TARGET_MS else 'TOO SLOW'}")
    print(f"  … 95th percentile {p95:7.1f} ms, worst {max(latencies):7.1f} ms")
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
