"""The monster's move as typed values: the plan, its steps, looks and events (M1–M11, T2, T3, B2).

``engine.monster.resolve`` builds a :class:`Plan`; everything else only reads one.  Its JSON
form (``flure-plan/1``) is what the LEDs, the phones and outside tools read, so
``Plan.to_json()`` and ``Plan.from_json()`` are an exact pair: ``from_json(p.to_json()) == p``,
and a malformed plan is refused naming the path at fault (``steps[3].events[1].square``).

Each event kind is its own type carrying its rule id.  The words for every event, look and
stop reason live here and nowhere else, as wording data (engine.wording: ``Text`` with named
fields, rendered in the players' language by companion_app/i18n/text.py): :meth:`Plan.sentences`
is what the CLI prints, the phones and the referee log show, and :meth:`Plan.lines` its English.
They are built only when asked for (resolving a tile for the preview or a property test never
formats a sentence).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Mapping, NamedTuple, NoReturn, overload

from .errors import InvalidSetupError
from .geometry import BadName, direction_name, parse_direction, parse_square, square_name
from .names import piece_name
from .position import STONE_KINDS, Position
from .wording import N_, Direction, Join, PawnName, Term, Text, join_and, listing, shown

FORMAT = "flure-plan/1"
SIDES = ("ahead", "left", "right")
DECISIONS = ("nearest", "tie", "nothing seen")          # M4
TURNS = ("none", "left", "right")
STOP_REASONS = {                                          # M1: why the move ended
    "steps": N_("all steps taken"), "prey": N_("enough prey eaten"), "cap": N_("20-step cap reached"),
}
SIDE_WORDS = {"ahead": N_("ahead"), "left": N_("left"), "right": N_("right")}
EVENT_SEPARATOR = N_("; ")   # between a step's events; French sets a space before it (translations/GLOSSARY.md)
STOP_RULE = "M1"
PUSH_RESULTS = ("moved", "slid", "removed", "crushed", "destroyed")

Names = Mapping[str, str]   # pawn label -> the name players read ("red 3/4")
_NO_NAMES: Names = MappingProxyType({})


def _sq(sq: int | None) -> str | None:
    return None if sq is None else square_name(sq)


def _d(direction: int) -> Direction:
    return Direction(direction_name(direction))


def _pawn(names: Names, label: str) -> PawnName:
    return PawnName(names.get(label, label))


# -- the look (M3, M4) -------------------------------------------------------------
class Sighting(NamedTuple):
    """What the monster sees in one direction: the first pawn, or what stopped its sight.

    A named tuple: a look makes three of them, and resolving is the engine's hot path."""

    side: str                # ahead / left / right
    direction: int
    pawn: str | None         # label of the first pawn seen, if any
    square: int | None       # where that pawn, or the sight-stopper, is
    distance: int | None
    stopped_by: str | None   # "wall X", "stone", "pivot-right", ... when no pawn was seen

    def to_json(self) -> dict:
        return {"side": self.side, "direction": direction_name(self.direction), "pawn": self.pawn,
                "square": _sq(self.square), "distance": self.distance, "stopped_by": self.stopped_by}


