"""The one stable-frame gate (VISION.md "Reading a change"): when the recent frames of a still
table count as one reading the game may act on.

The table's camera worker, ``TableCamera`` (``flure vision watch``) and ``flure vision eval``
(readings and ``--moves``) all go through ``StableGate``, so the acceptance the eval measures
is the app's.  The gate turns the combined reading into the engine's ``Observation`` once
(``StableGate.observation``): whoever acts on a stable reading takes that value.
"""
from __future__ import annotations

import json
from collections import deque

from engine.geometry import square_name
from engine.observation import ANY_PAWN, UNKNOWN, Observation
from engine.position import Position
from engine.reconcile import Problem, Reconciliation, reconcile, refused
from engine.wording import N_, Text

from . import problems as say
from .change import GAME_DECIDES_CODES, combine, observe, settle
from .nostickers.read import MONSTER_UNREAD
from .problems import problem_words
from .reading import problem

UNKNOWN_CODES = ("hidden-square", "unread-square")   # the square is unknown, the reading is still usable
# In one frame of the gate's window a hand over some squares only hides them from that frame.
FRAME_UNKNOWN_CODES = (*UNKNOWN_CODES, "occluded")
STILL_COVER_SQUARES = 8      # a still cover this small is a thing on the board, not a hand (_still_cover)
WINDOW_FACTOR = 3            # the gate keeps up to this many times stable_frames recent frames


def split_problems(problems, unknown_codes=UNKNOWN_CODES) -> tuple[list[str], list[dict]]:
    """(unknown squares, blocking problems) of a reading's problem list; a problem of one of
    ``unknown_codes`` naming a square only makes that square unknown."""
    unknown, blocking = [], []
    for p in problems or []:
        if p.get("code") in unknown_codes and isinstance(p.get("square"), str):
            if p["square"] not in unknown:
                unknown.append(p["square"])
        elif p.get("code") not in GAME_DECIDES_CODES:
            blocking.append(p)
    return unknown, blocking


class StableGate:
    """The stable-frame gate over the recent frames of a still table (VISION.md "Reading a change").

    It keeps the last usable frames that agree with one another where they both see a square
    (a frame that sees a square differently means the table changed: the older frames go) and
    combines them square by square with ``vision.change.combine`` — the path of ``flure vision
    explain`` — so a square is seen when ``needed`` frames see it the same way, though a hand
    covered it in another.  The table may change under a hand, so only the frames after the
    last one that covered a square count for it.  The combination is stable once ``needed``
    frames agree and no covered square is still waiting for them — unless a small cover lies
    still over the same squares in those frames (the monster's figure over its neighbours): its
    squares are then unknown and the game decides; each new stable combination
    gets a new serial.  A bumped camera (``Reading.bumped``) starts the count again.

    ``combined`` is the combination's reading JSON (the ``flure vision read`` form) and
    ``observation`` its ``Observation``, made once here for whoever acts on it.
    """

    def __init__(self, needed: int, window: int | None = None):
        if needed < 1:
            raise ValueError("stable_frames must be at least 1")
        self.needed = needed
        self.window = max(needed, window or WINDOW_FACTOR * needed)
        self.frames: deque = deque()      # (reading, Observation, gray image or None) of the agreeing recent frames
        self.combined: dict | None = None  # the reading JSON of those frames combined
        self.observation: Observation | None = None   # ``observe(combined)``, made once per frame fed
        self.key = None
        self.count = 0
        self.serial = 0

    def feed(self, reading, gray=None) -> tuple[bool, list[str], list[dict]]:
        """(stable, unknown squares, blocking problems) after one more reading (vision Reading);
        ``gray``: its frame in grey, kept for a prior-guided look (``looks``)."""
        unknown, blocking = split_problems(reading.problems, FRAME_UNKNOWN_CODES)
        usable = reading.located and reading.setup is not None and not blocking and not getattr(reading, "bumped", False)
        obs = observe(reading)[0] if usable else None
        if obs is None:
            self.reset()
            return (False, *split_problems(reading.problems))
        while self.frames and any(not _agree(obs, other) for _r, other, _g in self.frames):
            self.frames.popleft()          # the table changed since: only the frames after it count
        self.frames.append((reading, obs, gray))
        while len(self.frames) > self.window:
            self.frames.popleft()
        self.combined = combine([r for r, _o, _g in self.frames], min_seen=self.needed, after_cover=True)
        seen, blocking = observe(self.combined)
        self.observation = seen
        covered = sorted(sq for sq, why in seen.why.items() if why == "occluded")
        if covered and not self._still_cover():
            names = " ".join(square_name(sq) for sq in covered[:8]) + (" …" if len(covered) > 8 else "")
            blocking = [*blocking, problem(say.OCCLUDED, covered[0], count=len(covered), squares=names)]
        unknown = [square_name(sq) for sq in sorted(seen.unknown)]
        self.count = len(self.frames)
        stable = self.count >= self.needed and not blocking and _monster_known(self.combined)
        key = json.dumps([self.combined["setup"], self.combined.get("tile"), unknown], sort_keys=True)
        if stable and key != self.key:
            self.serial += 1
            self.key = key
        return stable, unknown, [p if isinstance(p, dict) else p.to_json() for p in blocking]

    def _still_cover(self) -> bool:
        """The last ``needed`` frames cover the same few squares: a small thing lies still over the board (the
        monster's figure leaning over its neighbours, a tall piece), so its squares are unknown and the game
        decides.  A hand and forearm cover more (15 squares and up at the table's scale), and a cover that
        moves between frames is a hand at work: the gate waits for either to go (TABLE.md)."""
        recent = list(self.frames)[-self.needed:]
        if len(recent) < self.needed:
            return False
        covers = {frozenset(sq for sq, why in obs.why.items() if why == "occluded") for _r, obs, _g in recent}
        return len(covers) == 1 and len(next(iter(covers))) <= STILL_COVER_SQUARES

    def looks(self) -> tuple[list, list] | None:
        """(readings, grey frames) of the kept frames for ``vision.change.settle``, or None when a
        frame came without its picture."""
        if not self.frames or any(g is None for _r, _o, g in self.frames):
            return None
        return [r for r, _o, _g in self.frames], [g for _r, _o, g in self.frames]

    def reset(self) -> None:
        self.frames.clear()
        self.combined = self.observation = None
        self.key, self.count = None, 0


