"""An evening at a café, shortened: ``flure play --demo`` for N minutes at speed X with 20 phones.

Run: .venv/bin/python benchmarks/bench_soak.py [--minutes 10] [--speed 5] [--phones 20] [--seed 11]

A real ``flure play --demo`` (the simulated table, its camera, the simulated players, the next demo
game once one ends) and ``--phones`` SSE clients, each from its own loopback address (127.0.0.N;
tests/live_load.py); a phone whose stream ends (the server ends every stream after 10 minutes) comes
back at once, as a browser does.  Each minute it prints the server's memory, threads and open file
descriptors, the journal's bytes (its pages, and the WAL file apart) and bytes per finished game, the bytes each phone
received, the games completed and the journal step reached.  Flat lines are the goal:
  - journal bytes per finished game ≤ 60 KB (issue 30), shown as a ratio: the
    journal's pages less an empty journal's, over the games completed (the running game's steps
    counted too, so it overestimates until several games are done);
  - memory, threads and file descriptors: the last minute no more than a little above the first;
  - the table never stalls: the journal moves on every minute, and games complete.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from live_load import LiveClients  # noqa: E402
from play_process import start_play  # noqa: E402

GAME_BYTES = 60_000        # journal bytes per finished game (issue 30)
MEMORY_MB = 40.0           # the last minute's memory at most this far above the first's
THREADS = 10               # … threads, and file descriptors
FDS = 10


def proc_status(pid: int) -> tuple[float, int, int]:
    """(resident MB, threads, open file descriptors) of process ``pid``."""
    rss = threads = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads, len(os.listdir(f"/proc/{pid}/fd"))


def empty_journal_bytes(tmp: str) -> int:
    """The bytes of a journal with no game in it (its tables and indexes): not a game's."""
    from companion_app.table.session.store import Store

    path = Path(tmp) / "empty.sqlite3"
    Store(path)
    with sqlite3.connect(path) as con:
        return con.execute("PRAGMA page_count").fetchone()[0] * con.execute("PRAGMA page_size").fetchone()[0]


def journal(db: Path) -> tuple[int, int, int, int]:
    """(the database's bytes as a reader sees it — its pages, whether still in the WAL or not —, the WAL
    file's bytes, games in it, the newest game's last step), read-only beside the table."""
    wal = Path(f"{db}-wal")
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as con:
        size = con.execute("PRAGMA page_count").fetchone()[0] * con.execute("PRAGMA page_size").fetchone()[0]
        games = con.execute("SELECT count(*) FROM games").fetchone()[0]
        step = con.execute("SELECT coalesce(max(seq), 0) FROM steps WHERE game_id = (SELECT max(id) FROM games) "
                           "AND undone = 0").fetchone()[0]
    return size, wal.stat().st_size if wal.exists() else 0, games, step