@dataclass(frozen=True, slots=True)
class Look:
    """M3 + M4: the three sightings from ``at`` and the heading decided."""

    at: int
    facing: int              # heading before the look
    sightings: tuple[Sighting, ...]
    case: str                # "nearest" | "tie" | "nothing seen"
    turn: str                # "none" | "left" | "right"
    new_facing: int
    names: Names = field(compare=False, repr=False)

    @property
    def rule(self) -> str:
        return f"M4 {self.case}"

    @property
    def saw_pawn(self) -> bool:
        return self.case != "nothing seen"

    @property
    def words(self) -> Text:
        """What the monster sees and decides, as wording data (its ``str()`` is the English)."""
        names = self.names
        where = Text(N_("from %(square)s facing %(direction)s"), square=square_name(self.at), direction=_d(self.facing))
        if self.case == "nothing seen":
            return Text(N_("%(where)s it sees no pawn and keeps facing %(direction)s (M4 nothing seen)"), where=where,
                        direction=_d(self.facing))
        described = [(s.pawn, Text(N_("%(pawn)s on %(square)s (%(distance)s %(side)s)"), pawn=_pawn(names, s.pawn),
                                   square=square_name(s.square), distance=s.distance, side=Term(SIDE_WORDS[s.side])))
                     for s in self.sightings if s.pawn is not None and s.square is not None]
        if self.case == "tie":
            return Text(N_("%(where)s it sees %(seen)s: equally near, so it keeps facing %(direction)s (M4 tie)"),
                        where=where, seen=join_and(text for _, text in described), direction=_d(self.facing))
        target = next(s for s in self.sightings if s.pawn is not None and s.direction == self.new_facing)
        assert target.pawn is not None and target.square is not None   # a pawn seen is seen on a square
        what = Text(N_("%(pawn)s on %(square)s"), pawn=_pawn(names, target.pawn), square=square_name(target.square))
        others = [text for pawn, text in described if pawn != target.pawn]
        also = Text(N_("; it also sees %(others)s"), others=listing(others)) if others else ""
        fields = {"where": where, "what": what, "distance": target.distance, "direction": _d(self.new_facing),
                  "also": also}
        if self.turn == "none":
            return Text(N_("%(where)s it sees %(what)s, %(distance)s ahead, the nearest, and keeps facing "
                           "%(direction)s (M4 nearest%(also)s)"), **fields)
        if self.turn == "left":
            return Text(N_("%(where)s it sees %(what)s, %(distance)s to its left, the nearest, and turns left to face "
                           "%(direction)s (M4 nearest%(also)s)"), **fields)
        return Text(N_("%(where)s it sees %(what)s, %(distance)s to its right, the nearest, and turns right to face "
                       "%(direction)s (M4 nearest%(also)s)"), **fields)

    def to_json(self) -> dict:
        return {"at": square_name(self.at), "facing": direction_name(self.facing),
                "sightings": [s.to_json() for s in self.sightings], "rule": self.rule,
                "decision": self.case, "turn": self.turn, "new_facing": direction_name(self.new_facing),
                "text": str(self.words)}


# -- events: one type per kind, each with its rule ------------------------------------
@dataclass(frozen=True, slots=True)
class Enter:
    """The monster steps onto ``square`` (M2)."""

    square: int
    kind: ClassVar[str] = "enter"
    rule: ClassVar[str] = "M2"
    slide: ClassVar[bool] = False

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("enters %(square)s"), square=square_name(self.square))

    def step_words(self) -> Text:
        """The event as a step says it (``moves to g7``)."""
        return Text(N_("moves to %(square)s"), square=square_name(self.square))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "enter", "rule": self.rule, "square": square_name(self.square), "slide": self.slide,
                "text": str(self.words(names))}


@dataclass(frozen=True, slots=True)
class Slide(Enter):
    """The monster slides on onto ``square`` across a pool, in the same step (M8).  In the JSON an
    ``enter`` with ``"slide": true``; never equal to an :class:`Enter` of the same square."""

    rule: ClassVar[str] = "M8"
    slide: ClassVar[bool] = True

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("slides onto %(square)s"), square=square_name(self.square))

    def step_words(self) -> Text:
        return self.words()


@dataclass(frozen=True, slots=True)
class Wrap:
    """The monster walks through wall ``wall`` from ``start`` and re-enters on ``to`` (M7)."""

    start: int
    to: int
    wall: str
    kind: ClassVar[str] = "wrap"
    rule: ClassVar[str] = "M7"

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("walks through wall %(wall)s from %(start)s to %(to)s (M7)"), wall=self.wall,
                    start=square_name(self.start), to=square_name(self.to))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "wrap", "rule": self.rule, "from": square_name(self.start), "to": square_name(self.to),
                "wall": self.wall, "text": str(self.words(names))}


@dataclass(frozen=True, slots=True)
class Teleport:
    """The monster steps on a teleporter on ``start`` and jumps to its partner ``to`` (T2)."""

    start: int
    to: int
    facing: int
    kind: ClassVar[str] = "teleport"
    rule: ClassVar[str] = "T2"

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("steps on the teleporter on %(start)s and jumps to %(to)s, facing %(direction)s (T2)"),
                    start=square_name(self.start), to=square_name(self.to), direction=_d(self.facing))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "teleport", "rule": self.rule, "from": square_name(self.start), "to": square_name(self.to),
                "facing": direction_name(self.facing), "text": str(self.words(names))}


