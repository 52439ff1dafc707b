"""The journal stays small: the actions, a snapshot now and then, and old games let go.

A café playing all evening wrote ~0.45 MB a game (the whole state after every action, every
camera reading, no game ever removed).  Checked with real SQLite files and real sessions: every
state is rebuilt exactly from the actions, only snapshots and the newest step keep a state, an
old journal (a state in every row) still resumes and goes on, older games go ([web] keep_games,
keep_days) but never the newest, a finished game takes at most 60 KB, and ``flure doctor`` says
what the journal holds.
"""
from __future__ import annotations

import random
import sqlite3
import time

from companion_app.cli import main as flure
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import SNAPSHOT_EVERY, Store
from engine.game import Game
from game_helpers import play_out

TARGET_BYTES = 60_000


def played(session: TableSession, seed: int, reading: dict | None = None) -> list[dict]:
    """A whole game through the session (each state as the session had it, by step), with a camera
    reading recorded at every step when given (as the camera loop records them)."""
    session.new_game(["red", "blue"], seed=seed)
    states = [session.game.to_json()]
    _, actions = play_out(session.game, random.Random(seed))
    for action in actions:
        session.act(action, by="camera")
        if reading is not None:
            session.record_reading(reading, "applied")
        states.append(session.game.to_json())
    return states


def stored(path, game_id: int) -> list[tuple[int, bool]]:
    with sqlite3.connect(path) as db:
        return [(seq, state != "") for seq, state in
                db.execute("SELECT seq, state FROM steps WHERE game_id = ? ORDER BY seq", (game_id,))]


def test_every_state_is_rebuilt_from_the_actions_and_only_snapshots_keep_one(tmp_path):
    path = tmp_path / "s.sqlite3"
    session = TableSession(Store(path))
    states = played(session, seed=5)
    assert len(states) > 2 * SNAPSHOT_EVERY
    rows = stored(path, session.game_id)
    last = rows[-1][0]
    assert [seq for seq, kept in rows if kept] == [s for s in range(last + 1) if s % SNAPSHOT_EVERY == 0 or s == last]
    history = session.store.history(session.game_id)
    assert [s.problem for s in history] == [None] * len(states)
    assert [s.state for s in history] == states                    # replayed: exactly the states played
    # undo: the step now newest keeps its state, so a restart replays nothing
    session.undo()
    assert stored(path, session.game_id)[last - 1] == (last - 1, True)
    again = TableSession(Store(path))
    assert again.resume() and again.seq == last - 1 and again.game.to_json() == states[-2]
    assert again.state()["log"] == session.state()["log"][:-1] or again.game == session.game
    session.close()
    again.close()


def test_an_old_journal_with_the_whole_state_in_every_step_resumes_and_goes_on(tmp_path):
    path = tmp_path / "old.sqlite3"
    session = TableSession(Store(path))
    states = played(session, seed=8)[:40]
    game_id = session.game_id
    session.close()
    with sqlite3.connect(path) as db:     # a journal of the older form: every state, every step
        import json
        db.execute("DELETE FROM steps WHERE game_id = ? AND seq >= ?", (game_id, len(states)))
        db.executemany("UPDATE steps SET state = ? WHERE game_id = ? AND seq = ?",
                       [(json.dumps(state), game_id, seq) for seq, state in enumerate(states)])
    old = TableSession(Store(path))
    assert old.resume() and old.game.to_json() == states[-1] and old.journal.notes == []
    assert [s.state for s in old.store.history(game_id)] == states
    game = Game.from_json(states[-1])
    _, actions = play_out(game, random.Random(1), max_actions=3)
    for action in actions:
        old.act(action)
    resumed = TableSession(Store(path))
    assert resumed.resume() and resumed.game == old.game and resumed.seq == len(states) - 1 + len(actions)
    old.close()
    resumed.close()


def test_older_games_go_by_count_and_by_age_but_never_the_newest(tmp_path):
    path = tmp_path / "s.sqlite3"
    session = TableSession(Store(path), keep_games=2, keep_days=30)
    for seed in range(5):
        session.new_game(["red", "blue"], seed=seed)
        session.record_reading({"setup": {}}, "applied")
    with sqlite3.connect(path) as db:
        assert [g for (g,) in db.execute("SELECT id FROM games ORDER BY id")] == [3, 4, 5]
        assert {g for (g,) in db.execute("SELECT DISTINCT game_id FROM steps")} == {3, 4, 5}
        assert {g for (g,) in db.execute("SELECT DISTINCT game_id FROM readings")} == {3, 4, 5}
        db.execute("UPDATE games SET created = ?", (time.time() - 31 * 86400,))   # all a month old
    assert session.store.prune(keep_games=2, keep_days=30) == 2
    with sqlite3.connect(path) as db:
        assert [g for (g,) in db.execute("SELECT id FROM games")] == [5]          # the newest stays
    assert TableSession(Store(path)).resume()


def test_a_finished_game_takes_at_most_60_kb_of_journal(tmp_path):
    """Several whole games, each step read by the camera (a reading kept per step, as the loop does)."""
    path = tmp_path / "s.sqlite3"
    session = TableSession(Store(path))
    reading = {"setup": Game.new(["red", "blue"], seed=1).position.to_setup(), "tile": None, "problems": [],
               "located": True}
    games = 6
    steps = sum(len(played(session, seed=20 + n, reading=reading)) for n in range(games))
    session.close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = Store(path).size()
    per_game = size["bytes"] / games
    print(f"{games} games, {steps} steps: {size['bytes']} bytes, {per_game:.0f} bytes a game")
    assert per_game <= TARGET_BYTES, size
    assert size["games"] == games and size["steps"] == steps


def test_flure_doctor_says_what_the_journal_holds(tmp_path, capsys):
    path = tmp_path / "s.sqlite3"
    session = TableSession(Store(path))
    played(session, seed=3)
    session.new_game(["red", "blue"], seed=4)
    session.close()
    flure(["--lang", "en", "doctor", "--db", str(path), "--camera", "none", "--camera-timeout", "1"])
    line = next(x for x in capsys.readouterr().out.splitlines() if "journal:" in x)
    assert line.startswith("ok   journal: ") and " KB: 2 games, " in line, line
    assert "keeps the last 100 games, none older than 30 days" in line
