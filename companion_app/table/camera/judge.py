"""What a camera update means for the game: one pure function, ``judge``, and the value it returns.

``judge(game, update, …)`` takes the worker's ``CameraUpdate`` (its reading already the engine's
``Observation``), the referee's fixes and the follow-up under way, and returns a frozen
``CameraView``: what the table shows, how it differs from the game, the change it stands for
(``Verdict``, its action an ``engine.actions`` value) and whether the gate may apply it.  No
session, no lock, no clock: the table loop (``loop.TableLoop``) keeps only the effects (apply,
LEDs, publish), and ``CameraView.to_json()`` is the one JSON form the screens get (TABLE.md).

During a follow-up the view lists what must still change on the table; in the advanced setup
it asks which one legal placement explains the reading (A2); in the pawn phase which legal move;
in the monster phase a tombstone tile still in the deck resolves the monster (G7).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping

from engine.actions import Action, PawnAt, Tile
from engine.deck import tile_words
from engine.errors import FlureError
from engine.geometry import SQUARES, parse_square, square_name
from engine.observation import EMPTY, Observation
from engine.reconcile import Reconciliation, reconcile_game
from engine.tablediff import new_round_fix, squares_to_change, table_fixes
from engine.wording import N_, Cap, Colour, Join, PawnName, Text, join_or
from vision.change import observation_json, settle, setup_looks
from vision.problems import problem_words

from .nostickers import checked_by_frames, told_by_the_game
from .readings import action_for, compare, fix_setup, unseen_flip

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


@dataclass(frozen=True)
class Verdict:
    """What a stable reading means for the game now: ``kind`` is none, move, place, tile, wait, ask or refused."""

    kind: str
    message: object              # the sentence as wording data (engine.wording) or plain English text
    action: Action | None = None
    blink: bool = False          # a refusal the LEDs blink for (an illegal move, a tile not in the deck)
    uncover: str | None = None   # the one square whose view would settle an ambiguous answer


@dataclass(frozen=True)
class CameraView:
    """The camera update judged against the game (``judge``); ``to_json`` is its one JSON form."""

    status: Mapping
    mode: str
    applied: tuple = ()                 # the loop's camera-applied actions of this game (newest last)
    update: object | None = None        # the CameraUpdate judged (None before the first)
    seen: Mapping | None = None         # what the table shows with the fixes, as a setup (SCENARIOS.md)
    unseen: tuple[str, ...] = ()
    differences: tuple = ()
    fixes: Mapping = field(default_factory=dict)
    follow: Mapping | None = None       # the follow-up's JSON (its fixes, squares to empty and fill, done)
    placement: Mapping | None = None    # the advanced setup's guidance (A2)
    clear: tuple[str, ...] = ()         # squares holding what the game cannot hold
    verdict: Verdict | None = None
    why_not: object = None              # why nothing can be confirmed (wording data), None when it can

    @property
    def can_confirm(self) -> bool:
        return self.why_not is None and self.verdict is not None and self.verdict.action is not None

    @property
    def action(self) -> Action | None:
        """The action the gate would apply (an ``engine.actions`` value), or None."""
        return self.verdict.action if self.can_confirm else None

    def led_guide(self) -> Mapping | None:
        """The follow-up the LEDs show: squares to clear first, the session's follow-up, or during the
        advanced setup what to put right when the table shows no legal placement (A2)."""
        if self.clear:
            return {"empty": list(self.clear), "fill": [], "done": False, "facing": None}
        follow = self.follow if self.follow is not None else (self.placement or {}).get("follow")
        return follow if follow and not follow["done"] else None

    def to_json(self) -> dict:
        update = self.update
        out: dict = {"status": dict(self.status), "mode": self.mode, "stable": False, "reading": None,
                     "unseen": list(self.unseen), "uncover": None, "problems": [],
                     "differences": [dict(d) for d in self.differences], "fixes": dict(self.fixes),
                     "follow": copy.deepcopy(dict(self.follow)) if self.follow is not None else None,
                     "change": None, "needs": None,
                     "placement": copy.deepcopy(dict(self.placement)) if self.placement is not None else None,
                     "clear": list(self.clear), "can_confirm": self.can_confirm, "why_not": "",
                     "applied": [dict(a, action=a["action"].to_json()) for a in self.applied]}
        if update is not None:
            out["stable"] = update.stable
            out["count"], out["needed"] = update.count, update.needed
            out["problems"] = [problem_words(p) for p in update.blocking]
            if update.reading is not None:
                out["reading"] = copy.deepcopy(update.reading)
                if self.seen is not None:
                    out["reading"]["setup"] = copy.deepcopy(dict(self.seen))
        verdict = self.verdict
        if verdict is not None:
            action = verdict.action.to_json() if verdict.action is not None else None
            out["change"] = {"kind": verdict.kind, "action": action, "blink": verdict.blink,
                             "message": verdict.message}
            out["uncover"] = verdict.uncover
            out["proposal"] = {"action": action, "message": verdict.message}
        if self.why_not is not None:     # wording data: said in each screen's language at the edge
            out["why_not"] = out["needs"] = self.why_not
        return out


# -- the judge --------------------------------------------------------------------------------

def judge(game, update, *, fixes: Mapping = MappingProxyType({}), follow: str | None = None,
          mode: str = "auto", status: Mapping = MappingProxyType({}), applied: tuple = ()) -> CameraView:
    """The update judged against ``game`` (None before a game), the referee's ``fixes`` (square →
    piece) and the ``follow`` under way (a ``FOLLOW_WHY`` key or None); ``status`` is the camera's
    and ``mode``/``applied`` the loop's, carried into the view.  Pure: the game is only dry-run."""
    view = CameraView(status=MappingProxyType(dict(status)), mode=mode, applied=tuple(applied), update=update,
                      fixes=MappingProxyType(dict(fixes)))
    if game is None:
        return _cannot(view, Text(N_("No game is running yet: start a new game from the referee view")))
    if game.phase == "placement":
        view = replace(view, placement=placement_guide(game))
    if update is None or update.reading is None:
        why = status.get("message") or (status.get("detail") or {}).get("message") or \
            Text(N_("the camera is not ready"))
        return _cannot(view, Text(N_("No camera reading: %(why)s"), why=why))
    if update.observation is None:
        problems = update.reading.get("problems") or [{"message": update.status["message"]}]
        return _cannot(view, Text(N_("The camera does not see the board: %(why)s"), why=problem_words(problems[0])))
    observation = fixed_observation(update.observation, fixes)
    if game.phase in ("pawns", "monster") and follow in (None, "monster", "undo", "round"):
        observation = observation.with_fixed_pieces(game.position)   # pools and teleporters never move (B1, T1)
    seen = observation_json(observation)["setup"]
    unknown = [square_name(sq) for sq in sorted(observation.unknown)]
    expected = game.position.to_setup()
    view = replace(view, seen=seen, unseen=tuple(unknown),
                   differences=tuple(compare(expected, seen, unknown)))
    if not update.stable:
        odd = cannot_hold(update.blocking)
        if odd is not None:      # a reading problem, said with the squares to clear (the LEDs show them)
            why, squares = odd
            where = Join(", ", squares) if squares else Text(N_("the board"))
            return _cannot(replace(view, clear=tuple(squares)),
                           Text(N_("The table shows something the game cannot hold (%(why)s): take "
                                   "the extra piece off %(squares)s"), why=why, squares=where))
        return _cannot(view, Text(N_("Waiting for a clear view: %(why)s"), why=problem_words(update.blocking[0]))
                       if update.blocking else
                       Text(N_("Waiting for a steady view (%(count)s of %(needed)s frames)"),
                            count=update.count, needed=update.needed))
    if follow is not None:
        todo = table_fixes(expected, seen, unknown)
        empty, fill = squares_to_change(todo)
        tile = update.tile
        deck = new_round_fix(tile_words(tile, prey3_variant=game.prey3_variant) if tile else None) \
            if follow == "round" else None
        todo = todo + ((deck,) if deck is not None else ())
        why = Text(FOLLOW_WHY.get(follow, follow))
        shown = {"fixes": [_fix_json(f) for f in todo], "empty": empty, "fill": fill, "done": not todo,
                 "facing": expected["monster"]["facing"], "why": why}
        view = replace(view, follow=shown)
        if todo:
            return _cannot(view, Text(N_("%(why)s first: %(fix)s"), why=why, fix=todo[0].text))
    if game.phase == "over":
        return _cannot(view, Text(N_("The game is over")))
    if game.phase == "monster":
        if view.differences:
            todo = table_fixes(expected, seen, unknown)
            if todo:
                return _cannot(view, Text(N_("The table differs from the game; put it right before the "
                                             "monster moves: %(fix)s"), fix=todo[0].text))
        verdict = judge_tile(game, update.tile)
    elif game.phase == "placement":
        verdict = explain_observation(game, fixed_observation(update.observation, fixes))
        if verdict.kind == "none":
            verdict = Verdict("wait", game.summary())
        elif verdict.kind == "refused":
            view = replace(view, placement={**view.placement,
                                            "follow": _placement_fixes(game, expected, seen, unknown)})
        else:
            verdict = _untold_placement(verdict, update)
    else:
        verdict = explain_observation(game, fixed_observation(update.observation, fixes), update.frames)
        if verdict.kind == "none":
            action, message = unseen_flip(game)
            if action is not None:
                verdict = Verdict("move", message, action)
        if verdict.kind == "none":
            mine = [PawnName(game.position.pawn(x).name) for x in game.unmoved
                    if game.position.pawn(x).colour == game.to_move]
            verdict = Verdict("wait", Text(N_("%(colour)s moves %(pawns)s (G3)"), colour=Cap(Colour(game.to_move)),
                                           pawns=join_or(mine)))
    view = replace(view, verdict=verdict)
    if verdict.action is None:
        return _cannot(view, verdict.message)
    return view