def _monster_known(combined: dict) -> bool:
    """The monster seen, or its square left to the game by a reader that does not read it (NOSTICKERS.md:
    the monster's heading is the game's when it is not seen)."""
    return bool(combined["setup"].get("monster")) or MONSTER_UNREAD in (combined.get("unseen") or {}).values()


def _agree(a, b) -> bool:
    """Two frames' observations see every square both see, and the card zone, the same way."""
    if any(b.seen[sq] != look for sq, look in a.seen.items() if sq in b.seen):
        return False
    return a.tile is UNKNOWN or b.tile is UNKNOWN or a.tile == b.tile


def explain_stable(before: Position, readings: list, mover: str = ANY_PAWN, images: list | None = None,
                   scheme=None, needed: int | None = None) -> Reconciliation:
    """The legal change consecutive readings of one camera show once they pass the stable-frame gate,
    fed one by one as the table's camera worker feeds it (``needed``: its ``stable_frames``, all the
    readings by default); refused, with the gate's reason, while the gate would still wait.  With the
    frames' ``images`` a refused answer gets the prior-guided look (``vision.change.settle``), as the
    table's loop gives it.  ``flure vision eval --moves`` measures this."""
    gate = StableGate(needed or len(readings))
    stable, blocking = False, []
    for k, reading in enumerate(readings):
        stable, _unknown, blocking = gate.feed(reading, images[k] if images is not None else None)
    if not stable or gate.observation is None:
        why = [Problem(p.get("code", "problem"), problem_words(p)) for p in blocking]
        return refused(before, *(why or [Problem("not-steady", Text(N_(
            "waiting for a steady view (%(count)s of %(needed)s frames)"), count=gate.count, needed=gate.needed))]),
                       unseen=gate.observation.unknown if gate.observation is not None else ())
    result = reconcile(before, gate.observation, mover)
    kept = gate.looks()
    if kept is None or result.accepted:
        return result
    return settle(gate.observation, result, lambda seen: reconcile(before, seen, mover), *kept, scheme)
