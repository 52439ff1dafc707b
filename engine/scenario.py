"""Scenario files (SCENARIOS.md): parse, run, compare — pure functions, no file I/O."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import IllegalMoveError, InvalidSetupError
from .monster import PREY_STEP_CAP, TILE_KINDS, resolve
from .pawns import MOVE_LETTERS, apply_moves, reachable
from .position import BOARD, Position
from .wording import N_, Term, Text

FORMAT = "flure-scenario/1"
TOP_KEYS = ("format", "name", "setup", "action", "expect")
# Free text a scenario may carry for its readers.  Any other unknown top-level key is kept as a
# warning, not an error: SCENARIOS.md lists what makes a file invalid, and an extra key is not on
# that list; the warning still catches a typo such as "expected".
NOTE_KEYS = ("description", "comment", "comments", "note", "notes", "source", "$schema")
# Outcome keys an ``expect`` may hold: those of SCENARIOS.md, then the extras ``run`` also prints.
MONSTER_KEYS = ("path", "monster", "eaten", "stones", "pawns", "steps", "final_look", "stop")
MOVE_KEYS = ("legal", "reason", "stones", "pawns", "rule", "failed_at")
REACH_KEYS = ("reachable",)
# The JSON shape of each outcome value, for a readable error instead of a failed comparison.
_SHAPES = {
    "path": ("list", N_("a list of square names")), "eaten": ("list", N_("a list of pawn labels")),
    "reachable": ("list", N_("a list of square names and \"out\"")), "monster": ("object", "{\"at\": ..., \"facing\": ...}"),
    "stones": ("object", N_("an object square -> kind")), "pawns": ("object", N_("an object label -> square")),
    "final_look": ("object", N_("an object")), "stop": ("object", N_("an object")), "legal": ("bool", N_("true or false")),
    "reason": ("text", N_("text")), "rule": ("text", N_("a rule id such as P7")),
    "steps": ("steps", N_("a list of steps or a count")),
    "failed_at": ("count", N_("a move number")),
}


@dataclass(frozen=True)
class Scenario:
    name: str
    position: Position
    action: dict
    expect: dict | None
    warnings: tuple[str, ...] = ()

    @property
    def kind(self) -> str:
        if "card" in self.action or "steps" in self.action:
            return "monster"
        return "reachable" if "reachable" in self.action else "move"


def parse_scenario(data) -> Scenario:
    """Validate a scenario object; InvalidSetupError names the offending field."""
    if not isinstance(data, dict):
        raise InvalidSetupError(N_("the file must hold one JSON object"), "scenario")
    warnings = tuple(f"unknown key {key!r} ignored (a scenario has {', '.join(TOP_KEYS)})"
                     for key in data if key not in TOP_KEYS and key not in NOTE_KEYS)
    fmt = data.get("format", FORMAT)
    if fmt != FORMAT:
        raise InvalidSetupError(Text(N_("unknown format %(format)s (expected %(expected)s)"), format=repr(fmt),
                                     expected=repr(FORMAT)), "format")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise InvalidSetupError(N_("must be text"), "name")
    if "setup" not in data:
        raise InvalidSetupError(N_("missing"), "setup")
    position = Position.from_setup(data["setup"], strict=True)
    if "action" not in data:
        raise InvalidSetupError(N_("missing"), "action")
    action = _check_action(data["action"], position)
    expect = data.get("expect")
    scenario = Scenario(name, position, action, expect, warnings)
    if expect is not None:
        if not isinstance(expect, dict):
            raise InvalidSetupError(N_("must be an object"), "expect")
        allowed = {"monster": MONSTER_KEYS, "move": MOVE_KEYS, "reachable": REACH_KEYS}[scenario.kind]
        for key, value in expect.items():
            if key not in allowed:
                raise InvalidSetupError(Text(N_("%(key)s is not an outcome of this action (expected one of %(allowed)s)"),
                                             key=repr(key), allowed=", ".join(allowed)), f"expect.{key}")
            _check_shape(key, value)
    return scenario


def _check_shape(key: str, value) -> None:
    shape, words = _SHAPES[key]
    if shape == "list":
        ok = isinstance(value, list) and all(isinstance(x, str) for x in value)
    elif shape == "object":
        ok = isinstance(value, dict)
    elif shape == "bool":
        ok = isinstance(value, bool)
    elif shape == "text":
        ok = value is None or isinstance(value, str)  # null: "no reason", as for a legal move
    elif shape == "count":
        ok = value is None or (isinstance(value, int) and not isinstance(value, bool))
    else:  # steps: free form, but a list or a count
        ok = isinstance(value, list) or (isinstance(value, int) and not isinstance(value, bool))
    if not ok:
        raise InvalidSetupError(Text(N_("must be %(words)s, not %(value)s"), words=Term(words), value=repr(value)),
                                f"expect.{key}")


def _check_action(action, position: Position) -> dict:
    if not isinstance(action, dict):
        raise InvalidSetupError(N_("must be an object"), "action")
    kinds = [k for k in ("card", "steps", "pawn") if k in action]
    if len(kinds) != 1:
        raise InvalidSetupError(N_("must have exactly one of \"card\", \"steps\" or \"pawn\""), "action")
    kind = kinds[0]
    if kind == "card":
        _only(action, {"card"})
        if action["card"] not in TILE_KINDS:
            raise InvalidSetupError(Text(N_("unknown tombstone tile %(card)s (one of %(kinds)s)"), card=repr(action["card"]),
                                         kinds=", ".join(TILE_KINDS)),
                                    "action.card")
        return action
    if kind == "steps":
        _only(action, {"steps"})
        n = action["steps"]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= PREY_STEP_CAP:
            raise InvalidSetupError(Text(N_("must be a whole number from 1 to %(most)s, not %(value)s"), most=PREY_STEP_CAP,
                                         value=repr(n)), "action.steps")
        return action
    label = action["pawn"]
    if not isinstance(label, str) or not any(p.label == label for p in position.pawns):
        raise InvalidSetupError(Text(N_("names pawn %(pawn)s, which is not in the setup"), pawn=repr(label)), "action.pawn")
    if "points" in action:
        pts = action["points"]
        if not isinstance(pts, int) or isinstance(pts, bool) or pts < 0:
            raise InvalidSetupError(Text(N_("must be a whole number of 0 or more, not %(value)s"), value=repr(pts)),
                                    "action.points")
    elif position.pawn(label).value is None and "reachable" in action:
        raise InvalidSetupError(Text(N_("pawn %(pawn)s has no \"pawn\" kind in the setup, so the action needs points"),
                                     pawn=repr(label)),
                                "action.points")
    if "reachable" in action:
        _only(action, {"pawn", "reachable", "points"})
        if action["reachable"] is not True:
            raise InvalidSetupError(N_("must be true"), "action.reachable")
        return action
    _only(action, {"pawn", "moves", "points"})
    moves = action.get("moves")
    if not isinstance(moves, str):
        raise InvalidSetupError(N_("must be a text of unit moves such as \"NWWWN\""), "action.moves")
    for i, m in enumerate(moves):
        if m not in MOVE_LETTERS:
            raise InvalidSetupError(Text(N_("unknown move letter %(letter)s at position %(at)s (use N E S W I X)"),
                                         letter=repr(m), at=i + 1),
                                    "action.moves")
    return action


def _only(action: dict, keys: set) -> None:
    for k in action:
        if k not in keys:
            raise InvalidSetupError(Text(N_("unexpected key %(key)s"), key=repr(k)), f"action.{k}")


def _board(position: Position) -> tuple[dict, dict]:
    from .geometry import square_name
    stones = {square_name(sq): k for sq, k in sorted(position.stones.items())}
    pawns = {p.label: square_name(p.square) for p in position.pawns if p.place == BOARD and p.square is not None}
    return stones, pawns


def run_scenario(s: Scenario) -> dict:
    """The outcome object that ``flure scenario run`` prints."""
    if s.kind == "monster":
        plan = resolve(s.position, s.action.get("card"), steps=s.action.get("steps"))
        stones, pawns = _board(plan.result)
        pj = plan.to_json()
        return {"path": plan.path, "monster": pj["end"], "eaten": list(plan.eaten), "stones": stones,
                "pawns": pawns, "steps": pj["steps"], "final_look": pj["final_look"], "stop": pj["stop"]}
    if s.kind == "reachable":
        found = reachable(s.position, s.action["pawn"], s.action.get("points"))
        return {"reachable": sorted_names(found)}
    points = s.action.get("points")
    if points is None and s.position.pawn(s.action["pawn"]).value is None:
        points = len(s.action["moves"])  # no kind and no points given: only the other rules limit the move
    try:
        after = apply_moves(s.position, s.action["pawn"], s.action["moves"], points)
    except IllegalMoveError as exc:
        stones, pawns = _board(s.position)
        return {"legal": False, "reason": str(exc), "rule": exc.rule,
                "failed_at": exc.index + 1 if exc.index is not None else None, "stones": stones, "pawns": pawns}
    stones, pawns = _board(after)
    return {"legal": True, "stones": stones, "pawns": pawns}


def sorted_names(names) -> list[str]:
    """Sorted square names with ``"out"`` last."""
    return sorted(n for n in names if n != "out") + (["out"] if "out" in names else [])


_RULE_ID = re.compile(r"\b[GPMTBA]\d+\b")


def compare(expect: dict, outcome: dict) -> list[str]:
    """Readable differences between ``expect`` and ``outcome`` (only keys in ``expect``)."""
    diffs: list[str] = []
    for key, want in expect.items():
        got = outcome.get(key)
        if key == "reachable":
            reached = set(got or ())
            if not isinstance(want, list) or set(want) != reached:
                missing = sorted(set(want) - reached) if isinstance(want, list) else want
                extra = sorted(reached - set(want)) if isinstance(want, list) else []
                diffs.append(f"reachable: expected but not reachable {missing}; reachable but not expected {extra}")
        elif key == "reason":
            if not _reason_matches(want, got):
                diffs.append(f"reason: expected {want!r}, got {got!r}")
        elif key == "steps":
            diffs.extend(_compare_steps(want, got or []))
        elif key in ("final_look", "stop", "monster"):   # an object may give only some keys ({"at": "m5"})
            if not _within(want, got):
                diffs.append(f"{key}: expected {want!r}, got {got!r}")
        elif key in ("stones", "pawns") and isinstance(want, dict) and isinstance(got, dict):
            for sq in sorted(set(want) | set(got)):
                if want.get(sq) != got.get(sq):
                    diffs.append(f"{key}.{sq}: expected {want.get(sq)!r}, got {got.get(sq)!r}")
        elif key == "path" and isinstance(want, list) and want != got:
            went = got or []
            first = next((i for i, (a, b) in enumerate(zip(want, went)) if a != b), min(len(want), len(went)))
            diffs.append(f"path differs from step {first + 1}: expected {want}, got {got}")
        elif want != got:
            diffs.append(f"{key}: expected {want!r}, got {got!r}")
    return diffs


def _reason_matches(want, got) -> bool:
    if not isinstance(want, str) or not isinstance(got, str):
        return want == got
    if want == got or want.lower() in got.lower():
        return True
    ids = _RULE_ID.findall(want)
    return bool(ids) and all(i in _RULE_ID.findall(got) for i in ids)


def _compare_steps(want, got: list) -> list[str]:
    """``steps`` is free form: compare the count and any key we also report."""
    if isinstance(want, int):
        return [] if want == len(got) else [f"steps: expected {want} steps, got {len(got)}"]
    if not isinstance(want, list):
        return [f"steps: expected a list or a count, got {want!r}"]
    if len(want) != len(got):
        return [f"steps: expected {len(want)} steps, got {len(got)}"]
    diffs = []
    for i, (w, g) in enumerate(zip(want, got), 1):
        if isinstance(w, str):
            if w != g["to"]:
                diffs.append(f"steps[{i}]: expected to end on {w}, got {g['to']}")
        elif isinstance(w, dict):
            for k, v in w.items():
                if k in g and not _within(v, g[k]):
                    diffs.append(f"steps[{i}].{k}: expected {v!r}, got {g[k]!r}")
    return diffs


def _within(want, got) -> bool:
    """``want`` matches ``got`` where it says something: an object may give only some of the keys
    (``{"look": {"rule": "M4 tie"}}``), a list needs as many items, each matching."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _within(v, got[k]) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(map(_within, want, got))
    return want == got
