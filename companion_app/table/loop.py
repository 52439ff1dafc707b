"""The camera-driven table loop (TABLE.md): what a stable reading means for the game, and the one gate.

The camera worker (``watcher``) hands every update to ``TableLoop.on_camera``.  The
loop judges the last stable reading against the game (the prior): during a
follow-up it lists what must still change on the table; in the advanced setup it
asks which one legal placement explains the reading (A2); in the pawn phase
which legal move; in the monster phase a tombstone tile still in the deck
resolves the monster.  Whatever applies a camera proposal —
``auto`` mode, the referee's screen, the CONFIRM button — goes through ``gate``,
which refuses a reading with problems, an ambiguous change, and a table that has
changed since the screen showed it.
"""
from __future__ import annotations

import copy
import logging
from dataclasses import dataclass

from engine.deck import tile_words
from engine.errors import FlureError, GameActionError
from engine.geometry import parse_square, square_name
from engine.position import Position
from engine.tablediff import new_round_fix, squares_to_change, table_fixes
from engine.wording import N_, Cap, Colour, Join, PawnName, Text, join_or
from vision.change import CARD_ZONE_CODES
from vision.problems import problem_words

from .actors import By, Trigger
from .readings import action_for, compare, fix_setup, reconcile_reading, unseen_flip, unseen_squares, with_game_pools

log = logging.getLogger(__name__)
MODES = ("auto", "confirm")
APPLIED = ("move", "place")      # changes auto mode applies from a fresh (or unseen) stable reading
FOLLOW_WHY = {
    "monster": N_("Bring the table into the position after the monster's move"),
    "setup": N_("Set up the board for the new game"),
    "undo": N_("Put the table back as it was before the undone action"),
    "referee": N_("Make the table show what the referee entered"),
    "resume": N_("Check the table against the saved game"),
    "placement": N_("The table shows no legal placement (A2): put it back as the game has it, then place one piece"),
    "round": N_("Round 1 is over (G9): bring the table into the position after the monster's move and build "
                "round 2's deck from all 8 tombstone tiles"),
}


# Reading problems that mean the table shows something the game cannot hold (a 12th stone is a copied
# sticker, two monsters, a piece of another set): the players take it away; the camera is fine.
CANNOT_HOLD = ("same-piece-twice", "marker-twice", "unknown-marker", "two-pieces")


def cannot_hold(blocking) -> tuple[object, list[str]] | None:
    """(what the table shows that the game cannot hold, in words; the squares to clear) of a reading's
    blocking problems, or None when there is no such problem."""
    found = [p for p in blocking or [] if p.get("code") in CANNOT_HOLD]
    if not found:
        return None
    squares: list[str] = []
    for p in found:
        params = (p.get("words") or {}).get("params") or {}
        for name in (p.get("square"), params.get("first"), params.get("second")):
            try:
                name = square_name(parse_square(name)) if isinstance(name, str) else None
            except ValueError:
                name = None
            if name is not None and name not in squares:
                squares.append(name)
    return problem_words(found[0]), squares


@dataclass(frozen=True)
class Change:
    """What a stable reading means for the game now: ``kind`` is none, move, place, tile, wait, ask or refused."""

    kind: str
    message: object              # the sentence as wording data (engine.wording) or plain English text
    action: dict | None = None
    blink: bool = False          # a refusal the LEDs blink for (an illegal move, a tile not in the deck)
    uncover: str | None = None   # the one square whose view would settle an ambiguous answer


