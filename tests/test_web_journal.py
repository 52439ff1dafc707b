"""Retries and the journal: retried requests play once, a damaged or full journal is said
plainly and never stops the table, and a game travels as a flure-game/1 record (``flure replay``).

Real SQLite files throughout; the kill -9 case runs ``flure play`` as a real process."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from companion_app.cli import main as flure
from companion_app.table.session.session import TableSession
from companion_app.table.session.store import DiskFullError, Store
from engine.record import GameRecord
from test_web_play import REPO, start
from web_helpers import AUTH, make_app, play_pawn_phase

PLAYERS = {"players": ["red", "blue"], "first_player": "red", "seed": 3}


def version_of(client) -> str:
    return str(client.get("/api/state").json["version"])


@pytest.fixture
def started(tmp_path):
    app, session = make_app(tmp_path)
    client = app.test_client()
    assert client.post("/api/game", json=PLAYERS, headers=AUTH).status_code == 200
    return client, session


# -- retried requests ------------------------------------------------------------------------
def test_a_retried_draw_with_the_same_version_plays_once_and_gets_the_first_answer(started):
    client, session = started
    play_pawn_phase(session)
    headers = {**AUTH, "Flure-State-Version": version_of(client)}
    first = client.post("/api/action", json={"type": "draw"}, headers=headers)
    again = client.post("/api/action", json={"type": "draw"}, headers=headers)   # the answer was lost: retry
    assert first.status_code == again.status_code == 200
    assert again.json == first.json and again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert len(session.game.tiles_played) == 1 and session.seq == first.json["seq"]


def test_a_request_made_against_an_older_state_is_refused_with_409(started):
    client, session = started
    old = version_of(client)
    label = session.game.unmoved[0]
    assert client.post("/api/action", json={"type": "move", "pawn": label, "moves": ""},
                       headers={**AUTH, "Flure-State-Version": old}).status_code == 200
    before = session.state()
    r = client.post("/api/undo", json={}, headers={**AUTH, "Flure-State-Version": old})
    assert r.status_code == 409 and "table moved on" in r.json["error"] and f"state {old}" in r.json["error"]
    assert session.state() == before


def test_a_display_only_update_since_the_screen_looked_is_no_reason_to_refuse(started):
    """The phones hear of a follow-up the camera saw (the version goes up, the game does not change):
    a request made against the state just before is still the game's latest state, and is played."""
    client, session = started
    seen = version_of(client)
    session.publish_state()
    assert int(version_of(client)) == int(seen) + 1
    label = next(x for x in session.game.unmoved if session.game.position.pawn(x).colour == session.game.to_move)
    r = client.post("/api/action", json={"type": "move", "pawn": label, "moves": ""},
                    headers={**AUTH, "Flure-State-Version": seen})
    assert r.status_code == 200 and r.json["seq"] == 1
    r = client.post("/api/undo", json={}, headers={**AUTH, "Flure-State-Version": seen})
    assert r.status_code == 409                               # but a game change since is


def test_an_idempotency_key_makes_a_retried_undo_undo_once(started):
    client, session = started
    for _ in range(2):
        game = session.game
        session.act({"type": "move", "pawn": next(x for x in game.unmoved if game.position.pawn(x).colour
                                                  == game.to_move), "moves": ""})
    seq = session.seq
    headers = {**AUTH, "Idempotency-Key": "tablet-7f3a"}
    first = client.post("/api/undo", json={}, headers=headers)
    again = client.post("/api/undo", json={}, headers=headers)
    assert first.status_code == 200 and again.json == first.json and session.seq == seq - 1


@pytest.mark.parametrize("header, value", [("Flure-State-Version", "twelve"), ("Flure-State-Version", "-1"),
                                           ("Idempotency-Key", "x" * 129)])
def test_a_malformed_retry_header_is_refused_and_nothing_moves(started, header, value):
    client, session = started
    before = session.state()
    r = client.post("/api/undo", json={}, headers={**AUTH, header: value})
    assert r.status_code == 400 and header in r.json["error"]
    assert session.state() == before


def http(url, body=None, headers=None):
    """(status, JSON answer, headers) of a request to a real server."""
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), headers={
        "Authorization": "Bearer 9876", "Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read()), r.headers
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), exc.headers


def phone_url(out: str) -> str:
    import re
    return re.search(r"open (http://127\.0\.0\.1:\d+/) on your phones", out).group(1)