class Phones:
    """``n`` phones, each from its own loopback address, each coming back when its stream ends."""

    def __init__(self, port: int, n: int):
        self.port, self.n = port, n
        self.phones = [LiveClients(port, 1, first=k) for k in range(n)]
        self.received = [0] * n       # bytes of streams already ended
        self.reconnects = 0

    def tend(self) -> None:
        for k, phone in enumerate(self.phones):
            if phone.closed[0]:
                self.received[k] += phone.received[0]
                phone.close()
                self.phones[k] = LiveClients(self.port, 1, first=k)
                self.reconnects += 1

    def bytes(self) -> list[int]:
        return [done + phone.received[0] for done, phone in zip(self.received, self.phones)]

    def connected(self) -> int:
        return sum(1 for p in self.phones if p.status[0] == 200 and not p.closed[0])

    def close(self) -> None:
        for phone in self.phones:
            phone.close()


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISSED"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--speed", type=float, default=5.0, help="the simulated players' pace (flure play --speed)")
    parser.add_argument("--phones", type=int, default=20)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--mistakes", type=float, default=None, help="flure play --mistakes (default its own)")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between two lines (default a minute)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "soak.sqlite3"
        config = Path(tmp) / "table.toml"
        config.write_text("[camera]\nfps = 10.0\n[table]\nstable_frames = 2\n")
        extra = ["--mistakes", str(args.mistakes)] if args.mistakes is not None else []
        empty = empty_journal_bytes(tmp)
        proc, text = start_play("--demo", "--seed", str(args.seed), "--speed", f"{args.speed:g}", "--host",
                                "127.0.0.1", "--port", "0", "--pin", "424242", "--no-leds", "--config", str(config),
                                "--db", str(db), *extra)
        found = re.search(r"open http://127\.0\.0\.1:(\d+)/ on your phones", text)
        port = int(found.group(1))
        log_lines: list[str] = []
        threading.Thread(target=lambda: log_lines.extend(proc.stdout), daemon=True).start()   # drained, kept
        phones = Phones(port, args.phones)
        rows = []
        try:
            print(f"flure play --demo --seed {args.seed} --speed {args.speed:g}, {args.phones} phones, "
                  f"{args.minutes:g} minutes (pid {proc.pid})")
            print("  min   MB  thr  fds  journal KB  WAL KB  games  KB/game (÷60)  phone KB/min  reconn  game:step")
            start, last_bytes = time.monotonic(), [0] * args.phones
            minute = 0
            while time.monotonic() - start < args.minutes * 60:
                deadline = start + (minute + 1) * args.every
                while time.monotonic() < deadline:
                    phones.tend()
                    time.sleep(0.5)
                minute += 1
                rss, threads, fds = proc_status(proc.pid)
                size, wal, games, step = journal(db)
                state = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10))
                done = games - 1 + (state.get("phase") == "over")
                # the running game's bytes are counted too: an overestimate that shrinks as games complete
                per_game = (size - empty) / done if done else None
                now = phones.bytes()
                per_phone = sum(b - a for a, b in zip(last_bytes, now)) / args.phones / 1000 * 60 / args.every
                last_bytes = now
                rows.append({"rss": rss, "threads": threads, "fds": fds, "bytes": size, "done": done,
                             "per_game": per_game, "step": (games, step), "connected": phones.connected()})
                game_kb = f"{per_game / 1000:7.1f} ({per_game / GAME_BYTES:4.2f})" if per_game else "      –       "
                print(f"{(time.monotonic() - start) / 60:5.1f} {rss:4.0f} {threads:4d} {fds:4d} {size / 1000:11.1f} "
                      f"{wal / 1000:7.0f} {done:6d}  {game_kb}  "
                      f"{per_phone:12.1f}  {phones.reconnects:6d}  {games}:{step}", flush=True)
        finally:
            phones.close()
            proc.kill()
            proc.wait(timeout=30)

    results = []
    if len(rows) >= 2:
        first, last = rows[0], rows[-1]
        grew = last["rss"] - first["rss"]
        print(f"  memory: {first['rss']:.0f} MB after the first minute, {last['rss']:.0f} MB after the last "
              f"(+{grew:.0f} MB, target ≤ {MEMORY_MB:.0f}) {verdict(grew <= MEMORY_MB)}")
        print(f"  threads {first['threads']} → {last['threads']}, file descriptors {first['fds']} → {last['fds']} "
              f"{verdict(last['threads'] - first['threads'] <= THREADS and last['fds'] - first['fds'] <= FDS)}")
        results += [grew <= MEMORY_MB, last["threads"] - first["threads"] <= THREADS and last["fds"] - first["fds"] <= FDS]
        moved = all(a["step"] != b["step"] for a, b in zip(rows, rows[1:]))
        print(f"  the journal moved on every minute: {verdict(moved)}")
        results.append(moved)
    if rows and rows[-1]["per_game"]:
        ratio = rows[-1]["per_game"] / GAME_BYTES
        print(f"  journal: {rows[-1]['per_game'] / 1000:.1f} KB per finished game over {rows[-1]['done']} game(s) "
              f"(target ≤ {GAME_BYTES / 1000:.0f} KB: {ratio:.2f} of it) {verdict(ratio <= 1)}")
        results.append(ratio <= 1)
    else:
        print("  journal: no game finished yet (run longer, or faster with --speed)")
    if rows:
        print(f"  phones connected at the end: {rows[-1]['connected']} of {args.phones}, "
              f"reconnections {phones.reconnects} {verdict(rows[-1]['connected'] == args.phones)}")
        results.append(rows[-1]["connected"] == args.phones)
    warnings = [line.rstrip() for line in log_lines if " WARNING " in line or " ERROR " in line]
    print(f"  log lines with a level WARNING or ERROR: {len(warnings)}" + "".join(f"\n    {w}" for w in warnings[:10]))
    return 0 if results and all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
