"""SQLite persistence for the table session: the game's action log, its undo stack and confirmed readings.

Why a database and not a JSON file: the table session must survive a power cut
in the middle of a write (a Raspberry Pi under a board game gets unplugged), and
SQLite commits are atomic.  Every accepted action stores the whole game JSON
after it, so resuming never replays rules and an undo is "drop the last row".
One connection per call keeps it safe across waitress's worker threads.

What goes wrong with a real disk is said, not raised as a crash: a damaged
database file is kept beside the new one (``…sqlite3.damaged-<time>``) and a
fresh journal starts (``notice`` says so); a full disk raises ``DiskFullError``
(the game state is unchanged); an unreadable step row is returned with its
``problem`` so the session resumes from the last good step.  Each write also
records the state version it produced and, for a request that carried one, the
request's key and its answer (``answers``) in the same transaction (``held()``):
a retried request is recognised, and answered as the first time, even after a
``kill -9`` between the commit and the answer.
"""
from __future__ import annotations

import codecs
import errno
import json
import logging
import os
import sqlite3
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engine.wording import N_, Said, Text, Worded

log = logging.getLogger(__name__)
ANSWERS_KEPT = 500        # remembered request answers (a retry comes seconds later, not hundreds of actions)
SNAPSHOT_EVERY = 25       # a step whose seq is a multiple of this keeps the whole game state (and the newest
                          # step does, to resume without replaying); the others keep their action only
READINGS_KEPT = 10        # camera readings kept per game (diagnostics: the last ones, not the whole evening)
KEEP_GAMES = 100          # [web] keep_games: older games than the newest this many are removed …
KEEP_DAYS = 30            # [web] keep_days: … and so are games started more than this many days ago
SQLITE_FULL = 13          # "database or disk is full"
SQLITE_DAMAGED = {11, 26}  # SQLITE_CORRUPT "database disk image is malformed", SQLITE_NOTADB "file is not a database"


class JournalError(Worded, Exception):
    """The journal cannot be written; the message is meant for the referee (the game state is unchanged),
    as wording data where it is ours (engine.wording.Worded)."""


class DiskFullError(JournalError):
    """SQLite or the file system reported a full disk (SQLITE_FULL or ENOSPC)."""

    def __init__(self, folder: str):
        self.folder = folder
        super().__init__(Text(N_("the disk is full: free space on %(folder)s (game state unchanged)"), folder=folder))

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
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    key TEXT PRIMARY KEY,
    game_id INTEGER,
    seq INTEGER NOT NULL,
    version INTEGER NOT NULL,
    answer TEXT,
    created REAL NOT NULL
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
    """One accepted action and the game state it produced (seq 0 is the new game).

    The journal keeps the state of some steps only (a snapshot now and then, and the newest step);
    the others' state is the previous one with the action applied, rebuilt when read (``history``).
    A row that cannot be read, or that follows one without a snapshot between, has ``problem``
    set (and ``action``/``state`` empty)."""

    seq: int
    action: dict
    state: dict
    problem: Text | None = None   # why it cannot be read (unreadable)


def unreadable(seq: int, why) -> Text:
    """A step that cannot be read, and why: ``why`` an error (ours as wording data, or JSON's and
    SQLite's own words, kept as they are) or a Text."""
    return Text(N_("step %(seq)s cannot be read (%(why)s)"), seq=seq, why=why)


@dataclass(frozen=True)
class Answer:
    """What a state-changing request produced: the version after it and, once stored, its JSON answer."""

    game_id: int | None
    seq: int
    version: int
    answer: dict | None


def is_damaged(exc: sqlite3.Error) -> bool:
    """A file SQLite finds damaged or not a database at all (by its error code, Python 3.11's
    ``sqlite_errorcode``; extended codes keep the primary one in their low byte)."""
    return getattr(exc, "sqlite_errorcode", 0) & 0xFF in SQLITE_DAMAGED