def test_a_draw_retried_after_a_kill_9_plays_once(tmp_path):
    """The server is killed with SIGKILL after the draw was committed (its answer never read);
    the tablet retries against the restarted server and gets the first answer, one draw played."""
    proc, out = start(tmp_path)
    try:
        url = phone_url(out)
        http(url + "api/game", PLAYERS)
        state = http(url + "api/state")[1]
        while state["phase"] == "pawns":          # the table moves every pawn (through the API)
            label = next(x for x in state["unmoved"] if state["position"]["pawns"][x]["color"] == state["to_move"])
            state = http(url + "api/action", {"type": "move", "pawn": label, "moves": ""})[1]
        headers = {"Flure-State-Version": str(state["version"])}
        status, first, _ = http(url + "api/action", {"type": "draw"}, headers)
        assert status == 200 and len(first["tiles_played"]) == 1
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=10)
    proc, out = start(tmp_path)
    try:
        url = phone_url(out)
        status, again, answer_headers = http(url + "api/action", {"type": "draw"}, headers)
        assert status == 200 and again == first and answer_headers["Idempotent-Replayed"] == "true"
        assert http(url + "api/state")[1]["tiles_played"] == first["tiles_played"]
        # a request that was never played, made against that old state, is refused: the table moved on
        status, refused, _ = http(url + "api/undo", {}, headers)
        assert status == 409 and "moved on" in str(refused["error"])
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=10)


def test_the_step_and_its_answer_are_one_commit(started, monkeypatch):
    """The answer is saved in the step's own transaction: when it cannot be, neither is the step, and
    the game in memory (and on the phones) goes back to where it was."""
    client, session = started
    play_pawn_phase(session)
    before, steps = session.state(), len(session.store.history(session.game_id))

    def full(key, answer):
        raise DiskFullError("/nowhere")
    monkeypatch.setattr(session.store, "keep_answer", full)
    r = client.post("/api/action", json={"type": "draw"}, headers={**AUTH, "Idempotency-Key": "k1"})
    assert r.status_code == 507
    after = session.state()
    assert {k: v for k, v in after.items() if k != "version"} == {k: v for k, v in before.items() if k != "version"}
    assert len(session.store.history(session.game_id)) == steps and session.store.answer("key k1") is None
    assert TableSession(Store(session.store.path)).resume() and session.game.tiles_played == ()


def test_an_answer_row_without_its_json_still_plays_once(started, tmp_path):
    """(A journal whose answer could not be read back: the retry gets the state now, marked repeated.)"""
    client, session = started
    play_pawn_phase(session)
    headers = {**AUTH, "Flure-State-Version": version_of(client)}
    client.post("/api/action", json={"type": "draw"}, headers=headers)
    with sqlite3.connect(session.store.path) as db:
        db.execute("UPDATE answers SET answer = NULL")
    app2, resumed = make_app(tmp_path, TableSession(Store(session.store.path)))
    assert resumed.resume()
    r = app2.test_client().post("/api/action", json={"type": "draw"}, headers=headers)
    assert r.status_code == 200 and r.json["repeated"] is True and len(r.json["tiles_played"]) == 1
    assert len(resumed.game.tiles_played) == 1


# -- a damaged journal -----------------------------------------------------------------------
def played_game(path) -> TableSession:
    s = TableSession(Store(path))
    s.new_game(["red", "blue", "green"], "blue", seed=7)
    play_pawn_phase(s)
    s.act({"type": "draw"})
    play_pawn_phase(s)
    s.close()
    return s


def spoil(path, sql, *args):
    with sqlite3.connect(path) as db:
        db.execute(sql, args)


def test_one_unreadable_action_row_in_the_middle_does_not_lose_the_game(tmp_path):
    path = tmp_path / "s.db"
    before = played_game(path)
    spoil(path, "UPDATE steps SET action = '{\"type\": \"mo' WHERE seq = 2")
    s = TableSession(Store(path))
    assert s.resume() is True and s.game == before.game and s.seq == before.seq
    status = s.journal.status()
    assert "skipped" in str(status["detail"]["error"]) and "step 2 cannot be read" in str(status["detail"]["error"])
    assert any(str(line["text"]) == "Step 2 could not be read from the journal and was skipped." for line in s.log_lines)
    with pytest.raises(Exception, match="Step 2 of this game could not be read"):
        s.export_record()
    play_pawn_phase(s)                      # play goes on
    assert s.act({"type": "draw"})["round"] >= 1


def test_an_unreadable_last_step_resumes_from_the_one_before_and_play_replaces_it(tmp_path):
    path = tmp_path / "s.db"
    before = played_game(path)
    spoil(path, "UPDATE steps SET state = 'garbage' WHERE seq = ?", before.seq)
    s = TableSession(Store(path))
    assert s.resume() is True and s.seq == before.seq - 1
    assert f"Resumed game {before.game_id} at step {before.seq - 1}" in str(s.journal.status()["detail"]["error"])
    label = next(x for x in s.game.unmoved if s.game.position.pawn(x).colour == s.game.to_move)
    s.act({"type": "move", "pawn": label, "moves": ""})
    again = TableSession(Store(path))
    assert again.resume() and again.seq == before.seq and again.journal.notes == []
    assert again.game == s.game