@dataclass(frozen=True, slots=True)
class Pivot:
    """A pivot stone on ``square`` turns the monster standing on ``at`` instead of being pushed (M9)."""

    at: int
    square: int
    stone: str               # pivot-right | pivot-about
    from_facing: int
    facing: int
    kind: ClassVar[str] = "pivot"
    rule: ClassVar[str] = "M9"

    def words(self, names: Names = _NO_NAMES) -> Text:
        template = (N_("%(stone)s on %(square)s turns it right to face %(direction)s (M9)")
                    if self.stone == "pivot-right" else
                    N_("%(stone)s on %(square)s turns it about to face %(direction)s (M9)"))
        return Text(template, stone=piece_name(self.stone, "the"), square=square_name(self.square),
                    direction=_d(self.facing))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "pivot", "rule": self.rule, "at": square_name(self.at), "square": square_name(self.square),
                "stone": self.stone, "from_facing": direction_name(self.from_facing),
                "facing": direction_name(self.facing), "text": str(self.words(names))}


@dataclass(frozen=True, slots=True)
class Eat:
    """The monster enters ``square`` and eats the pawn there (M5)."""

    pawn: str
    square: int
    kind: ClassVar[str] = "eat"
    rule: ClassVar[str] = "M5"

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("eats %(pawn)s on %(square)s (M5)"), pawn=_pawn(names, self.pawn), square=square_name(self.square))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "eat", "rule": self.rule, "pawn": self.pawn, "square": square_name(self.square),
                "how": "eaten", "text": str(self.words(names))}


@dataclass(frozen=True, slots=True)
class Push:
    """The monster pushes one piece of the line in front of it (M6), which may slide (B2).

    ``stone`` is the stone's kind, or ``pawn`` the pawn's label.  ``result``: ``moved`` one
    square, ``slid`` across a pool to ``to``; ``removed`` (a stone through a wall ``wall`` or
    onto a corner square), ``crushed`` (a pawn through a wall), ``destroyed`` on a teleporter
    (T3).  ``path`` is every square it crossed (None when it went straight through a wall).
    ``by``: the pawn whose slide across a pool pushed this stone on (B2 ⚖, P7), when not the monster.
    """

    start: int
    result: str
    to: int | None = None
    path: tuple[int, ...] | None = None
    wall: str | None = None
    stone: str | None = None
    pawn: str | None = None
    by: str | None = None
    kind: ClassVar[str] = "push"

    @property
    def slid(self) -> bool:
        """It slid across a pool (B2) before it came to rest or was removed on a corner square."""
        return self.result == "slid" or (self.result == "removed" and self.path is not None and len(self.path) > 1)

    @property
    def rule(self) -> str:
        if self.by is not None:   # pushed on by a sliding pawn
            return "B2 T3" if self.result == "destroyed" else "B2 P7"
        if self.result == "destroyed":
            return "T3"
        return "M6 B2" if self.slid else "M6"

    @property
    def eaten(self) -> bool:
        """A pushed pawn crushed or destroyed counts as eaten (M6, T3)."""
        return self.pawn is not None and self.to is None

    @property
    def _end(self) -> int:
        """The last square of the path (a push destroyed on a teleporter or removed on a corner has one)."""
        assert self.path is not None, f"a push {self.result} has the squares it crossed"
        return self.path[-1]

    @property
    def _to(self) -> int:
        """Where the piece came to rest (a push moved or slid has one)."""
        assert self.to is not None, f"a push {self.result} ends on a square"
        return self.to

    def words(self, names: Names = _NO_NAMES) -> Text:
        what = _pawn(names, self.pawn) if self.pawn is not None else piece_name(self.stone or "stone", "the-object")
        fields = {"what": what, "start": square_name(self.start)}
        if self.by is not None:
            return self._by_words(_pawn(names, self.by), fields)
        if self.wall is not None:
            template = (N_("pushes %(what)s from %(start)s off the board through wall %(wall)s: crushed (M6)")
                        if self.result == "crushed" else
                        N_("pushes %(what)s from %(start)s off the board through wall %(wall)s: removed (M6)"))
            return Text(template, wall=self.wall, **fields)
        if self.result == "destroyed":
            return Text(N_("pushes %(what)s from %(start)s onto the teleporter on %(square)s: destroyed (T3)"),
                        square=square_name(self._end), **fields)
        if self.result == "removed" and self.slid:
            return Text(N_("pushes %(what)s from %(start)s; it slides across the pool onto the corner %(square)s: "
                           "removed (B2)"), square=square_name(self._end), **fields)
        if self.result == "removed":
            return Text(N_("pushes %(what)s from %(start)s onto the corner %(square)s: removed (M6)"),
                        square=square_name(self._end), **fields)
        if self.result == "slid":
            return Text(N_("pushes %(what)s from %(start)s; it slides across the pool to %(to)s (B2)"),
                        to=square_name(self._to), **fields)
        return Text(N_("pushes %(what)s from %(start)s to %(to)s (M6)"), to=square_name(self._to), **fields)

    def _by_words(self, pawn: PawnName, fields: dict) -> Text:
        """A stone pushed on by ``pawn`` sliding across a pool (B2 ⚖, P7)."""
        if self.result == "destroyed":
            return Text(N_("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s onto the teleporter on "
                           "%(square)s: destroyed (B2, T3)"), pawn=pawn, square=square_name(self._end), **fields)
        if self.result == "removed":
            return Text(N_("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s onto the corner "
                           "%(square)s: removed (B2, P7)"), pawn=pawn, square=square_name(self._end), **fields)
        if self.result == "slid":
            return Text(N_("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s; it slides across the "
                           "pool to %(to)s (B2, P7)"), pawn=pawn, to=square_name(self._to), **fields)
        return Text(N_("%(pawn)s, sliding across the pool, pushes %(what)s from %(start)s to %(to)s (B2, P7)"),
                    pawn=pawn, to=square_name(self._to), **fields)

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        piece = {"type": "stone", "kind": self.stone} if self.pawn is None else {"type": "pawn", "label": self.pawn}
        out: dict[str, Any] = {"kind": "push", "rule": self.rule, "piece": piece, "from": square_name(self.start)}
        if self.by is not None:
            out["by"] = self.by
        if self.path is not None:
            out["path"] = [square_name(x) for x in self.path]
        out["to"] = _sq(self.to)
        if self.wall is not None:
            out["wall"] = self.wall
        out["result"] = self.result
        if self.eaten:
            out["eaten"] = True
        out["text"] = str(self.words(names))
        return out