def _untold_placement(verdict: Verdict, update) -> Verdict:
    """An advanced setup's question, read without stickers, about a square a piece no taught face matches
    covers (``unknown-piece``: a teleporter, a face the light hides) or one read as under a hand (a pool
    tile over several squares differs from the board as much as an arm): when nothing covers it, uncovering
    settles nothing, so the question also says the referee enters the piece (A2)."""
    from vision.nostickers.read import UNKNOWN_PIECE

    from .nostickers import PiecesReading

    readings = (update.frames or ((),))[0]
    if verdict.kind != "ask" or verdict.uncover is None or update.observation is None \
            or not any(isinstance(r, PiecesReading) for r in readings) \
            or update.observation.why.get(parse_square(verdict.uncover)) not in (UNKNOWN_PIECE, "occluded"):
        return verdict
    return replace(verdict, message=Text(N_("%(why)s; if nothing covers %(square)s, the camera cannot tell the "
                                            "piece put down there: enter it on the referee view (choose the "
                                            "piece, then tap its square)"), why=verdict.message,
                                         square=verdict.uncover))


def _cannot(view: CameraView, why) -> CameraView:
    """The view with nothing to confirm, and why (wording data or plain text)."""
    return replace(view, why_not=why)


def fixed_observation(observation: Observation, fixes: Mapping) -> Observation:
    """The observation with each square the referee fixed (``readings.check_fix``'s form) showing what
    the referee chose: seen, whatever the camera said."""
    if not fixes:
        return observation
    shown = setup_looks(fix_setup(observation_json(observation)["setup"], dict(fixes)))
    why = {sq: code for sq, code in observation.why.items() if square_name(sq) not in fixes}
    unknown = {sq for sq in observation.unknown if square_name(sq) not in fixes}
    return Observation({sq: shown.get(sq, EMPTY) for sq in SQUARES if sq not in unknown}, observation.tile, why)


