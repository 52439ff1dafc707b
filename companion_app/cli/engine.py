"""Engine sub-commands: ``flure scenario run|check``, ``flure resolve``, ``flure demo``.

The plan's sentences (``Plan.sentences``) are printed in the command's language by the same renderer
as the phones' (``companion_app.i18n.text``); ``--json`` and ``scenario run`` print the engine's JSON,
the same in every language.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from engine import jsontext

from ..i18n.text import error_text  # an engine error in a language (plain English ones stay English)
from . import fail, needs_action
from .lang import _, language, why

DEMO_SETUP = {
    "monster": {"at": "j8", "facing": "E"},
    "stones": {"k8": "pivot-right", "m7": "pivot-about", "k5": "crystal"},
    "pools": ["k6", "l6", "k7", "l7"],
    "teleporters": {"j5": {"pair": 1, "arrow": "E"}, "o7": {"pair": 1, "arrow": "N"}},
    "pawns": {"A": {"at": "j3"}, "B": {"at": "i5"}, "C": {"at": "l5"}, "D": {"at": "n7"}, "E": {"at": "m6"}},
}


def register(sub) -> None:
    sc = sub.add_parser("scenario", help=_("run or check scenario files (the engine's test contract)"),
                        description=_("Scenario files hold a position, one action and the expected outcome."))
    scs = sc.add_subparsers(dest="scenario_command", metavar="run|check")
    run = scs.add_parser("run", help=_("print the outcome of one scenario as JSON"))
    run.add_argument("file", help=_("a scenario JSON file"))
    run.set_defaults(func=cmd_scenario_run)
    check = scs.add_parser("check", help=_("compare scenarios with their expected outcome"),
                           description=_("Exit 0 when all pass, 1 on any difference, 2 on an invalid file."))
    check.add_argument("files", nargs="+", help=_("scenario JSON files"))
    check.add_argument("-q", "--quiet", action="store_true", help=_("print only failures and the summary"))
    check.set_defaults(func=cmd_scenario_check)
    needs_action(sc, scs)

    rs = sub.add_parser("resolve", help=_("show the monster's move for a tombstone tile"),
                        description=_("Print the monster's path step by step, with the rule behind each decision."))
    rs.add_argument("position", help=_("a position JSON file (a scenario setup object, or a scenario file)"))
    rs.add_argument("--tile", "-t", required=True, help=_("the tombstone tile: 5 7 8 10 prey-1 prey-2 prey-3"))
    rs.add_argument("--round", type=int, choices=(1, 2), default=1,
                    help=_("round 1: eaten pawns wait beside the entrance; round 2: they are gone (G9)"))
    rs.add_argument("--json", action="store_true",
                    help=_("print the plan as JSON (what the LEDs and web views render)"))
    rs.add_argument("--gif", metavar=_("FILE"),
                    help=_("also write the move as an animated GIF (the start, then one frame a step)"))
    rs.set_defaults(func=cmd_resolve)

    demo = sub.add_parser("demo", help=_("resolve the rulebook's advanced example and print the steps"))
    demo.set_defaults(func=cmd_demo)


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    """JSON object hook: a key given twice (two stones on "g7") is an error, not "the last one wins"."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise _DuplicateKey(key)
        obj[key] = value
    return obj


