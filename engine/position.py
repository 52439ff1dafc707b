"""The position: monster, stones, pools, teleporters and pawns as immutable values.

The JSON form is the scenario ``setup`` object (SCENARIOS.md), extended with
``"place": "out"|"gone"`` for pawns that have left the board for good.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping

from .errors import InvalidSetupError
from .geometry import (
    BASIC_MONSTER,
    BASIC_POOLS,
    BASIC_STONES,
    COLS,
    ROWS,
    SQUARE_NAMES,
    BadName,
    direction_name,
    parse_direction,
    parse_square,
    square,
    square_name,
)
from .names import piece_name
from .wording import N_, PawnName, Plural, Text, join_and

STONE_KINDS = ("stone", "crystal", "pivot-right", "pivot-about")
PAWN_KINDS = ("6/1", "4/3", "3/4", "2/5")
FACES = ("white", "black")
COLOURS = ("blue", "yellow", "red", "green", "purple", "black", "white")
FOUR_PAWN_COLOURS = ("blue", "yellow", "red", "green")

BOARD, WAITING, OUT, GONE = "board", "waiting", "out", "gone"
MAX_LABEL = 20
_LABEL_RE = re.compile(rf"[^\s]{{1,{MAX_LABEL}}}")
PLACES = (BOARD, WAITING, OUT, GONE)


@dataclass(frozen=True, slots=True)
class Teleporter:
    pair: int
    arrow: int  # direction the monster faces on arrival (T2)


@dataclass(frozen=True, slots=True)
class Pawn:
    """A pawn disc.  ``kind`` is ``black/white`` numbers (``"6/1"``), ``face`` the side up."""

    label: str
    colour: str | None = None
    kind: str | None = None
    face: str = "white"
    place: str = WAITING
    square: int | None = None

    @property
    def on_board(self) -> bool:
        return self.place == BOARD

    @property
    def in_play(self) -> bool:
        return self.place in (BOARD, WAITING)

    @property
    def owner(self) -> str:
        """The colour of a game's pawn: every pawn of a game has one (a scenario's or a reading's may not)."""
        if self.colour is None:
            raise ValueError(f"pawn {self.label} has no colour")
        return self.colour

    @property
    def value(self) -> int | None:
        """Points on the visible face (P1), or None when the kind is unknown."""
        if self.kind is None:
            return None
        black, white = self.kind.split("/")
        return int(white if self.face == "white" else black)

    def flipped(self) -> "Pawn":
        return replace(self, face="black" if self.face == "white" else "white")

    @property
    def name(self) -> str:
        """Plain-language name: ``red 3/4`` or the label."""
        if self.colour and self.kind:
            return f"{self.colour} {self.kind}"
        return self.label

    def where(self) -> str:
        return square_name(self.square) if self.place == BOARD and self.square is not None else self.place


def pawn_label(colour: str, kind: str) -> str:
    """A game's label for a pawn (``red-3/4``); players read its :attr:`Pawn.name` (``red 3/4``)."""
    return f"{colour}-{kind}"


