"""Camera readings against the game: differences, the referee's fixes, and what a confirmation means.

The differences and fixes work on the setup JSON (SCENARIOS.md) that both the engine
and the camera speak.  Which legal change a reading shows — with the squares the camera
could not see taken as unknown, never empty — is decided by ``engine.reconcile`` (through
``vision.change.observe``); this module only turns its answer into a game action.
"""
from __future__ import annotations

import copy

from engine.actions import Action, Move, PawnAt, Tile
from engine.errors import InvalidSetupError
from engine.geometry import BadName, parse_direction, parse_square, square_name
from engine.names import KINDS, piece_name
from engine.position import COLOURS, FACES, PAWN_KINDS, STONE_KINDS, pawn_label
from engine.reconcile import Reconciliation, reconcile_game, refused, unseen_move
from engine.reconcile_place import placed_words
from engine.wording import N_, Direction, Join, Moves, PawnName, Text
from vision.change import observe, settle
from vision.problems import not_located_why

FIX_PIECES = ("empty", "monster", *STONE_KINDS, "pawn")


def square_contents(setup: dict) -> dict[str, str]:
    """Square → what stands on it, in words ("monster facing E", "red 3/4 (black)", "crystal")."""
    return {sq: str(words) for sq, words in square_words(setup).items()}


_FACE_WORDS = {"white": N_("%(pawn)s (white)"), "black": N_("%(pawn)s (black)")}


def square_words(setup: dict) -> dict:
    """``square_contents`` as wording data (engine.wording), for the referee's screen in its language."""
    out: dict = {}
    monster = setup.get("monster")
    if monster and monster.get("at"):
        out[monster["at"]] = Text(N_("monster facing %(direction)s"), direction=Direction(monster.get("facing")))
    for sq, kind in (setup.get("stones") or {}).items():
        out[sq] = piece_name(kind) if kind in KINDS else kind
    for sq, t in (setup.get("teleporters") or {}).items():
        out[sq] = Text(N_("teleporter %(pair)s arrow %(direction)s"), pair=t.get("pair"),
                       direction=Direction(t.get("arrow")))
    for label, p in (setup.get("pawns") or {}).items():
        if p.get("at"):
            who = PawnName(f"{p.get('color')} {p.get('pawn')}") if p.get("color") else label
            face = p.get("face", "white")
            out[p["at"]] = Text(_FACE_WORDS.get(face, "%(pawn)s (" + str(face) + ")"), pawn=who)
    return out


def compare(expected: dict, seen: dict, unknown=()) -> list[dict]:
    """Every square whose contents differ between the game and the reading, in board order, each side
    as wording data.

    Squares in ``unknown`` (the camera could not see them) are never a difference.
    """
    a, b = square_words(expected), square_words(seen)
    empty = Text(N_("empty"))
    out = []
    for sq in sorted((set(a) | set(b)) - set(unknown), key=parse_square):
        was, now = a.get(sq, empty), b.get(sq, empty)
        if str(was) != str(now):
            out.append({"square": sq, "expected": was, "seen": now})
    return out


def with_game_pools(seen: dict, game_setup: dict) -> dict:
    """The table ``seen`` (a setup) with the game's pools and teleporters where it shows none: in the
    pawn and monster phases nothing moves them (B1, T1), so a pool whose sticker a piece hides is no
    difference; a pool or a teleporter seen where the game has none still is (VISION.md "Reading a change")."""
    out = dict(seen)
    out["pools"] = sorted({*(seen.get("pools") or []), *(game_setup.get("pools") or [])}, key=parse_square)
    out["teleporters"] = {**(game_setup.get("teleporters") or {}), **(seen.get("teleporters") or {})}
    return out


def unseen_squares(reading, fixes=()) -> list[str]:
    """Squares the camera could not read (hidden, unread, occluded, out of view …), minus the
    referee's fixes, in board order."""
    observation, _blocking = observe(reading, fixed=fixes)
    return [square_name(sq) for sq in sorted(observation.unknown)] if observation is not None else []


def check_fix(square, piece) -> tuple[str, dict]:
    """Validate one referee fix; returns the normalised (square name, piece)."""
    if not isinstance(square, str):
        raise InvalidSetupError(Text(N_("give the square as a name like g7")), "square")
    try:
        name = square_name(parse_square(square))
    except BadName as exc:
        raise InvalidSetupError(exc.text, "square") from None
    if not isinstance(piece, dict) or piece.get("piece") not in FIX_PIECES:
        raise InvalidSetupError(Text(N_("piece must be one of %(choices)s"), choices=", ".join(FIX_PIECES)), "piece")
    kind = piece["piece"]
    fixed = {"piece": kind}
    if kind == "monster":
        try:
            parse_direction(piece.get("facing"))
        except (ValueError, TypeError, AttributeError):
            raise InvalidSetupError(Text(N_("the monster's heading must be N, E, S or W, not %(value)s"),
                                         value=f"{piece.get('facing')!r:.40}"), "facing") from None
        fixed["facing"] = piece["facing"].upper()
    if kind == "pawn":
        if piece.get("color") not in COLOURS:
            raise InvalidSetupError(Text(N_("pawn colour must be one of %(choices)s"), choices=", ".join(COLOURS)), "color")
        if piece.get("pawn") not in PAWN_KINDS:
            raise InvalidSetupError(Text(N_("pawn must be one of %(choices)s"), choices=", ".join(PAWN_KINDS)), "pawn")
        face = piece.get("face", "white")
        if face not in FACES:
            raise InvalidSetupError(Text(N_("face must be white or black, not %(value)s"), value=f"{face!r:.40}"), "face")
        fixed.update(color=piece["color"], pawn=piece["pawn"], face=face)
    return name, fixed