class Store:
    """The session database at ``path`` (``":memory:"`` is not supported: threads need one file).

    ``max_pages`` caps the file (SQLite's ``max_page_count``): a full disk, for real, in tests.
    """

    def __init__(self, path: str | Path, *, max_pages: int | None = None):
        self.path = str(path)
        self.max_pages = max_pages
        self.notice: str | None = None      # set when a damaged file was set aside at start
        self.problem: str | None = None     # the last write's failure (a full disk), until a write succeeds
        self._held = threading.local()      # the connection of a transaction held open by held()
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._create()
        except sqlite3.DatabaseError as exc:
            if not is_damaged(exc) or _is_text(self.path):
                raise   # a text file named by mistake (--db notes.txt) is someone's file: refuse, keep it
            self._set_aside(str(exc))

    def _create(self) -> None:
        with self._db() as db:
            db.executescript(SCHEMA)
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"database disk image is malformed ({check})")
            self.history(self.last_game() or 0)   # a page the quick check passed may still be torn

    def _set_aside(self, why: str) -> None:
        """Keep the damaged file (and its WAL) beside a fresh journal, and say so."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        copy = f"{self.path}.damaged-{stamp}"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.path + suffix):
                os.replace(self.path + suffix, copy + suffix)
        self._create()
        log.warning("journal %s was damaged (%s); kept as %s, a fresh journal started", self.path, why, copy)
        self.notice = Said(Text(N_("The game journal %(path)s was damaged (%(why)s); it was kept as %(copy)s and a "
                                   "fresh journal started, so the earlier game was not resumed."),
                                path=self.path, why=why, copy=copy))

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        # 1 KB pages for a new journal (an existing one keeps its own): a step rewrites a few pages,
        # and a compressed state fits in one, so each step writes ~18 KB to the card instead of ~42 KB
        db.execute("PRAGMA page_size=1024")
        db.execute("PRAGMA journal_mode=WAL")
        # the WAL is cut back to 1 MB once checkpointed (it would stay at its largest, ~4 MB, for ever)
        db.execute("PRAGMA journal_size_limit=1048576")
        db.execute("PRAGMA foreign_keys=ON")
        if self.max_pages is not None:
            db.execute(f"PRAGMA max_page_count={int(self.max_pages)}")
        return db

    @contextmanager
    def _db(self):
        """One connection and one transaction (or the one ``held()`` keeps open in this thread)."""
        held = getattr(self._held, "db", None)
        with self._errors():
            if held is not None:
                yield held
                return
            db = self._connect()
            try:
                with db:
                    yield db
            finally:
                db.close()

    @contextmanager
    def held(self):
        """Every read and write of this thread inside is one transaction, committed at the end: a step
        and the answer to the request that made it are saved together, or neither is."""
        if getattr(self._held, "db", None) is not None:
            yield
            return
        with self._errors():
            db = self._connect()
            self._held.db = db
            try:
                with db:
                    yield
            finally:
                self._held.db = None
                db.close()

    @contextmanager
    def _errors(self):
        """A full disk becomes DiskFullError (with the folder to free)."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", 0) & 0xFF == SQLITE_FULL:
                raise self._full() from exc
            raise
        except OSError as exc:
            if exc.errno == errno.ENOSPC:
                raise self._full() from exc
            raise

    def _full(self) -> DiskFullError:
        error = DiskFullError(os.path.dirname(os.path.abspath(self.path)))
        if self.problem != Said(error.text):     # once until a write succeeds again, not at every retry
            log.error("journal %s: %s", self.path, Said(error.text))
        self.problem = Said(error.text)
        return error

    # -- writes: each in one transaction with the version it produced and the request that asked -------
    def new_game(self, settings: dict, state: dict, *, version: int = 0, request: str | None = None,
                 steps: list[tuple[dict, dict]] = ()) -> int:
        """A new game from ``state``; ``steps`` (action, state after) are saved with it in one transaction
        (an imported record: a kill in the middle leaves no half game)."""
        with self._db() as db:
            cur = db.execute("INSERT INTO games (created, settings) VALUES (?, ?)",
                             (time.time(), json.dumps(settings)))
            game_id = cur.lastrowid
            rows = [({"type": "new", **settings}, state), *steps]
            last = len(rows) - 1
            db.executemany("INSERT INTO steps (game_id, seq, action, state, created) VALUES (?, ?, ?, ?, ?)",
                           [(game_id, seq, _dumps(a), _pack(s) if _snapshot(seq) or seq == last else "",
                             time.time()) for seq, (a, s) in enumerate(rows)])
            self._record(db, game_id, len(rows) - 1, version, request)
        return game_id

    def push(self, game_id: int, action: dict, state: dict, *, seq: int | None = None, version: int = 0,
             request: str | None = None) -> int:
        """Record an accepted action as step ``seq`` (default: after the last live one); returns its seq."""
        with self._db() as db:
            if seq is None:
                seq = self._top(db, game_id) + 1
            # An undone (or unreadable, skipped) row with this seq or later is replaced: that branch is gone.
            db.execute("DELETE FROM steps WHERE game_id = ? AND seq >= ?", (game_id, seq))
            # The step before keeps its state only if it is a snapshot (or could not be rebuilt: its own
            # state is then all there is of it); this one keeps it, being the newest.
            before = db.execute("SELECT seq FROM steps WHERE game_id = ? AND seq < ? AND undone = 0 AND state != '' "
                                "ORDER BY seq DESC LIMIT 1", (game_id, seq)).fetchone()
            if before is not None and before[0] == seq - 1 and not _snapshot(before[0]) \
                    and self._rebuildable(db, game_id, before[0]):
                db.execute("UPDATE steps SET state = '' WHERE game_id = ? AND seq = ?", (game_id, before[0]))
            db.execute("INSERT INTO steps (game_id, seq, action, state, created) VALUES (?, ?, ?, ?, ?)",
                       (game_id, seq, _dumps(action), _pack(state), time.time()))
            self._record(db, game_id, seq, version, request)
        return seq

    @staticmethod
    def _rebuildable(db: sqlite3.Connection, game_id: int, seq: int) -> bool:
        """Whether step ``seq``'s state can be rebuilt without its own copy: the snapshot before it and
        every action since read as JSON (a damaged row keeps the states after it until the next snapshot)."""
        rows = db.execute("SELECT seq, action, state FROM steps WHERE game_id = ? AND undone = 0 AND seq <= ? "
                          "AND seq >= (SELECT coalesce(max(seq), 0) FROM steps WHERE game_id = ? AND undone = 0 "
                          "AND seq < ? AND state != '') ORDER BY seq", (game_id, seq, game_id, seq)).fetchall()
        if len(rows) < 2 or rows[-1][0] != seq or rows[0][0] + len(rows) - 1 != seq:
            return False
        return all(_parse(n, a, st if i == 0 else "{}").problem is None for i, (n, a, st) in enumerate(rows))

    def undo(self, game_id: int, *, to_seq: int | None = None, version: int = 0,
             request: str | None = None) -> Step | None:
        """Mark the live steps after ``to_seq`` (default: the last one) undone and return the step now
        current (None if nothing to undo)."""
        with self._db() as db:
            top = self._top(db, game_id)
            if to_seq is None:
                to_seq = top - 1
            if top <= 0 or to_seq < 0:
                return None
            step = self._step(db, game_id, to_seq)
            db.execute("UPDATE steps SET undone = 1 WHERE game_id = ? AND seq > ?", (game_id, to_seq))
            if step.problem is None:    # the newest live step keeps its state (a resume replays nothing)
                db.execute("UPDATE steps SET state = ? WHERE game_id = ? AND seq = ?",
                           (_pack(step.state), game_id, to_seq))
            self._record(db, game_id, to_seq, version, request)
            return step

    def _record(self, db: sqlite3.Connection, game_id: int, seq: int, version: int, request: str | None) -> None:
        if self.problem is not None:
            log.warning("journal %s: writing again", self.path)
        self.problem = None   # set again by _full() should this transaction still fail
        db.execute("INSERT INTO meta (name, value) VALUES ('version', ?) "
                   "ON CONFLICT(name) DO UPDATE SET value = excluded.value", (version,))
        if request is not None:
            db.execute("INSERT OR REPLACE INTO answers (key, game_id, seq, version, created) VALUES (?, ?, ?, ?, ?)",
                       (request, game_id, seq, version, time.time()))
            db.execute("DELETE FROM answers WHERE created < (SELECT created FROM answers ORDER BY created DESC "
                       "LIMIT 1 OFFSET ?)", (ANSWERS_KEPT,))

    def keep_answer(self, request: str, answer: dict) -> None:
        """Store the JSON answer of the request whose step was just written (inside ``held()``)."""
        with self._db() as db:
            db.execute("UPDATE answers SET answer = ? WHERE key = ?", (json.dumps(answer), request))

    def answer(self, request: str) -> Answer | None:
        with self._db() as db:
            row = db.execute("SELECT game_id, seq, version, answer FROM answers WHERE key = ?",
                             (request,)).fetchone()
        if row is None:
            return None
        try:
            answer = json.loads(row[3]) if row[3] is not None else None
        except ValueError:
            answer = None
        return Answer(row[0], row[1], row[2], answer)

    def version(self) -> int:
        """The state version the last write produced (0 for a new journal)."""
        with self._db() as db:
            row = db.execute("SELECT value FROM meta WHERE name = 'version'").fetchone()
        return 0 if row is None else int(row[0])

    # -- reads ---------------------------------------------------------------
    def current(self, game_id: int) -> Step | None:
        with self._db() as db:
            top = self._top(db, game_id)
            return None if top < 0 else self._step(db, game_id, top)

    def history(self, game_id: int) -> list[Step]:
        """The live steps in order, each with its state (rebuilt from the snapshot before it); a row
        that cannot be read, or cannot be rebuilt, comes back with its ``problem``."""
        with self._db() as db:
            rows = db.execute("SELECT seq, action, state FROM steps WHERE game_id = ? AND undone = 0 ORDER BY seq",
                              (game_id,)).fetchall()
        return _rebuild(rows)

    def last_game(self) -> int | None:
        with self._db() as db:
            row = db.execute("SELECT max(id) FROM games").fetchone()
        return row[0]

    def settings(self, game_id: int) -> dict:
        with self._db() as db:
            row = db.execute("SELECT settings FROM games WHERE id = ?", (game_id,)).fetchone()
        return json.loads(row[0]) if row else {}

    def add_reading(self, game_id: int, seq: int, reading: dict, outcome: str) -> None:
        """Keep a camera reading (a diagnostic record): the game's last READINGS_KEPT only."""
        with self._db() as db:
            db.execute("INSERT INTO readings (game_id, seq, reading, outcome, created) VALUES (?, ?, ?, ?, ?)",
                       (game_id, seq, _pack(reading), outcome, time.time()))
            db.execute("DELETE FROM readings WHERE game_id = ? AND id <= (SELECT id FROM readings WHERE game_id = ? "
                       "ORDER BY id DESC LIMIT 1 OFFSET ?)", (game_id, game_id, READINGS_KEPT))

    # -- how much the journal holds, and letting old games go ----------------------------------------
    def prune(self, *, keep_games: int = KEEP_GAMES, keep_days: float = KEEP_DAYS) -> int:
        """Remove the games before the newest ``keep_games`` and those started more than ``keep_days``
        days ago — never the newest game (the one a restart resumes).  Returns how many went; their
        pages are reused by the next games (the file stops growing)."""
        with self._db() as db:
            newest = db.execute("SELECT max(id) FROM games").fetchone()[0]
            if newest is None:
                return 0
            old = [row[0] for row in db.execute(
                "SELECT id FROM games WHERE id != ? AND (id NOT IN (SELECT id FROM games ORDER BY id DESC LIMIT ?) "
                "OR created < ?)", (newest, max(0, keep_games) + 1,
                                    time.time() - keep_days * 86400.0))]
            for table in ("steps", "readings", "answers"):
                db.executemany(f"DELETE FROM {table} WHERE game_id = ?", [(g,) for g in old])
            db.executemany("DELETE FROM games WHERE id = ?", [(g,) for g in old])
        if old:
            log.info("journal %s: removed %s old game(s)", self.path, len(old))
        return len(old)

    def size(self) -> dict:
        """What the journal holds: games, steps, snapshots, readings, and bytes on disk (with its WAL)."""
        with self._db() as db:
            games, first = db.execute("SELECT count(*), min(created) FROM games").fetchone()
            steps, snapshots = db.execute("SELECT count(*), coalesce(sum(state != ''), 0) FROM steps").fetchone()
            readings = db.execute("SELECT count(*) FROM readings").fetchone()[0]
            page, pages, free = (db.execute(f"PRAGMA {name}").fetchone()[0]
                                 for name in ("page_size", "page_count", "freelist_count"))
        on_disk = sum(os.path.getsize(self.path + suffix) for suffix in ("", "-wal")
                      if os.path.exists(self.path + suffix))
        return {"games": games, "steps": steps, "snapshots": snapshots, "readings": readings, "bytes": page * pages,
                "on_disk": on_disk, "free_bytes": page * free, "since": first}

    def readings(self, game_id: int) -> list[dict]:
        with self._db() as db:
            rows = db.execute("SELECT seq, reading, outcome FROM readings WHERE game_id = ? ORDER BY id",
                              (game_id,)).fetchall()
        return [{"seq": seq, "reading": _unpack(r), "outcome": o} for seq, r, o in rows]

    @staticmethod
    def _top(db: sqlite3.Connection, game_id: int) -> int:
        row = db.execute("SELECT max(seq) FROM steps WHERE game_id = ? AND undone = 0", (game_id,)).fetchone()
        return -1 if row[0] is None else row[0]

    @staticmethod
    def _step(db: sqlite3.Connection, game_id: int, seq: int) -> Step:
        """Step ``seq`` (live), its state rebuilt from the last snapshot before it if it has none."""
        rows = db.execute("SELECT seq, action, state FROM steps WHERE game_id = ? AND undone = 0 AND seq <= ? "
                          "AND seq >= (SELECT coalesce(max(seq), 0) FROM steps WHERE game_id = ? AND undone = 0 "
                          "AND seq <= ? AND state != '') ORDER BY seq", (game_id, seq, game_id, seq)).fetchall()
        return _rebuild(rows)[-1]