@dataclass(frozen=True)
class Position:
    monster: int
    facing: int
    stones: Mapping[int, str] = field(default_factory=dict)
    pools: frozenset[int] = frozenset()
    teleporters: Mapping[int, Teleporter] = field(default_factory=dict)
    pawns: tuple[Pawn, ...] = ()

    def __post_init__(self):
        # Freeze the mappings so the value really is immutable and hashable.
        object.__setattr__(self, "stones", _FrozenMap(self.stones))
        object.__setattr__(self, "teleporters", _FrozenMap(self.teleporters))
        object.__setattr__(self, "pools", frozenset(self.pools))
        object.__setattr__(self, "pawns", tuple(self.pawns))

    # -- queries ---------------------------------------------------------
    def pawn(self, label: str) -> Pawn:
        for p in self.pawns:
            if p.label == label:
                return p
        raise KeyError(label)

    def pawn_at(self, sq: int) -> Pawn | None:
        for p in self.pawns:
            if p.place == BOARD and p.square == sq:
                return p
        return None

    def pawn_names(self) -> dict[str, str]:
        """Label -> the name players read (``red-3/4`` -> ``red 3/4``), for every pawn."""
        return {p.label: p.name for p in self.pawns}

    def board_pawns(self) -> dict[int, str]:
        return {p.square: p.label for p in self.pawns if p.place == BOARD and p.square is not None}

    def teleporter_partner(self, sq: int) -> int | None:
        """The other tile of ``sq``'s pair, or None when the pair is incomplete (see status())."""
        pair = self.teleporters[sq].pair
        return next((t for t, tp in self.teleporters.items() if tp.pair == pair and t != sq), None)

    def crowded(self) -> list[str]:
        """P4: a message for each square holding two pieces (cheap when there are none, as in play)."""
        squares = [self.monster, *self.stones, *(p.square for p in self.pawns if p.place == BOARD)]
        if len(set(squares)) == len(squares):
            return []
        return [p["message"] for p in self.status() if p["code"] == "two-pieces"]

    def with_pawn(self, pawn: Pawn) -> "Position":
        return replace(self, pawns=tuple(pawn if p.label == pawn.label else p for p in self.pawns))

    # -- status ----------------------------------------------------------
    def status(self) -> list[dict]:
        """Physically impossible things in this position, as ``{code, message, square}``.

        Never raises: the referee screen shows these rather than crashing.  ``status_words`` gives
        the same problems with their message as wording data (engine.wording), for other languages.
        """
        return [{"code": code, "message": str(words), "square": square}
                for code, words, square in self.status_words()]

    def status_words(self) -> list[tuple[str, Text, str | None]]:
        """``status()`` as ``(code, message as engine.wording data, square name or None)``."""
        problems: list[tuple[str, Text, str | None]] = []

        def add(code, words, sq=None):
            assert code in STATUS_CODES, code   # the list others (a camera reading's problems) go by
            problems.append((code, words, square_name(sq) if sq is not None else None))

        occupants: dict[int, list[Text]] = {}
        occupants.setdefault(self.monster, []).append(THE_MONSTER)
        for sq, kind in self.stones.items():
            occupants.setdefault(sq, []).append(piece_name(kind, "a"))
        for p in self.pawns:
            if p.place == BOARD and p.square is not None:
                occupants.setdefault(p.square, []).append(Text(N_("pawn %(pawn)s"), pawn=PawnName(p.name)))
        for sq, who in sorted(occupants.items()):
            if len(who) > 1:
                add("two-pieces", both_on(sq, who), sq)
        for sq in sorted(self.teleporters):
            for one in occupants.get(sq, []):
                if one is not THE_MONSTER:
                    add("on-teleporter", Text(N_("%(who)s stands on the teleporter on %(square)s (T3)"),
                                              who=one, square=square_name(sq)), sq)
            if sq in self.pools:
                add("teleporter-on-pool", Text(N_("a teleporter and a pool share %(square)s"),
                                               square=square_name(sq)), sq)
        pairs: dict[int, int] = {}
        for tp in self.teleporters.values():
            pairs[tp.pair] = pairs.get(tp.pair, 0) + 1
        for pair, count in sorted(pairs.items()):
            if count != 2:
                add("teleporter-pair", Plural("teleporter pair %(pair)s has %(count)s tile, it needs 2",
                                              "teleporter pair %(pair)s has %(count)s tiles, it needs 2", count,
                                              pair=pair, count=count))
        if self.monster in self.pools:
            add("monster-on-pool", Text(N_("the monster stands on the pool square %(square)s (M8)"),
                                        square=square_name(self.monster)), self.monster)
        labels = [p.label for p in self.pawns]
        for lab in sorted({x for x in labels if labels.count(x) > 1}):
            add("duplicate-pawn", Text(N_("pawn label %(label)s is used twice"), label=repr(lab)))
        return problems

    # -- JSON ------------------------------------------------------------
    def to_setup(self) -> dict:
        pawns = {}
        for p in self.pawns:
            d: dict = {"at": square_name(p.square) if p.place == BOARD and p.square is not None else None}
            if p.colour is not None:
                d["color"] = p.colour
            if p.kind is not None:
                d["pawn"] = p.kind
            d["face"] = p.face
            if p.place in (OUT, GONE):
                d["place"] = p.place
            pawns[p.label] = d
        return {
            "monster": {"at": square_name(self.monster), "facing": direction_name(self.facing)},
            "stones": {square_name(sq): k for sq, k in sorted(self.stones.items())},
            "pools": [square_name(sq) for sq in sorted(self.pools)],
            "teleporters": {square_name(sq): {"pair": t.pair, "arrow": direction_name(t.arrow)}
                            for sq, t in sorted(self.teleporters.items())},
            "pawns": pawns,
        }

    @classmethod
    def from_setup(cls, setup, *, strict: bool = True, where: str = "setup") -> "Position":
        """Parse a scenario ``setup`` object.

        With ``strict`` (scenario files) impossible positions raise
        InvalidSetupError naming the field; without it they are kept and
        ``status()`` reports them.
        """
        if not isinstance(setup, dict):
            raise InvalidSetupError(Text(N_("must be a JSON object")), where)
        known = {"monster", "stones", "pools", "teleporters", "pawns"}
        for key in setup:
            if key not in known:
                raise InvalidSetupError(Text(N_("unknown key %(key)s (expected one of %(known)s)"), key=repr(key),
                                             known=", ".join(sorted(known))), where)
        m = setup.get("monster")
        if not isinstance(m, dict) or "at" not in m or "facing" not in m:
            raise InvalidSetupError(Text(N_("required, as %(form)s"), form='{"at": SQUARE, "facing": N|E|S|W}'),
                                    f"{where}.monster")
        if strict:
            _only_keys(m, ("at", "facing"), f"{where}.monster")
        monster = _sq(m["at"], f"{where}.monster.at", strict)
        facing = _dir(m["facing"], f"{where}.monster.facing", strict)

        stones_in = setup.get("stones", {}) or {}
        if not isinstance(stones_in, dict):
            raise InvalidSetupError(Text(N_("must be an object square -> kind")), f"{where}.stones")
        stones = {}
        for name, kind in stones_in.items():
            sq = _sq(name, f"{where}.stones.{name}", strict)
            if kind not in STONE_KINDS:
                raise InvalidSetupError(Text(N_("unknown stone kind %(kind)s (one of %(known)s)"), kind=repr(kind),
                                             known=", ".join(STONE_KINDS)),
                                        f"{where}.stones.{name}")
            stones[sq] = kind

        pools_in = setup.get("pools", []) or []
        if not isinstance(pools_in, list):
            raise InvalidSetupError(Text(N_("must be a list of squares")), f"{where}.pools")
        pools = frozenset(_sq(n, f"{where}.pools[{i}]", strict) for i, n in enumerate(pools_in))

        tel_in = setup.get("teleporters", {}) or {}
        if not isinstance(tel_in, dict):
            raise InvalidSetupError(Text(N_("must be an object square -> %(form)s"), form="{pair, arrow}"),
                                    f"{where}.teleporters")
        teleporters = {}
        for name, t in tel_in.items():
            f = f"{where}.teleporters.{name}"
            sq = _sq(name, f, strict)
            if not isinstance(t, dict):
                raise InvalidSetupError(Text(N_("must be %(form)s"), form='{"pair": 1|2, "arrow": DIR}'), f)
            if strict:
                _only_keys(t, ("pair", "arrow"), f)
            pair = t.get("pair")
            if not isinstance(pair, int) or isinstance(pair, bool) or pair < 1 or (strict and pair > 2):
                raise InvalidSetupError(Text(N_("pair must be 1 or 2, not %(value)s"), value=repr(pair)), f + ".pair")
            teleporters[sq] = Teleporter(pair, _dir(t.get("arrow"), f + ".arrow", strict))

        pawns_in = setup.get("pawns", {}) or {}
        if not isinstance(pawns_in, dict):
            raise InvalidSetupError(Text(N_("must be an object label -> pawn")), f"{where}.pawns")
        pawns = []
        for label, p in pawns_in.items():
            f = f"{where}.pawns.{label}"
            if not isinstance(label, str) or not label:
                raise InvalidSetupError(Text(N_("a pawn label must be non-empty text")), f"{where}.pawns")
            if strict and not _LABEL_RE.fullmatch(label):
                raise InvalidSetupError(Text(N_("pawn label %(label)s must be one uppercase letter or a short word "
                                                "(at most %(most)s characters, no spaces)"), label=repr(label),
                                             most=MAX_LABEL), f)
            if not isinstance(p, dict) or "at" not in p:
                raise InvalidSetupError(Text(N_("must be an object with %(key)s (a square or null)"), key='"at"'), f)
            extra = set(p) - {"at", "color", "pawn", "face", "place"}
            if extra:
                raise InvalidSetupError(Plural("unknown key %(keys)s", "unknown keys %(keys)s", len(extra),
                                               keys=", ".join(sorted(extra))), f)
            colour = p.get("color")
            if colour is not None and colour not in COLOURS:
                raise InvalidSetupError(Text(N_("unknown colour %(colour)s (one of %(known)s)"), colour=repr(colour),
                                             known=", ".join(COLOURS)), f + ".color")
            kind = p.get("pawn")
            if kind is not None and kind not in PAWN_KINDS:
                raise InvalidSetupError(Text(N_("unknown pawn %(kind)s (one of %(known)s)"), kind=repr(kind),
                                             known=", ".join(PAWN_KINDS)), f + ".pawn")
            face = p.get("face", "white")
            if face not in FACES:
                raise InvalidSetupError(Text(N_("face must be white or black, not %(value)s"), value=repr(face)),
                                        f + ".face")
            at = p["at"]
            place = p.get("place")
            if at is None:
                if place is None:
                    place = WAITING
                elif place not in (WAITING, OUT, GONE):
                    raise InvalidSetupError(Text(N_("place must be waiting, out or gone, not %(value)s"), value=repr(place)),
                                            f + ".place")
                pawns.append(Pawn(label, colour, kind, face, place, None))
            else:
                if place not in (None, BOARD):
                    raise InvalidSetupError(Text(N_("a pawn with a square must not have a place")), f + ".place")
                pawns.append(Pawn(label, colour, kind, face, BOARD, _sq(at, f + ".at", strict)))

        pos = cls(monster, facing, stones, pools, teleporters, tuple(pawns))
        if strict:
            pos._check_strict(where)
        return pos

    def _check_strict(self, where: str) -> None:
        seen: dict[int, str] = {self.monster: f"{where}.monster"}
        for sq in self.stones:
            if sq in seen:
                raise InvalidSetupError(both_on(sq, [_what(seen[sq]), piece_name("stone", "a")]),
                                        f"{where}.stones.{square_name(sq)}")
            seen[sq] = f"{where}.stones.{square_name(sq)}"
        for p in self.pawns:
            if p.place == BOARD and p.square is not None:
                f = f"{where}.pawns.{p.label}.at"
                if p.square in seen:
                    raise InvalidSetupError(both_on(p.square, [_what(seen[p.square]), _labelled(p.label)]), f)
                seen[p.square] = f
        for sq, tp in self.teleporters.items():
            f = f"{where}.teleporters.{square_name(sq)}"
            if sq in self.stones:
                raise InvalidSetupError(Text(N_("a stone stands on the teleporter on %(square)s"), square=square_name(sq)),
                                        f"{where}.stones.{square_name(sq)}")
            standing = self.pawn_at(sq)
            if standing is not None:
                raise InvalidSetupError(Text(N_("pawn %(label)s stands on the teleporter on %(square)s"),
                                             label=standing.label, square=square_name(sq)),
                                        f"{where}.pawns.{standing.label}.at")
            if sq in self.pools:
                raise InvalidSetupError(Text(N_("a teleporter and a pool share %(square)s"), square=square_name(sq)), f)
        counts: dict[int, int] = {}
        for tp in self.teleporters.values():
            counts[tp.pair] = counts.get(tp.pair, 0) + 1
        for pair, c in sorted(counts.items()):
            if c != 2:
                raise InvalidSetupError(Plural("pair %(pair)s has %(count)s tile; each pair needs exactly 2",
                                               "pair %(pair)s has %(count)s tiles; each pair needs exactly 2", c,
                                               pair=pair, count=c), f"{where}.teleporters")

    # -- text ------------------------------------------------------------
    def __str__(self) -> str:
        """A text diagram, one symbol per kind of thing (the `flure` command prints the key under it):
        ``^ > v <`` the monster facing N E S W, ``A``, ``B``, … the pawns (``pawn_letters``), ``o`` stone, ``c`` crystal,
        ``r`` pivot-right, ``u`` pivot-about, ``~`` pool, ``1``/``2`` a teleporter of that pair,
        ``#`` wall, ``.`` empty floor."""
        arrows = "^>v<"
        lines = ["     " + " ".join("abcdefghijklmnop")]
        letters = self.pawn_letters()
        board_pawns = self.board_pawns()
        for r in range(ROWS):
            cells = []
            for c in range(COLS):
                sq = square(c, r)
                if sq not in SQUARE_NAMES:
                    cells.append("#")
                elif sq == self.monster:
                    cells.append(arrows[self.facing])
                elif sq in board_pawns:
                    cells.append(letters[board_pawns[sq]])
                elif sq in self.stones:
                    cells.append(DIAGRAM_STONES[self.stones[sq]])
                elif sq in self.teleporters:
                    cells.append(str(self.teleporters[sq].pair)[-1])
                elif sq in self.pools:
                    cells.append("~")
                else:
                    cells.append(".")
            lines.append(f"{r + 1:>3}  " + " ".join(cells))
        off = [f"{letters[p.label]}:{p.place}" for p in self.pawns if p.place != BOARD]
        if off:
            lines.append("off board: " + " ".join(off))
        return "\n".join(lines)

    def pawn_letters(self) -> dict[str, str]:
        """Each pawn's letter in the text diagram, by label: ``A``, ``B``, … in the order of ``pawns``
        (a pawn keeps its letter through a move: the order does not change)."""
        return {p.label: PAWN_LETTERS[i % len(PAWN_LETTERS)] for i, p in enumerate(self.pawns)}

    def __repr__(self) -> str:
        return f"Position.from_setup({self.to_setup()!r})"