def explain_reading(game, reading: dict, fixes, frames=None) -> Change:
    """The pawn phase's prior: the one legal change of the player to move that explains the reading
    (``engine.reconcile`` through ``readings.reconcile_reading``); in the advanced setup the one
    legal placement of the player to place (A2, ``engine.reconcile_place``).  Squares the camera
    could not see are unknown.  The card zone is not part of a pawn move or a placement (the last
    monster tile may still lie there).  The game has the last word (a dry run of ``apply``).
    """
    board_only = dict(reading, tile=None,
                      problems=[p for p in reading.get("problems") or [] if p.get("code") not in CARD_ZONE_CODES])
    answer = reconcile_reading(game, board_only, fixes, frames)
    if not answer.accepted:
        problem = answer.problems[0]
        illegal = problem.code == "unexplained"   # engine.reconcile's own sentence says no legal change explains it
        message = problem.words if problem.words is not None else problem.message
        settle = problem.code in ("ambiguous", "destination-unseen") and problem.square is not None
        return Change("refused" if illegal else "ask", message, blink=illegal,
                      uncover=square_name(problem.square) if settle else None)
    if answer.change == "none":
        return Change("none", Text(N_("the table agrees with the game")))
    action, message = action_for(game, answer)
    if action is None:
        return Change("ask", message)
    try:
        game.apply(action)
    except FlureError as exc:
        return Change("refused", Text(N_("the camera sees %(what)s, but the game refuses it: %(why)s"), what=message,
                                      why=exc), blink=True)
    return Change("place" if action["type"] == "place" else "move", message, action)


def table_position(game, seen: dict, unknown) -> dict:
    """The game's setup with the table as the camera sees it (the referee accepts the table):
    each pawn where it is seen (matched by colour and number), one not seen beside the board
    unless its square is unknown; stones and the monster as seen; unknown squares as the game has them."""
    setup = copy.deepcopy(game.position.to_setup())
    unknown = set(unknown)
    where = {(p.get("color"), p.get("pawn")): p for p in (seen.get("pawns") or {}).values() if p.get("at")}
    for pawn in setup["pawns"].values():
        found = where.get((pawn.get("color"), pawn.get("pawn")))
        if found is not None:
            pawn.update(at=found["at"], face=found.get("face", pawn["face"]))
            pawn.pop("place", None)
        elif pawn["at"] is not None and pawn["at"] not in unknown:
            pawn["at"] = None
    stones = {sq: k for sq, k in setup["stones"].items() if sq in unknown}
    stones.update(seen.get("stones") or {})
    setup["stones"] = stones
    if (seen.get("monster") or {}).get("at"):
        setup["monster"] = dict(seen["monster"])
    return setup


def judge_tile(game, tile: str | None) -> Change:
    """The monster phase: a tile in the card zone that is still in the deck resolves the monster (G7)."""
    if not tile:
        return Change("wait", Text(N_("It is the monster's turn: lay the drawn tombstone tile in the card zone, "
                                      "or press MONSTER (G7)")))
    name = tile_words(tile, prey3_variant=game.prey3_variant)
    if tile not in game.deck:
        template = (N_("The tile %(tile)s in the card zone is not in the deck (it was already played this round): "
                       "take it away and lay the tile you drew (G7)") if tile in game.tiles_played else
                    N_("The tile %(tile)s in the card zone is not in the deck (there is none left in the deck): "
                       "take it away and lay the tile you drew (G7)"))
        return Change("refused", Text(template, tile=name), blink=True)
    action = {"type": "tile", "tile": tile}
    try:
        game.apply(action)
    except FlureError as exc:
        return Change("refused", Text(N_("The tile %(tile)s cannot be played now: %(why)s"), tile=name, why=exc),
                      blink=True)
    return Change("tile", Text(N_("the camera read the tile %(tile)s"), tile=name), action)


def _fix_json(fix) -> dict:
    """A follow-up instruction's JSON, its text as wording data (said in each screen's language)."""
    return {**fix.to_json(), "text": fix.text}


def placement_guide(game) -> dict:
    """The advanced setup's guidance (A2): whose turn it is to place and what is left (the status
    line); ``follow`` is filled when the table must be put right."""
    return {"placer": game.placer, "left": dict(game.pieces_left), "text": game.summary(), "follow": None}