@dataclass(frozen=True, slots=True)
class Stop:
    """Pools all the way round through the walls would make the slide endless: it stops on ``square`` (M8)."""

    square: int
    kind: ClassVar[str] = "stop"
    rule: ClassVar[str] = "M8"

    def words(self, names: Names = _NO_NAMES) -> Text:
        return Text(N_("the pools run all the way round through the walls, so the slide would never end: it stops "
                       "on %(square)s (M8)"), square=square_name(self.square))

    def to_json(self, names: Names = _NO_NAMES) -> dict:
        return {"kind": "stop", "rule": self.rule, "square": square_name(self.square), "text": str(self.words(names))}


Event = Enter | Slide | Wrap | Teleport | Pivot | Eat | Push | Stop


# -- steps and the plan ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Step:
    """One monster step (M2): the look, then every event of the move, ending on ``end``."""

    number: int
    start: int
    look: Look
    events: tuple[Event, ...]
    end: int
    facing: int
    eaten: tuple[str, ...]
    names: Names = field(compare=False, repr=False)

    @property
    def words(self) -> Text:
        """The step in one sentence (what the phone speaks as the step animates)."""
        events = Join(EVENT_SEPARATOR, [e.step_words() if isinstance(e, Enter) else e.words(self.names)
                                        for e in self.events])
        return Text(N_("Step %(number)s: %(look)s; %(events)s; ends on %(square)s."), number=self.number,
                    look=self.look.words, events=events, square=square_name(self.end))

    def to_json(self) -> dict:
        return {"number": self.number, "from": square_name(self.start), "look": self.look.to_json(),
                "events": [e.to_json(self.names) for e in self.events], "to": square_name(self.end),
                "facing": direction_name(self.facing), "eaten": list(self.eaten), "text": str(self.words)}


