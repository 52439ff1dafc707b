"""The live table session: one game, its history, the devices, and the phones listening.

Views translate HTTP into calls on this object and back (flaskr's rule: no
game logic in request globals).  The rules stay in ``engine``: this object only
keeps the current immutable ``Game``, saves each accepted action in SQLite,
tells the LED grid and the phones, and reports device trouble instead of
raising it — a vanished camera or serial port must never stop the table.
A refused action raises the engine's typed error (``engine.errors``); the web
layer decides what HTTP status that is.  The state JSON is rendered in
``state.py``, the camera picture in ``frames.py``.  Sentences stay wording data (engine.wording)
here: each screen gets them in its own language at the edge (web layer, live stream).
"""
from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from engine.actions import Action, Correct
from engine.errors import FlureError, GameActionError, InvalidSetupError
from engine.game import Game
from engine.geometry import square_name
from engine.position import BOARD, Position
from engine.wording import N_, Text, payload_from_json

from ...i18n import DEFAULT
from ...i18n.text import render
from ..actors import By, Trigger
from ..camera.frames import jpeg, last_frame
from ..camera.loop import TableLoop
from ..camera.port import Prior, TableSnapshot
from ..camera.readings import check_fix
from ..devices.devices import Device
from ..devices.interfaces import Buttons, Camera, Leds, Speaker
from .events import LEDS, PHONE, REFEREE, SCREENS, Broker, Outgoing, leds_delta, phone_camera, sse_message, state_delta
from .journal import Journal, StaleRequestError
from .state import preview_json, public_state
from .store import JournalError, Store

MONSTER_ACTIONS = ("draw", "tile")
LOG_LENGTH = 40


class NoGameError(GameActionError):
    """Raised by actions that need a game when none has been started."""

    def __init__(self):
        super().__init__("No game is running yet: start a new game from the referee view")


