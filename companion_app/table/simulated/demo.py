"""The simulated table wired to a session: ``flure play`` without a camera, and ``flure play --demo``.

``SimulatedRig`` owns the physical table, the camera that films it and the simulated players.
The session gets the camera like any other (a frame source for its camera worker) and never
the table itself; the players get a read-only ``Watch`` of the session: the game, the journal
step, the camera loop's refusal and whether it waits for a follow-up (TABLE.md).

With the advanced setup (``flure play --demo --advanced``) the players first put the board pieces
down one by one (A2), and the camera reads each placement like a move.

``run_until_end`` is the headless demo: it waits for the game to end, watching for a stall,
and gives the numbers of the ``demo finished: …`` line from the session's journal.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from engine.geometry import parse_square, square_name
from engine.names import KINDS, piece_name
from engine.position import basic_position
from engine.wording import N_, PawnName, Text
from vision.twin.table import DEMO_SIZE, PhysicalTable, SimulatedCamera

from ..actors import By, read_by
from .simulated import SimulatedPlayers, Watch

DEMO_PLAYERS = ("red", "blue")
DEMO_SEED = 28         # a seed whose game ends after about 60 pawn moves (G10)
STALL_S = 90.0         # no journal step for this long (at speed 1): the demo is stuck
NO_CAMERA_S = 6.0      # without a camera: how long to watch the players act in vain before saying so
END_GRACE_S = 1.5      # the end stays served this long, so the phones and the LEDs show it
TEACH_STEP_S = 1.5     # at speed 1, how long each teaching step lies on the table before its photo
WINNER_SHOW_S = 12.0   # at speed 1, how long the winner is shown before the next demo game starts

log = logging.getLogger(__name__)


class SimulatedRig:
    """The physical table, its camera and the players, for one session."""

    def __init__(self, session, *, seed: int = DEMO_SEED, speed: float = 1.0, err_rate: float = 0.0,
                 size: tuple[int, int] = DEMO_SIZE, stickers: bool = True, look_seed: int = 0):
        self.session = session
        self.stickers, self.look_seed = stickers, look_seed     # without stickers: the box's own looks (NOSTICKERS.md)
        game = session.game
        self.table = PhysicalTable(game.position if game is not None else basic_position(), seed=seed)
        self.seed, self.size = seed, size
        self.source: SimulatedCamera | None = None
        self._frames_before = 0
        self.players = SimulatedPlayers(self.table, self.watch, seed=seed, speed=speed, err_rate=err_rate,
                                        frames=self.frames, hand_frames=1 if speed > 4 else 2,
                                        press_monster=None if stickers else self.press_monster,
                                        referee_enters=None if stickers else self.referee_enters)

    # -- the camera side (what the session's camera worker opens) -----------------------------
    def open_source(self) -> SimulatedCamera:
        """A camera on the table; reopening after a fault films the same table."""
        if self.source is not None:
            self._frames_before += self.source.frames
        self.source = SimulatedCamera(self.table, seed=self.seed, width=self.size[0], height=self.size[1],
                                      stickers=self.stickers, look_seed=self.look_seed)
        return self.source

    def teach(self, layout=None, *, on_step=None, camera=None):
        """Teach the box without stickers from the table's own camera (``vision.nostickers.teach`` over the
        teaching layout's steps laid out on the table), then set the game's position back; returns the
        ``Pieces``.  Raises ``TeachError`` as a family's teaching would.  ``on_step(n, step)``: called as
        each step lies on the table; ``camera``: the camera that takes the photos (default: the one the
        session's worker reads; give another while the worker runs)."""
        from vision.nostickers import teach
        from vision.teaching_layout import load_layout
        from vision.twin.table import teaching_photos

        layout = layout if layout is not None else load_layout()
        camera = camera or self.source or self.open_source()
        try:
            photos = teaching_photos(self.table, camera, layout, on_step=on_step)
        finally:
            game = self.session.game
            self.table.arrange(game.position if game is not None else basic_position(), sloppy=False)
            self.table.lay_tile(None)
        return teach(layout, photos)

    def teach_in_view(self, show_step, *, pace_s: float = 0.0):
        """``teach`` where everyone sees it (``flure play --demo --no-stickers``): each step is laid out on the
        table the session's camera films, ``show_step(n, steps, step)`` says it (the log, the LEDs), and the
        step stays ``pace_s`` seconds before its photo is taken by a camera of its own (the worker keeps
        reading the session's).  Returns the ``Pieces``; raises ``TeachError``."""
        from vision.teaching_layout import load_layout

        layout = load_layout()
        camera = SimulatedCamera(self.table, seed=self.seed, width=self.size[0], height=self.size[1],
                                 stickers=self.stickers, look_seed=self.look_seed)

        def on_step(n, step):
            show_step(n, len(layout), step)
            time.sleep(pace_s)
        return self.teach(layout, on_step=on_step, camera=camera)

    def press_monster(self) -> None:
        """The players press the table's MONSTER button (a tile the camera without stickers does not read,
        G7): an action that does not come through the camera, counted in the demo's referee actions."""
        from engine.actions import Draw
        from engine.errors import FlureError

        try:
            self.session.act(Draw(), by=By.BUTTON)
        except FlureError as exc:      # the game moved on meanwhile: nothing to press for
            log.info("MONSTER pressed by the simulated players: %s", exc)

    def referee_enters(self, action) -> None:
        """The referee enters a move or placement (an engine action) the camera without stickers did not take
        (the table shows it): a referee action of the demo line, as at a real table where the reader waits."""
        from engine.errors import FlureError

        try:
            self.session.act(action, by=By.REFEREE)
        except FlureError as exc:      # the game moved on meanwhile
            log.info("a move entered for the simulated players: %s", exc)

    def frames(self) -> int:
        """The frames the camera took (counting on across a reopening: the players' hands wait on it)."""
        return self._frames_before + (self.source.frames if self.source is not None else 0)

    # -- the players' view of the session ---------------------------------------------------------
    def watch(self) -> Watch:
        session = self.session
        loop = getattr(session, "loop", None)
        view = (getattr(loop, "view", None) or {}) if loop is not None else {}
        change = view.get("change") or {}
        complaint = change.get("message") if change.get("kind") == "refused" else None
        following = getattr(session, "follow", None) is not None
        if following and view.get("follow") and not view["follow"].get("done") and view.get("stable"):
            complaint = complaint or view.get("why_not")
        uncover = view.get("uncover") if view.get("stable") else None
        return Watch(session.game, session.seq, complaint, following, uncover)

    @property
    def follow_ups(self) -> int:
        """The follow-ups the session's camera saw done: the session counts them as it checks them
        (``TableLoop.checked``); the players only look now and then and could miss one."""
        loop = getattr(self.session, "loop", None)
        return getattr(loop, "checked", 0)

    # -- the referee's hands on the simulated table -------------------------------------------------
    def pause(self, paused: bool) -> dict:
        self.players.pause(paused)
        return self.status()

    def move_piece(self, frm: str, to: str | None) -> dict:
        """The referee moves a piece on the simulated table; ValueError names what is wrong.
        What was moved is given as wording data (``moved``, said in the reader's language)."""
        piece = self._occupant(frm)
        self.table.move_piece(frm, to)
        square = square_name(parse_square(frm))
        if to is None:
            words = Text(N_("%(piece)s from %(square)s to beside the board"), piece=piece, square=square)
        else:
            words = Text(N_("%(piece)s from %(square)s to %(target)s"), piece=piece, square=square,
                         target=square_name(parse_square(to)))
        return {**self.status(), "moved": words}

    def _occupant(self, square: str):
        """What lies on ``square`` as wording data (a pawn, a board piece, the monster), or None."""
        try:
            what = self.table.occupant(parse_square(square))
        except ValueError:
            return None         # the table's own move_piece names the bad square
        if what is None:
            return None
        if what in KINDS:
            return piece_name(what)
        return PawnName(self.table.position().pawn(what).name)

    def status(self) -> dict:
        return {"players": self.players.status(), "frames": self.frames(),
                "table": self.table.position().to_setup(), "tile": self.table.view().tile}

    def start(self) -> "SimulatedRig":
        self.players.start()
        return self

    def close(self) -> None:
        self.players.stop()


def teach_the_table(session, rig: SimulatedRig, taught, *, speed: float = 1.0):
    """``flure play --demo --no-stickers``: the simulated table teaches itself before the game, where the
    views show it — the log says each step of the teaching layout, the LEDs light the step's squares, the
    camera films it — then ``taught(pieces)`` gives the session's camera what it learned.  Returns the
    ``Pieces``; raises ``TeachError`` as a family's teaching would."""
    from engine.observation import looks

    def show_step(n: int, steps: int, step) -> None:
        session.add_log_line(Text(N_("Teaching the camera, step %(step)s of %(steps)s: %(say)s"), step=n + 1,
                                  steps=steps, say=step.words))
        squares = [square_name(sq) for sq in sorted(sq for sq in looks(step.pieces()) if sq is not None)]
        session.leds.call(lambda leds: leds.show_follow(None, fill=squares))
        session.publish_state()

    session.lend_leds()             # the steps' squares on the LEDs meanwhile, not the game's view
    try:
        pieces = rig.teach_in_view(show_step, pace_s=TEACH_STEP_S / max(speed, 1.0))
    finally:
        session.take_back_leds()
    taught(pieces)
    session.add_log_line(Text(N_("The camera has learned this box (%(faces)s piece faces, %(tiles)s tombstone "
                                 "tiles): the game begins"), faces=len(pieces.faces), tiles=len(pieces.tiles)))
    session.publish_state()
    return pieces


@dataclass
class DemoResult:
    winner: str | None
    text: str
    moves: int
    monster: int
    follow_ups: int
    referee: int

    def line(self) -> str:
        return (f"demo finished: {self.text}; {self.moves} moves read by the camera, {self.monster} monster moves, "
                f"{self.follow_ups} follow-ups checked, {self.referee} referee actions")


def journal_counts(store, game_id: int) -> tuple[int, int, int]:
    """(pawn moves by the camera, monster moves, actions that did not come through the camera),
    from the session's journal (undone steps left out)."""
    moves = monster = referee = 0
    for step in store.history(game_id)[1:]:
        action = step.action
        by = read_by(action.get("by", By.REFEREE))
        if by is None or not by.camera:
            referee += 1
        elif action.get("type") in ("move", "pawn-at"):
            moves += 1
        if action.get("type") in ("tile", "draw"):
            monster += 1
    return moves, monster, referee


def run_until_end(session, rig: SimulatedRig, *, speed: float = 1.0, camera: bool = True,
                  stall_s: float | None = None) -> tuple[int, str | Text]:
    """Wait for the demo game to end; (exit status, last line).  The contract line ``demo finished: …``
    is a plain English str (TABLE.md); a stall's line is wording data (``Text``) the caller renders.  A
    stall ends it with the reason; without a camera that is certain (the players act only on the
    table), so it is said sooner."""
    stall = stall_s if stall_s is not None else max(20.0, STALL_S / max(speed, 1.0)) if camera else NO_CAMERA_S
    last_seq, last_change = session.seq, time.monotonic()
    while True:
        game = session.game
        if game is not None and game.phase == "over":
            moves, monster, referee = journal_counts(session.store, session.game_id)
            result = DemoResult(game.winner, str(game.summary()).rstrip("."), moves, monster, rig.follow_ups, referee)
            return 0, result.line()
        if session.seq != last_seq:
            last_seq, last_change = session.seq, time.monotonic()
        elif time.monotonic() - last_change > stall:
            done = rig.players.log[-1] if rig.players.log else Text(N_("nothing yet"))
            if not camera:
                return 1, Text(N_("demo cannot progress: there is no camera (--no-camera), and the game learns what "
                                  "the simulated players do only through it. The game is still at step %(step)s "
                                  "(%(summary)s); the players are %(status)s"),
                               step=session.seq, summary=session.state()["summary"], status=rig.players.last_status)
            view = getattr(getattr(session, "loop", None), "view", None) or {}
            why = view.get("why_not") or session.camera.status().get("message", "")
            return 1, Text(N_("demo stopped: no progress for %(seconds)s s at step %(step)s: %(why)s. "
                              "The players last did: %(done)s"),
                           seconds=f"{stall:.0f}", step=session.seq, why=why or Text(N_("nothing reads the table")),
                           done=done)
        time.sleep(0.1)


class DemoCycle:
    """``flure play --demo`` without ``--until-end``: once a game has ended and its winner has been
    shown for ``show_s`` seconds, the next demo game starts with the next seed, for as long as the
    table runs (a café's window never shows a finished game for ever).  A game the referee starts
    meanwhile is left alone; its end starts the next demo game too."""

    def __init__(self, session, *, seed: int, setup: str = "basic", speed: float = 1.0,
                 show_s: float | None = None, players=DEMO_PLAYERS):
        self.session, self.seed, self.setup, self.players = session, seed, setup, list(players)
        self.show_s = WINNER_SHOW_S / max(speed, 1.0) if show_s is None else show_s
        self.started = 0                 # demo games this cycle started
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="demo-cycle", daemon=True)

    def start(self) -> "DemoCycle":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        over_since: tuple[int | None, float] | None = None    # (game, when its end was first seen)
        while not self._stop.wait(0.2):
            game, game_id = self.session.game, self.session.game_id
            if game is None or game.phase != "over":
                over_since = None
                continue
            if over_since is None or over_since[0] != game_id:
                over_since = (game_id, time.monotonic())
            if time.monotonic() - over_since[1] < self.show_s:
                continue
            self.seed += 1
            try:
                self.session.new_game(self.players, seed=self.seed, setup=self.setup)
            except Exception:  # noqa: BLE001 - a journal that cannot take it now: tried again, said in the log
                log.exception("the next demo game (seed %s) could not start", self.seed)
                self._stop.wait(5.0)
                continue
            self.started += 1
            log.info("demo game %s started (seed %s)", self.session.game_id, self.seed)
            over_since = None
