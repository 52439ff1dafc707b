"""What the camera saw, as the engine takes it: seen squares' looks, unknown squares, the card zone.

A square is either seen — and then what it shows is known exactly, bare or not — or
unknown (hidden, unread, occluded, out of view): never "empty because nothing was read".
Vision converts its reading into an ``Observation`` at its edge; ``engine.reconcile``
compares it with the legal changes.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Iterable, Mapping

from .geometry import SQUARE_SET, square_name
from .names import piece_name
from .position import BOARD, STONE_KINDS, Pawn, Position, Teleporter
from .wording import N_, Direction, Join, PawnName, Term, Text

ANY_PAWN = "any-pawn"          # mover: one move of any one pawn (``flure vision explain`` without --player)
MONSTER_PHASE = "monster"      # mover: the monster phase, only a tile in the card zone is expected (G7)


class _Unknown:
    """The card zone could not be seen (``Observation.tile``)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


# -- what a square shows ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PawnLook:
    """A pawn as the camera tells it apart: colour, kind (``6/1``) and the face up."""

    colour: str | None
    kind: str | None
    face: str

    @classmethod
    def of(cls, pawn: Pawn) -> "PawnLook":
        return cls(pawn.colour, pawn.kind, pawn.face)

    @property
    def name(self) -> str:
        return str(self.name_words)

    @property
    def name_words(self):
        return PawnName(f"{self.colour} {self.kind}") if self.colour and self.kind else Text(N_("a pawn"))


@dataclass(frozen=True, slots=True)
class SquareLook:
    """Everything one seen square shows; ``EMPTY`` (``SquareLook()``) is a bare square.

    ``monster`` is its heading (0–3) when the monster stands there.  Pools and
    teleporters are part of the look: they never move (B1, T1), so a reading that
    places them elsewhere is a change no pawn move explains.
    """

    monster: int | None = None
    stone: str | None = None
    pawn: PawnLook | None = None
    teleporter: Teleporter | None = None
    pool: bool = False

    def describe_words(self, role: str = "a") -> Join | Text:
        """What the square shows, as wording data (engine.wording); ``role`` is ``a`` where a sentence
        says it as its subject (``g7 was a crystal``), ``a-object`` as its object (``g7 now shows a
        crystal``): engine.names, for a language with cases."""
        parts = []
        if self.monster is not None:
            parts.append(Text(N_("the monster facing %(direction)s"), direction=Direction("NESW"[self.monster])))
        if self.pawn is not None:
            template = (N_("%(pawn)s (black face up)") if self.pawn.face == "black" else
                        N_("%(pawn)s (white face up)") if self.pawn.face == "white" else "%(pawn)s (%(face)s face up)")
            parts.append(Text(template, pawn=self.pawn.name_words, face=self.pawn.face))
        if self.stone is not None:
            parts.append(piece_name(self.stone, role) if self.stone in STONE_KINDS
                         else Text("a %(kind)s stone", kind=self.stone))
        if self.teleporter is not None:
            parts.append(Text(N_("teleporter %(pair)s"), pair=self.teleporter.pair))
        if self.pool:
            parts.append(Text(N_("a pool")) if len(parts) == 0 else Text(N_("on a pool")))
        return Join(" ", parts) if parts else Text(N_("empty"))


EMPTY = SquareLook()


def looks(position: Position) -> dict[int, SquareLook]:
    """Square → SquareLook for every square that is not bare in ``position``."""
    parts: dict[int, dict] = {}
    parts.setdefault(position.monster, {})["monster"] = position.facing
    for sq, kind in position.stones.items():
        parts.setdefault(sq, {})["stone"] = kind
    for sq, tp in position.teleporters.items():
        parts.setdefault(sq, {})["teleporter"] = tp
    for sq in position.pools:
        parts.setdefault(sq, {})["pool"] = True
    for p in position.pawns:
        if p.place == BOARD and p.square is not None:   # a pawn on the board always has its square
            parts.setdefault(p.square, {})["pawn"] = PawnLook.of(p)
    return {sq: SquareLook(**kw) for sq, kw in parts.items()}


# -- the observation ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Observation:
    """What the camera saw: the seen squares' looks, why the others are unknown, the card zone.

    Every board square not in ``seen`` is unknown; ``why`` may say why (``"occluded"``,
    ``"hidden-square"`` …) for the messages.  ``tile`` is the tombstone tile in the card
    zone, None when it is seen empty, or ``UNKNOWN``.
    """

    seen: Mapping[int, SquareLook]
    tile: str | None | _Unknown = None
    why: Mapping[int, str] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "seen", MappingProxyType(dict(self.seen)))
        object.__setattr__(self, "why", MappingProxyType(dict(self.why)))

    @property
    def unknown(self) -> frozenset[int]:
        return SQUARE_SET - self.seen.keys()

    @classmethod
    def of(cls, position: Position, unknown: Iterable[int] | Mapping[int, str] = (),
           tile: str | None | _Unknown = None) -> "Observation":
        """Seeing ``position`` on every square except ``unknown`` (a mapping gives the reasons)."""
        why = dict(unknown) if isinstance(unknown, Mapping) else {sq: "not seen" for sq in unknown}
        shown = looks(position)
        return cls({sq: shown.get(sq, EMPTY) for sq in SQUARE_SET if sq not in why}, tile, why)

    def with_fixed_pieces(self, before: Position) -> "Observation":
        """This observation with the game's pools and teleporters where a seen square shows none.

        In the pawn and monster phases nothing moves them (B1, T1): the prior carries them, and
        a reading that shows no pool or teleporter where the game has one (a piece over its
        sticker, a pool read as bare squares) is no evidence (VISION.md "Reading a change").
        Only a positive sighting contradicts the prior — a pool or a teleporter seen where the
        game has none, or another teleporter — and it is kept as seen.
        """
        prior = looks(before)
        seen = {}
        for sq, look in self.seen.items():
            was = prior.get(sq, EMPTY)
            if was.pool and not look.pool:
                look = replace(look, pool=True)
            if was.teleporter is not None and look.teleporter is None:
                look = replace(look, teleporter=was.teleporter)
            seen[sq] = look
        return Observation(seen, self.tile, self.why)

    def unknown_words(self, sq: int) -> Text:
        """Why square ``sq`` is unknown, as wording data (engine.wording)."""
        reason = self.why.get(sq)
        if not reason:
            return Text(N_("%(square)s is not seen"), square=square_name(sq))
        return Text(N_("%(square)s is not seen (%(why)s)"), square=square_name(sq),
                    why=Term(_REASONS[reason]) if reason in _REASONS else reason)


_REASONS = {"occluded": N_("covered, a hand?"), "hidden-square": N_("hidden behind a taller piece"),
            "unread-square": N_("a sticker there does not decode"), "out-of-view": N_("outside the picture"),
            "shaded-square": N_("in a shadow, nothing read there"),
            "unsure-square": N_("a lifted sticker could stand there"),
            "frames-disagree": N_("the frames show it differently: something moved?"),
            "unknown-piece": N_("what lies there matches no taught piece clearly"),
            "monster-unread": N_("the monster is not read: its heading is the game's")}
