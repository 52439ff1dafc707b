"""Camera readings against the game: differences, the referee's fixes, and what a confirmation means.

All three work on the setup JSON (SCENARIOS.md) that both the engine and the
camera speak.  Whether a change is a legal pawn move is decided by
``engine.pawns.explain_change``; this module only lines the two up.
"""
from __future__ import annotations

import copy

from engine.errors import InvalidSetupError
from engine.geometry import parse_direction, parse_square, square_name
from engine.position import COLOURS, FACES, PAWN_KINDS, STONE_KINDS, Position

FIX_PIECES = ("empty", "monster", *STONE_KINDS, "pawn")


def square_contents(setup: dict) -> dict[str, str]:
    """Square → what stands on it, in words ("monster facing E", "red 3/4 (black)", "crystal")."""
    out: dict[str, str] = {}
    monster = setup.get("monster")
    if monster and monster.get("at"):
        out[monster["at"]] = f"monster facing {monster.get('facing')}"
    for sq, kind in (setup.get("stones") or {}).items():
        out[sq] = kind
    for sq, t in (setup.get("teleporters") or {}).items():
        out[sq] = f"teleporter {t.get('pair')} arrow {t.get('arrow')}"
    for label, p in (setup.get("pawns") or {}).items():
        if p.get("at"):
            who = f"{p.get('color')} {p.get('pawn')}" if p.get("color") else label
            out[p["at"]] = f"{who} ({p.get('face', 'white')})"
    return out


def compare(expected: dict, seen: dict) -> list[dict]:
    """Every square whose contents differ between the game and the reading, in board order."""
    a, b = square_contents(expected), square_contents(seen)
    squares = sorted(set(a) | set(b), key=parse_square)
    return [{"square": sq, "expected": a.get(sq, "empty"), "seen": b.get(sq, "empty")}
            for sq in squares if a.get(sq) != b.get(sq)]


UNSEEN_CODES = ("hidden-square",)   # reading problems that mean "this square could not be seen at all"


def unseen_squares(reading: dict) -> list[str]:
    """Squares the camera reports it could not see (hidden behind a taller piece), in board order."""
    found = {p["square"] for p in reading.get("problems") or []
             if p.get("code") in UNSEEN_CODES and isinstance(p.get("square"), str)}
    return sorted(found, key=parse_square)


def fill_unseen(seen: dict, expected: dict, squares) -> dict:
    """The reading's setup with each square the camera could not see taken as the game has it.

    A hidden square is unknown, not empty: without this a pawn standing behind the
    monster would count as gone and no reading could ever be confirmed.  A square
    the reading does show something on, and a pawn the reading sees elsewhere, are
    left as seen.
    """
    out = copy.deepcopy(seen)
    for key in ("stones", "pawns", "teleporters"):
        if not isinstance(out.get(key), dict):
            out[key] = {}
    squares = set(squares) - set(square_contents(out))
    seen_pawns = {(p.get("color"), p.get("pawn")) for p in out["pawns"].values() if p.get("at")}
    for sq, kind in (expected.get("stones") or {}).items():
        if sq in squares:
            out["stones"][sq] = kind
    for sq, tele in (expected.get("teleporters") or {}).items():
        if sq in squares:
            out["teleporters"][sq] = dict(tele)
    for label, p in (expected.get("pawns") or {}).items():
        if p.get("at") in squares and (p.get("color"), p.get("pawn")) not in seen_pawns:
            out["pawns"][label] = {"at": p["at"], "color": p.get("color"), "pawn": p.get("pawn"),
                                   "face": p.get("face", "white")}
    monster = expected.get("monster") or {}
    if monster.get("at") in squares and not (out.get("monster") or {}).get("at"):
        out["monster"] = dict(monster)
    return out


