"""Simulated players at the simulated table (TABLE.md "The simulated table").

They know the game as players at a real table do — whose turn it is, the position, the pieces
still in the box, what the LEDs and the referee say is wrong — but they act only on the
physical table (``vision.twin.table.PhysicalTable``): in the advanced setup they put the board
pieces down one by one (A2), they move pawns with a hand over the board, put pieces
down a little off centre, draw the top tombstone tile of the game's seeded deck and lay it in
the card zone, take it away once the monster has moved and carry out the follow-up.  Now and
then (``err_rate``, seeded) a player moves a pawn where no legal move goes, puts a board piece
next to a corner (A2), or does the follow-up wrong, and puts it right once the session complains.  The session learns about
all of it only through the camera.

``watch()`` is how they look at the session (read-only): a ``Watch`` of the game, the
journal's step number, the session's complaint about the table and whether it is waiting
for the follow-up.  ``step()`` is one decision (unit tests drive it); ``start()`` runs the
decisions on a thread at ``speed`` times the watchable pace.

What they do is said as wording data (engine.wording): each decision and log line is a ``Said``,
the English ``str`` it always was that keeps its ``Text``, so ``status()`` is said in the referee
view's own language, and the demo's stall line can be printed in the command's.
"""
from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from engine import deck as tiles
from engine.game import Game
from engine.geometry import CORNER_ZONE, SQUARES, parse_square, square_col, square_name, square_row
from engine.names import piece_name
from engine.placement import parse_placement
from engine.position import BOARD, STONE_KINDS
from engine.reconcile_place import legal_placements
from engine.wording import N_, Colour, PawnName, Said, Text, listing

PACE_S = 1.2          # a player's pause between two actions at speed 1 (watchable)
WANDER = 0.25         # how often a player picks any legal move instead of the one nearest the exit
FRAME_WAIT_S = 3.0    # the longest a hand waits for the camera to take a frame (a camera reopening takes none)
PATIENCE = 12         # camera frames (decisions, without a camera) a player waits before doing something
                      # about a slip nobody complained of; four times that before taking back a move not taken
ANY = "*"             # (ANY, square) in ``avoid``: no pawn is moved to that square at this step
PUT_AGAIN = 2         # times a player puts a pawn down again on the square the session asks to see


@dataclass(frozen=True)
class Watch:
    """What the players see of the session: never anything they could change through it."""

    game: Game | None
    seq: int
    complaint: object | None = None  # what the session says is wrong with the table now (a str or wording data)
    follow_up: bool = False          # the session waits for the table to follow the game
    uncover: str | None = None       # the square the session asks to see better to take a change ("uncover o9")


@dataclass
class Pending:
    """An action on the table the players wait to see the session take (or refuse)."""

    kind: str                 # "move", "place", "illegal", "tile", "follow-up", "wrong-follow-up"
    seq: int                  # the journal step when it was done
    what: Text                # the action, as wording data (``the tile 7 steps``)
    undo: Callable[[], None] | None = None
    frame: int = 0            # the camera's frame count when it was done
    choice: tuple | None = None   # (pawn, square) of a move
    action: dict | None = None    # the move as an engine action (what the referee enters when it comes to that)
    waited: int = 0           # decisions since, when there is no frame count
    again: int = 0            # times the moved pawn was put down again where the session could not see it