def _load_json(path: str):
    """Returns (data, error message)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        return None, _("%(path)s: cannot read the file (%(why)s)", path=path, why=why(exc))
    except UnicodeDecodeError as exc:
        return None, _("%(path)s: not a text file in UTF-8 (byte %(byte)s)", path=path, byte=exc.start + 1)
    try:
        return jsontext.loads(text, object_pairs_hook=_no_duplicates), None
    except jsontext.JsonTextError as exc:   # not JSON, nested too deep, a 5,000-digit number, …
        return None, _("%(where)s: %(error)s", where=path, error=error_text(exc, language()))
    except _DuplicateKey as exc:
        return None, _("%(path)s: not valid: the key %(key)s appears twice in one object", path=path,
                       key=repr(exc.args[0]))


def _load_scenario(path: str):
    from engine.errors import InvalidSetupError
    from engine.scenario import parse_scenario
    data, err = _load_json(path)
    if err:
        return None, err
    try:
        scenario = parse_scenario(data)
    except InvalidSetupError as exc:
        return None, _("%(path)s: invalid scenario: %(why)s", path=path, why=error_text(exc, language()))
    except Exception as exc:  # noqa: BLE001 - a file the checks above missed: still no traceback
        return None, _("%(path)s: invalid scenario (%(why)s)", path=path, why=f"{type(exc).__name__}: {exc}")
    for warning in scenario.warnings:
        print("flure: " + _("%(path)s: note: %(note)s", path=path, note=warning), file=sys.stderr)
    return scenario, None


def _run(scenario, path: str):
    """The outcome, or (None, message) if the engine fails on this scenario (a bug to report, not a traceback)."""
    from engine.scenario import run_scenario
    try:
        return run_scenario(scenario), None
    except Exception as exc:  # noqa: BLE001
        return None, _("%(path)s: the engine failed on this scenario (%(why)s); please report it", path=path,
                       why=f"{type(exc).__name__}: {exc}")


def cmd_scenario_run(args) -> int:
    scenario, err = _load_scenario(args.file)
    if err:
        return fail(err)
    outcome, err = _run(scenario, args.file)
    if err:
        return fail(err, 1)
    print(json.dumps(outcome, indent=2))
    return 0


def cmd_scenario_check(args) -> int:
    from engine.scenario import compare
    invalid = failed = passed = 0
    for path in args.files:
        scenario, err = _load_scenario(path)
        if err:
            print(f"INVALID {err}")
            invalid += 1
            continue
        if scenario.expect is None:
            print("SKIP    " + _("%(path)s: no \"expect\" to compare", path=path))
            continue
        outcome, err = _run(scenario, path)
        diffs = [err] if err else compare(scenario.expect, outcome)
        if diffs:
            failed += 1
            print(f"FAIL    {path} ({scenario.name})")
            for d in diffs:
                print(f"          {d}")
        else:
            passed += 1
            if not args.quiet:
                print(f"pass    {path}")
    print(_("scenarios: %(passed)s passed, %(failed)s failed, %(invalid)s invalid", passed=passed, failed=failed,
            invalid=invalid))
    return 2 if invalid else 1 if failed else 0


def cmd_resolve(args) -> int:
    from engine.errors import InvalidSetupError
    from engine.monster import resolve
    from engine.position import GONE, WAITING, Position
    data, err = _load_json(args.position)
    if err:
        return fail(err)
    setup = data.get("setup", data) if isinstance(data, dict) else data
    try:
        position = Position.from_setup(setup, strict=True)
        plan = resolve(position, args.tile, eaten_place=WAITING if args.round == 1 else GONE)
    except InvalidSetupError as exc:
        return fail(_("%(where)s: %(error)s", where=args.position, error=error_text(exc, language())))
    if args.json:
        print(json.dumps(plan.to_json(), indent=2))   # the engine's JSON: the same in every language
    else:
        print_plan(plan)
    if args.gif:
        from ..share import move_gif
        try:
            with open(args.gif, "wb") as f:
                f.write(move_gif(plan))
        except OSError as exc:
            return fail(_("cannot write the GIF to %(path)s: %(why)s", path=args.gif, why=why(exc)))
        if not args.json:
            print(_("The move's animation (%(frames)s frames) is in %(path)s.", frames=len(plan.steps) + 1,
                    path=args.gif))
    return 0


def print_plan(plan) -> None:
    """The board before, the plan's lines in the command's language (the words the phones and the
    referee log show too: ``Plan.sentences``), and the board after."""
    from engine.geometry import direction_name, square_name
    from engine.wording import Direction

    from ..i18n.text import render
    start = plan.start
    print(_("Tombstone tile %(tile)s: the monster starts on %(square)s facing %(direction)s.", tile=plan.tile,
            square=square_name(start.monster), direction=render(Direction(direction_name(start.facing)), language())))
    print(start)
    print(board_key(start))
    print()
    for sentence in plan.sentences():
        print(render(sentence, language()))
    print()
    print(plan.result)


def board_key(position) -> str:
    """The legend printed under the text diagram (``Position.__str__``): each symbol once, and which
    pawn each letter is, in the command's language."""
    from ..i18n.text import pawn_name
    key = _("Key: ^ > v < the monster facing N, E, S, W · A B C … pawns · o stone · c crystal\n"
            "     r pivot-right · u pivot-about · ~ pool · 1 2 teleporter of pair 1 or 2 · # wall · . floor")
    letters = position.pawn_letters()
    named = [f"{letters[p.label]} {pawn_name(language(), p.name)}" for p in position.pawns if p.name != letters[p.label]]
    return key + ("\n" + _("Pawns: %(pawns)s", pawns=", ".join(named)) if named else "")


def cmd_demo(args) -> int:
    from engine.monster import resolve
    from engine.position import Position
    position = Position.from_setup(DEMO_SETUP)
    print(_("The rulebook's advanced example: pivots, a crystal, a pool and a teleporter pair.") + "\n")
    print_plan(resolve(position, "8"))
    print("\n" + _("Try it on your own position: flure resolve POSITION.json --tile 8  (flure --help for more)"))
    return 0