def check_fix(square, piece) -> tuple[str, dict]:
    """Validate one referee fix; returns the normalised (square name, piece)."""
    if not isinstance(square, str):
        raise InvalidSetupError("give the square as a name like g7", "square")
    try:
        name = square_name(parse_square(square))
    except ValueError as exc:
        raise InvalidSetupError(str(exc), "square") from None
    if not isinstance(piece, dict) or piece.get("piece") not in FIX_PIECES:
        raise InvalidSetupError(f"piece must be one of {', '.join(FIX_PIECES)}", "piece")
    kind = piece["piece"]
    fixed = {"piece": kind}
    if kind == "monster":
        try:
            parse_direction(piece.get("facing"))
        except (ValueError, TypeError, AttributeError):
            raise InvalidSetupError(f"the monster's heading must be N, E, S or W, not {piece.get('facing')!r}",
                                    "facing") from None
        fixed["facing"] = piece["facing"].upper()
    if kind == "pawn":
        if piece.get("color") not in COLOURS:
            raise InvalidSetupError(f"pawn colour must be one of {', '.join(COLOURS)}", "color")
        if piece.get("pawn") not in PAWN_KINDS:
            raise InvalidSetupError(f"pawn must be one of {', '.join(PAWN_KINDS)}", "pawn")
        face = piece.get("face", "white")
        if face not in FACES:
            raise InvalidSetupError("face must be white or black", "face")
        fixed.update(color=piece["color"], pawn=piece["pawn"], face=face)
    return name, fixed


def fix_setup(setup: dict, fixes: dict[str, dict]) -> dict:
    """The reading's setup with each fixed square replaced by what the referee chose."""
    out = copy.deepcopy(setup)
    out.setdefault("stones", {})
    out.setdefault("pawns", {})
    for sq, piece in fixes.items():
        out["stones"].pop(sq, None)
        for label in [k for k, p in out["pawns"].items() if p.get("at") == sq]:
            del out["pawns"][label]
        kind = piece["piece"]
        if kind == "monster":
            out["monster"] = {"at": sq, "facing": piece["facing"]}
        elif kind in STONE_KINDS:
            out["stones"][sq] = kind
        elif kind == "pawn":
            label = f"{piece['color']}-{piece['pawn']}"
            out["pawns"][label] = {"at": sq, "color": piece["color"], "pawn": piece["pawn"], "face": piece["face"]}
    return out


def seen_position(game_position: Position, seen: dict) -> Position:
    """The game's pawns placed where the camera saw them (pawns are matched by colour and kind).

    A pawn the camera does not see stays off the board: out if it had just
    stood on the exit (P3), otherwise beside the entrance.
    """
    setup = game_position.to_setup()
    where = {(p.get("color"), p.get("pawn")): p for p in (seen.get("pawns") or {}).values() if p.get("at")}
    for label, pawn in setup["pawns"].items():
        found = where.get((pawn.get("color"), pawn.get("pawn")))
        if found is not None:
            pawn["at"], pawn["face"] = found["at"], found.get("face", pawn["face"])
            pawn.pop("place", None)
        elif pawn["at"] is not None:
            if pawn["at"] == "a1":
                pawn["place"] = "out"
            pawn["at"] = None
    setup["stones"] = dict(seen.get("stones") or {})
    if seen.get("monster"):
        setup["monster"] = seen["monster"]
    return Position.from_setup(setup, strict=False, where="reading")


def confirm_action(game, reading: dict) -> tuple[dict | None, str]:
    """The game action a confirmed reading stands for, or None and the reason in plain words."""
    from engine.pawns import explain_change

    if game.phase == "monster":
        if reading.get("tile"):
            return {"type": "tile", "tile": reading["tile"]}, f"the camera read the tile {reading['tile']}"
        return None, "It is the monster's turn: show the drawn tile to the camera, or enter it (G7)"
    if game.phase != "pawns":
        return None, f"Readings are confirmed during the pawn phase, not during {game.phase}"
    seen = reading.get("setup")
    if not reading.get("located") or seen is None:
        return None, "The camera has not located the board; nothing to confirm"
    after = seen_position(game.position, seen)
    label, moves, message = explain_change(game.position, after)
    if label is None or not moves:
        return None, f"The reading is not one legal pawn move: {message}"
    return {"type": "move", "pawn": label, "moves": moves[0]}, message
