"""Bytes on the Wi-Fi: what one phone's live stream carries during a demo game at normal pace.

Run: .venv/bin/python benchmarks/bench_wire.py [--minutes 2] [--speed 1] [--seed 28] [--no-100]

A real ``flure play --demo`` (the simulated table, its camera, the simulated LED grid, the simulated
players at ``--speed``), one phone's stream (``/api/stream``), one referee's
(``/api/stream?view=referee``) and one LED page's (``?view=leds``), each counted per message kind
(tests/live_load.py ``StreamTally``); ``/api/state`` is fetched every 5 s.  Targets (issue 22):
  - one phone's stream ≤ 300 KB a minute;
  - a mid-game ``/api/state`` (a monster move played, the game not over) ≤ 12 KB, median;
  - 100 phones served as before: benchmarks/bench_web.py's measure, shortened (``--no-100`` skips it).
Each figure is also given, for information, as it would be gzip-encoded (the server does not compress;
the targets are on the bytes as sent).
"""
from __future__ import annotations

import argparse
import gzip
import json
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from live_load import StreamTally  # noqa: E402
from play_process import start_play  # noqa: E402

PHONE_KB_MIN = 300.0
STATE_KB = 12.0
STATE_EVERY_S = 5.0


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def table(name: str, tally: StreamTally, minutes: float) -> float:
    """Print one stream's messages per kind; its KB a minute."""
    print(f"  {name}: {tally.total / 1000 / minutes:8.1f} KB/min in all ({tally.total / 1000:.0f} KB; "
          f"gzip-encoded it would be {tally.deflated / 1000 / minutes:.1f} KB/min)")
    print("      kind      msgs/min  median B  KB/min")
    for kind in sorted(tally.count, key=lambda k: -tally.bytes[k]):
        print(f"      {kind:8s} {tally.count[kind] / minutes:9.1f} {statistics.median(tally.sizes[kind]):9.0f} "
              f"{tally.bytes[kind] / 1000 / minutes:7.1f}")
    return tally.total / 1000 / minutes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="minutes of play to count (default 2)")
    parser.add_argument("--speed", type=float, default=1.0, help="the simulated players' pace (flure play --speed)")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--no-100", dest="hundred", action="store_false",
                        help="skip the 100 phones check (benchmarks/bench_web.py, shortened)")
    args = parser.parse_args(argv)
    results = []

    with tempfile.TemporaryDirectory() as tmp:
        proc, text = start_play("--demo", "--seed", str(args.seed), "--speed", f"{args.speed:g}", "--host",
                                "127.0.0.1", "--port", "0", "--pin", "424242", "--db", str(Path(tmp) / "wire.sqlite3"))
        port = int(re.search(r"open http://127\.0\.0\.1:(\d+)/ on your phones", text).group(1))
        threading.Thread(target=lambda: proc.stdout.read(), daemon=True).start()   # its pipe kept drained
        states: list[tuple[int, int]] = []    # (bytes, gzip-encoded) of each mid-game /api/state
        try:
            print(f"flure play --demo --seed {args.seed} --speed {args.speed:g}: one phone, one referee and one "
                  f"LED page for {args.minutes:g} minutes (pid {proc.pid})", flush=True)
            phone = StreamTally(port, address="127.0.0.2")
            referee = StreamTally(port, "view=referee", address="127.0.0.3")
            leds = StreamTally(port, "view=leds", address="127.0.0.4")
            start = time.monotonic()
            while time.monotonic() - start < args.minutes * 60:
                time.sleep(STATE_EVERY_S)
                req = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"Accept-Language": "en"})
                body = urllib.request.urlopen(req, timeout=10).read()
                state = json.loads(body)
                if state.get("plan") and state.get("phase") not in ("none", "over"):
                    states.append((len(body), len(gzip.compress(body))))
            minutes = (time.monotonic() - start) / 60
            for tally in (phone, referee, leds):
                tally.close()
        finally:
            proc.kill()
            proc.wait(timeout=30)

    phone_kb = table("phone   (/api/stream)", phone, minutes)
    print(f"  one phone: {phone_kb:.1f} KB/min (target ≤ {PHONE_KB_MIN:.0f}: {phone_kb / PHONE_KB_MIN:.2f} of it) "
          f"{verdict(phone_kb <= PHONE_KB_MIN)}")
    results.append(phone_kb <= PHONE_KB_MIN)
    table("referee (/api/stream?view=referee)", referee, minutes)
    table("LED page (/api/stream?view=leds)", leds, minutes)
    if states:
        size = statistics.median(s for s, _ in states) / 1000
        largest = max(s for s, _ in states) / 1000
        print(f"  mid-game /api/state: median {size:.1f} KB over {len(states)} (largest {largest:.1f}) "
              f"(target ≤ {STATE_KB:.0f} KB: {size / STATE_KB:.2f} of it) {verdict(size <= STATE_KB)}; "
              f"gzip-encoded {statistics.median(z for _, z in states) / 1000:.1f} KB")
        results.append(size <= STATE_KB)
    else:
        print("  mid-game /api/state: no monster move within the run (run longer)")
        results.append(False)
    if args.hundred:
        import bench_web
        print("100 phones served as before (benchmarks/bench_web.py --clients 100 --draws 10 --actions 100):",
              flush=True)
        results.append(bench_web.main(["--clients", "100", "--draws", "10", "--actions", "100"]) == 0)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
