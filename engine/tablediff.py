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

STONE_WORDS = {"stone": "stone", "crystal": "crystal", "pivot-right": "pivot stone (right)",
               "pivot-about": "pivot stone (about turn)"}
PLACE_WORDS = {"waiting": "back beside the board", "out": "off the board: it is out (P3)",
               "gone": "off the board: it has left the game (G9)"}


@dataclass(frozen=True)
class TableFix:
    """One thing to do on the table: ``empty`` squares to clear, ``fill`` squares to put a piece on."""

    what: str                  # "monster", "stone", "pawn", "teleporter" or "pool"
    text: str
    empty: tuple[str, ...] = ()
    fill: tuple[str, ...] = ()
    facing: str | None = None  # the monster's heading to show, for "monster" fixes

    def to_json(self) -> dict:
        out = {"what": self.what, "text": self.text, "empty": list(self.empty), "fill": list(self.fill)}
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


def new_round_fix(tile_name: str | None) -> TableFix | None:
    """Between rounds (G9) the deck is rebuilt from all 8 tombstone tiles: while a tile (``tile_name``,
    in words) still lies in the card zone the table is not ready for round 2.  None once it is clear."""
    if tile_name is None:
        return None
    return TableFix("tiles", f"take the tile {tile_name} out of the card zone and shuffle all 8 tombstone tiles "
                             "into a new face-down deck for round 2 (G9)")


def squares_to_change(fixes) -> tuple[list[str], list[str]]:
    """(squares to empty, squares to fill) of a fix list, each once, in board order; a square both
    emptied and filled (one piece leaves, another comes) counts as one to fill."""
    fill = {sq for f in fixes for sq in f.fill}
    empty = {sq for f in fixes for sq in f.empty} - fill
    return sorted(empty, key=parse_square), sorted(fill, key=parse_square)


def _board_order(fix: TableFix):
    squares = fix.empty + fix.fill
    return (parse_square(squares[0]) if squares else -1, fix.text)


def _monster(target: dict, seen: dict) -> list[TableFix]:
    at, facing = target.get("at"), target.get("facing")
    if not at:
        return []
    was, was_facing = seen.get("at"), seen.get("facing")
    if not was:
        return [TableFix("monster", f"put the monster on {at} facing {facing}", (), (at,), facing)]
    if was != at:
        turn = f" and turn it to face {facing}" if was_facing != facing else ""
        return [TableFix("monster", f"move the monster from {was} to {at}{turn}", (was,), (at,), facing)]
    if was_facing != facing:
        return [TableFix("monster", f"turn the monster to face {facing}", (), (at,), facing)]
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
        word = STONE_WORDS.get(kind, kind)
        pairs, missing, extra = _pair_up(sorted(want - have, key=parse_square), sorted(have - want, key=parse_square))
        out += [TableFix("stone", f"move the {word} from {a} to {b}", (a,), (b,)) for a, b in pairs]
        out += [TableFix("stone", f"put a {word} on {b}", (), (b,)) for b in missing]
        out += [TableFix("stone", f"take the {word} off {a}", (a,), ()) for a in extra]
    return out


def _teleporters(target: dict, seen: dict) -> list[TableFix]:
    out = []
    for sq in sorted(set(target) | set(seen), key=parse_square):
        want, have = target.get(sq), seen.get(sq)
        if want == have:
            continue
        if want is None:
            out.append(TableFix("teleporter", f"take the teleporter off {sq}", (sq,), ()))
        elif have is None:
            out.append(TableFix("teleporter", f"put a teleporter of pair {want.get('pair')} on {sq}, its arrow "
                                              f"pointing {want.get('arrow')}", (), (sq,)))
        else:
            out.append(TableFix("teleporter", f"turn the teleporter on {sq} so its arrow points {want.get('arrow')}"
                                + (f" (pair {want.get('pair')})" if want.get("pair") != have.get("pair") else ""),
                                (), (sq,)))
    return out


def _pools(target: list, seen: list) -> list[TableFix]:
    want, have = set(target), set(seen)
    return ([TableFix("pool", f"lay a pool over {sq}", (), (sq,)) for sq in sorted(want - have, key=parse_square)]
            + [TableFix("pool", f"take the pool off {sq}", (sq,), ()) for sq in sorted(have - want, key=parse_square)])


def _pawn_name(p: dict, label: str) -> str:
    return f"{p['color']} {p['pawn']}" if p.get("color") and p.get("pawn") else label


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
                out.append(TableFix("pawn", f"put {name} on {at}, {face} side up", (), (at,)))
            continue
        if not at:
            where_to = PLACE_WORDS.get(p.get("place") or "waiting", PLACE_WORDS["waiting"])
            out.append(TableFix("pawn", f"take {name} from {now['at']} {where_to}", (now["at"],), ()))
        elif now["at"] != at:
            flip = f", {face} side up" if now.get("face", "white") != face else ""
            out.append(TableFix("pawn", f"move {name} from {now['at']} to {at}{flip}", (now["at"],), (at,)))
        elif now.get("face", "white") != face:
            out.append(TableFix("pawn", f"turn {name} on {at} over to its {face} side", (), (at,)))
    for label, p in seen.items():
        if p.get("at") and (p.get("color"), p.get("pawn")) not in known:
            out.append(TableFix("pawn", f"take {_pawn_name(p, label)} off {p['at']}: it is not in this game",
                                (p["at"],), ()))
    return out