@dataclass
class SimulatedPlayers:
    table: object                                  # vision.twin.table.PhysicalTable
    watch: Callable[[], Watch]
    seed: int = 0
    speed: float = 1.0
    err_rate: float = 0.0
    frames: Callable[[], int] | None = None        # the camera's frame counter (hands wait on it)
    hand_frames: int = 2
    press_monster: Callable[[], None] | None = None   # the table's MONSTER button (G7), for a tile the camera
                                                      # does not read (None: lay the tile again instead)
    referee_enters: Callable[[Any], None] | None = None   # the referee enters a move or placement by hand (the
                                                          # camera did not take two at one step; None: take it back)
    log: list[Said] = field(default_factory=list)
    applied_errors: list[str] = field(default_factory=list)   # an induced error the session applied (a bug)

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.pending: Pending | None = None
        self.avoid: set[tuple] = set()      # moves the camera did not take at this step of the game
        self._avoid_seq = None
        self.paused = False
        self.last_status = Said(Text(N_("not started")))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.counts = {"moves": 0, "illegal": 0, "tiles": 0, "follow-ups": 0, "wrong-follow-ups": 0, "placed": 0,
                       "monster-button": 0, "entered": 0}

    # -- running -------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="simulated-players", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def pause(self, paused: bool = True) -> None:
        """The referee holds the players (their hands leave the board) or lets them go on."""
        self.paused = bool(paused)
        if self.paused:
            self.table.hand_over(None)

    def status(self) -> dict:
        """The players as the referee view shows them; each sentence as wording data (said in the reader's language)."""
        return {"paused": self.paused, "speed": self.speed, "err_rate": self.err_rate, "counts": dict(self.counts),
                "waiting_for": self.pending.what if self.pending else None,
                "last": self.log[-1].text if self.log else None, "now": self.last_status.text}

    def _run(self) -> None:
        while not self._stop.is_set():
            if self.paused:
                self._stop.wait(0.1)
                continue
            try:
                self.step()
            except Exception as exc:  # noqa: BLE001 - a player's slip must not stop the table
                self._say(Text(N_("a simulated player got confused (%(error)s); trying again"), error=exc))
            self._wait(PACE_S / 2)

    # -- one decision ------------------------------------------------------------
    def step(self) -> Said:
        """Look at the session and the table, do one thing; returns what was done, in words (a ``Said``),
        which is also what ``status()`` says the players are at now."""
        self.last_status = self._decide()
        return self.last_status

    def _decide(self) -> Said:
        w = self.watch()
        game = w.game
        if game is None:
            return _said(N_("waiting for the referee to start a game"))
        if game.phase == "over" and not (w.follow_up or self.table.differences(game.position)
                                         or self.table.view().tile is not None):
            return _said(N_("the game is over"))   # the others (engine.game.PHASES) are the players' to act in
        if self.pending is not None:
            done = self._check_pending(w)
            if done is not None:
                return done
        if self.table.view().tile is not None:
            self.table.lay_tile(None)
            return self._say(Text(N_("took the tombstone tile away from the card zone")))
        if self.table.differences(game.position):
            return self._follow_up(w)
        if w.follow_up:
            return _said(N_("waiting for the session to check the follow-up"))
        if game.phase == "over":       # the last monster move's follow-up done (above), nothing more to do
            return _said(N_("the game is over"))
        if game.phase == "placement":
            return self._place(w)
        if game.phase == "monster":
            return self._draw(w)
        return self._move(w)

    def _expect(self, kind: str, seq: int, what: Text, undo=None, choice=None, action=None) -> None:
        self.pending = Pending(kind, seq, what, undo=undo, frame=self.frames() if self.frames else 0,
                               choice=choice, action=action)

    def _check_pending(self, w: Watch) -> Said | None:
        p = self.pending
        if w.seq != p.seq:
            self.pending = None
            if p.kind == "illegal":
                self.applied_errors.append(str(p.what))
            return None
        if p.kind in ("follow-up", "wrong-follow-up") and not self.table.differences(w.game.position) \
                and not w.follow_up:
            self.pending = None
            return None
        p.waited += 1
        waited = self.frames() - p.frame if self.frames else p.waited
        complained = bool(w.complaint) or (p.kind == "wrong-follow-up" and w.follow_up)
        if p.kind in ("illegal", "wrong-follow-up") and (complained or waited >= PATIENCE):
            self.pending = None
            if p.undo is not None:
                self._with_hand(None, p.undo)
            return self._say(Text(N_("put it right after the session complained (%(complaint)s): %(what)s"),
                                  complaint=w.complaint or Text(N_("no reading")), what=p.what))
        if p.kind == "tile" and waited >= 2 * PATIENCE and self.press_monster is not None:
            self.pending = None        # the camera does not read the tile: press MONSTER, as TABLE.md says
            self.counts["monster-button"] += 1
            self.press_monster()
            return self._say(Text(N_("pressed MONSTER: the camera did not read %(what)s"), what=p.what))
        if p.kind == "move" and waited >= PATIENCE and p.choice is not None and w.uncover == p.choice[1] \
                and p.again < PUT_AGAIN:
            # The session cannot see the square the pawn was put on ("uncover o9": what lies there matches no
            # taught piece clearly): the player sets the pawn down there again, as one told so would.
            label, square = p.choice
            p.again += 1
            p.frame, p.waited = (self.frames() if self.frames else 0), 0
            self._with_hand(parse_square(square), lambda: self.table.move_pawn(label, square))
            return self._say(Text(N_("put %(pawn)s down again on %(square)s: the camera asked to see %(square)s"),
                                  pawn=PawnName(self.table.position().pawn(label).name), square=square))
        if p.kind in ("move", "place") and waited >= 2 * PATIENCE and self.avoid and self.referee_enters is not None \
                and p.action is not None:
            # a second move or placement the camera does not take (without stickers, a teleporter whose pairs
            # look alike under this light, say): the referee enters it by hand
            self.pending = None
            self.counts["entered"] += 1
            self.referee_enters(p.action)
            return self._say(Text(N_("the referee entered %(what)s: the camera did not take it"), what=p.what))
        if p.kind in ("move", "tile", "place") and waited >= 2 * PATIENCE and p.undo is not None:
            # Not taken for long (a pawn that stays behind the monster's figure flips where the camera
            # cannot see it): take it back and choose another move, as a player told so would.
            self.pending = None
            p.undo()
            if p.choice is not None:
                self.avoid.add(p.choice)
                if w.uncover == p.choice[1]:       # the camera cannot see that square: no pawn goes there now
                    self.avoid.add((ANY, p.choice[1]))
            return self._say(Text(N_("took back %(what)s: the camera did not take it"), what=p.what))
        return _said(N_("waiting for the camera to take %(what)s"), what=p.what)

    # -- actions on the table ------------------------------------------------------
    def _move(self, w: Watch) -> Said:
        game = w.game
        if self._avoid_seq != w.seq:
            self.avoid, self._avoid_seq = set(), w.seq
        label, target = self._choose(game)
        if label is None and self.avoid:      # every move was taken back: try them again (put down anew, the
            self.avoid = set()                # camera may take it this time), as players at a table would
            label, target = self._choose(game)
        if label is None:
            return _said(N_("%(colour)s has no pawn that can move where the camera sees it"),
                         colour=Colour(game.to_move))
        pawn = game.position.pawn(label)
        if self.rng.random() < self.err_rate:
            wrong = self._illegal_square(game, label)
            if wrong is not None:
                start = pawn.square if pawn.place == BOARD else None
                face = pawn.face
                self._with_hand(wrong, lambda: self.table.move_pawn(label, wrong))
                self.counts["illegal"] += 1
                what = Text(N_("%(pawn)s to %(square)s (no legal move goes there)"), pawn=PawnName(pawn.name),
                            square=square_name(wrong))
                self._expect("illegal", w.seq, what, undo=lambda: self.table.move_pawn(label, start, face))
                return self._say(_moved(game.to_move, what))
        after = game.apply({"type": "move", "pawn": label, "moves": target["moves"]}).position
        before = self.table.position()
        start = pawn.square if pawn.place == BOARD else None
        if start is not None:
            self._hand(start)
        self._with_hand(parse_square(target["square"]) if target["square"] not in (None, "out") else start,
                        lambda: self.table.arrange(after))
        self.counts["moves"] += 1
        if target["square"] == "out":
            what = Text(N_("%(pawn)s out through the exit"), pawn=PawnName(pawn.name))
        else:
            what = Text(N_("%(pawn)s to %(square)s"), pawn=PawnName(pawn.name), square=target["square"])
        self._expect("move", w.seq, what, undo=lambda: self.table.arrange(before, sloppy=False),
                     action={"type": "move", "pawn": label, "moves": target["moves"]},
                     choice=(label, target["square"]))
        return self._say(_moved(game.to_move, what))

    def _place(self, w: Watch) -> Said:
        """The player to place puts one board piece down (A2), by the policy of ``_choose_placement``."""
        game = w.game
        if self._avoid_seq != w.seq:
            self.avoid, self._avoid_seq = set(), w.seq
        if self.rng.random() < self.err_rate:
            wrong = self._illegal_placement(game)
            if wrong is not None:
                kind, sq = wrong
                self._with_hand(sq, lambda: self.table.put_piece(kind, (sq,)))
                self.counts["illegal"] += 1
                what = Text(N_("%(piece)s on %(square)s (next to a corner, A2)"), piece=piece_name(kind, "a-object"),
                            square=square_name(sq))
                self._expect("illegal", w.seq, what, undo=lambda: self.table.take_piece((sq,)))
                return self._say(_placed(game.placer, what))
        change = self._choose_placement(game)
        if change is None:
            return _said(N_("%(colour)s finds no piece to place"), colour=Colour(game.placer))
        action, placement = change.place, parse_placement(change.place, game.position)
        self._with_hand(placement.squares[0], lambda: self.table.put_piece(
            placement.piece, placement.squares, arrow=placement.arrow, pair=placement.pair))
        self.counts["placed"] += 1
        what = placement.describe_words()
        self._expect("place", w.seq, what, undo=lambda: self.table.take_piece(placement.squares), action=action,
                     choice=(action.piece, action.square, action.arrow, action.pair, action.orientation))
        return self._say(_placed(game.placer, what))

    def _choose_placement(self, game: Game):
        """A legal placement (the engine's A1/A2 rules, as players know them): a piece drawn at random
        from those left, put on a random square it may go to."""
        left = dict(game.pieces_left)
        kinds = sorted(k for k, n in left.items() if n)
        self.rng.shuffle(kinds)
        for kind in kinds:
            options = [c for c in legal_placements(game.position, {kind: left[kind]})
                       if (c.place.piece, c.place.square, c.place.arrow, c.place.pair, c.place.orientation)
                       not in self.avoid]
            if options:
                return self.rng.choice(options)
        return None

    def _illegal_placement(self, game: Game) -> tuple[str, int] | None:
        """A stone tile put down on or next to a corner square (A2 forbids it), if one is left and a square free."""
        left = [k for k, n in game.pieces_left if n and k in STONE_KINDS]
        pos = game.position
        free = [sq for sq in sorted(CORNER_ZONE) if sq != pos.monster and sq not in pos.stones]
        if not left or not free:
            return None
        return self.rng.choice(left), self.rng.choice(free)

    def _draw(self, w: Watch) -> Said:
        game = w.game
        drawn = tiles.draw_top(game.deck, first_of_game=game.first_tile_of_game, seed=game.seed,
                               prey3_variant=game.prey3_variant)
        self.table.lay_tile(drawn.tile)
        self.counts["tiles"] += 1
        name = tiles.tile_words(drawn.tile, prey3_variant=game.prey3_variant)
        self._expect("tile", w.seq, Text(N_("the tile %(tile)s"), tile=name),
                     undo=lambda: self.table.lay_tile(drawn.tile))
        return self._say(Text(N_("drew the tile %(tile)s and laid it in the card zone"), tile=name))

    def _follow_up(self, w: Watch) -> Said:
        """Bring the table into the game's position, square by square; sometimes leave one wrong."""
        target = w.game.position
        diffs = self.table.differences(target)
        wrong = len(diffs) > 1 and self.rng.random() < self.err_rate
        refused = None
        if wrong:
            # Everything but one square: a pawn the monster ate left standing, a stone not pushed…
            keep = self.rng.choice(diffs)
            partial = _except_square(self.table.position(), target, parse_square(keep))
            refused = self.table.refusal(partial)   # a stone left behind and the one pushed: 12 stones
            wrong = refused is None
        if wrong:
            self._with_hand(parse_square(diffs[0]), lambda: self.table.arrange(partial))
            if self.table.differences(target):
                self.counts["wrong-follow-ups"] += 1
                self._expect("wrong-follow-up", w.seq, Text(N_("the follow-up on %(square)s"), square=keep),
                             undo=lambda: self.table.arrange(target))
                return self._say(Text(N_("did the follow-up but left %(square)s as it was"), square=keep))
        self._with_hand(parse_square(diffs[0]), lambda: self.table.arrange(target))
        self.counts["follow-ups"] += 1
        self._expect("follow-up", w.seq, Text(N_("the follow-up")))
        if refused is not None:      # the table said why the slip could not be made
            return self._say(Text(N_("could not leave %(square)s as it was (%(why)s); did the follow-up: "
                                     "%(squares)s"), square=keep, why=refused, squares=listing(diffs)))
        return self._say(Text(N_("did the follow-up: %(squares)s"), squares=listing(diffs)))

    # -- the policy -------------------------------------------------------------------
    def _choose(self, game: Game):
        """A pawn of the player to move and a legal target (engine's move generator): out
        if it can, else mostly the square nearest the exit, sometimes any visible one."""
        mine = [lab for lab in game.unmoved if game.position.pawn(lab).colour == game.to_move]
        options = []
        for label in mine:
            for t in game.targets(label):
                if t["square"] is None:
                    continue   # staying beside the board: the camera cannot see a flip there
                if (label, t["square"]) not in self.avoid and (ANY, t["square"]) not in self.avoid:
                    options.append((label, t))   # staying on its square flips it (P1): the camera sees that
        if not options:
            return None, None
        out = [o for o in options if o[1]["square"] == "out"]
        if out:
            return out[0]
        if self.rng.random() < WANDER:
            return self.rng.choice(options)
        def stays(o):
            return game.position.pawn(o[0]).where() == o[1]["square"]
        return min(options, key=lambda o: (stays(o), _to_exit(o[1]["square"]), o[0], o[1]["moves"]))

    def _illegal_square(self, game: Game, label: str) -> int | None:
        """An empty floor square no legal move of ``label`` reaches (the player miscounted)."""
        legal = {t["square"] for t in game.targets(label)}
        pos = game.position
        busy = set(pos.stones) | set(pos.teleporters) | set(pos.pools) | {pos.monster} | set(pos.board_pawns())
        pawn = pos.pawn(label)
        here = pawn.square if pawn.place == BOARD else parse_square("p11")
        near = [sq for sq in SQUARES if sq not in busy and square_name(sq) not in legal
                and 2 <= abs(square_col(sq) - square_col(here)) + abs(square_row(sq) - square_row(here)) <= 9]
        return self.rng.choice(near) if near else None

    # -- hands and time ------------------------------------------------------------------
    def _with_hand(self, square, action: Callable[[], None]) -> None:
        """The hand comes over ``square`` (the camera sees it for ``hand_frames`` frames), the piece
        is put down, the hand stays a moment (at a watchable pace) and leaves."""
        self.table.hand_over(square)
        self._wait(PACE_S / 4, self.hand_frames)
        action()
        self._wait(PACE_S / 4, self.hand_frames if self.speed <= 4 else 0)
        self.table.hand_over(None)

    def _hand(self, square) -> None:
        """The hand picks a piece up from ``square`` (seen only at a watchable pace)."""
        if self.speed <= 4:
            self.table.hand_over(square)
            self._wait(PACE_S / 4, self.hand_frames)

    def _wait(self, seconds: float, frames: int = 0) -> None:
        """``seconds`` at speed 1 (shorter when faster), and until the camera took ``frames`` frames —
        but never longer than FRAME_WAIT_S for a camera that takes none (reopening, or switched off):
        a player's hand does not hang over the board for ever."""
        end = time.monotonic() + seconds / max(self.speed, 1e-3)
        start = self.frames() if (frames and self.frames) else None
        while not self._stop.is_set():
            now = time.monotonic()
            seen = start is None or self.frames() - start >= frames or now >= end + FRAME_WAIT_S
            if now >= end and seen:
                return
            self._stop.wait(min(0.02, max(0.0, end - now)) or 0.01)

    def _say(self, text: Text) -> Said:
        """Log what a player did (the last 200 lines); it is also the decision's status."""
        said = Said(text)
        self.log.append(said)
        del self.log[:-200]
        return said


