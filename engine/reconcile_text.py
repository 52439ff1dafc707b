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
from .wording import N_, Cap, Colour, Join, PawnName, Plural, Text, listing

MAX_LISTED = 4


def unexplained(before: Position, obs, mover: str, differs: set[int], only=None) -> tuple[int | None, Join]:
    """(first differing square, message) for a reading no legal change of ``mover`` explains; the
    message is wording data (engine.wording), ``str()`` of it the English sentence."""
    shown = looks(before)
    order = sorted(differs)
    seen = Join("; ", [Text(N_("%(square)s was %(before)s, now %(after)s"), square=square_name(sq),
                            before=shown.get(sq, EMPTY).describe_words(), after=obs.seen[sq].describe_words())
                       for sq in order[:MAX_LISTED]])
    if len(order) > MAX_LISTED:
        seen = Join("", [seen, Text(N_(" (and %(num)s more squares)"), num=len(order) - MAX_LISTED)])
    reasons: list = []
    if obs.tile is not None and obs.tile is not UNKNOWN and differs:
        reasons.append(Text(N_("tile %(tile)s lies in the card zone but the board changed too: the tile is laid "
                               "with the board as it was (G7)"), tile=obs.tile))
    if any(shown.get(sq, EMPTY).monster != obs.seen[sq].monster for sq in differs):
        reasons.append(Text(N_("the monster is not as it was: it moves only in the monster phase (G3)")))
    if any((shown.get(sq, EMPTY).pool, shown.get(sq, EMPTY).teleporter) != (obs.seen[sq].pool, obs.seen[sq].teleporter)
           for sq in differs):
        reasons.append(Text(N_("pools and teleporters never move (B1, T1)")))
    changed = _changed_pawns(before, obs, differs)
    stones_moved = any(shown.get(sq, EMPTY).stone != obs.seen[sq].stone for sq in differs)
    anyone = mover in (ANY_PAWN, MONSTER_PHASE)
    if changed and mover == MONSTER_PHASE:
        reasons.append(Text(N_("%(pawns)s changed, but no pawn moves in the monster phase: only the tombstone tile "
                               "is laid (G3, G7)"), pawns=_names(changed)))
    elif len(changed) > 1:
        reasons.append(Text(N_("more than one pawn changed (%(pawns)s): a player moves one pawn at a time (G3)"),
                            pawns=_names(changed)))
    elif changed:
        reasons.append(_one_pawn(before, obs, changed[0], mover, only))
    elif stones_moved:
        reasons.append(Text(N_("a stone moved but no pawn could have pushed it: a stone moves only when a pawn "
                               "enters its square (P7)")) if anyone else
                       Text(N_("a stone moved but no pawn of %(colour)s's could have pushed it: a stone moves only "
                               "when a pawn enters its square (P7)"), colour=Colour(mover)))
    if not reasons:
        reasons.append(Text(N_("no legal move leaves the board like this")) if anyone else
                       Text(N_("no legal move of %(colour)s's leaves the board like this"), colour=Colour(mover)))
    words = Join("", [Text(N_("no legal change explains what the camera sees: %(seen)s."), seen=seen),
                      *(Join("", [" ", Cap(r), "."]) for r in reasons)])
    return (order[0] if order else None), words


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


def _names(keys) -> Join:
    return listing(PawnName(f"{c} {k}") for c, k in keys)


def _one_pawn(before: Position, obs, who: tuple, mover: str, only=None) -> Text:
    """Why the one pawn that changed cannot have made this change."""
    pawn = next((p for p in before.pawns if (p.colour, p.kind) == who), None)
    name = PawnName(f"{who[0]} {who[1]}")
    if pawn is None:
        return Text(N_("%(pawn)s is not a pawn of this game"), pawn=name)
    if mover != ANY_PAWN and pawn.colour != mover:
        return Text(N_("%(pawn)s changed but it is %(colour)s's turn: only %(colour)s's pawns move now (G3)"),
                    pawn=name, colour=Colour(mover))
    if only is not None and pawn.label not in only:
        return Text(N_("%(pawn)s has already moved in this pawn phase: each pawn moves once (G3)"), pawn=name)
    if pawn.place not in (BOARD, WAITING):
        return Text(N_("%(pawn)s has left the game (%(place)s) and cannot come back (P3, G9)"), pawn=name,
                    place=pawn.place)
    at = [sq for sq, look in obs.seen.items() if look.pawn is not None and (look.pawn.colour, look.pawn.kind) == who]
    start = pawn.where() if pawn.place == BOARD else Text(N_("beside the board"))
    if not at:
        if pawn.place == BOARD and pawn.square in obs.seen:
            return Text(N_("%(pawn)s is no longer on %(square)s and is seen nowhere: a pawn leaves the board only "
                           "from a1, by spending a point (P3)"), pawn=name, square=start)
        return Text(N_("no legal move of %(pawn)s explains the change"), pawn=name)
    dest = at[0]
    face = obs.seen[dest].pawn.face
    if face == pawn.face:
        template = {"white": N_("%(pawn)s stands on %(square)s with its white face still up: a pawn is flipped "
                                "after every move, even when it stays (P1, G3)"),
                    "black": N_("%(pawn)s stands on %(square)s with its black face still up: a pawn is flipped "
                                "after every move, even when it stays (P1, G3)")}.get(
            face, "%(pawn)s stands on %(square)s with its %(face)s face still up: a pawn is flipped after every "
                  "move, even when it stays (P1, G3)")
        return Text(template, pawn=name, square=square_name(dest), face=face)
    if pawn.value is None:
        return Text(N_("%(pawn)s's points are not known"), pawn=name)
    ends = {after.pawn(pawn.label).square for after in outcomes(before, pawn.label)
            if after.pawn(pawn.label).place == BOARD}
    if dest not in ends:
        return Plural("%(pawn)s cannot get from %(start)s to %(square)s with its %(num)s point (P1; walls, "
                      "teleporters, the monster and other pawns are in the way as P2–P8 say)",
                      "%(pawn)s cannot get from %(start)s to %(square)s with its %(num)s points (P1; walls, "
                      "teleporters, the monster and other pawns are in the way as P2–P8 say)",
                      pawn.value, pawn=name, start=start, square=square_name(dest))
    return Text(N_("%(pawn)s can reach %(square)s, but no such move leaves the stones as seen "
                   "(P7 pushes one stone one square; P8, B2 slides)"), pawn=name, square=square_name(dest))
