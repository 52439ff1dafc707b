"""The game's actions as typed values, with one JSON form each (as python-chess has ``Move``).

``parse_action(data)`` reads the JSON form and ``action.to_json()`` writes it back: an exact
pair, ``parse_action(a.to_json()) == a``.  Input that is not an action at all raises
:class:`~engine.errors.InvalidActionError` naming the field; whether an action is *allowed* is
the game's question (``Game.apply`` raises GameActionError or IllegalMoveError citing the rule).

Each type lists its fields (``REQUIRED``, ``OPTIONAL``): the web layer builds its request schema
from these lists rather than writing them a second time.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .deck import TILES
from .errors import InvalidActionError, InvalidSetupError
from .geometry import BadName, direction_name, parse_direction, parse_square, square_name
from .pawns import MOVE_LETTERS
from .placement import PIECES
from .pools import ORIENTATIONS
from .position import STONE_KINDS, Position
from .wording import N_, Text, join_and

MAX_MOVES = 20   # no pawn has more points than 6; a longer string is a typing accident


@dataclass(frozen=True)
class Move:
    """A pawn's move as unit moves: N E S W, I (enter onto p11, P2), X (leave from a1, P3); "" stays."""

    pawn: str
    moves: str
    TYPE: ClassVar[str] = "move"
    REQUIRED: ClassVar[tuple[str, ...]] = ("pawn", "moves")
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        return {"type": self.TYPE, "pawn": self.pawn, "moves": self.moves}


@dataclass(frozen=True)
class PawnAt:
    """A pawn seen where it was put: a square, ``"out"``, or None (still beside the board).

    ``stones`` (square -> kind, as seen after the move) chooses between moves that would push
    stones differently."""

    pawn: str
    square: str | None
    stones: tuple[tuple[str, str], ...] | None = None
    TYPE: ClassVar[str] = "pawn-at"
    REQUIRED: ClassVar[tuple[str, ...]] = ("pawn", "square")
    OPTIONAL: ClassVar[tuple[str, ...]] = ("stones",)

    def to_json(self) -> dict:
        out: dict[str, object] = {"type": self.TYPE, "pawn": self.pawn, "square": self.square}
        if self.stones is not None:
            out["stones"] = dict(self.stones)
        return out


@dataclass(frozen=True)
class Draw:
    """Reveal the top tile of the game's seeded deck (G7, G8)."""

    TYPE: ClassVar[str] = "draw"
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        return {"type": self.TYPE}


@dataclass(frozen=True)
class Tile:
    """A tombstone tile revealed at the table (G7)."""

    tile: str
    TYPE: ClassVar[str] = "tile"
    REQUIRED: ClassVar[tuple[str, ...]] = ("tile",)
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        return {"type": self.TYPE, "tile": self.tile}


@dataclass(frozen=True)
class Place:
    """Advanced setup (A2): a piece put down on ``square`` (a pool's north-west square).

    A teleporter needs its ``arrow`` and may name its ``pair`` (else the first with room); a
    1×4 pool may give its ``orientation`` (horizontal when not given)."""

    piece: str
    square: str
    arrow: str | None = None
    pair: int | None = None
    orientation: str | None = None
    TYPE: ClassVar[str] = "place"
    REQUIRED: ClassVar[tuple[str, ...]] = ("piece", "square")
    OPTIONAL: ClassVar[tuple[str, ...]] = ("arrow", "pair", "orientation")

    def to_json(self) -> dict:
        out = {"type": self.TYPE, "piece": self.piece, "square": self.square}
        for key in self.OPTIONAL:
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class Correct:
    """The referee puts the board right: the whole ``position`` as it should be (a referee's fix of
    a misread or knocked board; the table session logs it and can undo it like any action)."""

    position: Position
    TYPE: ClassVar[str] = "correct"
    REQUIRED: ClassVar[tuple[str, ...]] = ("position",)
    OPTIONAL: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict:
        return {"type": self.TYPE, "position": self.position.to_setup()}


Action = Move | PawnAt | Draw | Tile | Place | Correct
ACTION_CLASSES = (Move, PawnAt, Draw, Tile, Place, Correct)
ACTION_TYPES: dict[str, type[Action]] = {t.TYPE: t for t in ACTION_CLASSES}
EXAMPLES: dict[str, Action] = {   # one of each, for messages and the API document
    "move": Move("red-6/1", "IWWN"), "pawn-at": PawnAt("red-6/1", "k5"), "draw": Draw(), "tile": Tile("7"),
    "place": Place("stone", "g7"), "correct": Correct(Position(0, 1)),
}


def format_action(action: Action) -> dict:
    """The JSON form of ``action`` (the inverse of :func:`parse_action`)."""
    return action.to_json()