def reconcile_observation(game, observation: Observation, frames=None) -> Reconciliation:
    """Which legal change of the game the observation shows (``engine.reconcile``); ``frames``:
    (readings, grey frames, scheme) it combines, for the pawn phase's prior-guided look at a refused
    answer (``vision.change.settle``, as ``flure vision explain``)."""
    result = reconcile_game(game, observation)
    if not frames:
        return result
    readings, images, scheme = frames
    if not result.accepted and game.phase == "pawns" and images is not None:
        result = settle(observation, result, lambda seen: reconcile_game(game, seen), readings, images, scheme)
    return told_by_the_game(game, observation, readings, checked_by_frames(result, readings))


def explain_observation(game, observation: Observation, frames=None) -> Verdict:
    """The pawn phase's prior: the one legal change of the player to move that explains what the camera
    sees; in the advanced setup the one legal placement of the player to place (A2).  Squares the camera
    could not see are unknown.  The card zone is not part of a pawn move or a placement (the last
    monster tile may still lie there).  The game has the last word (a dry run of ``apply``)."""
    answer = reconcile_observation(game, replace(observation, tile=None), frames)
    if not answer.accepted:
        problem = answer.problems[0]
        illegal = problem.code == "unexplained"   # engine.reconcile's own sentence says no legal change explains it
        message = problem.message
        settle_it = problem.code in ("ambiguous", "destination-unseen") and problem.square is not None
        return Verdict("refused" if illegal else "ask", message, blink=illegal,
                       uncover=square_name(problem.square) if settle_it else None)
    if answer.change == "none":
        return Verdict("none", Text(N_("the table agrees with the game")))
    action, message = action_for(game, answer)
    if action is None:
        return Verdict("ask", message)
    try:
        game.apply(action)
    except FlureError as exc:
        return Verdict("refused", Text(N_("the camera sees %(what)s, but the game refuses it: %(why)s"),
                                       what=message, why=exc), blink=True)
    return Verdict(action.TYPE if action.TYPE == "place" else "move", message, action)