PAWN_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
DIAGRAM_STONES = {"stone": "o", "crystal": "c", "pivot-right": "r", "pivot-about": "u"}
THE_MONSTER = piece_name("monster", "the")   # (one value: ``status`` tells it from the other occupants)


STATUS_CODES = ("two-pieces", "on-teleporter", "teleporter-on-pool", "teleporter-pair", "monster-on-pool",
                "duplicate-pawn")   # every code ``Position.status`` reports
BOTH_ON = N_("%(who)s are both on %(square)s")   # P4; a camera reading's two-pieces problem too (vision.problems)


def both_on(sq: int, who: list) -> Text:
    """The one wording of two pieces on one square (P4): ``the monster and a stone are both on g7``
    (wording data: ``str()`` is the English; ``who`` are wording data or plain English)."""
    return Text(BOTH_ON, who=join_and(who), square=square_name(sq))


def basic_position(pawns: Iterable[Pawn] = ()) -> Position:
    """The basic-game setup of BOARD.md with the given pawns (all waiting by default)."""
    return Position(BASIC_MONSTER[0], BASIC_MONSTER[1], {sq: "stone" for sq in BASIC_STONES},
                    frozenset(BASIC_POOLS), {}, tuple(pawns))


class _FrozenMap(Mapping):
    """A read-only, hashable dict."""

    __slots__ = ("_d", "_h")

    def __init__(self, data=()):
        self._d = dict(data)
        self._h = None

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __contains__(self, k):
        return k in self._d

    def get(self, k, default=None):
        return self._d.get(k, default)

    def __hash__(self):
        if self._h is None:
            self._h = hash(frozenset(self._d.items()))
        return self._h

    def __eq__(self, other):
        if isinstance(other, _FrozenMap):
            return self._d == other._d
        if isinstance(other, Mapping):
            return self._d == dict(other)
        return NotImplemented

    def __repr__(self):
        return repr(self._d)

    def copy(self) -> dict:
        return dict(self._d)