def _is_text(path: str) -> bool:
    """A file that is plain text and no SQLite file at all (damaged journals are binary)."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head.startswith(b"SQLite format 3\0") or b"\0" in head:
        return False
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)   # a character cut at 4096 is fine
    except UnicodeDecodeError:
        return False
    return True


def _snapshot(seq: int) -> bool:
    return seq % SNAPSHOT_EVERY == 0


def _dumps(data) -> str:
    return json.dumps(data, separators=(",", ":"))


def _pack(data) -> bytes:
    """A game state or a reading as stored: compact JSON, zlib-compressed (a state shrinks about 4×).
    A BLOB is never equal to the empty text that marks a step without a state."""
    return zlib.compress(_dumps(data).encode(), 6)


def _unpack(stored):
    """What ``_pack`` stored, or the plain JSON text the journal held before (read as it is)."""
    if isinstance(stored, bytes):
        stored = zlib.decompress(stored)
    return json.loads(stored)


def _rebuild(rows) -> list[Step]:
    """Steps from rows (seq, action, state) in order: a row with a state is read as it is (the old
    journal kept one in every row); a row without one is the step before with its action applied
    (the engine is pure: the same action on the same state gives the same state).  A row after one
    that cannot be read, with no snapshot between, cannot be rebuilt and says so."""
    from engine.errors import FlureError
    from engine.game import Game

    out: list[Step] = []
    game, broken = None, None
    for seq, action, state in rows:
        if state:
            step = _parse(seq, action, state)
            try:
                game = Game.from_json(step.state) if step.problem is None else None
            except (FlureError, ValueError, KeyError, TypeError):
                game = None       # the session's _readable says why
            broken = None if step.problem is None else seq
            out.append(step)
            continue
        step = _parse(seq, action, "{}")
        if step.problem is not None or game is None:
            out.append(step if step.problem is not None else Step(seq, {}, {}, unreadable(
                seq, Text(N_("it follows step %(step)s, which cannot be read"), step=broken if broken is not None
                          else seq - 1))))
            broken = seq if broken is None else broken
            game = None
            continue
        try:
            game = game.apply({k: v for k, v in step.action.items() if k != "by"})
        except (FlureError, ValueError, KeyError, TypeError) as exc:
            out.append(Step(seq, {}, {}, unreadable(seq, exc)))
            broken, game = seq, None
            continue
        out.append(Step(seq, step.action, game.to_json()))
    return out


def _parse(seq: int, action, state) -> Step:
    """A step row as a Step; a row whose JSON cannot be read says so instead of raising."""
    try:
        a, s = json.loads(action), _unpack(state)
    except (TypeError, ValueError, zlib.error) as exc:
        return Step(seq, {}, {}, unreadable(seq, exc))
    if not isinstance(a, dict) or not isinstance(s, dict):
        return Step(seq, {}, {}, unreadable(seq, Text(N_("not a JSON object"))))
    return Step(seq, a, s)
