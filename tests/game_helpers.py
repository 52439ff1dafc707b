"""Helpers for the game-flow tests: build positions, play phases, random play-outs, invariants."""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

from engine.actions import Correct
from engine.deck import TILES, TILES_PLAYED_PER_ROUND, is_prey
from engine.errors import GameActionError
from engine.game import Game
from engine.geometry import SQUARES, parse_square, square_col, square_row
from engine.geometry import square_name as _name
from engine.pawns import apply_moves
from engine.plan import Push
from engine.position import BOARD, GONE, OUT, WAITING

COLOURS_BY_COUNT = {
    2: ["red", "blue"], 3: ["red", "blue", "green"], 4: ["red", "blue", "green", "yellow"],
    5: ["red", "blue", "green", "yellow", "purple"], 6: ["red", "blue", "green", "yellow", "purple", "black"],
    7: ["red", "blue", "green", "yellow", "purple", "black", "white"],
}


def put(game: Game, where: dict[str, str], monster: str | None = None) -> Game:
    """The game with pawns (label -> square name, "out", "waiting" or "gone") and the monster moved by hand."""
    pawns = []
    for p in game.position.pawns:
        w = where.get(p.label)
        if w in (OUT, WAITING, GONE):
            p = replace(p, place=w, square=None)
        elif w is not None:
            p = replace(p, place=BOARD, square=parse_square(w))
        pawns.append(p)
    position = replace(game.position, pawns=tuple(pawns))
    if monster is not None:
        position = replace(position, monster=parse_square(monster))
    return game.apply(Correct(position))   # the referee's "correct the board"


def stay_all(game: Game) -> Game:
    """Finish the pawn phase: every pawn still to move stays (0 points, P1) and is flipped."""
    while game.phase == "pawns":
        label = next(x for x in game.unmoved if game.position.pawn(x).colour == game.to_move)
        game = game.apply({"type": "move", "pawn": label, "moves": ""})
    return game


def full_placement() -> list[dict]:
    """A legal sequence of the 17 advanced pieces (A1, A2)."""
    pieces = [("stone", "c3"), ("stone", "m4"), ("stone", "h5"), ("crystal", "i6"), ("crystal", "n6"),
              ("pivot-right", "g7"), ("pivot-right", "e8"), ("pivot-right", "m8"), ("pivot-right", "o9"),
              ("pivot-about", "f10"), ("pivot-about", "i10")]
    actions = [{"type": "place", "piece": p, "square": s} for p, s in pieces]
    actions.append({"type": "place", "piece": "pool-2x2", "square": "i3"})
    actions.append({"type": "place", "piece": "pool-1x4", "square": "e9", "orientation": "horizontal"})
    for sq, pair, arrow in (("d5", 1, "E"), ("l9", 1, "N"), ("k2", 2, "S"), ("c8", 2, "W")):
        actions.append({"type": "place", "piece": "teleporter", "square": sq, "pair": pair, "arrow": arrow})
    return actions


def random_placement(game: Game, rng: random.Random) -> tuple[Game, list[dict]]:
    """Place all advanced pieces at random legal spots; returns the game and the actions used."""
    actions = []
    while game.phase == "placement":
        left = [p for p, n in game.pieces_left if n]
        action = {"type": "place", "piece": rng.choice(left), "square": _name(rng.choice(SQUARES)),
                  "arrow": rng.choice("NESW"), "orientation": rng.choice(["horizontal", "vertical"])}
        try:
            game = game.apply(action)
        except GameActionError:
            continue
        actions.append(action)
    return game, actions


def _exit_distance(target: dict) -> int:
    if target["square"] is None:
        return 99
    if target["square"] == "out":
        return -1
    sq = parse_square(target["square"])
    return square_col(sq) + square_row(sq)


def random_action(game: Game, rng: random.Random, eager: float = 0.6) -> dict:
    """A legal action: pawn moves chosen from targets() (often the one nearest the exit), tiles drawn."""
    if game.phase == "monster":
        if rng.random() < 0.25 and not game.first_tile_of_game:
            return {"type": "tile", "tile": rng.choice(game.deck)}
        return {"type": "draw"}
    mine = [x for x in game.unmoved if game.position.pawn(x).colour == game.to_move]
    label = rng.choice(mine)
    targets = game.targets(label)
    target = min(targets, key=_exit_distance) if rng.random() < eager else rng.choice(targets)
    if rng.random() < 0.2:   # as the camera reports it: where the pawn stands and where the stones lie
        seen = apply_moves(game.position, label, target["moves"]).stones
        return {"type": "pawn-at", "pawn": label, "square": target["square"],
                "stones": {_name(sq): kind for sq, kind in seen.items()}}
    return {"type": "move", "pawn": label, "moves": target["moves"]}


def play_out(game: Game, rng: random.Random, check=None, max_actions: int = 2000) -> tuple[Game, list[dict]]:
    """Play random legal actions to the end (or ``max_actions``); ``check(before, action, after)`` each time."""
    actions = []
    while game.phase != "over" and len(actions) < max_actions:
        action = random_action(game, rng)
        after = game.apply(action)
        if check is not None:
            check(game, action, after)
        actions.append(action)
        game = after
    return game, actions


