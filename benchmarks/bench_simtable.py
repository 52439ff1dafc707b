"""Resident memory and pace of ``flure play`` on the simulated table over a whole demo game.

Run: .venv/bin/python benchmarks/bench_simtable.py [--speed X] [--seed N]
Target (issue 12): resident memory of the process ≤ 250 MB over the whole game (its peak,
VmHWM, sampled from /proc until it exits).  Before the simulated table, the digital twin alone
took the process from 72 MB to 669 MB after ten camera polls (see table/memory.py for why).
Also printed: the game's length, seconds per action read by the camera, and the memory after
start-up (before the first frame), so a regression shows where it comes from.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_MB = 250.0
CONFIG = "[camera]\nfps = 10.0\n[table]\nstable_frames = 2\n"


def vm(pid: int) -> dict[str, int]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(("VmRSS", "VmHWM")):
                out[line.split(":")[0]] = int(line.split()[1]) // 1024
    except OSError:
        pass
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=28)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "table.toml"
        cfg.write_text(CONFIG)
        cmd = [sys.executable, "-m", "companion_app.cli", "play", "--demo", "--until-end", "--seed", str(args.seed),
               "--speed", str(args.speed), "--port", "0", "--host", "127.0.0.1", "--pin", "123456",
               "--config", str(cfg), "--db", str(Path(tmp) / "bench.sqlite3"), "--no-leds"]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
        reader.start()
        peak = started = 0
        while proc.poll() is None:
            now = vm(proc.pid)
            peak = max(peak, now.get("VmHWM", 0))
            if not started and any("Press Ctrl+C" in line for line in lines):
                started = now.get("VmRSS", 0)
            time.sleep(0.2)
        seconds = time.perf_counter() - t0
        reader.join(timeout=5)
    last = lines[-1].strip() if lines else "(no output)"
    print(last)
    found = re.search(r"(\d+) moves read by the camera, (\d+) monster moves", last)
    if proc.returncode != 0 or not found:
        print(f"the demo did not finish (exit {proc.returncode})")
        return 1
    actions = int(found.group(1)) + int(found.group(2))
    print(f"{'measure':44} {'value':>8} {'target':>8} {'ratio':>6}")
    print(f"{'peak resident memory over the game (MB)':44} {peak:8.0f} {TARGET_MB:8.0f} {peak / TARGET_MB:6.2f}")
    print(f"{'resident memory after start-up (MB)':44} {started:8.0f}")
    print(f"{'whole demo game (s) at speed ' + format(args.speed, 'g'):44} {seconds:8.1f}")
    print(f"{'seconds per action read by the camera':44} {seconds / actions:8.2f}")
    return 0 if peak <= TARGET_MB else 1


if __name__ == "__main__":
    sys.exit(main())