@dataclass(frozen=True)
class Plan:
    """A whole monster move: from ``start`` through ``steps`` to ``result`` (the position after).

    ``tile`` is the tombstone tile (None when resolved for a number of steps); ``stop`` why the
    move ended (a key of STOP_REASONS) under ``stop_rule``.
    """

    tile: str | None
    start: Position
    steps: tuple[Step, ...]
    final_look: Look
    result: Position
    eaten: tuple[str, ...]
    stop: str
    stop_rule: str = STOP_RULE

    @property
    def path(self) -> list[str]:
        return [square_name(s.end) for s in self.steps]

    @property
    def names(self) -> Names:
        return self.final_look.names

    def sentences(self) -> list[Text]:
        """The move in the words players read at the table, as wording data: one sentence per step,
        the final look and how the move ended (M1).  The CLI, the phones and the referee log all show
        exactly these, each in its reader's language."""
        eaten = listing(_pawn(self.names, x) for x in self.eaten) if self.eaten else Term(N_("nobody"))
        return [s.words for s in self.steps] + [
            Text(N_("Final look: %(look)s."), look=self.final_look.words),
            Text(N_("The move ends: %(reason)s (%(rule)s); eaten: %(eaten)s."), reason=Term(STOP_REASONS[self.stop]),
                 rule=self.stop_rule, eaten=eaten),
        ]

    def lines(self) -> list[str]:
        """:meth:`sentences` in English."""
        return [str(x) for x in self.sentences()]

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "card": self.tile,
            "start": {"at": square_name(self.start.monster), "facing": direction_name(self.start.facing)},
            "steps": [s.to_json() for s in self.steps],
            "final_look": self.final_look.to_json(),
            "end": {"at": square_name(self.result.monster), "facing": direction_name(self.result.facing)},
            "path": self.path,
            "eaten": list(self.eaten),
            "stop": {"reason": self.stop, "rule": self.stop_rule},
            "before": self.start.to_setup(),
            "position": self.result.to_setup(),
        }

    @classmethod
    def from_json(cls, data) -> "Plan":
        """Read a plan written by :meth:`to_json`; anything malformed raises InvalidSetupError naming
        the path at fault (``steps[3].events[1].square``).  The ``text`` fields are the engine's
        wording of the other fields and are not read back."""
        return _read_plan(data)


class LazyNames(Mapping):
    """A position's pawn names, worked out only when a text is first asked for."""

    __slots__ = ("_position", "_names")

    def __init__(self, position: Position):
        self._position = position
        self._names: dict[str, str] | None = None

    def _get(self) -> dict[str, str]:
        if self._names is None:
            self._names = self._position.pawn_names()
        return self._names

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def get(self, key, default=None):
        return self._get().get(key, default)


# -- reading the JSON back ------------------------------------------------------------
def _fail(path: str, message) -> NoReturn:
    raise InvalidSetupError(message, path)


def _not(words: str, value, cut: int = 40) -> Text:
    """``must be <words>, not <value>``: ``words`` a phrase marked with N_ (``an object``)."""
    return Text(N_("must be %(words)s, not %(value)s"), words=Term(words), value=shown(value, cut))


def _obj(value, path: str) -> dict:
    if not isinstance(value, dict):
        _fail(path, _not(N_("an object"), value, 60))
    return value


def _need(obj: dict, key: str, path: str):
    if key not in obj:
        _fail(f"{path}.{key}" if path else key, Text(N_("missing")))
    return obj[key]


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@overload
def _square(obj: dict, key: str, path: str) -> int: ...
@overload
def _square(obj: dict, key: str, path: str, *, optional: bool) -> int | None: ...
def _square(obj: dict, key: str, path: str, *, optional: bool = False) -> int | None:
    value = _need(obj, key, path)
    if value is None and optional:
        return None
    return _square_name(value, _key(path, key))


def _square_name(value, path: str) -> int:
    """Exactly a square name as the engine writes it (``g7``)."""
    try:
        sq = parse_square(value)
    except BadName as exc:
        _fail(path, exc.text)
    if value != square_name(sq):
        _fail(path, Text(N_("must be a square name written like %(square)s, not %(value)s"),
                         square=repr(square_name(sq)), value=f"{value!r:.40}"))
    return sq


def _direction(obj: dict, key: str, path: str) -> int:
    value = _need(obj, key, path)
    if value not in ("N", "E", "S", "W"):
        _fail(_key(path, key), _not(N_("N, E, S or W"), value))
    return parse_direction(value)


def _choice(obj: dict, key: str, path: str, options) -> Any:
    value = _need(obj, key, path)
    if not isinstance(value, str) or value not in options:
        _fail(_key(path, key), Text(N_("must be one of %(choices)s, not %(value)s"), choices=", ".join(options),
                                    value=shown(value)))
    return value