def _what(field_path: str) -> Text:
    if field_path.endswith(".monster"):
        return THE_MONSTER
    if ".stones." in field_path:
        return piece_name("stone", "a")
    return _labelled(field_path.split(".pawns.")[1].removesuffix(".at"))


def _labelled(label: str) -> Text:
    """A pawn of a position file by its label (``A``: not a pawn's name, so not translated)."""
    return Text(N_("pawn %(label)s"), label=label)


def _only_keys(obj: dict, keys: tuple[str, ...], field_path: str) -> None:
    extra = sorted(k for k in obj if k not in keys)
    if extra:
        raise InvalidSetupError(Plural("unknown key %(keys)s (expected %(known)s)",
                                       "unknown keys %(keys)s (expected %(known)s)", len(extra),
                                       keys=", ".join(map(repr, extra)), known=", ".join(keys)), field_path)


def _sq(name, field_path: str, strict: bool = False) -> int:
    """A square; ``strict`` (scenario files) takes only the exact names of BOARD.md (``g7``, not ``G7``)."""
    try:
        sq = parse_square(name)
    except BadName as exc:
        raise InvalidSetupError(exc.text, field_path) from None
    if strict and name != square_name(sq):
        raise InvalidSetupError(Text(N_("%(name)s is not a square name: write it like %(square)s"), name=repr(name),
                                     square=repr(square_name(sq))), field_path)
    return sq


def _dir(name, field_path: str, strict: bool = False) -> int:
    """A direction; ``strict`` takes only ``N E S W`` as written in BOARD.md."""
    try:
        d = parse_direction(name)
    except BadName as exc:
        raise InvalidSetupError(exc.text, field_path) from None
    if strict and name != direction_name(d):
        raise InvalidSetupError(Text(N_("%(name)s is not a direction: write it as %(direction)s"), name=repr(name),
                                     direction=repr(direction_name(d))), field_path)
    return d