def test_a_state_that_is_json_but_not_a_game_counts_as_unreadable(tmp_path):
    path = tmp_path / "s.db"
    before = played_game(path)
    spoil(path, "UPDATE steps SET state = '{\"format\": \"nonsense\"}' WHERE seq = ?", before.seq)
    s = TableSession(Store(path))
    assert s.resume() and s.seq == before.seq - 1 and "format" in str(s.journal.status()["detail"]["error"])


def test_a_game_row_without_live_steps_starts_without_a_game_instead_of_crashing(tmp_path):
    path = tmp_path / "s.db"
    played_game(path)
    spoil(path, "INSERT INTO games (created, settings) VALUES (0, '{}')")
    s = TableSession(Store(path))
    assert s.resume() is False and s.game is None
    assert "has no readable step" in str(s.journal.status()["detail"]["error"])
    assert s.new_game(["red", "blue"])["phase"] == "pawns"


def damaged_by(path, how):
    data = path.read_bytes()
    if how == "garbage":
        path.write_bytes(os.urandom(len(data)))
    else:
        path.write_bytes(data[: len(data) // 2])
    return path.read_bytes()


@pytest.mark.parametrize("how", ["garbage", "truncated"])
def test_a_damaged_database_file_is_kept_aside_and_a_fresh_journal_starts(tmp_path, how):
    path = tmp_path / "s.db"
    played = played_game(path)
    for n in range(12):                              # enough pages that half the file loses some
        played.store.new_game({"n": n}, {"pad": "x" * 3000})
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    damaged = damaged_by(path, how)
    app, session = make_app(tmp_path, TableSession(Store(path)))
    assert session.resume() is False
    copies = list(tmp_path.glob("s.db.damaged-*"))
    assert [c.read_bytes() for c in copies if not c.name.endswith(("-wal", "-shm"))] == [damaged]
    client = app.test_client()
    status = client.get("/api/status", headers=AUTH).json["journal"]
    assert "was damaged" in status["detail"]["error"] and "s.db.damaged-" in status["detail"]["error"]
    said = {lang: client.get("/api/status", headers={**AUTH, "Accept-Language": lang}).json["journal"]["detail"]["error"]
            for lang in ("de", "fr", "es")}                        # in the request's language
    assert "war beschädigt" in said["de"] and "s.db.damaged-" in said["de"]
    assert "était endommagé" in said["fr"]
    assert "estaba dañado" in said["es"]
    assert client.post("/api/game", json=PLAYERS, headers=AUTH).status_code == 200   # writes work again


def test_flure_play_on_a_damaged_journal_starts_and_says_so(tmp_path):
    (tmp_path / "table.db").write_bytes(b"SQLite format 3\0" + os.urandom(8000))   # a torn header
    proc, out = start(tmp_path)
    try:
        assert "Journal: The game journal" in out and "was damaged" in out
        status, state, _ = http(phone_url(out) + "api/game", PLAYERS)
        assert status == 200 and state["phase"] == "pawns"
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:   # never leave a server behind
            proc.kill()
            proc.communicate()


# -- a full disk -----------------------------------------------------------------------------
def test_a_full_disk_answers_507_says_so_on_the_devices_card_and_changes_nothing(started, tmp_path):
    client, session = started
    with sqlite3.connect(session.store.path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    session.store.max_pages = pages            # SQLite itself now reports SQLITE_FULL on growth
    before = session.state()
    # The journal keeps the newest step's state and the actions before it, so a small move hardly grows
    # it; a referee's correction carries a whole position: a few of them must grow the file, and cannot.
    correct = {"type": "correct", "position": session.game.position.to_setup()}
    for _ in range(40):
        r = client.post("/api/action", json=correct, headers=AUTH)
        if r.status_code != 200:
            break
        before = session.state()
    assert r.status_code == 507
    assert "the disk is full: free space on " + str(tmp_path) in r.json["error"]
    assert "game state unchanged" in r.json["error"] and session.state() == before
    journal = client.get("/api/status", headers=AUTH).json["journal"]
    assert journal["error"] == f"the disk is full: free space on {tmp_path} (game state unchanged)"
    journal = client.get("/api/status", headers={**AUTH, "Accept-Language": "de"}).json["journal"]
    assert journal["error"] == f"die Festplatte ist voll: Platz in {tmp_path} freigeben (Spielstand unverändert)"
    r = client.post("/api/action", json=correct, headers={**AUTH, "Accept-Language": "es"})
    assert r.status_code == 507
    assert f"el disco está lleno: libera espacio en {tmp_path} (estado de la partida sin cambios)" in r.json["error"]
    session.store.max_pages = None              # space freed
    label = next(x for x in session.game.unmoved if session.game.position.pawn(x).colour == session.game.to_move)
    assert client.post("/api/action", json={"type": "move", "pawn": label, "moves": ""}, headers=AUTH).status_code == 200
    assert "error" not in client.get("/api/status", headers=AUTH).json["journal"]


def test_enospc_from_the_file_system_is_the_same_full_disk(tmp_path, monkeypatch):
    store = Store(tmp_path / "s.db")

    def full(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(sqlite3, "connect", full)
    with pytest.raises(DiskFullError, match="the disk is full"):
        store.new_game({}, {})


# -- game records ------------------------------------------------------------------------------
def test_export_then_import_gives_the_same_game(started, tmp_path):
    client, session = started
    play_pawn_phase(session)
    session.act({"type": "draw"})
    r = client.get("/api/game/export", headers=AUTH)
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    record = r.json
    assert record["format"] == "flure-game/1" and record["seed"] == 3 and record["actions"][-1] == {"type": "draw"}
    other_app, other = make_app(tmp_path / "other")
    r = other_app.test_client().post("/api/game/import", json=record, headers=AUTH)
    assert r.status_code == 200
    assert other.game == session.game and other.seq == session.seq
    assert [x["text"] for x in other.log_lines] == [x["text"] for x in session.log_lines]
    resumed = TableSession(Store(other.store.path))   # saved, step by step
    assert resumed.resume() and resumed.game == session.game


@pytest.mark.parametrize("change, field", [
    (lambda r: r.update(format="flure-game/9"), "format"),
    (lambda r: r.update(seed="x"), "seed"),
    (lambda r: r["actions"].__setitem__(2, {"type": "move", "pawn": 5, "moves": ""}), "actions[2].pawn"),
    (lambda r: r["actions"].append({"type": "draw"}), "actions[")])
def test_a_bad_record_is_refused_naming_the_field_and_nothing_changes(started, change, field):
    client, session = started
    play_pawn_phase(session)
    session.act({"type": "draw"})
    record = client.get("/api/game/export", headers=AUTH).json
    change(record)
    before = session.state()
    r = client.post("/api/game/import", json=record, headers=AUTH)
    assert r.status_code == 400 and field in r.json["error"], r.json
    assert session.state() == before


def exported_after_a_monster_move(started, tmp_path):
    """The game's record, downloaded as the referee does, once the monster has moved."""
    client, session = started
    play_pawn_phase(session)
    session.act({"type": "draw"})
    path = tmp_path / "game.json"
    path.write_text(json.dumps(client.get("/api/game/export", headers=AUTH).json))
    return path


def test_flure_replay_prints_each_step_and_the_monster_plans(started, tmp_path, capsys):
    _, session = started
    path = exported_after_a_monster_move(started, tmp_path)
    assert flure(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    for line in session.game.last_plan.lines():
        assert f"        {line}" in out
    assert out.count("\n   ") >= len(GameRecord.from_json(json.loads(path.read_text())).actions)
    assert f"After {session.seq} actions: {session.game.summary()}" in out


@pytest.mark.parametrize("text, words", [("{", "not valid JSON"), ('{"format": "flure-game/1"}', "players: missing"),
                                         ('{"format": "flure-game/1", "players": ["red"], "seed": 1, "actions": []}',
                                          "players")])
def test_flure_replay_of_a_bad_file_is_one_plain_line(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "companion_app.cli", "replay", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_record_with_a_referee_correction_replays_to_the_same_game_in_json(started, tmp_path, capsys):
    """`flure replay --json`: one line a step; a correction of the position (the referee put the board
    right) is an engine action like the others, so the record carries and replays it."""
    client, session = started
    moved = session.game.position.to_setup()
    label = next(iter(moved["pawns"]))
    moved["pawns"][label] = {**moved["pawns"][label], "at": "g7"}
    session.act({"type": "correct", "position": moved})
    play_pawn_phase(session)
    session.act({"type": "draw"})
    path = tmp_path / "game.json"
    path.write_text(json.dumps(client.get("/api/game/export", headers=AUTH).json))
    assert flure(["replay", "--json", str(path)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [x["step"] for x in lines] == list(range(session.seq + 1))
    assert lines[1]["action"]["type"] == "correct" and lines[-1]["state"] == session.game.to_json()


def test_flure_replay_says_the_notes_and_the_plan_in_the_commands_language(started, tmp_path, capsys):
    from companion_app.i18n.text import localize, render

    _, session = started
    path = exported_after_a_monster_move(started, tmp_path)
    assert flure(["--lang", "de", "replay", str(path)]) == 0
    out = capsys.readouterr().out
    for line in localize(session.game.last_plan.sentences(), "de"):
        assert f"        {line}" in out
    assert f"      {render(session.game.note, 'de')}\n" in out and str(session.game.note) not in out
