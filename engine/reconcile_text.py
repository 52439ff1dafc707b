"""Why no legal change explains a reading, in words naming squares, pawns and rules.

Only used for the ``unexplained`` answer of ``engine.reconcile``; it reads the
differences between the position before and what is seen, and says which rule they
break.  The verdict itself (no legal change fits) is ``reconcile``'s, from the move
generator; this module only explains it.
"""
from __future__ import annotations

from .geometry import square_name
from .observation import ANY_PAWN, EMPTY, MONSTER_PHASE, UNKNOWN, looks
from .pawns import outcomes
from .position import BOARD, WAITING, Position

MAX_LISTED = 4


def unexplained(before: Position, obs, mover: str, differs: set[int], only=None) -> tuple[int | None, str]:
    """(first differing square, message) for a reading no legal change of ``mover`` explains."""
    shown = looks(before)
    order = sorted(differs)
    seen_text = "; ".join(f"{square_name(sq)} was {shown.get(sq, EMPTY).describe()}, now "
                          f"{obs.seen[sq].describe()}" for sq in order[:MAX_LISTED])
    if len(order) > MAX_LISTED:
        seen_text += f" (and {len(order) - MAX_LISTED} more squares)"
    reasons: list[str] = []
    if obs.tile is not None and obs.tile is not UNKNOWN and differs:
        reasons.append(f"tile {obs.tile} lies in the card zone but the board changed too: "
                       "the tile is laid with the board as it was (G7)")
    if any(shown.get(sq, EMPTY).monster != obs.seen[sq].monster for sq in differs):
        reasons.append("the monster is not as it was: it moves only in the monster phase (G3)")
    if any((shown.get(sq, EMPTY).pool, shown.get(sq, EMPTY).teleporter) != (obs.seen[sq].pool, obs.seen[sq].teleporter)
           for sq in differs):
        reasons.append("pools and teleporters never move (B1, T1)")
    changed = _changed_pawns(before, obs, differs)
    stones_moved = any(shown.get(sq, EMPTY).stone != obs.seen[sq].stone for sq in differs)
    whose = "" if mover in (ANY_PAWN, MONSTER_PHASE) else f" of {mover}'s"
    if changed and mover == MONSTER_PHASE:
        reasons.append(f"{_names(changed)} changed, but no pawn moves in the monster phase: only the "
                       "tombstone tile is laid (G3, G7)")
    elif len(changed) > 1:
        reasons.append(f"more than one pawn changed ({_names(changed)}): a player moves one pawn at a time (G3)")
    elif changed:
        reasons.append(_one_pawn(before, obs, changed[0], mover, only))
    elif stones_moved:
        reasons.append(f"a stone moved but no pawn{whose} could have pushed it: a stone moves only when a "
                       "pawn enters its square (P7)")
    if not reasons:
        reasons.append(f"no legal move{whose} leaves the board like this")
    return (order[0] if order else None), f"no legal change explains what the camera sees: {seen_text}. " \
                                           + " ".join(r[0].upper() + r[1:] + "." for r in reasons)


def _changed_pawns(before: Position, obs, differs: set[int]) -> list[tuple]:
    """(colour, kind) of every pawn seen changed: gone from a seen square, new on one, or flipped."""
    keys = []
    for sq in sorted(differs):
        was = before.pawn_at(sq)
        now = obs.seen[sq].pawn
        for who in ((was.colour, was.kind) if was is not None else None,
                    (now.colour, now.kind) if now is not None else None):
            if who is not None and who not in keys:
                if was is not None and now is not None and (was.colour, was.kind) == (now.colour, now.kind) \
                        and was.face == now.face:
                    continue
                keys.append(who)
    return keys


def _names(keys) -> str:
    return ", ".join(f"{c} {k}" for c, k in keys)


def _one_pawn(before: Position, obs, who: tuple, mover: str, only=None) -> str:
    """Why the one pawn that changed cannot have made this change."""
    pawn = next((p for p in before.pawns if (p.colour, p.kind) == who), None)
    name = f"{who[0]} {who[1]}"
    if pawn is None:
        return f"{name} is not a pawn of this game"
    if mover != ANY_PAWN and pawn.colour != mover:
        return f"{name} changed but it is {mover}'s turn: only {mover}'s pawns move now (G3)"
    if only is not None and pawn.label not in only:
        return f"{name} has already moved in this pawn phase: each pawn moves once (G3)"
    if pawn.place not in (BOARD, WAITING):
        return f"{name} has left the game ({pawn.place}) and cannot come back (P3, G9)"
    at = [sq for sq, look in obs.seen.items() if look.pawn is not None and (look.pawn.colour, look.pawn.kind) == who]
    start = pawn.where() if pawn.place == BOARD else "beside the board"
    if not at:
        if pawn.place == BOARD and pawn.square in obs.seen:
            return (f"{name} is no longer on {start} and is seen nowhere: a pawn leaves the board only from "
                    "a1, by spending a point (P3)")
        return f"no legal move of {name} explains the change"
    dest = at[0]
    face = obs.seen[dest].pawn.face
    if face == pawn.face:
        return (f"{name} stands on {square_name(dest)} with its {face} face still up: a pawn is flipped "
                "after every move, even when it stays (P1, G3)")
    if pawn.value is None:
        return f"{name}'s points are not known"
    ends = {after.pawn(pawn.label).square for after in outcomes(before, pawn.label)
            if after.pawn(pawn.label).place == BOARD}
    if dest not in ends:
        return (f"{name} cannot get from {start} to {square_name(dest)} with its {pawn.value} point"
                f"{'s' if pawn.value != 1 else ''} (P1; walls, teleporters, the monster and other pawns "
                "are in the way as P2–P8 say)")
    return (f"{name} can reach {square_name(dest)}, but no such move leaves the stones as seen "
            "(P7 pushes one stone one square; P8, B2 slides)")
