"""The teaching layout (NOSTICKERS.md): the photos a family takes so the camera learns its own box.

``vision/teaching_layout.json`` lists the steps, each one photo: which piece lies where, which face
up, with which heading, and the tombstone tile in the card zone.  ``load_layout`` reads and checks a
layout file: each step is a setup the engine accepts (a scenario ``setup``, every key optional, parsed
by ``Position.from_setup``) made of the box's real pieces (no pawn the box lacks, no fourth crystal,
the pools as the game's 2×2 and 1×4 tiles), and the first step is the empty board.  A bad file is a
``TeachingLayoutError`` naming the file, the step (counted from 1) and the field.

``TeachingLayout.covered()`` tells which faces the layout shows; ``missing()`` the faces of the box it
never shows (the packaged layout shows them all).  The form cannot tell a stone tile's plain front
from its plain back (both are ``stone``): the layout's ``say`` asks for the fronts in the step where
all eleven tiles lie with their eight marked fronts up, and ``covered`` counts that step's plain
stones as fronts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine import jsontext
from engine.errors import FlureError, InvalidSetupError
from engine.geometry import SQUARE_NAMES, parse_square, square_name
from engine.placement import PIECES
from engine.pools import pool_squares, split_pools
from engine.position import COLOURS, FOUR_PAWN_COLOURS, PAWN_KINDS, STONE_KINDS, Position, pawn_label
from engine.wording import Join, Text, os_reason

from .scheme import CANNOT_READ

DEFAULT_PATH = Path(__file__).with_name("teaching_layout.json")
FORMAT = "flure-teach/1"
STEP_KEYS = ("say", "setup", "tile")
# The box's tombstone tiles (BOARD.md "Pieces"): 5, 7, 7, 8, 8, 10, one prey, two prey.
TILES = {"5": 1, "7": 2, "8": 2, "10": 1, "prey-1": 1, "prey-2": 1}
STONE_TILES = sum(PIECES[k] for k in STONE_KINDS)   # 11 tiles, each a marked front and a plain back
MARKED = tuple(k for k in STONE_KINDS if k != "stone")


def fronts_up(stone_kinds) -> bool:
    """All eleven stone tiles on the board with every marked front up: the three others then show
    their plain front (the form writes both plain sides ``stone``)."""
    kinds = list(stone_kinds)
    return len(kinds) == STONE_TILES and all(kinds.count(k) == PIECES[k] for k in MARKED)


class TeachingLayoutError(FlureError, ValueError):
    """A malformed teaching layout: names the file, the step (from 1) and the field."""

    def __init__(self, message, path: str | None = None, step: int | None = None, field: str | None = None):
        self.path, self.step, self.field = path, step, field
        head = [f"teaching layout {path}:" if path else "teaching layout:"]
        if step is not None:
            head.append(f"step {step}:")
        if field:
            head.append(f"{field}:")
        super().__init__(Join(" ", [*head, message]))


@dataclass(frozen=True)
class TeachStep:
    """One photo: ``say`` tells the family what to do (English; the product translates it), ``setup``
    what lies on the board (a scenario setup, every key optional), ``tile`` the tombstone tile in the
    card zone or None."""

    say: str
    setup: dict
    tile: str | None

    @property
    def words(self) -> Text:
        """``say`` as wording data: the packaged layout's steps are in the catalogs (``i18n extract`` reads
        them), another layout's are shown as written."""
        return Text(self.say)

    @property
    def empty(self) -> bool:
        """Nothing on the board (the first step)."""
        return not any(self.setup.get(k) for k in ("monster", "stones", "pools", "teleporters", "pawns"))

    def position(self) -> Position | None:
        """The step as the engine's Position, or None when the monster is not in it (a Position always
        has the monster): the empty board, or a step that leaves it out."""
        if "monster" not in self.setup:
            return None
        return Position.from_setup(self.setup, strict=True)

    def pieces(self) -> Position:
        """Everything the step puts on the board as a Position whose ``monster`` is None when the step leaves
        the monster out (not a game position: for drawing the step and comparing squares)."""
        pos = Position.from_setup(_with_monster(self.setup), strict=True)
        return pos if "monster" in self.setup else replace(pos, monster=None)

    def engine_setup(self) -> dict | None:
        """The step's setup in the engine's own form (``Position.to_setup()``: every key present, pawns
        with their face), or None when the step has no monster (see ``position``)."""
        pos = self.position()
        return pos.to_setup() if pos is not None else None

    def faces(self) -> dict[str, tuple]:
        """What lies on each square of the step: ``("monster", heading)``, ``("stone", kind)``,
        ``("pool", shape)``, ``("teleporter", pair, arrow)``, ``("pawn", colour, kind, face)``."""
        out: dict[str, tuple] = {}
        m = self.setup.get("monster")
        if m:
            out[m["at"]] = ("monster", m["facing"])
        for sq, kind in (self.setup.get("stones") or {}).items():
            out[sq] = ("stone", kind)
        for anchor, shape, orientation in split_pools([parse_square(x) for x in self.setup.get("pools") or ()]) or ():
            for sq in pool_squares(anchor, shape, orientation or "horizontal"):
                out[square_name(sq)] = ("pool", shape)
        for sq, t in (self.setup.get("teleporters") or {}).items():
            out[sq] = ("teleporter", t["pair"], t["arrow"])
        for p in (self.setup.get("pawns") or {}).values():
            out[p["at"]] = ("pawn", p["color"], p["pawn"], p.get("face", "white"))
        return out

    def to_json(self) -> dict:
        return {"say": self.say, "setup": self.setup, "tile": self.tile}