def parse_action(data) -> Action:
    """Read an action's JSON form; input that is not a well-formed action raises InvalidActionError
    naming the field (``type``, ``square``, ``stones.g7`` …).  Squares are written back as the
    engine writes them (``G7`` -> ``g7``), move letters in capitals."""
    if isinstance(data, ACTION_CLASSES):
        return data
    if not isinstance(data, dict):
        raise InvalidActionError(N_("an action must be a JSON object with a \"type\""), "action")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise InvalidActionError(Text(N_("unknown action type %(value)s (one of %(types)s)"), value=repr(kind),
                                      types=", ".join(ACTION_TYPES)), "type")
    cls = ACTION_TYPES[kind]
    fields = cls.REQUIRED + cls.OPTIONAL
    for key in data:
        if key != "type" and key not in fields:
            raise InvalidActionError(Text(N_("a %(kind)s action takes %(fields)s, not %(key)s"), kind=kind,
                                          fields=", ".join(fields) or Text(N_("no other fields")), key=repr(key)), key)
    for key in cls.REQUIRED:
        if key not in data:
            raise InvalidActionError(Text(N_("a %(kind)s action needs %(fields)s, e.g. %(example)s"), kind=kind,
                                          fields=join_and(cls.REQUIRED), example=EXAMPLES[kind].to_json()), key)
    if cls is Move:
        return Move(_pawn(data["pawn"]), _moves(data["moves"]))
    if cls is PawnAt:
        return PawnAt(_pawn(data["pawn"]), _target(data["square"]), _stones(data.get("stones")))
    if cls is Draw:
        return Draw()
    if cls is Tile:
        return Tile(_tile(data["tile"]))
    if cls is Place:
        return Place(_piece(data["piece"]), _square(data["square"], "square"), _arrow(data.get("arrow")),
                     _pair(data.get("pair")), _orientation(data.get("orientation")))
    return Correct(_position(data["position"]))


def _position(value) -> Position:
    try:
        return Position.from_setup(value, strict=False, where="position")
    except InvalidActionError:
        raise
    except InvalidSetupError as exc:
        raise InvalidActionError(exc.text, exc.field) from None


def _pawn(value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidActionError(Text(N_("must name a pawn, such as 'red-6/1' or 'red 6/1', not %(value)s"),
                                      value=f"{value!r:.40}"), "pawn")
    return value.strip()


def _moves(value) -> str:
    if not isinstance(value, str):
        raise InvalidActionError(Text(N_("moves must be text such as 'IWWN', not %(value)s"), value=f"{value!r:.40}"),
                                 "moves")
    moves = value.strip().upper()
    for i, m in enumerate(moves):
        if m not in MOVE_LETTERS:
            raise InvalidActionError(Text(N_("unknown move letter %(letter)s at position %(number)s (use N E S W I X)"),
                                          letter=repr(m), number=i + 1), "moves")
    if len(moves) > MAX_MOVES:
        raise InvalidActionError(Text(N_("%(num)s unit moves is more than any pawn has points (P1)"), num=len(moves)),
                                 "moves")
    return moves


def _square(value, field: str) -> str:
    try:
        return square_name(parse_square(value))
    except BadName as exc:
        raise InvalidActionError(exc.text, field) from None


def _target(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == "out":
        return "out"
    return _square(value, "square")


def _stones(value) -> tuple[tuple[str, str], ...] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidActionError(N_("must be an object square -> stone kind, as seen after the move"), "stones")
    out = {}
    for name, kind in value.items():
        sq = _square(name, f"stones.{name}")
        if kind not in STONE_KINDS:
            raise InvalidActionError(Text(N_("unknown stone kind %(value)s (one of %(kinds)s)"), value=f"{kind!r:.40}",
                                          kinds=", ".join(STONE_KINDS)), f"stones.{name}")
        if sq in out:
            raise InvalidActionError(Text(N_("%(square)s is given twice"), square=sq), f"stones.{name}")
        out[sq] = kind
    return tuple(sorted(out.items(), key=lambda item: parse_square(item[0])))


def _tile(value) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)   # a step tile given as a number: 8 is the "8" tile
    if not isinstance(value, str) or value not in TILES:
        raise InvalidActionError(Text(N_("%(value)s is not a tombstone tile (one of %(tiles)s)"),
                                      value=f"{value!r:.40}", tiles=", ".join(dict.fromkeys(TILES))), "tile")
    return value


def _piece(value) -> str:
    if not isinstance(value, str) or value not in PIECES:
        raise InvalidActionError(Text(N_("unknown piece %(value)s (one of %(pieces)s)"), value=f"{value!r:.40}",
                                      pieces=", ".join(PIECES)), "piece")
    return value


def _arrow(value) -> str | None:
    if value is None:
        return None
    try:
        return direction_name(parse_direction(value))
    except BadName as exc:
        raise InvalidActionError(exc.text, "arrow") from None


def _pair(value) -> int | None:
    # A whole number only: 1.0 or True would be saved as such and not load again.
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value not in (1, 2)):
        raise InvalidActionError(Text(N_("pair must be 1 or 2, not %(value)s"), value=f"{value!r:.40}"), "pair")
    return value


def _orientation(value) -> str | None:
    if value is None:
        return None
    key = value.strip().lower() if isinstance(value, str) else value
    if key not in ORIENTATIONS:
        raise InvalidActionError(Text(N_("orientation must be horizontal or vertical, not %(value)s"),
                                      value=f"{value!r:.40}"), "orientation")
    return key
