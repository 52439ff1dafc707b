"""From camera readings to the engine's ``Observation``, and which legal change they show.

This is the edge between vision and the game (VISION.md "Reading a change"): a reading's
squares with a problem are *unknown* — hidden, unread, occluded, out of view, unsure,
or doubtful for any other reason — never empty; a square showing a piece whose sticker
does not decode is unknown too.  Everything else the reading lists (or leaves bare) is
seen.  ``engine.reconcile`` then finds the one legal change that fits.

Several frames of one camera over a still table are combined square by square
(``combine``): a square counts as seen when the frames that see it agree on it, and is
unknown when two frames see it differently; a frame that is not located, or has a problem
that blocks, adds nothing.  ``flure vision explain`` and the table's camera worker both
read a change through ``combine``.
"""
from __future__ import annotations

from typing import Iterable

from engine.geometry import SQUARES, parse_direction, parse_square, square_name
from engine.observation import ANY_PAWN, EMPTY, UNKNOWN, Observation, PawnLook, SquareLook
from engine.position import Position, Teleporter, pawn_label
from engine.reconcile import Problem, Reconciliation, reconcile, refused

from . import problems as say
from .problems import board_not_located, problem_words
from .reading import problem

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
        return None, [Problem(p.get("code", "not-located"), problem_words(p))
                      for p in problems] or [Problem("not-located", board_not_located())]
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
            blocking.append(Problem(p.get("code", "problem"), problem_words(p)))
    for name in fixed:
        why.pop(parse_square(name), None)
    shown = setup_looks(data["setup"])
    seen = {sq: shown.get(sq, EMPTY) for sq in SQUARES if sq not in why}
    return Observation(seen, tile, why), blocking


def setup_looks(setup: dict) -> dict[int, SquareLook]:
    """Square → SquareLook of a reading's ``setup`` (SCENARIOS.md format; pawns by colour and kind)."""
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
    return {sq: SquareLook(**kw) for sq, kw in parts.items()}


def agree(observations: list[Observation], min_seen: int = 1, after_cover: bool = False) -> Observation:
    """One observation from consecutive frames of one camera (VISION.md "Reading a change"): a
    square counts as seen when the frames that see it agree on it — a hand or an undecoded
    sticker in one frame does not make it unknown if the others see it — and as unknown
    (``frames-disagree``) when two frames see it differently.  The card zone likewise.

    ``min_seen``: the frames that must see a square for it to count.  ``after_cover``: for a
    table that may change under a hand (the camera worker), only the frames after the last one
    in which something covered the square count for it.
    """
    seen, why = {}, {}
    for sq in SQUARES:
        frames = observations
        if after_cover:
            last = max((k for k, o in enumerate(observations) if o.why.get(sq) == "occluded"), default=-1)
            frames = observations[last + 1:]
        views = [o.seen[sq] for o in frames if sq in o.seen]
        if len(set(views)) > 1:
            why[sq] = "frames-disagree"
        elif views and len(views) >= min_seen:
            seen[sq] = views[0]
        else:
            why[sq] = next((o.why[sq] for o in reversed(observations) if sq in o.why), "not seen")
    tiles = {o.tile for o in observations} - {UNKNOWN}
    return Observation(seen, tiles.pop() if len(tiles) == 1 else UNKNOWN, why)


def reading_json(reading) -> dict:
    """A vision ``Reading`` (or its JSON) as JSON, with every square it could not establish under
    ``unseen`` (``observe`` reads it back)."""
    if not hasattr(reading, "to_json"):
        return reading
    data = reading.to_json()
    if getattr(reading, "unseen", None):
        data["unseen"] = {square_name(sq): code for sq, code in sorted(reading.unseen.items())}
    return data


def combine(readings, min_seen: int = 1, after_cover: bool = False) -> dict:
    """The reading JSON of consecutive frames of one camera over a still table: each frame observed
    (``observe``), the usable ones — located, no problem that blocks — combined square by square
    (``agree``).  ``observe`` of the answer gives the combined observation back; this is the one path
    of ``flure vision explain`` and of the table's camera worker.  With no usable frame, the first
    frame's own reading (its problems say why).  ``min_seen`` and ``after_cover`` as in ``agree``."""
    frames = [reading_json(r) for r in readings]
    if not frames:
        raise ValueError("combine needs at least one reading")
    usable = []
    for data in frames:
        obs, blocking = observe(data)
        if obs is not None and not blocking:
            usable.append(obs)
    if not usable:
        return frames[0]
    if len(frames) == 1 and min_seen == 1:
        return frames[0]
    return observation_json(agree(usable, min_seen, after_cover), frames=len(usable))


