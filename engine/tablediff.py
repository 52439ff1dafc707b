"""What must change on the table to bring it into a given position, in plain words.

After the monster's move the game knows the resolved position; the players must
bring the physical pieces there (TABLE.md, "Follow-up").  The same list guides
the basic setup at the start of a game and an undo.  This is a rule-free
comparison of two setups (the scenario ``setup`` JSON both the engine and the
camera speak): nothing here decides what is legal, it only lines the pieces up
and names them as players do ("red 3/4", "g7").

Squares the camera could not see are *unknown*, not empty: an instruction that
only concerns unknown squares is left out, since the table may well be right there.
"""
from __future__ import annotations

from dataclasses import dataclass

from .geometry import parse_square, square_col, square_row
from .names import KINDS, piece_name
from .wording import N_, Direction, PawnName, Term, Text

PLACE_WORDS = {"waiting": N_("back beside the board"), "out": N_("off the board: it is out (P3)"),
               "gone": N_("off the board: it has left the game (G9)")}


@dataclass(frozen=True)
class TableFix:
    """One thing to do on the table: ``empty`` squares to clear, ``fill`` squares to put a piece on."""

    what: str                  # "monster", "stone", "pawn", "teleporter" or "pool"
    text: Text                 # what to do, as wording data (engine.wording); its ``str()`` is the English
    empty: tuple[str, ...] = ()
    fill: tuple[str, ...] = ()
    facing: str | None = None  # the monster's heading to show, for "monster" fixes

    def to_json(self) -> dict:
        out = {"what": self.what, "text": str(self.text), "empty": list(self.empty), "fill": list(self.fill)}
        if self.facing is not None:
            out["facing"] = self.facing
        return out


def table_fixes(target: dict, seen: dict, unknown=()) -> tuple[TableFix, ...]:
    """What to do so that the table ``seen`` shows the position ``target`` (both setup objects).

    ``unknown``: squares the camera could not read; a fix that touches only those is left out.
    The list is empty exactly when every known square already agrees.
    """
    unknown = frozenset(unknown)
    fixes = [*_monster(target.get("monster") or {}, seen.get("monster") or {}),
             *_stones(target.get("stones") or {}, seen.get("stones") or {}),
             *_teleporters(target.get("teleporters") or {}, seen.get("teleporters") or {}),
             *_pools(target.get("pools") or [], seen.get("pools") or []),
             *_pawns(target.get("pawns") or {}, seen.get("pawns") or {})]
    kept = [f for f in fixes if not set(f.empty + f.fill) or not set(f.empty + f.fill) <= unknown]
    return tuple(sorted(kept, key=_board_order))


def _fix(what: str, words: Text, empty=(), fill=(), facing: str | None = None) -> TableFix:
    return TableFix(what, words, tuple(empty), tuple(fill), facing)


def new_round_fix(tile_name) -> TableFix | None:
    """Between rounds (G9) the deck is rebuilt from all 8 tombstone tiles: while a tile (``tile_name``,
    in words: engine.deck.tile_words) still lies in the card zone the table is not ready for round 2.
    None once it is clear."""
    if tile_name is None:
        return None
    return _fix("tiles", Text(N_("take the tile %(tile)s out of the card zone and shuffle all 8 tombstone tiles "
                                 "into a new face-down deck for round 2 (G9)"), tile=tile_name))


def squares_to_change(fixes) -> tuple[list[str], list[str]]:
    """(squares to empty, squares to fill) of a fix list, each once, in board order; a square both
    emptied and filled (one piece leaves, another comes) counts as one to fill."""
    fill = {sq for f in fixes for sq in f.fill}
    empty = {sq for f in fixes for sq in f.empty} - fill
    return sorted(empty, key=parse_square), sorted(fill, key=parse_square)


def _board_order(fix: TableFix):
    squares = fix.empty + fix.fill
    return (parse_square(squares[0]) if squares else -1, str(fix.text))


def _monster(target: dict, seen: dict) -> list[TableFix]:
    at, facing = target.get("at"), target.get("facing")
    if not at:
        return []
    was, was_facing = seen.get("at"), seen.get("facing")
    heading = Direction(facing)
    if not was:
        return [_fix("monster", Text(N_("put the monster on %(square)s facing %(direction)s"), square=at,
                                     direction=heading), (), (at,), facing)]
    if was != at:
        template = (N_("move the monster from %(start)s to %(square)s and turn it to face %(direction)s")
                    if was_facing != facing else N_("move the monster from %(start)s to %(square)s"))
        return [_fix("monster", Text(template, start=was, square=at, direction=heading), (was,), (at,), facing)]
    if was_facing != facing:
        return [_fix("monster", Text(N_("turn the monster to face %(direction)s"), direction=heading), (), (at,),
                     facing)]
    return []


def _distance(a: str, b: str) -> int:
    sa, sb = parse_square(a), parse_square(b)
    return abs(square_col(sa) - square_col(sb)) + abs(square_row(sa) - square_row(sb))


def _pair_up(missing: list[str], extra: list[str]) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    """Pair squares where a piece is missing with squares where one too many lies, nearest first."""
    missing, extra, pairs = list(missing), list(extra), []
    while missing and extra:
        frm, to = min(((e, m) for e in extra for m in missing), key=lambda p: (_distance(*p), p))
        pairs.append((frm, to))
        extra.remove(frm)
        missing.remove(to)
    return pairs, missing, extra