def _said(template: str, **params) -> Said:
    """A status sentence (what the players are at, not logged)."""
    return Said(Text(template, **params))


def _moved(colour: str, what: Text) -> Text:
    return Text(N_("%(colour)s moved %(what)s"), colour=Colour(colour), what=what)


def _placed(colour: str, what: Text) -> Text:
    """A board piece put down (A2); ``what`` names the piece (with its article) and its square."""
    return Text(N_("%(colour)s put down %(what)s"), colour=Colour(colour), what=what)


def _to_exit(square: str) -> int:
    sq = parse_square(square)
    return square_col(sq) + square_row(sq)


def _except_square(current, target, keep: int):
    """``target`` with square ``keep`` left as it lies in ``current`` (a follow-up done wrong)."""
    from dataclasses import replace

    stones = dict(target.stones)
    stones.pop(keep, None)
    if keep in current.stones and keep not in target.board_pawns() and target.monster != keep:
        stones[keep] = current.stones[keep]
    pawns = []
    left = current.board_pawns().get(keep)
    for p in target.pawns:
        if p.label == left:
            pawns.append(current.pawn(left))
        elif p.place == BOARD and p.square == keep:
            pawns.append(current.pawn(p.label))   # not brought to its square yet
        else:
            pawns.append(p)
    pos = replace(target, stones=stones, pawns=tuple(pawns))
    if target.monster == keep or current.monster == keep:
        pos = replace(pos, monster=current.monster, facing=current.facing)
    return pos
