"""The camera-driven table loop (TABLE.md): the effects of what the camera sees, and the one gate.

The camera worker (``watcher``) hands every update to the session (``TableSession.on_camera``),
which hands it to ``TableLoop.on_camera``.  The loop asks the pure judge (``judge.judge``) what
the update means for the game — once per update and game state — and keeps only the effects:
applying a proposal, the LEDs, publishing the view.  It knows the session only through the
``port.Table`` interface: the table as a frozen ``TableSnapshot`` (one method) and the effects
(the other methods), none of which calls the loop back; its caller serialises the calls (the
session calls it under its own lock, ``port``).
Whatever applies a camera proposal — ``auto`` mode, the referee's screen, the CONFIRM button —
goes through ``gate``, which refuses a reading with problems, an ambiguous change, and a table
that has changed since the screen showed it.
"""
from __future__ import annotations

import logging
from dataclasses import replace
from types import MappingProxyType

from engine.actions import Action
from engine.errors import FlureError, GameActionError
from engine.position import Position
from engine.tablediff import table_fixes
from engine.wording import N_, Join, Text

from ..actors import Trigger
from .judge import CameraView, is_unseen_flip, judge, table_position
from .port import Table, TableSnapshot

log = logging.getLogger(__name__)
MODES = ("auto", "confirm")
APPLIED = ("move", "place")      # changes auto mode applies from a fresh (or unseen) stable reading


