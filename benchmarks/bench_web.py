"""Live updates at scale: 100 phones on a real ``flure play`` (loopback only, each from its own 127.0.0.N).

Run: .venv/bin/python benchmarks/bench_web.py [--clients 100] [--draws 20] [--actions 1000]
Targets (issue 13):
  - every client receives every update;
  - resolve → last client ≤ 200 ms median: from the start of the referee's POST /api/action
    {"type": "draw"} (the monster's move, ~17 KB of state) to its arrival at the last of the clients;
  - resident memory of the server after 1,000 actions with 100 clients ≤ 20 MB above its value
    after the first 10 (a server keeping every byte a stream sent grows ~1.7 MB per action);
  - a dropped phone's slot is free within 5 s;
  - one address holds at most events.PER_ADDRESS streams (the next gets 503).
The actions are the monster's move and its undo, alternately (each a full state to every client).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from companion_app.table.session.events import PER_ADDRESS  # noqa: E402
from live_load import LiveClients, Table, loopback  # noqa: E402

LATENCY_MS = 200.0
MEMORY_MB = 20.0
SLOT_S = 5.0


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--draws", type=int, default=20, help="monster moves to time")
    parser.add_argument("--actions", type=int, default=1000, help="actions for the memory figure")
    parser.add_argument("--leds", action="store_true",
                        help="run with the simulated LED grid (its frames go to every client as well)")
    args = parser.parse_args(argv)
    results = []

    with tempfile.TemporaryDirectory() as tmp:
        table = Table(tmp, leds=args.leds)
        clients = None
        try:
            table.monster_to_move()
            clients = LiveClients(table.port, args.clients)
            statuses = clients.wait_connected()
            connected = statuses.count(200)
            print(f"{connected} of {args.clients} clients connected (each from its own loopback address)")

            last, each, missed = [], [], 0
            for i, (t0, state) in enumerate(table.churn(2 * args.draws)):
                got = clients.wait_all(state["version"])
                missed += got.count(None)
                if i % 2 == 0:   # the monster's move (the odd ones undo it)
                    arrived = [g for g in got if g is not None]
                    last.append((max(arrived) - t0) * 1000)
                    each.extend((g - t0) * 1000 for g in arrived)
            median_last = statistics.median(last)
            print(f"  resolve → last of {connected} clients, median {median_last:7.1f} ms over {len(last)} monster "
                  f"moves (target ≤ {LATENCY_MS:.0f} ms) {verdict(median_last <= LATENCY_MS)}")
            print(f"  resolve → each client, median {statistics.median(each):7.1f} ms, "
                  f"95th percentile {statistics.quantiles(each, n=20)[-1]:7.1f} ms")
            results.append(median_last <= LATENCY_MS)

            rss, t_start = {}, time.perf_counter()
            for i, (_, state) in enumerate(table.churn(args.actions), start=1):
                missed += clients.wait_all(state["version"]).count(None)
                if i in (10, args.actions):
                    rss[i] = table.rss_mb()
            growth = rss[args.actions] - rss[10]
            rate = args.actions / (time.perf_counter() - t_start)
            print(f"  server memory: {rss[10]:.1f} MB after 10 actions, {rss[args.actions]:.1f} MB after "
                  f"{args.actions} ({rate:.0f} actions/s): +{growth:.1f} MB (target ≤ {MEMORY_MB:.0f} MB) "
                  f"{verdict(growth <= MEMORY_MB)}")
            results.append(growth <= MEMORY_MB)
            print(f"  updates missed by a connected client: {missed} (target 0) {verdict(missed == 0)}")
            results.append(missed == 0 and connected == args.clients)

            phones = table.call("api/status")["phones"]
            clients.drop(0)
            t0 = time.monotonic()
            while table.call("api/status")["phones"] >= phones and time.monotonic() - t0 < 30:
                time.sleep(0.05)
            freed = time.monotonic() - t0
            print(f"  a dropped phone's slot free after {freed:.2f} s (target ≤ {SLOT_S:.0f} s) {verdict(freed <= SLOT_S)}")
            results.append(freed <= SLOT_S)

            same = [LiveClients(table.port, 1, first=600) for _ in range(PER_ADDRESS)]
            kept = [c.wait_connected()[0] for c in same]
            refused = table.stream_status(loopback(600))
            print(f"  one address: {kept.count(200)} streams accepted, the next answered {refused} "
                  f"(limit {PER_ADDRESS}) {verdict(kept.count(200) == PER_ADDRESS and refused == 503)}")
            results.append(kept.count(200) == PER_ADDRESS and refused == 503)
            for c in same:
                c.close()
        finally:
            if clients is not None:
                clients.close()
            table.close()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