@dataclass
class TableSession:
    """The composition root's live object, shared by every request thread.

    It is the camera loop's ``camera.port.Table``: the loop reads it through ``snapshot`` and acts
    through ``apply``, ``accept``, ``refused``, ``follow_done``, ``show_on_leds`` and
    ``publish_camera``, none of which calls the loop back; the session calls its loop only under
    its own lock (``on_camera`` is the camera worker's ``on_update``)."""

    store: Store
    camera: Device[Camera] = field(default_factory=lambda: Device("camera"))
    leds: Device[Leds] = field(default_factory=lambda: Device("LED grid"))
    buttons: Device[Buttons] = field(default_factory=lambda: Device("buttons"))
    speaker: Device[Speaker] = field(default_factory=lambda: Device("speaker", why=Text(N_("switched off"))))
    language: str = "en"        # the table's own ([table] language): what the speaker says the steps in
    beat_ms: float = 260.0      # the LED animation's beat ([animation] beat_ms): the speaker keeps to it
    rng: random.Random = field(default_factory=random.SystemRandom)
    simulated: object | None = None    # the simulated table (table.demo.SimulatedRig) when it is the camera
    leds_lent: bool = False     # the Setup page's teaching lights the LEDs (its steps' squares) meanwhile
    keep_games: int = 100       # [web] keep_games / keep_days: the journal's older games go at each new game
    keep_days: float = 30

    def __post_init__(self):
        self.broker = Broker()
        self._lock = threading.RLock()
        self.game: Game | None = None
        self.game_id: int | None = None
        self.seq = 0
        self.version = 0
        self.plan_seq: int | None = None
        self.log_lines: list[dict] = []
        self.fixes: dict[str, dict] = {}
        self.follow: str | None = None   # why the table must be brought into the game's position (judge.FOLLOW_WHY)
        self.journal = Journal(self.store, self.keep_games, self.keep_days)   # retried requests, notes, records
        self.plan_turn: tuple[int, int] | None = None   # (round, turn) the shown monster move was played in
        self._led_plan = None                           # the plan the LEDs were last given to animate
        self._led_following = False                     # the LEDs show a follow-up
        self._led_mark = None                           # the pawn move to mark on the LEDs (auto mode)
        self._published: dict | None = None             # the state last sent to the screens (the next sends its delta)
        self._phone_camera: dict | None = None          # the camera's view last sent to the phones (in their form)
        self._leds_lock = threading.Lock()
        self._leds_shown: dict | None = None            # the LED frame last sent to the screens
        self._leds_at = 0.0                             # when (time.monotonic)
        self._guide: Mapping | None = None              # the camera loop's follow-up squares for the LEDs
        self._camera_view: dict | None = None           # the camera's view last sent to the screens
        self.loop = TableLoop(self)
        self._stopping = threading.Event()
        threading.Thread(target=self._publish_leds, name="led-frames", daemon=True).start()

    # -- lifecycle ---------------------------------------------------------
    def resume(self) -> bool:
        """Load the last game from the database (``flure play`` after a restart)."""
        with self._lock:
            game_id = self.store.last_game()
            if game_id is None:
                return False
            steps, last = self.journal.readable(game_id, self.store.history(game_id))
            if last is None:
                return False
            self.game_id = game_id
            self.game = Game.from_json(last.state)
            self.seq = last.seq
            self._rebuild_log(steps)
            self.version = self.store.version() - 1   # _changed bumps it back to the saved version
            self.follow = "resume"
            self._changed()
            return True

    def new_game(self, players, first_player=None, setup="basic", prey3_variant=False, seed=None) -> dict:
        if seed is None:
            seed = self.rng.randrange(2**31)
        game = Game.new(players, first_player, setup, prey3_variant=prey3_variant, seed=seed)
        settings = {"players": list(game.players), "first_player": game.first_player, "setup": setup,
                    "prey3_variant": prey3_variant, "seed": seed}
        with self._lock:
            self.game_id = self.store.new_game(settings, game.to_json(), **self.journal.marks(self.version))
            self.game, self.seq, self.plan_seq = game, 0, None
            self.log_lines = [_log_line(0, game)]
            self.fixes = {}
            self.follow = "setup"
            self._changed()
            self.journal.prune()
            return self.state()

    # -- actions -----------------------------------------------------------
    def act(self, action: Action | dict, by: By | str = By.REFEREE) -> dict:
        """Apply one engine action; engine errors propagate (the view turns them into 4xx).

        ``by`` is who gave it (``actors.By``, or its string value) and is saved with it.
        An action that did not come from the camera reading the table leaves the table behind the
        game: the camera then guides the follow-up, as after every monster move.
        """
        with self._lock:
            self._apply(action, By(by))
            self._changed()
            return self.state()

    def _apply(self, action: Action | dict, by: By) -> None:
        """``act`` without telling anyone: the game, the journal, the log, the follow-up it starts."""
        game = self._need_game()
        after = game.apply(action)
        action = action if isinstance(action, dict) else action.to_json()   # the journal's form
        self.seq = self.store.push(self.game_id, {**action, "by": by.value}, after.to_json(), seq=self.seq + 1,
                                   **self.journal.marks(self.version))
        self.game = after
        if action.get("type") in MONSTER_ACTIONS:
            self.plan_seq = self.seq
            self._led_plan = None      # a new plan: animated even when an undo gave it the old one's seq
            self.plan_turn = (game.round, game.turn)
            self.follow = "round" if after.round != game.round else "monster"
        elif not by.camera:
            self.follow = "referee"
        self._led_mark = self._pawn_mark(action, by, after)
        self._add_log(self.seq, action, after)
        self.fixes = {}

    def undo(self) -> dict:
        with self._lock:
            self._need_game()
            step = self.store.undo(self.game_id, to_seq=self.journal.undo_target(self.game_id, self.seq),
                                   **self.journal.marks(self.version))
            if step is None:
                raise GameActionError(N_("Nothing to undo: this is the start of the game"))
            self.game = Game.from_json(step.state)
            self.seq = step.seq
            self._rebuild_log(self.store.history(self.game_id))
            self.log_lines.append(_said({"seq": self.seq}, Text(N_("Undone: back to the position before the last action."))))
            self.fixes = {}
            self.follow = "undo"
            self._changed()
            return self.state()

    def preview(self) -> dict:
        """What each tile still in the deck would do (the referee's "what if")."""
        with self._lock:
            game = self._need_game()
        return preview_json(game)

    def targets(self, label: str) -> list[dict]:
        with self._lock:
            game = self._need_game()
        if not any(p.label == label for p in game.position.pawns):
            raise InvalidSetupError(Text(N_("there is no pawn %(label)s in this game"), label=repr(label)), "pawn")
        return game.targets(label)

    # -- camera ------------------------------------------------------------
    def on_camera(self, update) -> None:
        """The camera worker's ``on_update``: each ``CameraUpdate`` to the camera loop."""
        with self._lock:
            self.loop.on_camera(update)

    def prior(self) -> Prior | None:
        """The game's position and who may change it (``port.Prior``), for a camera reader that reads
        against it; None before a game.  No lock: the worker's thread may call it at any time."""
        return Prior.of(self.game, following=self.follow is not None)

    def camera_view(self) -> dict:
        """The camera worker's last reading judged against the game (never waits on the camera)."""
        with self._lock:
            return self.loop.refresh()

    def set_camera_mode(self, mode: str) -> dict:
        """The camera loop's mode (``auto`` or ``confirm``, TABLE.md "Modes"); the camera's view."""
        with self._lock:
            return self.loop.set_mode(mode)

    def fix_square(self, square: str, piece: dict) -> dict:
        """Correct one square of the camera reading (the referee tapped it)."""
        name, fixed = check_fix(square, piece)
        with self._lock:
            self.fixes[name] = fixed
            return self.loop.refresh()

    def camera_jpeg(self) -> bytes | None:
        """The camera's last frame as JPEG (None before the first frame)."""
        return jpeg(last_frame(self.camera.obj))

    def clear_fixes(self) -> None:
        with self._lock:
            self.fixes = {}
            self.loop.fixes_changed()

    def signal_error(self) -> None:
        """The table did something the game refuses: the LED grid blinks until the next good state."""
        self.leds.call(lambda leds: leds.show_error())

    def from_table(self, fn):
        """A callback for a physical button: on a refusal the grid blinks, and the error goes on up
        (the button object records it for the referee's Devices card)."""
        def run():
            try:
                fn()
            except FlureError:
                self.signal_error()
                raise
        return run

    def confirm_reading(self, expect: Action | None = None, by: Trigger = Trigger.SCREEN) -> dict:
        """Accept the camera's proposal (the referee's tap, or ``Trigger.BUTTON``): through the loop's one gate.

        ``expect`` is the action the referee's screen proposed: when the reading now stands for
        something else (a player moved on meanwhile), nothing is played and the referee looks again.
        """
        with self._lock:
            self._need_game()
            message = self.loop.gate(by, expect)
            return {**self.state(), "confirmed": message}

    def accept_table(self) -> dict:
        """The referee accepts the table as the camera sees it (a logged correction of the game)."""
        with self._lock:
            self.loop.accept_table()
            return self.state()

    # -- the camera loop's port (camera.port.Table): called by the loop, never calling it back ---------
    def snapshot(self) -> TableSnapshot:
        with self._lock:
            return TableSnapshot(self.game, self.game_id, self.seq, MappingProxyType(dict(self.fixes)), self.follow,
                                 MappingProxyType(self.camera.status()))

    def apply(self, action: Action, by: By, reading: dict | None, outcome: str) -> TableSnapshot:
        with self._lock:
            self.record_reading(reading, outcome)
            self._apply(action, by)
            self._moved()
            return self.snapshot()

    def accept(self, position: Position, note) -> TableSnapshot:
        with self._lock:
            self._apply(Correct(position), By.REFEREE)
            self.follow = None       # the game now is the table
            self.add_log_line(note)
            self._moved()
            return self.snapshot()

    def refused(self, reading: dict | None, outcome: str) -> None:
        self.signal_error()
        self.record_reading(reading, outcome)

    def follow_done(self, note) -> None:
        with self._lock:
            self.follow = None
            if note is not None:
                self.add_log_line(note)
            self._moved()

    def show_on_leds(self, guide: Mapping | None) -> None:
        with self._lock:
            self._guide = guide
            self._show_on_leds()

    def lend_leds(self) -> None:
        """The LED grid lent to another view (the Setup page's teaching): the game's view waits."""
        with self._lock:
            self.leds_lent = True

    def take_back_leds(self) -> None:
        """The LED grid back to the game's view (or idle before a game)."""
        with self._lock:
            self.leds_lent = False
            if self.game is not None:
                self._show_on_leds()
            elif self.leds.obj is not None:
                self.leds.call(lambda grid: grid.show_idle())

    def record_reading(self, reading: dict | None, outcome: str) -> None:
        if self.game_id is not None and reading is not None:
            try:
                self.store.add_reading(self.game_id, self.seq, reading, outcome)
            except (JournalError, sqlite3.Error):
                pass   # a reading is a diagnostic record: a full disk must not stop the move (the Journal line says)

    def add_log_line(self, text) -> None:
        """A line of the session's own (``text``: engine.wording data or plain English) in the game log."""
        with self._lock:
            self.log_lines.append(_said({"seq": self.seq}, text))

    def publish_state(self) -> None:
        """Tell the phones about a change that is not a game action, and show it on the LEDs."""
        with self._lock:
            self._moved()
            self._show_on_leds()

    # -- the journal: retried requests and game records ---------------------------------
    def once(self, key: str | None, version: int | None, fn, *args, **kwargs) -> tuple[dict, bool]:
        """Run the state-changing call ``fn`` unless the request ``key`` was already played (``journal``).

        Returns (answer, repeated).  ``version`` is the state version the request was made against:
        one older than the journal's last write raises StaleRequestError (unless the request is a
        repeat, which is answered).  A newer display-only version (a follow-up the camera saw, which
        the phones were told about) is no reason to refuse: the game itself did not change."""
        with self._lock:
            done = self.journal.answer(key)
            if done is not None:
                answer = payload_from_json(done.answer)   # its sentences said in the retry's language
                if answer is None:   # an answer that could not be kept (not JSON): the state now
                    answer = {**self.state(), "repeated": True}
                return answer, True
            if version is not None and not self.store.version() <= version <= self.version:
                raise StaleRequestError(version, self.version)
            if key is None:
                return fn(*args, **kwargs), False
            before = self._kept_values()
            try:
                return self.journal.keep(key, fn, *args, **kwargs), False
            except (JournalError, sqlite3.Error):
                if self._kept_values() != before:   # saved nothing after the game moved on in memory: put it back
                    self._restore(before)
                raise

    _KEPT = ("game", "game_id", "seq", "plan_seq", "plan_turn", "log_lines", "fixes")

    def _kept_values(self) -> tuple:
        return tuple(list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v
                     for v in (getattr(self, name) for name in self._KEPT))

    def _restore(self, snapshot: tuple) -> None:
        for name, value in zip(self._KEPT, snapshot):
            setattr(self, name, value)
        self._changed()   # the phones, the LEDs and the camera loop go back with it

    def export_record(self) -> dict:
        """The running game as a ``flure-game/1`` record: its setup, seed and every action."""
        with self._lock:
            self._need_game()
            game_id = self.game_id
        return self.journal.export_record(game_id)

    def import_record(self, data) -> dict:
        """Start the game a record describes, played up to its last action (each step saved)."""
        with self._lock:
            self.game_id, self.game, self.seq = self.journal.import_record(data, self.version)
            self._rebuild_log(self.store.history(self.game_id))
            self.fixes = {}
            self._changed()
            return self.state()

    # -- public state ------------------------------------------------------
    def state(self) -> dict:
        """Everything the phones and the referee draw, as JSON (no secrets)."""
        with self._lock:
            # the last LOG_LENGTH lines, less the monster's lines: the move shown is said once, in plan_lines
            # (the pages show the log without them: static/board.js renderLog); the journal keeps them all
            log = [line for line in self.log_lines[-LOG_LENGTH:] if not line.get("plan")]
            return public_state(self.game, version=self.version, seq=self.seq, game_id=self.game_id,
                                log=log, plan_seq=self.plan_seq, plan_turn=self.plan_turn,
                                follow=self.follow is not None, camera_mode=self.loop.mode)

    def catch_up(self, kind: str = REFEREE, lang: str = DEFAULT) -> list[str]:
        """What a screen that just connected receives, whole, in its language, for its stream's ``kind``
        (events.STREAM_KINDS): the state last sent to the screens (the deltas after it build on it), the camera's view (in
        the phones' form for a phone) and the LED frame last sent."""
        out = []
        if kind in SCREENS:
            with self._lock:
                state = self._published or self.state()
                view = self._camera_view or self.loop.refresh()
            out += [sse_message("state", state, state["version"], lang),
                    sse_message("camera", phone_camera(view) if kind == PHONE else view, lang=lang)]
        with self._leds_lock:   # none sent yet: the first comes to every screen within _publish_leds's 0.1 s
            frame = self._leds_shown
            if frame is not None and "anim" in frame:   # its animation's time now
                frame = {**frame, "anim": {**frame["anim"], "t": frame["anim"]["t"] + time.monotonic() - self._leds_at}}
        return out + ([sse_message("leds", frame)] if frame is not None else [])

    def publish_camera(self, view: dict) -> None:
        """A new camera view to the screens: the referee's each time, the phones' when what a phone
        shows of it changed (the camera loop calls this in the order it judged the views)."""
        self._camera_view = view
        self.broker.publish(Outgoing("camera", view), (REFEREE,))
        phone = phone_camera(view)
        if phone != self._phone_camera:
            self._phone_camera = phone
            self.broker.publish(Outgoing("camera", phone), (PHONE,))

    def led_frame(self) -> dict | None:
        """The LED grid's last frame as sent (square name → hex colour), or None without LEDs."""
        return self.leds.call(lambda leds: leds.sent_frame())

    def device_status(self) -> dict:
        return {"camera": self.camera.status(), "leds": self.leds.status(), "buttons": self.buttons.status(),
                "speaker": self.speaker.status(),
                "journal": self.journal.status(), "phones": self.broker.clients}

    def _publish_leds(self, every_s: float = 0.1) -> None:
        """Push the LED grid's frame to every screen when it changed (at most ten times a second), as the
        pages draw it (``wire_frame``): the squares that changed since the frame last sent (a screen that
        connects gets that frame whole), nothing while a show the pages animate themselves goes on."""
        while not self._stopping.wait(every_s):
            with self._leds_lock:
                frame = self.leds.call(lambda leds: leds.wire_frame())
                if frame is None:          # no LED grid (any more): a screen that connects gets no frame
                    self._leds_shown = None
                    continue
                news = leds_delta(self._leds_shown, frame)
                if news is not None:
                    self.broker.publish(sse_message("leds", news), (PHONE, REFEREE, LEDS))
                    self._leds_shown, self._leds_at = frame, time.monotonic()

    def close(self) -> None:
        self._stopping.set()
        self.broker.close_all()
        for device in (self.leds, self.camera, self.buttons, self.speaker):
            device.call(lambda obj: obj.close())

    # -- internals -----------------------------------------------------------
    def _need_game(self) -> Game:
        if self.game is None:
            raise NoGameError()
        return self.game

    def _changed(self) -> None:
        """Bump the version, tell the phones, judge the camera again, show the new state on the LED grid
        (the loop gives the LEDs its follow-up: ``show_on_leds``)."""
        self._moved()
        self.loop.game_changed()

    def _moved(self) -> None:
        """Bump the version and tell the phones (under the session's lock)."""
        self.version += 1
        self._publish_state()

    def _publish_state(self) -> None:
        """The new state to the screens, as its delta from the one sent before (under the session's lock)."""
        state = self.state()
        self.broker.publish(Outgoing("state", state_delta(self._published, state), state["version"]), SCREENS)
        self._published = state

    def _show_on_leds(self) -> None:
        """The monster's move (once), then the follow-up's squares while the table is behind, else idle."""
        game = self.game
        if game is None or self.leds_lent:
            return
        position = game.position.to_setup()
        fresh_plan = self.plan_seq == self.seq and game.last_plan is not None
        if fresh_plan and self._led_plan != (self.game_id, self.plan_seq):
            self._led_plan = (self.game_id, self.plan_seq)
            plan = game.last_plan.to_json()
            self.leds.call(lambda leds: leds.show_plan(plan))
            self._announce(game.last_plan)
        follow = self._guide
        if follow is not None:
            self._led_following = True
            self.leds.call(lambda leds: leds.show_follow(position, follow["empty"], follow["fill"]))
        elif self._led_following:      # follow-up done: the position alone (after a move still playing)
            self._led_following = False
            self.leds.call(lambda leds: leds.show_follow(position, (), ()))
        elif not fresh_plan:
            first = game.first_player
            mark = self._led_mark
            if mark is not None and mark[:2] == (self.game_id, self.seq):
                self.leds.call(lambda leds: leds.show_mark(first, position, mark[2], mark[3]))
            else:
                self.leds.call(lambda leds: leds.show_idle(first, position))

    def _announce(self, plan) -> None:
        """The speaker says each step (the plan's words, as the phones show them, in the table's
        language) once the LEDs start it; it queues and returns, the table never waits for it."""
        if self.speaker.obj is None:
            return
        from hardware.animation import step_times

        lines = list(zip(step_times(plan, self.beat_ms), (render(s.words, self.language) for s in plan.steps)))
        self.speaker.call(lambda speaker: speaker.announce(lines))

    def _pawn_mark(self, action: dict, by: By, after: Game) -> tuple | None:
        """A pawn move the camera applied by itself (auto mode) is briefly marked on the LEDs
        (TABLE.md "Modes"): (game, step, square, colour), or None when there is nothing to mark."""
        if by is not By.CAMERA or action.get("type") != "move":
            return None
        pawn = after.position.pawn(action["pawn"])
        if pawn.place != BOARD:
            return None            # beside the board or out through the exit: no square to light
        return (self.game_id, self.seq, square_name(pawn.square), pawn.colour)

    def _add_log(self, seq: int, action: dict, game: Game) -> None:
        self.log_lines.append(_log_line(seq, game))
        if action.get("type") in MONSTER_ACTIONS and game.last_plan is not None:
            # the plan's own lines, marked so the phones can keep them out of the short game log
            self.log_lines.extend({"seq": seq, "text": sentence, "plan": True}
                                  for sentence in game.last_plan.sentences())

    def _rebuild_log(self, steps) -> None:
        self.log_lines, self.plan_seq, self.plan_turn = [], None, None
        previous = None
        for step in steps:
            if step.problem:
                self.log_lines.append(_said({"seq": step.seq}, Text(N_("Step %(seq)s could not be read from the "
                                                                        "journal and was skipped."), seq=step.seq)))
                continue
            game = _with_words(Game.from_json(step.state), previous, step.action)
            if step.seq == 0:
                self.log_lines.append(_log_line(0, game))
            elif step.action.get("type") == "correct":
                self.log_lines.append(_log_line(step.seq, game))
            else:
                if step.action.get("type") in MONSTER_ACTIONS:
                    self.plan_seq = step.seq
                    self.plan_turn = (previous.round, previous.turn) if previous is not None else None
                self._add_log(step.seq, step.action, game)
            previous = game


def _said(line: dict, words) -> dict:
    """A log line whose text is wording data (each screen renders it in its own language) or plain English."""
    line["text"] = words
    return line


def _log_line(seq: int, game: Game) -> dict:
    return _said({"seq": seq}, game.note)


def _with_words(game: Game, previous: Game | None, action: dict | None) -> Game:
    """A game read back from the journal has its note in English only; replaying its action on the
    step before gives the note as wording data again (kept only when it says the same)."""
    try:
        if previous is None:   # the game's first step: the new game itself
            replayed = Game.new(game.players, game.first_player, game.setup, prey3_variant=game.prey3_variant,
                                seed=game.seed)
        elif action:
            replayed = previous.apply({k: v for k, v in action.items() if k != "by"})
        else:
            return game
    except FlureError:
        return game
    if str(replayed.note) != str(game.note):
        return game
    return replace(game, note=replayed.note)