def fix_setup(setup: dict, fixes: dict[str, dict]) -> dict:
    """The reading's setup with each fixed square replaced by what the referee chose."""
    out = copy.deepcopy(setup)
    out.setdefault("stones", {})
    out.setdefault("pawns", {})
    for sq, piece in fixes.items():
        out["stones"].pop(sq, None)
        for label in [k for k, p in out["pawns"].items() if p.get("at") == sq]:
            del out["pawns"][label]
        kind = piece["piece"]
        if kind == "monster":
            out["monster"] = {"at": sq, "facing": piece["facing"]}
        elif kind in STONE_KINDS:
            out["stones"][sq] = kind
        elif kind == "pawn":
            label = pawn_label(piece['color'], piece['pawn'])
            out["pawns"][label] = {"at": sq, "color": piece["color"], "pawn": piece["pawn"], "face": piece["face"]}
    return out


def reconcile_reading(game, reading, fixes=(), frames=None) -> Reconciliation:
    """Which legal change of the game the (fixed) reading shows (``engine.reconcile``).

    ``reading`` is a vision Reading or its JSON; ``fixes`` the squares the referee set by
    hand (seen, whatever the camera said).  ``frames``: (readings, grey frames, scheme) the
    reading combines; in the pawn phase a refused answer then gets the prior-guided look of
    ``flure vision explain`` (``vision.change.settle``).
    """
    observation, blocking = observe(reading, fixed=fixes)
    if observation is None or blocking:
        return refused(game.position, *blocking, unseen=observation.unknown if observation else ())
    result = reconcile_game(game, observation)
    if frames and not result.accepted and game.phase == "pawns":
        readings, images, scheme = frames
        result = settle(observation, result, lambda seen: reconcile_game(game, seen), readings, images, scheme)
    return result


def action_for(game, result: Reconciliation) -> tuple[Action | None, object]:
    """The game action (``engine.actions``) an answer of ``engine.reconcile`` stands for, or None and
    why (wording data, engine.wording, or plain English text)."""
    if result.accepted and result.change == "tile":
        return Tile(result.tile), Text(N_("the camera read the tile %(tile)s"), tile=result.tile)
    if result.accepted and result.change == "place":
        return result.place, placed_words(result.place, game.position, game.placer)
    if result.accepted and result.change == "move":
        change = result.candidates[0]
        how = [" (", Moves(result.moves), ")"] if result.moves else []   # the compass letters in the reader's
        return (Move(result.pawn, result.moves),                                           # language
                Join("", [change.describe_words(game.position), *how]))
    problem = result.problems[0] if result.problems else None
    why = problem.message if problem else \
        Text(N_("the camera sees no change"))
    if game.phase == "monster":
        return None, Text(N_("It is the monster's turn: show the drawn tile to the camera, or enter it (G7); %(why)s"),
                          why=why)
    if any(p.code == "not-located" for p in result.problems):
        inner = not_located_why(why)    # "board not located: …" would say it twice
        return None, Text(N_("The camera has not located the board; nothing to confirm (%(why)s)"),
                          why=inner if inner is not None else Text(N_("no board markers seen")))
    if game.phase == "placement":
        return None, Text(N_("The reading is not one legal placement (A2): %(why)s"), why=why)
    return None, Text(N_("The reading is not one legal pawn move: %(why)s"), why=why)


def unseen_flip(game) -> tuple[PawnAt | None, object]:
    """The game action for the one move no camera can see (``engine.reconcile.unseen_move``: a
    flip beside the board, G4/G5) — a still table showing the game's position is all there is
    to see — and its sentence; (None, "") when the table must show the move."""
    unseen = unseen_move(game)
    if unseen is None:
        return None, ""
    pawn, rule = game.position.pawn(unseen[0]), unseen[1]
    return (PawnAt(pawn.label, None),
            Text(N_("%(pawn)s can only be flipped beside the board (%(rule)s), where the camera cannot see it; "
                    "the table agrees with the game"), pawn=PawnName(pawn.name), rule=rule))