class TableLoop:
    """The camera side of the table: the last camera update, the mode, the gate and the effects.

    ``table`` is the table it acts for (``port.Table``: the session).  ``judged`` counts the
    judge's runs: once per camera update and table snapshot, however often the view is asked for."""

    def __init__(self, table: Table, mode: str = "auto"):
        if mode not in MODES:
            raise ValueError(f"mode must be auto or confirm, not {mode!r}")
        self.table = table
        self.mode = mode
        self.update = None              # the worker's last CameraUpdate
        self.consumed = 0               # stable serials up to this one have been acted on
        self.blinked = 0                # the last stable serial the LEDs blinked for
        self.applied: list[dict] = []   # camera-applied actions (for the referee's Undo), newest last
        self.checked = 0                # follow-ups the camera saw done (counted here, where it happens:
                                        # a watcher sampling the follow-up misses one that starts and
                                        # ends between two looks, as on a loaded machine)
        self.judged = 0                 # runs of ``judge.judge``
        self.current: CameraView | None = None   # the last judged view
        self.view: dict = {}            # its JSON form, as published
        self._table: TableSnapshot | None = None   # the snapshot ``current`` was judged against
        self._key = None                # what ``current`` was judged from
        self._led_fixes = None
        self._published = None

    # -- called by the session ---------------------------------------------------------
    def game_changed(self) -> None:
        """The game moved on: a stable reading already seen is not acted on again automatically;
        the view is judged again and the LEDs show the game."""
        update = self.update
        if update is not None:
            self.consumed = max(self.consumed, update.serial)
        self._led_fixes = None
        self.refresh()
        self.table.show_on_leds(self.led_follow())

    def fixes_changed(self) -> dict:
        """The referee's fixes changed: the view judged again, the LEDs shown with its follow-up."""
        view = self.refresh()
        self.table.show_on_leds(self.led_follow())
        return view

    def refresh(self) -> dict:
        self._view()
        self._publish()
        return self.view

    # -- called (through the session) by the camera worker thread ----------------------
    def on_camera(self, update) -> None:
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
            self.table.refused(update.reading, str(verdict.message))
        elif update.stable and self.blinked and self.blinked != update.serial and not (verdict and verdict.blink):
            self.blinked = 0
            self.table.show_on_leds(self.led_follow())     # the error blink ends once the table is right again
        if self._table.follow is not None or view.placement or view.clear or self._led_fixes:
            self._show_follow_on_leds()
        self._publish()

    # -- the one gate -------------------------------------------------------------------------
    def gate(self, by: Trigger, expect: Action | None = None) -> object:
        """Apply the current camera proposal (``by``: what let it through) and return its sentence
        (wording data); refuse with the reason why not.  ``expect``: the action the referee's screen
        showed (an ``engine.actions`` value)."""
        by = Trigger(by)
        view = self._view()
        if not view.can_confirm:
            raise GameActionError(view.why_not)
        action, message = view.verdict.action, view.verdict.message
        if expect is not None and action != expect:
            raise GameActionError(Text(N_("The table changed since your screen showed the reading; nothing was "
                                          "played. The camera now sees: %(move)s. Look again, then confirm."),
                                       move=message))
        after = self.table.apply(action, by.by, self.update.reading, str(message))
        self.applied.append({"seq": after.seq, "game_id": after.game_id, "text": message,
                             "by": by.value, "action": action})
        del self.applied[:-10]
        self.game_changed()
        return message

    def accept_table(self) -> None:
        """The referee accepts the table as it is: the game's position follows it (a logged correction)."""
        view = self._view()
        game = self._table.game
        if game is None:
            raise GameActionError(Text(N_("No game is running yet: start a new game from the referee view")))
        update = self.update
        if update is None or not update.stable or view.seen is None:
            status = update.status if update else {}
            why = status.get("message") or Text(N_("the camera has not started"))
            raise GameActionError(Text(N_("There is no steady camera reading to accept: %(why)s"), why=why))
        seen, unknown = view.seen, view.unseen
        fixes = table_fixes(game.position.to_setup(), seen, unknown)
        if not fixes:
            if self._table.follow is not None:
                self.table.follow_done(None)     # nothing to correct: the follow-up ends
            self.refresh()
            self.table.show_on_leds(self.led_follow())
            return
        position = Position.from_setup(table_position(game, seen, unknown), strict=False, where="table")
        problems = position.status_words()
        if problems:
            raise GameActionError(Text(N_("The table cannot become the game's position: %(problems)s"),
                                       problems=Join("; ", [words for _, words, _ in problems])))
        self.table.accept(position, Text(N_("The referee accepted the table as it is instead of: %(fixes)s."),
                                         fixes=Join("; ", [f.text for f in fixes])))
        self.game_changed()

    def set_mode(self, mode: str) -> dict:
        if mode not in MODES:
            raise GameActionError(Text(N_("The camera mode is auto or confirm, not %(mode)s"), mode=repr(mode)))
        self.mode = mode
        return self.refresh()

    # -- judging ---------------------------------------------------------------------------------
    def _view(self) -> CameraView:
        """The current update judged against the table (``judge.judge``), judged again only when the
        update, the game, the fixes, the follow-up or the mode changed; the camera's status and the
        list of applied actions are the latest either way."""
        table = self._table = self.table.snapshot()
        applied = tuple(a for a in self.applied if a["game_id"] == table.game_id)[-3:]
        fixes = dict(table.fixes)
        key = (self.update, table.game, repr(sorted(fixes.items())), table.follow, self.mode)
        status = table.camera
        if self.current is None or key != self._key:
            self.judged += 1
            self.current = judge(table.game, self.update, fixes=fixes, follow=table.follow, mode=self.mode,
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
        game = self._table.game
        self.consumed = max(self.consumed, update.serial)
        if self._table.follow is not None:
            self.checked += 1
            self.table.follow_done(Text(N_("The table matches the game: the pawn phase begins."))
                                   if game is not None and game.phase == "pawns" else
                                   Text(N_("The table matches the game: go on.")))
        self._view()
        self.table.show_on_leds(self.led_follow())
        self._publish()

    def _show_follow_on_leds(self) -> None:
        follow = self._led_guide()
        if not follow or follow["done"]:
            if self._led_fixes is not None and self._table.follow is None:   # guidance over: the LEDs show the game
                self._led_fixes = None
                self.table.show_on_leds(None)
            return
        key = (tuple(follow["empty"]), tuple(follow["fill"]), follow["facing"])
        if key != self._led_fixes:
            self._led_fixes = key
            self.table.show_on_leds(self.led_follow())

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
        """Send the current view to every screen, in the order the views were judged (the calls are
        serialised: a view judged by a request thread never reaches the screens after a newer one
        judged by the camera thread)."""
        view = self.view
        if view is self._published:
            return
        self._published = view
        self.table.publish_camera(view)