@dataclass(frozen=True)
class TeachingLayout:
    steps: tuple[TeachStep, ...]
    path: str | None = None

    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self):
        return iter(self.steps)

    def covered(self) -> set[tuple]:
        """Every face the layout shows: ``("pawn", colour, kind, face)``, ``("stone-front", kind)``
        for each front tile (counted as many times as the box has them: ``("stone-front", "crystal", 2)``),
        ``("stone-back", n)`` for n plain backs, ``("teleporter", pair, n)``, ``("pool", shape)``,
        ``("monster",)``, ``("tile", kind, n)``."""
        seen: set[tuple] = set()
        tiles: dict[str, int] = {}
        for step in self.steps:
            faces = step.faces().values()
            kinds = [f[1] for f in faces if f[0] == "stone"]
            fronts_down = fronts_up(kinds)
            for k in STONE_KINDS:
                n = kinds.count(k)
                if k != "stone" or fronts_down:
                    seen.update(("stone-front", k, i + 1) for i in range(n))
            if not fronts_down:
                seen.update(("stone-back", i + 1) for i in range(kinds.count("stone")))
            for f in faces:
                if f[0] == "pawn":
                    seen.add(f)
                elif f[0] == "pool":
                    seen.add(f[:2])
                elif f[0] == "monster":
                    seen.add(("monster",))
            pairs = [f[1] for f in faces if f[0] == "teleporter"]
            seen.update(("teleporter", p, i + 1) for p in set(pairs) for i in range(pairs.count(p)))
            if step.tile is not None:
                tiles[step.tile] = tiles.get(step.tile, 0) + 1
                seen.add(("tile", step.tile, tiles[step.tile]))
        return seen

    def missing(self) -> list[tuple]:
        """The faces of the box (``covered``'s form) this layout never shows, in a fixed order."""
        box = [("pawn", c, k, f) for c in COLOURS for k in PAWN_KINDS for f in ("white", "black")
               if c in FOUR_PAWN_COLOURS or k != "4/3"]
        box += [("stone-front", k, i + 1) for k in STONE_KINDS for i in range(PIECES[k])]
        box += [("stone-back", i + 1) for i in range(STONE_TILES)]
        box += [("teleporter", p, i + 1) for p in (1, 2) for i in range(2)]
        box += [("pool", "2x2"), ("pool", "1x4"), ("monster",)]
        box += [("tile", t, i + 1) for t, n in TILES.items() for i in range(n)]
        seen = self.covered()
        return [f for f in box if f not in seen]


def load_layout(path: str | Path | None = None) -> TeachingLayout:
    """Read and check a teaching layout file (default: the packaged one)."""
    p = Path(path) if path is not None else DEFAULT_PATH
    try:
        data = jsontext.loads(p.read_bytes())
    except OSError as exc:
        raise TeachingLayoutError(Text(CANNOT_READ, why=os_reason(exc)), str(p)) from None
    except jsontext.JsonTextError as exc:
        raise TeachingLayoutError(str(exc), str(p)) from None
    return parse_layout(data, str(p))


