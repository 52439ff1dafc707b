"""The session's journal, a collaborator: retried requests, unreadable steps, a full disk, game records.

Why here and not in the views: the answer to "was this request already played?"
must be decided under the session's lock, together with the write it guards, and
the write records the request in the same SQLite transaction as the step
(``store.py``).  A request is known by its ``Idempotency-Key`` header or, without
one, by the state version it was made against plus what it asked; a repeat gets
the answer the first one got, and a request made against an older state than the
table's is refused: the table moved on.
"""
from __future__ import annotations

import hashlib
import logging
import sqlite3

from engine.errors import GameActionError, InvalidSetupError
from engine.game import Game
from engine.record import GameRecord
from engine.wording import N_, Join, Said, Text, payload_json

from .store import JournalError, Step, Store, unreadable

log = logging.getLogger(__name__)


class StaleRequestError(GameActionError):
    """A state-changing request made against a state the table has left (HTTP 409)."""

    def __init__(self, seen: int, now: int):
        self.seen, self.now = seen, now
        super().__init__(Text(N_("The table moved on: this request was made against state %(seen)s, the table is "
                                 "now at state %(now)s (another screen acted, or this is a late retry). Nothing was "
                                 "done; look at the board again."), seen=seen, now=now))


def request_key(idempotency_key: str | None, version: int | None, what: str, body: bytes) -> str | None:
    """How a state-changing request is recognised when it comes again (None: not at all)."""
    if idempotency_key:
        return "key " + idempotency_key
    if version is None:
        return None
    return f"v{version} {what} {hashlib.sha256(body).hexdigest()}"


class Journal:
    """The session's journal (a collaborator of ``TableSession``): the SQLite store, the request being
    served, the notes for the referee's Devices card, unreadable steps and game records.

    It holds no game: the session asks it and gives it what it needs (the game's id, the step)."""

    def __init__(self, store: Store, keep_games: int = 100, keep_days: float = 30):
        self.store = store
        self.keep_games, self.keep_days = keep_games, keep_days
        self.request: str | None = None     # the key of the state-changing request being served
        self.notes: list = [store.notice] if store.notice else []

    def marks(self, version: int) -> dict:
        """What each write records beside its step: the version it produces and the request that asked."""
        return {"version": version + 1, "request": self.request}

    # -- retried requests ------------------------------------------------------------
    def answer(self, key: str | None):
        """The answer a request ``key`` already got (``store.Answer``), or None."""
        return self.store.answer(key) if key is not None else None

    def keep(self, key: str, fn, *args, **kwargs):
        """Run ``fn`` as the request ``key``: its step and its answer saved in one commit."""
        self.request = key
        try:
            with self.store.held():
                answer = fn(*args, **kwargs)
                self.store.keep_answer(key, payload_json(answer))
            return answer
        finally:
            self.request = None

    # -- unreadable steps --------------------------------------------------------------
    def readable(self, game_id: int, steps: list[Step]) -> tuple[list[Step], Step | None]:
        """The steps with every unreadable one marked, and the last good one (None: nothing to resume).

        One bad row does not lose the game: each step holds the whole state after it, so the game goes
        on from the last step that reads; what was skipped is said in the journal's status."""
        out, last, skipped = [], None, []
        for step in steps:
            if step.problem is None:
                try:
                    Game.from_json(step.state)
                except (InvalidSetupError, ValueError, KeyError, TypeError) as exc:
                    step = Step(step.seq, {}, {}, unreadable(step.seq, exc))
            if step.problem is None:
                last = step
            else:
                skipped.append(step.problem)
            out.append(step)
        if last is None:
            if skipped:
                note = Text(N_("Game %(game)s in the journal has no readable step (%(skipped)s); starting without "
                               "a game."), game=game_id, skipped=Join("; ", skipped))
            else:
                note = Text(N_("Game %(game)s in the journal has no readable step; starting without a game."),
                            game=game_id)
            self.note(Said(note))
        elif skipped:
            self.note(Said(Text(N_("Resumed game %(game)s at step %(step)s; skipped what could not "
                                                  "be read: %(skipped)s."), game=game_id, step=last.seq,
                                               skipped=Join("; ", skipped))))
        return out, last

    def prune(self) -> None:
        """Older games leave the journal ([web] keep_games, keep_days); a failure here is only logged."""
        try:
            self.store.prune(keep_games=self.keep_games, keep_days=self.keep_days)
        except (JournalError, sqlite3.Error) as exc:
            log.warning("journal %s: old games could not be removed (%s)", self.store.path, exc)

    def note(self, note: Said) -> None:
        """A journal note for the referee's Devices card, and for the log (a warning)."""
        self.notes.append(note)
        log.warning("journal %s: %s", self.store.path, note)

    def undo_target(self, game_id: int | None, seq: int) -> int:
        """The last readable step of the game before step ``seq`` (-1: none, nothing to undo)."""
        good = [s.seq for s in self.store.history(game_id) if s.problem is None and s.seq < seq]
        return good[-1] if good else -1

    def status(self) -> dict:
        """The journal as a device line for the referee: where it is, and what went wrong."""
        saved = Text(N_("saved in %(path)s"), path=str(self.store.path))
        out: dict = {"present": True, "detail": {"message": saved}}
        if self.notes:
            out["detail"]["error"] = Join(" ", self.notes)
        if self.store.problem:
            out["error"] = self.store.problem
        return out

    # -- game records ----------------------------------------------------------------
    def export_record(self, game_id: int) -> dict:
        """Game ``game_id`` as a ``flure-game/1`` record: its setup, seed and every action."""
        steps = self.store.history(game_id)
        bad = [s.seq for s in steps if s.problem]
        if bad:
            raise GameActionError(Text(N_("Step %(step)s of this game could not be read from the journal, so the "
                                          "game cannot be written as a record."), step=bad[0]))
        first = Game.from_json(steps[0].state)
        actions = [{k: v for k, v in s.action.items() if k != "by"} for s in steps[1:]]
        return GameRecord.of(first, actions).to_json()

    def import_record(self, data, version: int) -> tuple[int, Game, int]:
        """Save the game a record describes, played up to its last action (each step saved):
        (its game id, the game now, its last step)."""
        record = GameRecord.from_json(data)
        played = list(record.replay())
        settings = {"players": list(record.players), "first_player": record.first_player, "setup": record.setup,
                    "prey3_variant": record.prey3_variant, "seed": record.seed}
        steps = [(action.to_json(), game.to_json()) for action, game in played[1:]]
        game_id = self.store.new_game(settings, played[0][1].to_json(), steps=steps, **self.marks(version))
        return game_id, played[-1][1], len(played) - 1