@overload
def _whole(obj: dict, key: str, path: str) -> int: ...
@overload
def _whole(obj: dict, key: str, path: str, *, optional: bool) -> int | None: ...
def _whole(obj: dict, key: str, path: str, *, optional: bool = False) -> int | None:
    value = _need(obj, key, path)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _fail(_key(path, key), _not(N_("a whole number"), value))
    return value


@overload
def _text(obj: dict, key: str, path: str) -> str: ...
@overload
def _text(obj: dict, key: str, path: str, *, optional: bool) -> str | None: ...
def _text(obj: dict, key: str, path: str, *, optional: bool = False) -> str | None:
    value = _need(obj, key, path)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        _fail(_key(path, key), _not(N_("text"), value))
    return value


def _list(obj: dict, key: str, path: str) -> list:
    value = _need(obj, key, path)
    if not isinstance(value, list):
        _fail(_key(path, key), _not(N_("a list"), value))
    return value


def _labels(obj: dict, key: str, path: str) -> tuple[str, ...]:
    value = _list(obj, key, path)
    for i, x in enumerate(value):
        if not isinstance(x, str):
            _fail(f"{_key(path, key)}[{i}]", _not(N_("a pawn label"), x))
    return tuple(value)


def _check_rule(obj: dict, path: str, rule: str) -> None:
    got = _need(obj, "rule", path)
    if got != rule:
        _fail(_key(path, "rule"), Text(N_("must be %(rule)s for this event, not %(value)s"), rule=repr(rule),
                                       value=f"{got!r:.40}"))


def _read_sighting(value, path: str) -> Sighting:
    obj = _obj(value, path)
    return Sighting(_choice(obj, "side", path, SIDES), _direction(obj, "direction", path),
                    _text(obj, "pawn", path, optional=True), _square(obj, "square", path, optional=True),
                    _whole(obj, "distance", path, optional=True), _text(obj, "stopped_by", path, optional=True))


def _read_look(value, path: str, names: Names) -> Look:
    obj = _obj(value, path)
    sightings = tuple(_read_sighting(s, f"{path}.sightings[{i}]")
                      for i, s in enumerate(_list(obj, "sightings", path)))
    look = Look(_square(obj, "at", path), _direction(obj, "facing", path), sightings,
                _choice(obj, "decision", path, DECISIONS), _choice(obj, "turn", path, TURNS),
                _direction(obj, "new_facing", path), names)
    if _need(obj, "rule", path) != look.rule:
        _fail(_key(path, "rule"), Text(N_("must be %(rule)s for the decision %(case)s"), rule=repr(look.rule),
                                       case=repr(look.case)))
    return look


def _read_event(value, path: str) -> Event:
    obj = _obj(value, path)
    kind = _choice(obj, "kind", path, ("enter", "wrap", "teleport", "pivot", "eat", "push", "stop"))
    event: Event
    if kind == "enter":
        slide = _need(obj, "slide", path)
        if not isinstance(slide, bool):
            _fail(_key(path, "slide"), _not(N_("true or false"), slide))
        event = (Slide if slide else Enter)(_square(obj, "square", path))
    elif kind == "wrap":
        wall = _text(obj, "wall", path)
        event = Wrap(_square(obj, "from", path), _square(obj, "to", path), wall)
    elif kind == "teleport":
        event = Teleport(_square(obj, "from", path), _square(obj, "to", path), _direction(obj, "facing", path))
    elif kind == "pivot":
        event = Pivot(_square(obj, "at", path), _square(obj, "square", path),
                      _choice(obj, "stone", path, ("pivot-right", "pivot-about")),
                      _direction(obj, "from_facing", path), _direction(obj, "facing", path))
    elif kind == "eat":
        event = Eat(_text(obj, "pawn", path), _square(obj, "square", path))
    elif kind == "stop":
        event = Stop(_square(obj, "square", path))
    else:
        event = _read_push(obj, path)
    _check_rule(obj, path, event.rule)
    return event