def parse_layout(data: Any, path: str | None = None) -> TeachingLayout:
    """Check a layout already parsed from JSON; TeachingLayoutError names the step and the field."""
    def err(message, step=None, field=None):
        return TeachingLayoutError(message, path, step, field)

    if not isinstance(data, dict):
        raise err("the file must hold a JSON object")
    for key in data:
        if key not in ("format", "steps"):
            raise err(f"unknown key {key!r} (a layout has format and steps)")
    if data.get("format") != FORMAT:
        raise err(f"unknown format {data.get('format')!r} (expected {FORMAT!r})", field="format")
    raw = data.get("steps")
    if not isinstance(raw, list) or not raw:
        raise err("must be a list of steps, the first one the empty board", field="steps")
    steps = []
    for n, s in enumerate(raw, 1):
        step = _step(s, n, err)
        if n == 1 and not step.empty:
            raise err("the first step must be the empty board (\"setup\": {})", n, "setup")
        steps.append(step)
    return TeachingLayout(tuple(steps), path)


def _step(s, n: int, err) -> TeachStep:
    if not isinstance(s, dict):
        raise err("must be an object with say, setup and tile", n)
    for key in s:
        if key not in STEP_KEYS:
            raise err(f"unknown key {key!r} (a step has {', '.join(STEP_KEYS)})", n)
    say = s.get("say")
    if not isinstance(say, str) or not say.strip():
        raise err("required, as the text the referee view shows", n, "say")
    tile = s.get("tile")
    if tile is not None and tile not in TILES:
        raise err(f"{tile!r} is not a tombstone tile of the box (one of {', '.join(TILES)}, or null)", n, "tile")
    setup = s.get("setup")
    if not isinstance(setup, dict):
        raise err("required, as a scenario setup object ({} for the empty board)", n, "setup")
    _check_setup(setup, n, err)
    return TeachStep(say, setup, tile)


def _with_monster(setup: dict) -> dict:
    """``setup`` as the engine parses it: a Position has a monster, so a step without it gets one, for the
    checks only, on a square no stone or pawn of the step takes."""
    if "monster" in setup:
        return setup
    taken = set(setup.get("stones") or {}) if isinstance(setup.get("stones"), dict) else set()
    pawns = setup.get("pawns") if isinstance(setup.get("pawns"), dict) else {}
    taken |= {p.get("at") for p in pawns.values() if isinstance(p, dict)}
    free = next(square_name(sq) for sq in sorted(SQUARE_NAMES) if square_name(sq) not in taken)
    return {**setup, "monster": {"at": free, "facing": "N"}}


def _check_setup(setup: dict, n: int, err) -> None:
    """The engine's checks of a scenario setup (squares on the board, one piece per square, nothing on a
    teleporter, pairs of two), then what the box can make."""
    try:
        pos = Position.from_setup(_with_monster(setup), strict=True, where="setup")
    except InvalidSetupError as exc:
        raise err(exc.text, n, exc.field) from None
    if "monster" in setup and pos.monster in pos.pools:
        raise err(f"the monster stands on the pool square {square_name(pos.monster)}", n, "setup.monster")
    kinds = list(pos.stones.values())
    for k in MARKED:
        if kinds.count(k) > PIECES[k]:
            raise err(f"{kinds.count(k)} {k} faces up, but the box has {PIECES[k]}", n, "setup.stones")
    if len(kinds) > STONE_TILES:
        raise err(f"{len(kinds)} stone tiles, but the box has {STONE_TILES}", n, "setup.stones")
    if pos.pools and split_pools(pos.pools) is None:
        names = " ".join(square_name(sq) for sq in sorted(pos.pools))
        raise err(f"the pool squares {names} are not the box's 2×2 and 1×4 pool tiles", n, "setup.pools")
    for p in pos.pawns:
        f = f"setup.pawns.{p.label}"
        if p.square is None:
            raise err("a pawn of a teaching step lies on a square (\"at\" is null)", n, f + ".at")
        if p.colour is None or p.kind is None:
            raise err("needs \"color\" and \"pawn\": teaching learns each pawn's own faces", n, f)
        if p.label != pawn_label(p.colour, p.kind):
            raise err(f"the label of a {p.colour} {p.kind} pawn is {pawn_label(p.colour, p.kind)!r}", n, f)
        if p.colour not in FOUR_PAWN_COLOURS and p.kind == "4/3":
            raise err(f"the box has no {p.colour} 4/3 pawn", n, f)

