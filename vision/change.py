"""From camera readings to the engine's ``Observation``, and which legal change they show.

This is the edge between vision and the game (VISION.md "Reading a change"): a reading's
squares with a problem are *unknown* — hidden, unread, occluded, out of view, unsure,
or doubtful for any other reason — never empty; a square showing a piece whose sticker
does not decode is unknown too.  Everything else the reading lists (or leaves bare) is
seen.  ``engine.reconcile`` then finds the one legal change that fits.

Several frames of one camera are combined as the stable-frame gate does: a square
counts as seen only when every frame that sees it agrees; a square seen differently by
two frames, or a frame that is not located, refuses the answer.
"""
from __future__ import annotations

from typing import Iterable

from engine.geometry import SQUARES, parse_direction, parse_square, square_name
from engine.observation import ANY_PAWN, EMPTY, UNKNOWN, Look, Observation, PawnLook
from engine.position import Position, Teleporter
from engine.reconcile import Problem, Reconciliation, reconcile, refused

from .problems import board_not_located, problem_words

# Problems that only say the card zone cannot be read: the tile is unknown, the board still counts.
CARD_ZONE_CODES = ("card-zone-hidden", "card-zone-unclear", "two-tiles")
# Square-less problems that do not make the board doubtful: the squares decide (a monster or
# a teleporter nobody sees is simply not seen on its square, which is unknown or refused).
# A teleporter seen without its partner says nothing about the view: during the advanced setup the
# second tile is not placed yet (A2), in a game a missing tile is a difference the squares show.
GAME_DECIDES_CODES = ("teleporter-pair",)
HARMLESS_CODES = ("no-monster", *GAME_DECIDES_CODES)


def observe(reading, fixed: Iterable[str] = ()) -> tuple[Observation | None, list[Problem]]:
    """(Observation, blocking problems) of one reading: a vision ``Reading`` or its JSON form.

    Not located ⇒ (None, [why]).  A problem naming a square makes that square unknown, as
    does every square in the reading's ``unseen`` (the JSON form may carry it as
    ``{"unseen": {square name: code}}``); a problem naming none (an unknown marker, a
    sticker off the grid) cannot be pinned to a square and blocks the answer.  ``fixed``:
    squares a person has set by hand in the reading's setup — seen, whatever the camera said.
    """
    data = reading.to_json() if hasattr(reading, "to_json") else reading
    problems = data.get("problems") or []
    if not data.get("located") or data.get("setup") is None:
        return None, [Problem(p.get("code", "not-located"), p.get("message", ""), words=problem_words(p))
                      for p in problems] or [Problem.said("not-located", board_not_located())]
    why = dict(getattr(reading, "unseen", None) or {})
    why.update((parse_square(name), code) for name, code in (data.get("unseen") or {}).items())
    blocking: list[Problem] = []
    tile = data.get("tile")
    for p in problems:
        if isinstance(p.get("square"), str):
            why.setdefault(parse_square(p["square"]), p.get("code", "doubtful"))
        elif p.get("code") in CARD_ZONE_CODES:
            tile = UNKNOWN
        elif p.get("code") not in HARMLESS_CODES:
            blocking.append(Problem(p.get("code", "problem"), p.get("message", ""), words=problem_words(p)))
    for name in fixed:
        why.pop(parse_square(name), None)
    shown = setup_looks(data["setup"])
    seen = {sq: shown.get(sq, EMPTY) for sq in SQUARES if sq not in why}
    return Observation(seen, tile, why), blocking


def setup_looks(setup: dict) -> dict[int, Look]:
    """Square → Look of a reading's ``setup`` (SCENARIOS.md format; pawns by colour and kind)."""
    parts: dict[int, dict] = {}
    monster = setup.get("monster")
    if monster and monster.get("at"):
        parts.setdefault(parse_square(monster["at"]), {})["monster"] = parse_direction(monster["facing"])
    for name, kind in (setup.get("stones") or {}).items():
        parts.setdefault(parse_square(name), {})["stone"] = kind
    for name, t in (setup.get("teleporters") or {}).items():
        parts.setdefault(parse_square(name), {})["teleporter"] = Teleporter(t["pair"], parse_direction(t["arrow"]))
    for name in setup.get("pools") or []:
        parts.setdefault(parse_square(name), {})["pool"] = True
    for p in (setup.get("pawns") or {}).values():
        if p.get("at"):
            parts.setdefault(parse_square(p["at"]), {})["pawn"] = PawnLook(p.get("color"), p.get("pawn"),
                                                                             p.get("face", "white"))
    return {sq: Look(**kw) for sq, kw in parts.items()}


def agree(observations: list[Observation]) -> tuple[Observation, list[Problem]]:
    """One observation from consecutive frames: a square is seen only when every frame sees it
    the same; the card zone likewise.

    A square (or the card zone) that two frames see differently means something moved
    while they were taken: that is a problem, the frames disagree.
    """
    seen, why = {}, {}
    disagree = []
    for sq in SQUARES:
        views = [o.seen.get(sq) for o in observations]
        if any(v is None for v in views):
            why[sq] = next(o.why.get(sq, "not seen") for o in observations if sq not in o.seen)
        elif len(set(views)) > 1:
            disagree.append(sq)
            why[sq] = "frames-disagree"
        else:
            seen[sq] = views[0]
    tiles = {o.tile for o in observations}
    tile = UNKNOWN if UNKNOWN in tiles else tiles.pop() if len(tiles) == 1 else UNKNOWN
    problems = []
    if disagree:
        names = " ".join(square_name(sq) for sq in disagree[:8])
        problems.append(Problem("frames-disagree", f"the frames do not agree on {names}: something moved "
                                                   "while they were taken; waiting for a still table", disagree[0]))
    if UNKNOWN not in tiles and len({o.tile for o in observations}) > 1:
        problems.append(Problem("frames-disagree", "the frames do not agree on the tile in the card zone"))
    return Observation(seen, tile, why), problems


def explain_readings(before: Position, readings: list, mover: str = ANY_PAWN) -> Reconciliation:
    """The legal change that consecutive readings of one camera show (``flure vision explain``)."""
    observations, problems = [], []
    for reading in readings:
        obs, blocking = observe(reading)
        if obs is None:
            return refused(before, *blocking)
        observations.append(obs)
        problems.extend(b for b in blocking if b not in problems)
    combined, disagreement = agree(observations)
    if problems or disagreement:
        return refused(before, *problems, *disagreement, unseen=combined.unknown)
    return reconcile(before, combined, mover)
