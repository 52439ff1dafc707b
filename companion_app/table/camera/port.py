"""What the camera loop and the table session say to each other: values one way, effects the other.

The session (``session.TableSession``) owns the game, the referee's fixes and the follow-up under
way; the camera loop (``loop.TableLoop``) owns the last camera update, the mode and what it has
acted on.  The loop reads the table only as a ``TableSnapshot``, a frozen value taken through
``Table.snapshot``, and acts on it only through the other ``Table`` methods (apply an action, the
LEDs, the log, the screens).  None of them calls the loop back, and the loop takes no lock of the
session's: the session makes every call into its loop under its own lock (the loop is not
thread-safe by itself), so a snapshot, the judgement made from it and the action applied from
that judgement are one step for the other threads.

The prior for the camera worker.  A reader that needs the position before the change it reads
(the no-sticker reader: ``vision.nostickers.read.Reader(pieces, calibration).reading(image, before,
allowed)`` with ``allowed = allowed_faces(prior.position, prior.mover)``) is given, when the worker
is made, a callable returning the game's ``Prior`` now: ``devices.open_camera(prior=table_prior(session.prior))``
gives it to the reader (``camera.nostickers.PiecesReader``), the worker only calls ``reader.read``.
``TableSession.prior`` is that callable: it takes no lock (one read of the session's immutable game),
may be called from the worker's thread at any time, and returns None while no game is running.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from engine.actions import Action
from engine.game import Game
from engine.observation import ANY_PAWN, MONSTER_PHASE
from engine.position import Position

from ..actors import By


@dataclass(frozen=True)
class Prior:
    """What the table expects a reading to start from: the game's position and who may change it.

    ``mover`` is what ``engine.reconcile.legal_changes`` takes: the colour to move in the pawn phase
    (G3), ``MONSTER_PHASE`` in the monster phase (only a tile, G7), ``ANY_PAWN`` otherwise (the
    advanced setup, a game over); ``only`` the labels of the mover's pawns whose move the board can
    show (``Game.seen_movers``: not yet moved, G3; not kept beside the board, G4), or None for any;
    ``pieces_left`` the board pieces still to place (A2); ``following`` whether the table is being
    brought into the game's position (TABLE.md "The follow-up": it may still show the one
    before)."""

    position: Position
    mover: str
    phase: str
    only: frozenset[str] | None = None
    pieces_left: tuple[tuple[str, int], ...] = ()
    following: bool = False

    @classmethod
    def of(cls, game: Game | None, following: bool = False) -> Prior | None:
        """The prior of ``game`` (None: no game, no prior)."""
        if game is None:
            return None
        if game.phase == "pawns" and game.to_move is not None:
            return cls(game.position, game.to_move, game.phase, frozenset(game.seen_movers()), following=following)
        return cls(game.position, MONSTER_PHASE if game.phase == "monster" else ANY_PAWN, game.phase,
                   pieces_left=tuple(game.pieces_left) if game.phase == "placement" else (), following=following)


@dataclass(frozen=True)
class TableSnapshot:
    """The table session at one moment, as the camera loop judges against it."""

    game: Game | None = None
    game_id: int | None = None
    seq: int = 0                                   # the journal's step of ``game``
    fixes: Mapping[str, Mapping] = field(default_factory=lambda: MappingProxyType({}))   # the referee's, by square
    follow: str | None = None                      # the follow-up under way (judge.FOLLOW_WHY's key), or None
    camera: Mapping = field(default_factory=lambda: MappingProxyType({}))   # the camera device's status


@runtime_checkable
class Table(Protocol):
    """The camera loop's side of the table session: one read (``snapshot``) and the effects."""

    def snapshot(self) -> TableSnapshot:
        """The table now."""

    def apply(self, action: Action, by: By, reading: dict | None, outcome: str) -> TableSnapshot:
        """Play ``action`` as given ``by`` (journaled, the screens told; the follow-up the action starts
        begins), the camera ``reading`` it came from kept with ``outcome``; the table after it.  Raises
        the engine's ``FlureError`` when the game refuses it.  The LEDs wait for ``show_on_leds``."""

    def accept(self, position: Position, note: object) -> TableSnapshot:
        """The game takes ``position`` (the referee accepted the table: a correction, no follow-up),
        ``note`` in the log; the table after it.  The LEDs wait for ``show_on_leds``."""

    def refused(self, reading: dict | None, outcome: str) -> None:
        """The table shows something the game refuses: the LEDs blink, the reading is kept with ``outcome``."""

    def follow_done(self, note: object | None) -> None:
        """The table is in the game's position (the camera sees it, or the referee accepts it as it
        is): the follow-up ends, ``note`` (if any) in the log, the screens told.  The LEDs wait for
        ``show_on_leds``."""

    def show_on_leds(self, guide: Mapping | None) -> None:
        """The LEDs show the game, with ``guide``'s squares (``{"empty": [...], "fill": [...]}``) while
        the table must change, and keep ``guide`` until the next call."""

    def publish_camera(self, view: dict) -> None:
        """A new camera view (``CameraView.to_json``) for the screens, called in the order the views were judged."""