def observation_json(obs: Observation, **extra) -> dict:
    """A reading JSON (``setup``, ``tile``, ``unseen``) whose ``observe`` is ``obs``."""
    setup: dict = {"monster": None, "stones": {}, "pools": [], "teleporters": {}, "pawns": {}}
    for sq, look in sorted(obs.seen.items()):
        name = square_name(sq)
        if look.monster is not None:
            setup["monster"] = {"at": name, "facing": "NESW"[look.monster]}
        if look.stone is not None:
            setup["stones"][name] = look.stone
        if look.pool:
            setup["pools"].append(name)
        if look.teleporter is not None:
            setup["teleporters"][name] = {"pair": look.teleporter.pair, "arrow": "NESW"[look.teleporter.arrow]}
        if look.pawn is not None:
            p = look.pawn
            label = pawn_label(p.colour, p.kind) if p.colour and p.kind else f"pawn-{name}"
            if label in setup["pawns"]:
                label = f"{label}@{name}"    # seen on two squares by different frames: both are kept
            setup["pawns"][label] = {"at": name, "color": p.colour, "pawn": p.kind, "face": p.face}
    problems = [] if obs.tile is not UNKNOWN else [problem(say.CARD_ZONE_UNCLEAR)]
    return {"located": True, "setup": setup, "tile": None if obs.tile is UNKNOWN else obs.tile,
            "problems": problems,
            "unseen": {square_name(sq): obs.why.get(sq, "not seen") for sq in sorted(obs.unknown)},
            **extra}


def explain_readings(before: Position, readings: list, mover: str = ANY_PAWN, images: list | None = None,
                     scheme=None) -> Reconciliation:
    """The legal change that consecutive readings of one camera show (``flure vision explain``):
    ``combine``, then ``engine.reconcile`` — as the table's camera worker and loop do.

    With the frames' ``images`` (and the ``scheme`` they were read with), an answer left ambiguous
    or with its moved pawn's square unseen gets a prior-guided look at that square
    (``vision.guided``): the stickers the fitting changes expect there are tested against each
    frame, and one read clearly and contradicted by no frame makes the square seen."""
    obs, blocking = observe(combine(readings))
    if obs is None or blocking:
        return refused(before, *blocking, unseen=obs.unknown if obs is not None else ())
    result = reconcile(before, obs, mover)
    if images is None:
        return result
    return settle(obs, result, lambda seen: reconcile(before, seen, mover), readings, images, scheme)


def settle(obs: Observation, result: Reconciliation, again, readings: list, images: list,
           scheme=None) -> Reconciliation:
    """A refused answer given a prior-guided look (``guided_square``) at the unseen squares that
    tell its candidates apart, one after another, each read square seen when ``again(observation)``
    reconciles anew; the answer as it then stands."""
    tried: set[int] = set()
    while not result.accepted and len(tried) < GUIDED_SQUARES:
        square = next((sq for sq in _telling(result, obs) if sq not in tried), None)
        if square is None:
            break
        tried.add(square)
        look = guided_square(square, result.candidates, readings, images, scheme)
        if look is not None:
            obs = Observation({**obs.seen, square: look}, obs.tile,
                              {sq: why for sq, why in obs.why.items() if sq != square})
            result = again(obs)
    return result


GUIDED_SQUARES = 6      # squares one answer may look at again with the game's expectations


def _telling(result: Reconciliation, obs: Observation) -> list[int]:
    """The unseen squares whose look would tell a refused answer's candidates apart (the moved pawn's
    square for ``destination-unseen``), the one the answer names first."""
    from engine.observation import looks

    if not any(p.code in ("ambiguous", "destination-unseen") for p in result.problems):
        return []
    named = [p.square for p in result.problems if p.square is not None and p.square in obs.unknown]
    shown = [looks(c.after) for c in result.candidates]
    apart = [sq for sq in sorted(obs.unknown) if len({s.get(sq, EMPTY) for s in shown}) > 1]
    return named + [sq for sq in apart if sq not in named]


def guided_square(square: int, candidates, readings: list, images: list, scheme=None) -> SquareLook | None:
    """What the candidates' stickers read on ``square`` say stands there (``vision.guided``), or None.

    Each candidate change puts one look on the square; a sticker id that two different looks share
    is no evidence.  The look is taken when the frames that read an expected sticker there all read
    the same one, and no frame's blind reading sees the square otherwise."""
    from engine.observation import looks

    from .detect import check_frame
    from .guided import guided_look, sticker_ids
    from .scheme import load_scheme

    scheme = scheme if scheme is not None and not isinstance(scheme, str) else load_scheme(scheme)
    by_id: dict[int, SquareLook | None] = {}
    for change in candidates:
        look = looks(change.after).get(square, EMPTY)
        for sid in sticker_ids(scheme, look):
            by_id[sid] = look if by_id.get(sid, look) == look else None
    expected = {sid for sid, look in by_id.items() if look is not None}
    found: set = set()
    for reading, image in zip(readings, images):
        frame, _problems = observe(reading_json(reading))
        location = getattr(reading, "location", None)
        if frame is None or location is None:
            continue
        gray, _why = check_frame(image)
        sid = guided_look(gray, location, scheme, square, expected) if gray is not None else None
        if sid is not None:
            found.add(by_id[sid])
    if len(found) != 1:
        return None
    look = found.pop()
    for reading in readings:       # never against the blind decoder: a frame that sees the square otherwise
        frame, _problems = observe(reading_json(reading))
        if frame is not None and square in frame.seen and frame.seen[square] != look:
            return None
    return look