def _stones(target: dict, seen: dict) -> list[TableFix]:
    out = []
    for kind in sorted(set(target.values()) | set(seen.values())):
        want = {sq for sq, k in target.items() if k == kind}
        have = {sq for sq, k in seen.items() if k == kind}
        known = kind in KINDS   # (a kind the engine does not know is named as the setup wrote it)
        the, a_stone = (piece_name(kind, "the-object"), piece_name(kind, "a-object")) if known else (kind, kind)
        pairs, missing, extra = _pair_up(sorted(want - have, key=parse_square), sorted(have - want, key=parse_square))
        out += [_fix("stone", Text(N_("move %(stone)s from %(start)s to %(square)s"), stone=the, start=a, square=b),
                     (a,), (b,)) for a, b in pairs]
        out += [_fix("stone", Text(N_("put %(stone)s on %(square)s"), stone=a_stone, square=b), (), (b,))
                for b in missing]
        out += [_fix("stone", Text(N_("take %(stone)s off %(square)s"), stone=the, square=a), (a,), ())
                for a in extra]
    return out


def _teleporters(target: dict, seen: dict) -> list[TableFix]:
    out = []
    for sq in sorted(set(target) | set(seen), key=parse_square):
        want, have = target.get(sq), seen.get(sq)
        if want == have:
            continue
        if want is None:
            out.append(_fix("teleporter", Text(N_("take the teleporter off %(square)s"), square=sq), (sq,), ()))
        elif have is None:
            out.append(_fix("teleporter", Text(N_("put a teleporter of pair %(pair)s on %(square)s, its arrow pointing "
                                                  "%(direction)s"), pair=want.get("pair"), square=sq,
                                               direction=Direction(want.get("arrow"))), (), (sq,)))
        else:
            template = (N_("turn the teleporter on %(square)s so its arrow points %(direction)s (pair %(pair)s)")
                        if want.get("pair") != have.get("pair") else
                        N_("turn the teleporter on %(square)s so its arrow points %(direction)s"))
            out.append(_fix("teleporter", Text(template, square=sq, direction=Direction(want.get("arrow")),
                                               pair=want.get("pair")), (), (sq,)))
    return out


def _pools(target: list, seen: list) -> list[TableFix]:
    want, have = set(target), set(seen)
    return ([_fix("pool", Text(N_("lay a pool over %(square)s"), square=sq), (), (sq,))
             for sq in sorted(want - have, key=parse_square)]
            + [_fix("pool", Text(N_("take the pool off %(square)s"), square=sq), (sq,), ())
               for sq in sorted(have - want, key=parse_square)])


def _pawn_name(p: dict, label: str) -> PawnName | str:
    return PawnName(f"{p['color']} {p['pawn']}") if p.get("color") and p.get("pawn") else label


# The pawn instructions that name a face, one template per face (the face's word agrees with its noun).
PUT = {"white": N_("put %(pawn)s on %(square)s, white side up"), "black": N_("put %(pawn)s on %(square)s, black side up")}
MOVE_FLIP = {"white": N_("move %(pawn)s from %(start)s to %(square)s, white side up"),
             "black": N_("move %(pawn)s from %(start)s to %(square)s, black side up")}
TURN_OVER = {"white": N_("turn %(pawn)s on %(square)s over to its white side"),
             "black": N_("turn %(pawn)s on %(square)s over to its black side")}


def _faced(templates: dict, face: str, **params) -> Text:
    """The template for ``face``; a face outside white/black (a malformed setup) is said in English."""
    if face in templates:
        return Text(templates[face], **params)
    return Text(templates["white"].replace("white", "%(face)s"), face=face, **params)


def _pawns(target: dict, seen: dict) -> list[TableFix]:
    out = []
    where = {(p.get("color"), p.get("pawn")): p for p in seen.values() if p.get("at")}
    known = set()
    for label, p in target.items():
        key = (p.get("color"), p.get("pawn"))
        known.add(key)
        name, at, now = _pawn_name(p, label), p.get("at"), where.get(key)
        face = p.get("face", "white")
        if now is None:
            if at:
                out.append(_fix("pawn", _faced(PUT, face, pawn=name, square=at), (), (at,)))
            continue
        if not at:
            where_to = Term(PLACE_WORDS.get(p.get("place") or "waiting", PLACE_WORDS["waiting"]))
            out.append(_fix("pawn", Text(N_("take %(pawn)s from %(square)s %(where)s"), pawn=name, square=now["at"],
                                         where=where_to), (now["at"],), ()))
        elif now["at"] != at:
            words = (_faced(MOVE_FLIP, face, pawn=name, start=now["at"], square=at)
                     if now.get("face", "white") != face else
                     Text(N_("move %(pawn)s from %(start)s to %(square)s"), pawn=name, start=now["at"], square=at))
            out.append(_fix("pawn", words, (now["at"],), (at,)))
        elif now.get("face", "white") != face:
            out.append(_fix("pawn", _faced(TURN_OVER, face, pawn=name, square=at), (), (at,)))
    for label, p in seen.items():
        if p.get("at") and (p.get("color"), p.get("pawn")) not in known:
            out.append(_fix("pawn", Text(N_("take %(pawn)s off %(square)s: it is not in this game"),
                                         pawn=_pawn_name(p, label), square=p["at"]), (p["at"],), ()))
    return out
