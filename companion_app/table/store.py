"""SQLite persistence for the table session: the game's action log, its undo stack and confirmed readings.

Why a database and not a JSON file: the table session must survive a power cut
in the middle of a write (a Raspberry Pi under a board game gets unplugged), and
SQLite commits are atomic.  Every accepted action stores the whole game JSON
after it, so resuming never replays rules and an undo is "drop the last row".
One connection per call keeps it safe across waitress's worker threads.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

def default_path() -> Path:
    """Where the session database lives unless ``--db`` or ``[web] database`` says otherwise:
    systemd's ``StateDirectory=`` (``$STATE_DIRECTORY``, /var/lib/flure for the service), else
    the XDG data folder."""
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        return Path(state) / "session.sqlite3"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "flure" / "session.sqlite3"


SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS steps (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    state TEXT NOT NULL,
    created REAL NOT NULL,
    undone INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS readings (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    reading TEXT NOT NULL,
    outcome TEXT NOT NULL,
    created REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Step:
    """One accepted action and the game state it produced (seq 0 is the new game)."""

    seq: int
    action: dict
    state: dict


class Store:
    """The session database at ``path`` (``":memory:"`` is not supported: threads need one file)."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def new_game(self, settings: dict, state: dict) -> int:
        with self._connect() as db:
            cur = db.execute("INSERT INTO games (created, settings) VALUES (?, ?)",
                             (time.time(), json.dumps(settings)))
            game_id = cur.lastrowid
            db.execute("INSERT INTO steps (game_id, seq, action, state, created) VALUES (?, 0, ?, ?, ?)",
                       (game_id, json.dumps({"type": "new", **settings}), json.dumps(state), time.time()))
        return game_id

    def push(self, game_id: int, action: dict, state: dict) -> int:
        """Record an accepted action; returns its sequence number."""
        with self._connect() as db:
            seq = self._top(db, game_id) + 1
            # An undone row with this seq is replaced: the redo branch is gone.
            db.execute("DELETE FROM steps WHERE game_id = ? AND seq >= ?", (game_id, seq))
            db.execute("INSERT INTO steps (game_id, seq, action, state, created) VALUES (?, ?, ?, ?, ?)",
                       (game_id, seq, json.dumps(action), json.dumps(state), time.time()))
        return seq

    def undo(self, game_id: int) -> Step | None:
        """Mark the last action undone and return the step now current (None if nothing to undo)."""
        with self._connect() as db:
            top = self._top(db, game_id)
            if top <= 0:
                return None
            db.execute("UPDATE steps SET undone = 1 WHERE game_id = ? AND seq = ?", (game_id, top))
            return self._step(db, game_id, top - 1)

    def current(self, game_id: int) -> Step | None:
        with self._connect() as db:
            top = self._top(db, game_id)
            return None if top < 0 else self._step(db, game_id, top)

    def history(self, game_id: int) -> list[Step]:
        with self._connect() as db:
            rows = db.execute("SELECT seq, action, state FROM steps WHERE game_id = ? AND undone = 0 ORDER BY seq",
                              (game_id,)).fetchall()
        return [Step(seq, json.loads(a), json.loads(s)) for seq, a, s in rows]

    def last_game(self) -> int | None:
        with self._connect() as db:
            row = db.execute("SELECT max(id) FROM games").fetchone()
        return row[0]

    def settings(self, game_id: int) -> dict:
        with self._connect() as db:
            row = db.execute("SELECT settings FROM games WHERE id = ?", (game_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def add_reading(self, game_id: int, seq: int, reading: dict, outcome: str) -> None:
        with self._connect() as db:
            db.execute("INSERT INTO readings (game_id, seq, reading, outcome, created) VALUES (?, ?, ?, ?, ?)",
                       (game_id, seq, json.dumps(reading), outcome, time.time()))

    def readings(self, game_id: int) -> list[dict]:
        with self._connect() as db:
            rows = db.execute("SELECT seq, reading, outcome FROM readings WHERE game_id = ? ORDER BY id",
                              (game_id,)).fetchall()
        return [{"seq": seq, "reading": json.loads(r), "outcome": o} for seq, r, o in rows]

    @staticmethod
    def _top(db: sqlite3.Connection, game_id: int) -> int:
        row = db.execute("SELECT max(seq) FROM steps WHERE game_id = ? AND undone = 0", (game_id,)).fetchone()
        return -1 if row[0] is None else row[0]

    @staticmethod
    def _step(db: sqlite3.Connection, game_id: int, seq: int) -> Step:
        action, state = db.execute("SELECT action, state FROM steps WHERE game_id = ? AND seq = ?",
                                   (game_id, seq)).fetchone()
        return Step(seq, json.loads(action), json.loads(state))
