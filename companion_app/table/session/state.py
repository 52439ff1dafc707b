"""The table's public state as JSON: what every phone and the referee draw (no secrets).

Kept apart from the session, which owns the game's lifecycle: this module only
renders a ``Game`` (and the session's counters) into the one JSON form the views
read, and the referee's "what would each tile do" preview.  Its sentences (the status line,
the note, the tile names, the move's lines) are wording data (engine.wording): the web layer
says them in each reader's language (``companion_app.i18n.text.localize``).
"""
from __future__ import annotations

from engine.deck import TILES, tile_words
from engine.game import Game
from engine.wording import N_, PawnName, Text

WAITING_SUMMARY = Text(N_("Waiting for the referee to start a game."))


def public_state(game: Game | None, *, version: int, seq: int, game_id: int | None, log: list[dict],
                 plan_seq: int | None, plan_turn: tuple[int, int] | None = None, follow: bool = False,
                 camera_mode: str = "auto") -> dict:
    """The state message: counters and log always; the game's phase, position and last plan once a game runs."""
    base = {"version": version, "seq": seq, "game_id": game_id, "log": log}
    if game is None:
        return {**base, "phase": "none", "summary": WAITING_SUMMARY}
    plan = game.last_plan
    plan_json = without_texts(plan.to_json()) if plan is not None else None
    return {
        **base,
        "phase": game.phase, "summary": game.summary(),
        "note": game.note,
        "round": game.round, "turn": game.turn, "players": list(game.players),
        "first_player": game.first_player, "to_move": game.to_move, "placer": game.placer,
        "unmoved": list(game.unmoved), "deck_left": game.deck_left,
        "tiles_played": list(game.tiles_played), "winner": game.winner, "end_rule": game.end_rule,
        "tile_names": {t: tile_words(t, prey3_variant=game.prey3_variant) for t in dict.fromkeys(TILES)},
        "out": game.out_counts(), "setup": game.setup, "prey3_variant": game.prey3_variant,
        "pieces_left": dict(game.pieces_left),
        "position": game.position.to_setup(), "names": game.position.pawn_names(),
        "plan": plan_json, "plan_seq": plan_seq,
        "plan_round": plan_turn[0] if plan_json and plan_turn else None,
        "plan_turn": plan_turn[1] if plan_json and plan_turn else None,
        "follow": follow, "camera_mode": camera_mode,
        "plan_lines": plan.sentences() if plan is not None else [],   # the engine's one wording of the move
    }


def without_texts(plan_json, *, sighting: bool = False):
    """A plan's JSON (flure-plan/1) for the screens: without its English ``text`` fields (a screen says the move
    in its reader's language from ``plan_lines``; the plan's shape — path, looks, events — is what it draws),
    and each look's sightings without their empty fields (``pawn``, ``square``, ``distance``, ``stopped_by``
    null: nothing seen that way, or no wall), which no screen draws and which made half the plan's bytes."""
    if isinstance(plan_json, dict):
        return {k: without_texts(v, sighting=k == "sightings") for k, v in plan_json.items()
                if not (k == "text" and isinstance(v, str)) and not (sighting and v is None)}
    if isinstance(plan_json, list):
        return [without_texts(v, sighting=sighting) for v in plan_json]
    return plan_json


def preview_json(game: Game) -> dict:
    """What each tile still in the deck would do: its path, who is eaten, where it ends, in words."""
    names = game.position.pawn_names()
    out = {}
    for tile, plan in game.preview().items():
        data = plan.to_json()
        out[tile] = {"path": data["path"], "eaten": [PawnName(names.get(x, x)) for x in data["eaten"]],
                     "end": data["end"], "lines": plan.sentences(), "plan": data}
    return out