def _read_push(obj: dict, path: str) -> Push:
    piece = _obj(_need(obj, "piece", path), _key(path, "piece"))
    ptype = _choice(piece, "type", _key(path, "piece"), ("stone", "pawn"))
    stone = _choice(piece, "kind", _key(path, "piece"), STONE_KINDS) if ptype == "stone" else None
    pawn = _text(piece, "label", _key(path, "piece")) if ptype == "pawn" else None
    result = _choice(obj, "result", path, PUSH_RESULTS)
    crossed = None
    if "path" in obj:
        squares = _list(obj, "path", path)
        if not squares:
            _fail(_key(path, "path"), Text(N_("must name at least one square")))
        crossed = tuple(_square_name(s, f"{_key(path, 'path')}[{i}]") for i, s in enumerate(squares))
    wall = _text(obj, "wall", path) if "wall" in obj else None
    to = _square(obj, "to", path, optional=True)
    if (to is None) != (result in ("removed", "crushed", "destroyed")):
        _fail(_key(path, "to"), Text(N_("must be null for the result %(result)s") if to is not None else
                                     N_("must be a square for the result %(result)s"), result=repr(result)))
    if (wall is None) == (crossed is None):
        _fail(_key(path, "path"), Text(N_("a push gives either the squares crossed (path) or the wall it went "
                                          "through")))
    if (result == "crushed") != (pawn is not None and wall is not None):
        misfit = {("stone", True): N_("%(result)s does not fit a stone pushed through a wall"),
                  ("stone", False): N_("%(result)s does not fit a stone pushed on the board"),
                  ("pawn", True): N_("%(result)s does not fit a pawn pushed through a wall"),
                  ("pawn", False): N_("%(result)s does not fit a pawn pushed on the board")}
        _fail(_key(path, "result"), Text(misfit[ptype, bool(wall)], result=repr(result)))
    eaten = obj.get("eaten", False)
    if eaten is not (pawn is not None and to is None):
        _fail(_key(path, "eaten"), Text(N_("must be true exactly when a pushed pawn is crushed or destroyed")))
    by = _text(obj, "by", path) if "by" in obj else None
    if by is not None and (stone is None or wall is not None):
        _fail(_key(path, "by"), Text(N_("only a stone pushed on the board can be pushed by a sliding pawn")))
    return Push(_square(obj, "from", path), result, to, crossed, wall, stone, pawn, by)


def _read_step(value, path: str, names: Names) -> Step:
    obj = _obj(value, path)
    events = tuple(_read_event(e, f"{path}.events[{i}]") for i, e in enumerate(_list(obj, "events", path)))
    return Step(_whole(obj, "number", path), _square(obj, "from", path),
                _read_look(_need(obj, "look", path), _key(path, "look"), names), events,
                _square(obj, "to", path), _direction(obj, "facing", path), _labels(obj, "eaten", path), names)


def _read_plan(data) -> Plan:
    obj = _obj(data, "plan")
    if "format" not in obj:   # a position or a game record given where a plan was asked for
        _fail("format", Text(N_("missing: a plan has \"format\": %(format)s (the output of `flure resolve … --json`)"),
                             format=repr(FORMAT)))
    if obj.get("format") != FORMAT:
        _fail("format", Text(N_("must be %(format)s (the output of `flure resolve … --json`), not %(value)s"),
                             format=repr(FORMAT), value=shown(obj["format"])))
    tile = _text(obj, "card", "", optional=True)
    start = Position.from_setup(_need(obj, "before", ""), strict=False, where="before")
    result = Position.from_setup(_need(obj, "position", ""), strict=False, where="position")
    names = LazyNames(start)
    steps = tuple(_read_step(s, f"steps[{i}]", names) for i, s in enumerate(_list(obj, "steps", "")))
    final = _read_look(_need(obj, "final_look", ""), "final_look", names)
    stop = _obj(_need(obj, "stop", ""), "stop")
    plan = Plan(tile, start, steps, final, result, _labels(obj, "eaten", ""),
                _choice(stop, "reason", "stop", tuple(STOP_REASONS)), _text(stop, "rule", "stop"))
    # The remaining fields repeat what is read above; a plan where they disagree is not ours.
    for key, want in (("start", {"at": square_name(start.monster), "facing": direction_name(start.facing)}),
                      ("end", {"at": square_name(result.monster), "facing": direction_name(result.facing)}),
                      ("path", plan.path)):
        if _need(obj, key, "") != want:
            _fail(key, Text(N_("must be %(want)s to fit the rest of the plan, not %(value)s"), want=repr(want),
                            value=f"{obj[key]!r:.60}"))
    return plan