def judge_tile(game, tile: str | None) -> Verdict:
    """The monster phase: a tile in the card zone that is still in the deck resolves the monster (G7)."""
    if not tile:
        return Verdict("wait", Text(N_("It is the monster's turn: lay the drawn tombstone tile in the card zone, "
                                       "or press MONSTER (G7)")))
    name = tile_words(tile, prey3_variant=game.prey3_variant)
    if tile not in game.deck:
        template = (N_("The tile %(tile)s in the card zone is not in the deck (it was already played this round): "
                       "take it away and lay the tile you drew (G7)") if tile in game.tiles_played else
                    N_("The tile %(tile)s in the card zone is not in the deck (there is none left in the deck): "
                       "take it away and lay the tile you drew (G7)"))
        return Verdict("refused", Text(template, tile=name), blink=True)
    action = Tile(tile)
    try:
        game.apply(action)
    except FlureError as exc:
        return Verdict("refused", Text(N_("The tile %(tile)s cannot be played now: %(why)s"), tile=name, why=exc),
                       blink=True)
    return Verdict("tile", Text(N_("the camera read the tile %(tile)s"), tile=name), action)


def cannot_hold(blocking) -> tuple[object, list[str]] | None:
    """(what the table shows that the game cannot hold, in words; the squares to clear) of a reading's
    blocking problems, or None when there is no such problem."""
    found = [p for p in blocking or [] if p.get("code") in CANNOT_HOLD]
    if not found:
        return None
    squares: list[str] = []
    for p in found:
        words = problem_words(p)
        params = words.params if isinstance(words, Text) else {}
        for name in (p.get("square"), params.get("first"), params.get("second")):
            try:
                name = square_name(parse_square(name)) if isinstance(name, str) else None
            except ValueError:
                name = None
            if name is not None and name not in squares:
                squares.append(name)
    return problem_words(found[0]), squares


def table_position(game, seen: Mapping, unknown) -> dict:
    """The game's setup with the table as the camera sees it (the referee accepts the table):
    each pawn where it is seen (matched by colour and number), one not seen beside the board
    unless its square is unknown; stones and the monster as seen; unknown squares as the game has them."""
    setup = game.position.to_setup()
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


def placement_guide(game) -> dict:
    """The advanced setup's guidance (A2): whose turn it is to place and what is left (the status
    line); ``follow`` is filled when the table must be put right."""
    return {"placer": game.placer, "left": dict(game.pieces_left), "text": game.summary(), "follow": None}


def _placement_fixes(game, expected: dict, seen: Mapping, unknown) -> dict | None:
    """When the table shows no legal placement: what to change to bring it back to the game's
    position, in plain words, with the squares to empty and to fill (as for the basic setup)."""
    todo = table_fixes(expected, seen, unknown)
    if not todo:
        return None
    empty, fill = squares_to_change(todo)
    return {"fixes": [_fix_json(f) for f in todo], "empty": empty, "fill": fill,
            "done": False, "facing": expected["monster"]["facing"], "why": Text(FOLLOW_WHY["placement"])}


def _fix_json(fix) -> dict:
    """A follow-up instruction's JSON, its text as wording data (said in each screen's language)."""
    return {**fix.to_json(), "text": fix.text}


def is_unseen_flip(action: Action | None) -> bool:
    """The flip beside the board no camera can see (G4/G5): no new reading will come for it."""
    return isinstance(action, PawnAt) and action.square is None