def check_invariants(before: Game, action: dict, after: Game) -> None:
    """What must hold after every action of a real game."""
    pos, old = after.position, before.position
    # Pieces are conserved except by the rules that remove them.
    assert [p.label for p in pos.pawns] == [p.label for p in old.pawns]
    assert len(pos.stones) <= len(old.stones) + (action["type"] == "place")
    assert pos.pools == old.pools or action["type"] == "place"
    assert pos.teleporters == old.teleporters or action["type"] == "place"
    if after.phase != "placement":
        assert pos.status() == [], pos.status()   # no shared squares, nothing on teleporters
    for p, q in zip(old.pawns, pos.pawns):
        if p.place == OUT:
            assert q == p, f"{p.name} came back from out"
        if p.place == GONE:
            assert q.place == GONE
        if q.place == GONE and p.place != GONE:
            assert after.round == 2 or before.round == 2
        if action["type"] in ("move", "pawn-at") and p.label != action["pawn"]:
            assert q == p, f"{p.name} changed although {action['pawn']} moved"
    # A monster move removes exactly the stones its plan says, and sends exactly its eaten pawns away (G9).
    if action["type"] in ("draw", "tile"):
        plan = after.last_plan
        removed = [e for st in plan.steps for e in st.events if type(e) is Push and e.stone and e.to is None]
        assert len(old.stones) - len(pos.stones) == len(removed)
        fate = WAITING if before.round == 1 else GONE
        for p, q in zip(old.pawns, pos.pawns):
            if p.label in plan.eaten:
                assert p.place == BOARD and q.place == fate and q.face == p.face
            elif p.place == BOARD and q.place != BOARD:
                assert q.place == GONE and before.round == 2 and after.phase == "over"   # end of round 2 (G9)
            elif p.place != BOARD:
                assert q == p
    # One pawn moved, and flipped (G3).
    if action["type"] in ("move", "pawn-at"):
        p, q = old.pawn(action["pawn"]), pos.pawn(action["pawn"])
        assert q.face != p.face
        assert action["pawn"] not in after.unmoved
        if before.turn == 1:   # G4
            for c in after.players:
                assert sum(1 for x in pos.pawns if x.colour == c and x.place != WAITING) <= 2
    # All pawns in play show the same face at the end of each pawn phase (G3).
    if before.phase == "pawns" and after.phase == "monster":
        assert len({p.face for p in pos.pawns if p.in_play}) == 1
    # Turn order (G3, G5): the player to move has an unmoved pawn; every unmoved pawn is in play;
    # play goes clockwise from the mover (or from the first player at the start of a phase), skipping
    # players with nothing left to move.
    if after.phase == "pawns":
        assert all(pos.pawn(x).in_play for x in after.unmoved)
        assert after.to_move in {pos.pawn(x).colour for x in after.unmoved}
        start = action["pawn"] if action["type"] in ("move", "pawn-at") else None
        players, owners = after.players, {pos.pawn(x).colour for x in after.unmoved}
        i = players.index(pos.pawn(start).colour) + 1 if start else players.index(after.first_player)
        assert after.to_move == next(players[(i + k) % len(players)] for k in range(len(players))
                                     if players[(i + k) % len(players)] in owners)
        if start is None:   # a new pawn phase: every pawn in play moves once (G3)
            assert set(after.unmoved) == {p.label for p in pos.pawns if p.in_play}
    # G2 is counted at once, and round 2 stops when no pawn is left in play (G10).
    if after.phase != "over":
        assert max(after.out_counts().values()) < after.set_size - 1
        if after.round == 2 and after.phase != "placement":
            assert any(p.in_play for p in pos.pawns)
    # G8: the game's first tile is never a prey tile (G11: nor the 5 with the variant).
    if action["type"] in ("draw", "tile") and before.first_tile_of_game:
        assert not is_prey(after.tiles_played[0], prey3_variant=after.prey3_variant)
    # The deck (G7–G9): 8 tiles between deck and table, at most 7 played per round.
    if after.phase != "placement":
        assert Counter(after.deck) + Counter(after.tiles_played) == Counter(TILES)
        assert len(after.tiles_played) < TILES_PLAYED_PER_ROUND or after.phase == "over"
    if action["type"] in ("draw", "tile") and after.phase != "over":
        assert after.turn == before.turn + 1
        nxt = before.players[(before.players.index(before.first_player) + 1) % len(before.players)]
        assert after.first_player == nxt   # G6
        if after.round == 2 and before.round == 1:
            assert after.deck_left == 8 and after.tiles_played == ()
    assert after.round >= before.round
    # Score: pawns out never decrease and the log agrees.
    counts = after.out_counts()
    assert all(counts[c] >= n for c, n in before.out_counts().items())
    assert Counter(after.out_log) == Counter({c: n for c, n in counts.items() if n})
    if after.phase == "over":
        assert after.winner is not None
        if after.end_rule == "G2":
            assert counts[after.winner] == after.set_size - 1
        elif after.winner != "monster":
            assert counts[after.winner] == max(counts.values())
    # JSON round trip, exactly.
    assert Game.from_json(json.loads(json.dumps(after.to_json()))) == after
