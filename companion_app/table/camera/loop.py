"""The camera-driven table loop (TABLE.md): the effects of what the camera sees, and the one gate.

The camera worker (``watcher``) hands every update to ``TableLoop.on_camera``.  The loop asks
the pure judge (``judge.judge``) what the update means for the game — once per update and game
state — and keeps only the effects: applying a proposal, the LEDs, publishing the view.
Whatever applies a camera proposal — ``auto`` mode, the referee's screen, the CONFIRM button —
goes through ``gate``, which refuses a reading with problems, an ambiguous change, and a table
that has changed since the screen showed it.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import replace
from types import MappingProxyType

from engine.actions import Action, Correct
from engine.errors import FlureError, GameActionError
from engine.position import Position
from engine.tablediff import table_fixes
from engine.wording import N_, Join, Text

from ..actors import By, Trigger
from .judge import CameraView, is_unseen_flip, judge, table_position

log = logging.getLogger(__name__)
MODES = ("auto", "confirm")
APPLIED = ("move", "place")      # changes auto mode applies from a fresh (or unseen) stable reading


class TableLoop:
    """The session's camera side: the last camera update, the follow-up, the mode, the gate and the effects.

    ``session`` is the table session it acts for (``act``, the LEDs, the log, the phones) and
    ``lock`` the lock that keeps the game and the camera view in step (the session's, handed over
    when the session makes its loop).  ``judged`` counts the judge's runs: once per camera update
    and game state, however often the view is asked for."""

    def __init__(self, session, mode: str = "auto", lock=None):
        if mode not in MODES:
            raise ValueError(f"mode must be auto or confirm, not {mode!r}")
        self.session = session
        self.lock = lock if lock is not None else threading.RLock()
        self.mode = mode
        self.update = None              # the worker's last CameraUpdate
        self.follow: str | None = None  # why the table must be brought into the game's position (judge.FOLLOW_WHY)
        self.consumed = 0               # stable serials up to this one have been acted on
        self.blinked = 0                # the last stable serial the LEDs blinked for
        self.applied: list[dict] = []   # camera-applied actions (for the referee's Undo), newest last
        self.checked = 0                # follow-ups the camera saw done (counted here, where it happens:
                                        # a watcher sampling ``follow`` misses one that starts and ends
                                        # between two looks, as on a loaded machine)
        self.judged = 0                 # runs of ``judge.judge``
        self.current: CameraView | None = None   # the last judged view
        self.view: dict = {}            # its JSON form, as published
        self._key = None                # what ``current`` was judged from
        self._led_fixes = None
        self._published = None

    # -- called by the session ---------------------------------------------------------
    def start_follow(self, why: str) -> None:
        self.follow = why

    def game_changed(self) -> None:
        """The game moved on: a stable reading already seen is not acted on again automatically."""
        update = self.update
        if update is not None:
            self.consumed = max(self.consumed, update.serial)
        self._led_fixes = None
        self.refresh()

    def refresh(self) -> dict:
        with self.lock:
            self._view()
        self._publish()
        return self.view

    # -- called by the camera worker thread ----------------------------------------------
    def on_camera(self, update) -> None:
        session = self.session
        with self.lock:
            self.update = update
            view = self._view()
            fresh = update.stable and update.serial > self.consumed
            if view.follow is not None and view.follow["done"] and update.stable:
                self._finish_follow(update)
                return
            verdict = view.verdict
            kind = verdict.kind if verdict is not None else None
            unseen = update.stable and verdict is not None and is_unseen_flip(verdict.action)  # no new reading will come
            if fresh and kind == "tile" or (fresh or unseen) and kind in APPLIED and self.mode == "auto":
                try:
                    self.gate(Trigger.AUTO)
                except FlureError as exc:   # the game refused after all: shown, never raised into the worker
                    log.info("camera proposal refused: %s", exc)
                return
            if fresh and verdict is not None and verdict.blink and self.blinked != update.serial:
                self.blinked = update.serial
                session.signal_error()
                session.record_reading(update.reading, str(verdict.message))
            elif update.stable and self.blinked and self.blinked != update.serial and not (verdict and verdict.blink):
                self.blinked = 0
                session.show_on_leds()     # the error blink ends once the table is right again
            if self.follow is not None or view.placement or view.clear or self._led_fixes:
                self._show_follow_on_leds()
        self._publish()

    # -- the one gate -------------------------------------------------------------------------
    def gate(self, by: Trigger, expect: Action | None = None) -> dict:
        """Apply the current camera proposal (``by``: what let it through); refuse with the reason why not.
        ``expect``: the action the referee's screen showed (an ``engine.actions`` value)."""
        by = Trigger(by)
        session = self.session
        with self.lock:
            view = self._view()
            if not view.can_confirm:
                raise GameActionError(view.why_not)
            action, message = view.verdict.action, view.verdict.message
            if expect is not None and action != expect:
                raise GameActionError(Text(N_("The table changed since your screen showed the reading; nothing was "
                                              "played. The camera now sees: %(move)s. Look again, then confirm."),
                                           move=message))
            session.record_reading(self.update.reading, str(message))
            state = session.act(action, by=by.by)
            self.applied.append({"seq": session.seq, "game_id": session.game_id, "text": message,
                                 "by": by.value, "action": action})
            del self.applied[:-10]
            self.refresh()
        state["confirmed"] = message
        return state

    def accept_table(self) -> dict:
        """The referee accepts the table as it is: the game's position follows it (a logged correction)."""
        session = self.session
        with self.lock:
            game = session.game
            if game is None:
                raise GameActionError(Text(N_("No game is running yet: start a new game from the referee view")))
            view = self._view()
            update = self.update
            if update is None or not update.stable or view.seen is None:
                status = update.status if update else {}
                why = status.get("message") or Text(N_("the camera has not started"))
                raise GameActionError(Text(N_("There is no steady camera reading to accept: %(why)s"), why=why))
            seen, unknown = view.seen, view.unseen
            fixes = table_fixes(game.position.to_setup(), seen, unknown)
            if not fixes:
                self.follow = None
                self.refresh()
                return session.state()
            position = Position.from_setup(table_position(game, seen, unknown), strict=False, where="table")
            problems = position.status_words()
            if problems:
                raise GameActionError(Text(N_("The table cannot become the game's position: %(problems)s"),
                                           problems=Join("; ", [words for _, words, _ in problems])))
            session.act(Correct(position), by=By.REFEREE)
            self.follow = None       # the game now is the table
            session.add_log_line(Text(N_("The referee accepted the table as it is instead of: %(fixes)s."),
                                      fixes=Join("; ", [f.text for f in fixes])))
            self.refresh()
            return session.state()

    def set_mode(self, mode: str) -> dict:
        if mode not in MODES:
            raise GameActionError(Text(N_("The camera mode is auto or confirm, not %(mode)s"), mode=repr(mode)))
        self.mode = mode
        return self.refresh()

    # -- judging ---------------------------------------------------------------------------------
    def _view(self) -> CameraView:
        """The current update judged against the game (``judge.judge``), judged again only when the
        update, the game, the fixes, the follow-up or the mode changed; the camera's status and the
        list of applied actions are the latest either way."""
        session = self.session
        applied = tuple(a for a in self.applied if a["game_id"] == session.game_id)[-3:]
        fixes = dict(session.fixes)
        key = (self.update, session.game, repr(sorted(fixes.items())), self.follow, self.mode)
        status = session.camera.status()
        if self.current is None or key != self._key:
            self.judged += 1
            self.current = judge(session.game, self.update, fixes=fixes, follow=self.follow, mode=self.mode,
                                 status=status, applied=applied)
            self._key = key
        elif status != self.current.status or applied != self.current.applied:
            self.current = replace(self.current, status=MappingProxyType(dict(status)), applied=applied)
        else:
            return self.current
        self.view = self.current.to_json()
        return self.current

    # -- effects ---------------------------------------------------------------------------------
    def _finish_follow(self, update) -> None:
        """The camera sees the table in the game's position: the follow-up is done, the game goes on."""
        session = self.session
        why = self.follow
        self.follow = None
        self.consumed = max(self.consumed, update.serial)
        if why is not None:
            self.checked += 1
            session.add_log_line(Text(N_("The table matches the game: the pawn phase begins."))
                                 if session.game is not None and session.game.phase == "pawns" else
                                 Text(N_("The table matches the game: go on.")))
        self._view()
        session.publish_state()
        self._publish()

    def _show_follow_on_leds(self) -> None:
        follow = self._led_guide()
        if not follow or follow["done"]:
            if self._led_fixes is not None and self.follow is None:   # guidance over: the LEDs show the game
                self._led_fixes = None
                self.session.show_on_leds()
            return
        key = (tuple(follow["empty"]), tuple(follow["fill"]), follow["facing"])
        if key != self._led_fixes:
            self._led_fixes = key
            self.session.show_on_leds()

    def _led_guide(self):
        """The follow-up being shown (``CameraView.led_guide``), or None."""
        return self.current.led_guide() if self.current is not None else None

    def led_follow(self) -> dict | None:
        """What the LEDs show during a follow-up (squares to empty and to fill), or None."""
        follow = self._led_guide()
        if follow is None:
            return None
        return {"empty": follow["empty"], "fill": follow["fill"]}

    def _publish(self) -> None:
        """Send the current view to every screen.  Under the lock: a view judged by a request thread
        must never reach the screens after a newer one judged by the camera thread."""
        with self.lock:
            view = self.view
            if view is self._published:
                return
            self._published = view
            self.session.publish_camera(view)

