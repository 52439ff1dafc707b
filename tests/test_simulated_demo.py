"""``flure play --demo`` end to end, as a real process (TABLE.md "The simulated table").

The demo game is played by simulated players on the simulated table and read by the camera
worker only.  Checked from outside the process: the SQLite journal (every action came from the
camera, the game ended, the counts of the last line), the LED grid's last frame as the
simulated WLED device on its pseudo-terminal received it, and the state the web app served.
With ``--no-camera`` the same players cannot make the game progress.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
import urllib.request

from companion_app.table.session.store import Store
from engine.game import Game
from engine.geometry import SQUARES, square_name
from tests.hardware_helpers import running_emulator

SEED = 28
LAST_LINE = re.compile(r"demo finished: (?P<text>[^;]+); (?P<moves>\d+) moves read by the camera, "
                       r"(?P<monster>\d+) monster moves, (?P<follow>\d+) follow-ups checked, "
                       r"(?P<referee>\d+) referee actions")
# Fast but real: the worker reads 10 frames a second and wants 2 identical ones; the LED
# animation is short so its last frame is on the strip before the demo closes.
CONFIG = """
[camera]
fps = 10.0
[table]
stable_frames = 2
[animation]
beat_ms = 15
hold_s = 0.05
fps = 60
[power]
budget_ma = 100000
"""


def start_demo(tmp_path, *extra):
    cfg = tmp_path / "table.toml"
    cfg.write_text(CONFIG)
    return subprocess.Popen(
        [sys.executable, "-m", "companion_app.cli", "play", "--demo", "--until-end", "--seed", str(SEED),
         "--speed", "20", "--port", "0", "--host", "127.0.0.1", "--pin", "735291", "--config", str(cfg),
         "--db", str(tmp_path / "demo.sqlite3"), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


class Watcher(threading.Thread):
    """Reads the process's output; once it prints its address, polls the web app's state and
    LED frame (and the emulator's LEDs at the same moment) until the process ends."""

    def __init__(self, proc, emulator=None):
        super().__init__(daemon=True)
        self.proc, self.emulator = proc, emulator
        self.lines: list[str] = []
        self.url = None
        self.states: list[dict] = []
        self.led_pairs: list[tuple[dict, dict]] = []

    def run(self):
        poller = None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            found = re.search(r"open (http://127\.0\.0\.1:\d+/) on your phones", line)
            if found and poller is None:
                self.url = found.group(1)
                poller = threading.Thread(target=self.poll, daemon=True)
                poller.start()

    def poll(self):
        while self.proc.poll() is None:
            try:
                state = json.load(urllib.request.urlopen(self.url + "api/state", timeout=5))
                frame = json.load(urllib.request.urlopen(self.url + "api/leds", timeout=5))["frame"]
            except OSError:
                time.sleep(0.1)
                continue
            self.states.append({k: state.get(k) for k in ("phase", "seq", "winner", "summary", "game_id")})
            if self.emulator is not None and frame:
                strip = {square_name(sq): "%02x%02x%02x" % self.emulator.square_colour(sq) for sq in SQUARES}
                self.led_pairs.append((frame["squares"], strip))
            time.sleep(0.2)


def run_demo(tmp_path, *extra, emulator=None, timeout=400, watch=Watcher):
    """The demo process to its end, watched from outside (by a ``watch``): (process, watcher, its last line matched)."""
    proc = start_demo(tmp_path, *extra)
    watcher = watch(proc, emulator)
    watcher.start()
    try:
        proc.wait(timeout=timeout)
    finally:
        proc.kill()
    watcher.join(timeout=10)
    out = "\n".join(watcher.lines[-15:])
    assert proc.returncode == 0, out
    last = LAST_LINE.fullmatch(watcher.lines[-1])
    assert last, out
    return proc, watcher, last


def test_the_demo_plays_a_whole_game_through_the_camera_only(tmp_path):
    with running_emulator() as emu:
        proc, watcher, last = run_demo(tmp_path, "--leds", emu.url, emulator=emu)
        final_strip = {square_name(sq): emu.square_colour(sq) for sq in SQUARES}
    out = "\n".join(watcher.lines[-15:])
    assert last["referee"] == "0"

    # The journal: the game ended, and every action after the start came through the camera.
    store = Store(tmp_path / "demo.sqlite3")
    game_id = store.last_game()
    steps = store.history(game_id)
    final = Game.from_json(steps[-1].state)
    assert final.phase == "over" and final.seed == SEED
    assert last["text"] == str(final.summary()).rstrip(".")
    actions = [s.action for s in steps[1:]]
    assert actions and all(a["by"].startswith("camera") for a in actions), [a for a in actions if
                                                                          not a["by"].startswith("camera")]
    moves = [a for a in actions if a["type"] in ("move", "pawn-at")]
    tiles = [a for a in actions if a["type"] == "tile"]
    assert len(moves) == int(last["moves"]) > 20
    assert len(tiles) == int(last["monster"]) >= 1
    # The follow-ups the session checked: the new game's setup, then every monster move's but one that
    # ended the game (nothing is left to follow then).
    ongoing = [s for s in steps[1:] if s.action["type"] == "tile" and Game.from_json(s.state).phase != "over"]
    assert int(last["follow"]) == 1 + len(ongoing), out
    # The journal replays: the same actions from the seeded start give the same end.
    game = Game.new(["red", "blue"], seed=SEED)
    for action in actions:
        game = game.apply({k: v for k, v in action.items() if k != "by"})
    assert game.to_json() == final.to_json()
    # The tiles came from the physical draw of the game's own seeded deck, in order.
    replay = Game.new(["red", "blue"], seed=SEED)
    for action in actions:
        if action["type"] == "tile":
            assert action["tile"] == replay.apply({"type": "draw"}).last_tile
        replay = replay.apply({k: v for k, v in action.items() if k != "by"})

    # The web app served the end.
    assert watcher.states, out
    end = watcher.states[-1]
    assert end["phase"] == "over" and end["winner"] == final.winner and end["seq"] == steps[-1].seq

    # The LEDs: what the app says it sent is what the device on the pty shows, and the strip's
    # last frame shows the final position's monster.
    # (compared at the same moment: the show goes on flashing while the demo closes)
    assert any(served == strip for served, strip in watcher.led_pairs[-10:]), "LED frames never matched"
    monster = final.position.to_setup()["monster"]["at"]
    assert final_strip[monster] != (0, 0, 0)
    assert sum(colour != (0, 0, 0) for colour in final_strip.values()) > 20   # the board is lit, not blank


def test_without_a_camera_the_demo_makes_no_progress_and_says_so(tmp_path):
    proc = start_demo(tmp_path, "--no-camera", "--no-leds")
    out, _ = proc.communicate(timeout=120)
    lines = out.strip().splitlines()
    assert proc.returncode == 1, out
    assert lines[-1].startswith("demo cannot progress: there is no camera (--no-camera)"), out
    # the players wait for the session to see the board set up, which it never can
    assert lines[-1].endswith("the players are waiting for the session to check the follow-up"), out
    steps = Store(tmp_path / "demo.sqlite3").history(Store(tmp_path / "demo.sqlite3").last_game())
    assert len(steps) == 1                                                # the game never moved


def test_without_a_camera_the_demo_says_so_in_the_lang_option(tmp_path):
    """The stall's line is wording data: French here (--lang fr), from the real stalled demo."""
    proc = start_demo(tmp_path, "--no-camera", "--no-leds", "--lang", "fr")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 1, out
    last = out.strip().splitlines()[-1]
    assert last.startswith("la démo ne peut pas avancer\u00a0: il n'y a pas de caméra (--no-camera)"), out
    assert "La partie en est toujours à l'étape 0 (" in last, out
    # what the players are at is wording data too (companion_app/table/simulated/simulated.py)
    assert last.endswith("les joueurs\u00a0: on attend que la session vérifie la mise à jour de la table"), out


def test_an_induced_illegal_move_is_refused_by_the_session_shown_and_put_right(tmp_path):
    """In one process: the real camera worker and loop read the simulated table; a player's
    illegal move is refused (never in the journal) and shown, and the game goes on once the
    player put it right."""
    from table_helpers import simulated_table

    refusals = []
    with simulated_table(tmp_path, seed=SEED, speed=20, fps=10) as (session, rig):
        rig.start()
        deadline = time.monotonic() + 120
        while session.seq < 2 and time.monotonic() < deadline:    # two legal moves read first
            time.sleep(0.1)
        assert session.seq >= 2, session.loop.view.get("why_not")
        rig.players.err_rate = 1.0
        while rig.players.counts["illegal"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        rig.players.err_rate = 0.0
        seq = session.seq
        while not any(line.startswith("put it right") for line in rig.players.log) and time.monotonic() < deadline:
            change = (session.loop.view or {}).get("change") or {}
            if change.get("kind") == "refused":
                refusals.append(change["message"])
            time.sleep(0.05)
        assert session.seq == seq                          # nothing was applied meanwhile
        assert refusals and "no legal" in str(refusals[-1]), refusals
        while session.seq == seq and time.monotonic() < deadline:
            time.sleep(0.1)
        assert session.seq > seq                           # put right, the game goes on
    assert rig.players.applied_errors == []
    journal = [s.action for s in Store(tmp_path / "s.sqlite3").history(session.game_id)[1:]]
    assert journal and all(a["by"] == "camera" for a in journal)


def test_the_advanced_demo_places_every_piece_and_plays_the_game_through_the_camera_only(tmp_path):
    """``--advanced``: the simulated players put the 17 board pieces down one by one (A1, A2), each
    read by the camera and placed through the same gate, then play the game to its end."""
    proc, watcher, last = run_demo(tmp_path, "--advanced", "--no-leds")
    assert last["referee"] == "0"

    store = Store(tmp_path / "demo.sqlite3")
    steps = store.history(store.last_game())
    final = Game.from_json(steps[-1].state)
    assert final.phase == "over" and final.setup == "advanced"
    actions = [s.action for s in steps[1:]]
    assert all(a["by"] == "camera" for a in actions), [a for a in actions if a["by"] != "camera"]
    placed = [a for a in actions if a["type"] == "place"]
    assert actions[:17] == placed and len(placed) == 17                 # the setup first (A2)
    assert {a["piece"] for a in placed} == {"stone", "crystal", "pivot-right", "pivot-about", "pool-2x2",
                                            "pool-1x4", "teleporter"}
    assert all(a.get("pair") in (1, 2) and a.get("arrow") in ("N", "E", "S", "W")
               for a in placed if a["piece"] == "teleporter")           # read from the table, never defaulted
    game = Game.new(["red", "blue"], setup="advanced", seed=SEED)
    for i, action in enumerate(actions):
        game = game.apply({k: v for k, v in action.items() if k != "by"})
        if i == 16:
            assert game.phase == "pawns" and game.to_move == "blue"    # red placed the 17th piece: blue starts (A2)
    assert game.to_json() == final.to_json()
    moves = [a for a in actions if a["type"] in ("move", "pawn-at")]
    assert len(moves) == int(last["moves"]) > 10
    assert watcher.states and watcher.states[-1]["phase"] == "over"
    assert any(s["phase"] == "placement" for s in watcher.states)      # the phones saw the setup


def test_a_follow_up_checked_before_anyone_looked_still_counts_in_the_demo_line(tmp_path):
    """The race behind a loaded machine's "9 follow-ups checked" for 10 monster moves: the count of
    the ``demo finished`` line must come from the session's own checks, not from sampling whether it
    waits.  Here the camera checks the new game's setup (the table starts in the game's position)
    before the players or the demo ever look, as when start-up is slow; it still counts."""
    from companion_app.table.devices.devices import open_camera
    from companion_app.table.session.session import TableSession
    from companion_app.table.simulated.demo import SimulatedRig

    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=SEED)
    session.loop.mode = "auto"
    rig = SimulatedRig(session, seed=SEED, speed=20)         # its players never start
    assert session.follow == "setup"
    session.camera = open_camera("simulated", None, None, 2, on_update=session.on_camera, fps=10,
                                 open_frames=rig.open_source)
    try:
        deadline = time.monotonic() + 120
        while session.follow is not None and time.monotonic() < deadline:   # nobody calls rig.watch()
            time.sleep(0.05)
        assert session.follow is None, session.loop.view.get("why_not")
        assert rig.watch().follow_up is False
        assert rig.follow_ups == 1
    finally:
        rig.close()
        session.close()