def _placement_fixes(game, expected: dict, seen: dict, unknown) -> dict | None:
    """When the table shows no legal placement: what to change to bring it back to the game's
    position, in plain words, with the squares to empty and to fill (as for the basic setup)."""
    fixes = table_fixes(expected, seen, unknown)
    if not fixes:
        return None
    empty, fill = squares_to_change(fixes)
    return {"fixes": [_fix_json(f) for f in fixes], "empty": empty, "fill": fill,
            "done": False, "facing": expected["monster"]["facing"], "why": Text(FOLLOW_WHY["placement"])}


def _is_unseen_flip(action) -> bool:
    return bool(action) and action.get("type") == "pawn-at" and action.get("square") is None


class TableLoop:
    """The session's camera side: the last camera update, the follow-up, the mode and the gate."""

    def __init__(self, session, mode: str = "auto"):
        if mode not in MODES:
            raise ValueError(f"mode must be auto or confirm, not {mode!r}")
        self.session = session
        self.mode = mode
        self.update = None              # the worker's last CameraUpdate
        self.follow: str | None = None  # why the table must be brought into the game's position (FOLLOW_WHY)
        self.consumed = 0               # stable serials up to this one have been acted on
        self.blinked = 0                # the last stable serial the LEDs blinked for
        self.applied: list[dict] = []   # camera-applied actions (for the referee's Undo), newest last
        self.checked = 0                # follow-ups the camera saw done (counted here, where it happens:
                                        # a watcher sampling ``follow`` misses one that starts and ends
                                        # between two looks, as on a loaded machine)
        self.view: dict = {}
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
        with self.session._lock:
            self.view = self._judge()
        self._publish()
        return self.view

    # -- called by the camera worker thread ----------------------------------------------
    def on_camera(self, update) -> None:
        session = self.session
        with session._lock:
            self.update = update
            view = self._judge()
            fresh = update.stable and update.serial > self.consumed
            if view["follow"] is not None and view["follow"]["done"] and update.stable:
                self._finish_follow(update)
                return
            self.view = view
            change = view.get("change") or {}
            unseen = update.stable and _is_unseen_flip(change.get("action"))   # no new reading will come
            if fresh and change.get("kind") == "tile" or (fresh or unseen) and change.get("kind") in APPLIED \
                    and self.mode == "auto":
                try:
                    self.gate(Trigger.AUTO)
                except FlureError as exc:   # the game refused after all: shown, never raised into the worker
                    log.info("camera proposal refused: %s", exc)
                return
            if fresh and change.get("blink") and self.blinked != update.serial:
                self.blinked = update.serial
                session.signal_error()
                session.record_reading(update.reading, str(change.get("message", "")))
            elif update.stable and self.blinked and self.blinked != update.serial and not change.get("blink"):
                self.blinked = 0
                session.show_on_leds()     # the error blink ends once the table is right again
            if self.follow is not None or view.get("placement") or view.get("clear") or self._led_fixes:
                self._show_follow_on_leds()
        self._publish()

    # -- the one gate -------------------------------------------------------------------------
    def gate(self, by: Trigger, expect: dict | None = None) -> dict:
        """Apply the current camera proposal (``by``: what let it through); refuse with the reason why not."""
        by = Trigger(by)
        session = self.session
        with session._lock:
            view = self._judge()
            change = view.get("change") or {}
            if not view["can_confirm"]:
                raise GameActionError(view["why_not"])
            action = change["action"]
            if expect is not None and action != expect:
                raise GameActionError(Text(N_("The table changed since your screen showed the reading; nothing was "
                                              "played. The camera now sees: %(move)s. Look again, then confirm."),
                                           move=change["message"]))
            session.record_reading(self.update.reading, str(change["message"]))
            state = session.act(action, by=by.by)
            self.applied.append({"seq": session.seq, "game_id": session.game_id, "text": change["message"],
                                 "by": by.value, "action": action})
            del self.applied[:-10]
            self.refresh()
        state["confirmed"] = change["message"]
        return state

    def accept_table(self) -> dict:
        """The referee accepts the table as it is: the game's position follows it (a logged correction)."""
        session = self.session
        with session._lock:
            game = session._need_game()
            update = self.update
            if update is None or not update.stable or not update.reading or not update.reading.get("setup"):
                status = update.status if update else {}
                why = status.get("message") or Text(N_("the camera has not started"))
                raise GameActionError(Text(N_("There is no steady camera reading to accept: %(why)s"), why=why))
            seen, unknown = self._seen(update, game)
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
            session.act({"type": "correct", "position": position.to_setup()}, by=By.REFEREE)
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
    def _reading(self, update) -> dict:
        """The update's reading with the referee's fixes in its setup."""
        fixes = self.session.fixes
        reading = copy.deepcopy(update.reading)
        if fixes and reading.get("setup") is not None:
            reading["setup"] = fix_setup(reading["setup"], fixes)
        return reading

    def _seen(self, update, game) -> tuple[dict, list[str]]:
        """(what the table shows, with the fixes; the squares the camera could not read).  In the pawn
        and monster phases the pools and teleporters are the game's unless the camera sees others
        (``readings.with_game_pools``); a new game's setup, a referee's or a saved position is checked
        in full."""
        reading = self._reading(update)
        seen = reading["setup"]
        if game.phase in ("pawns", "monster") and self.follow in (None, "monster", "undo", "round"):
            seen = with_game_pools(seen, game.position.to_setup())
        return seen, unseen_squares(reading, self.session.fixes)

    def _judge(self) -> dict:
        session, update, game = self.session, self.update, self.session.game
        status = session.camera.status()
        view: dict = {"status": status, "mode": self.mode, "stable": False, "reading": None, "unseen": [],
                      "uncover": None,
                      "problems": [], "differences": [], "fixes": dict(session.fixes), "follow": None,
                      "change": None, "needs": None, "placement": None, "clear": [], "can_confirm": False,
                      "why_not": "",
                      "applied": [a for a in self.applied if a["game_id"] == session.game_id][-3:]}
        if update is not None:
            view["stable"] = update.stable
            view["count"], view["needed"] = update.count, update.needed
            view["problems"] = [problem_words(p) for p in update.blocking]
        if game is None:
            return self._cannot(view, Text(N_("No game is running yet: start a new game from the referee view")))
        if game.phase == "placement":
            view["placement"] = placement_guide(game)
        if update is None or update.reading is None:
            why = status.get("message") or (status.get("detail") or {}).get("message") or Text(N_("the camera is not ready"))
            return self._cannot(view, Text(N_("No camera reading: %(why)s"), why=why))
        view["reading"] = copy.deepcopy(update.reading)
        if not update.reading.get("setup"):
            problems = update.reading.get("problems") or [{"message": update.status["message"]}]
            return self._cannot(view, Text(N_("The camera does not see the board: %(why)s"), why=problem_words(problems[0])))
        seen, unknown = self._seen(update, game)
        view["reading"]["setup"] = seen
        view["unseen"] = unknown
        expected = game.position.to_setup()
        view["differences"] = compare(expected, seen, unknown)
        if not update.stable:
            odd = cannot_hold(update.blocking)
            if odd is not None:      # a reading problem, said with the squares to clear (the LEDs show them)
                why, squares = odd
                view["clear"] = squares
                where = Join(", ", squares) if squares else Text(N_("the board"))
                return self._cannot(view, Text(N_("The table shows something the game cannot hold (%(why)s): take "
                                                  "the extra piece off %(squares)s"), why=why, squares=where))
            return self._cannot(view, Text(N_("Waiting for a clear view: %(why)s"), why=problem_words(update.blocking[0]))
                                if update.blocking else
                                Text(N_("Waiting for a steady view (%(count)s of %(needed)s frames)"),
                                     count=update.count, needed=update.needed))
        if self.follow is not None:
            fixes = table_fixes(expected, seen, unknown)
            empty, fill = squares_to_change(fixes)
            tile = update.reading.get("tile")
            deck = new_round_fix(tile_words(tile, prey3_variant=game.prey3_variant) if tile else None) \
                if self.follow == "round" else None
            fixes = fixes + ((deck,) if deck is not None else ())
            why = Text(FOLLOW_WHY.get(self.follow, self.follow))
            view["follow"] = {"fixes": [_fix_json(f) for f in fixes],
                              "empty": empty, "fill": fill, "done": not fixes,
                              "facing": expected["monster"]["facing"], "why": why}
            if fixes:
                return self._cannot(view, Text(N_("%(why)s first: %(fix)s"), why=why, fix=fixes[0].text))
        if game.phase == "over":
            return self._cannot(view, Text(N_("The game is over")))
        if game.phase == "monster":
            if view["differences"]:
                fixes = table_fixes(expected, seen, unknown)
                if fixes:
                    return self._cannot(view, Text(N_("The table differs from the game; put it right before the "
                                                      "monster moves: %(fix)s"), fix=fixes[0].text))
            change = judge_tile(game, update.reading.get("tile"))
        elif game.phase == "placement":
            change = explain_reading(game, self._reading(update), self.session.fixes)
            if change.kind == "none":
                change = Change("wait", game.summary())
            elif change.kind == "refused":
                view["placement"]["follow"] = _placement_fixes(game, expected, seen, unknown)
        else:
            change = explain_reading(game, self._reading(update), self.session.fixes,
                                     getattr(update, "frames", None))
            if change.kind == "none":
                action, message = unseen_flip(game)
                if action is not None:
                    change = Change("move", message, action)
            if change.kind == "none":
                mine = [PawnName(game.position.pawn(x).name) for x in game.unmoved
                        if game.position.pawn(x).colour == game.to_move]
                change = Change("wait", Text(N_("%(colour)s moves %(pawns)s (G3)"), colour=Cap(Colour(game.to_move)),
                                             pawns=join_or(mine)))
        view["change"] = {"kind": change.kind, "action": change.action, "blink": change.blink,
                          "message": change.message}
        view["uncover"] = change.uncover
        view["proposal"] = {"action": change.action, "message": change.message}
        if change.action is None:
            return self._cannot(view, change.message)
        view["can_confirm"] = True
        view["needs"] = None
        return view

    @staticmethod
    def _cannot(view: dict, why) -> dict:
        """The view with nothing to confirm, and why (wording data or plain text)."""
        view["can_confirm"] = False
        view["why_not"] = view["needs"] = why
        return view

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
        self.view = self._judge()
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

    def _led_guide(self) -> dict | None:
        """The follow-up being shown: the session's, or during the advanced setup what to put right
        when the table shows no legal placement (A2)."""
        view = self.view or {}
        if view.get("clear"):       # something the game cannot hold: its squares to clear come first
            return {"empty": list(view["clear"]), "fill": [], "done": False, "facing": None}
        if self.follow is not None:
            follow = view.get("follow")
        else:
            follow = (view.get("placement") or {}).get("follow")
        return follow if follow and not follow["done"] else None

    def led_follow(self) -> dict | None:
        """What the LEDs show during a follow-up (squares to empty and to fill), or None."""
        follow = self._led_guide()
        if follow is None:
            return None
        return {"empty": follow["empty"], "fill": follow["fill"]}

    def _publish(self) -> None:
        """Send the current view to every screen.  Under the session's lock: a view judged by a request
        thread must never reach the screens after a newer one judged by the camera thread."""
        with self.session._lock:
            view = self.view
            if view is self._published:
                return
            self._published = view
            self.session.publish_camera(view)
