"""``flure replay FILE``: play a game record (``flure-game/1``) again through the rules and print each step.

A record comes from the referee's "Download game" (``/api/game/export``) or a bug
report; the engine replays it from its seed, so what is printed is what the
table saw: each action, the game's note after it and, after a monster move, the
plan (``Plan.sentences``), said in the command's language; ``--json`` is the same in every
language.  A file
that is not a usable record gets one plain line naming the field.
"""
from __future__ import annotations

import json

from . import fail
from .lang import _, language, why


def register(sub) -> None:
    p = sub.add_parser("replay", help=_("play a game record (JSON from the referee's download) and print each step"),
                       description=_("Replays a flure-game/1 record through the rules from its seed and prints "
                                     "every step; exit 2 with one line naming the field when the file cannot be "
                                     "used."))
    p.add_argument("file", help=_("a game record JSON file (format flure-game/1)"))
    p.add_argument("--json", action="store_true", help=_("print each step's game state as one JSON line"))
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from pathlib import Path

    from engine.actions import format_action
    from engine.errors import InvalidSetupError
    from engine.record import GameRecord

    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return fail(_("%(path)s: cannot read the file (%(why)s)", path=args.file,
                      why=why(exc)))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return fail(_("%(path)s: not valid JSON (line %(line)s, column %(column)s: %(why)s)", path=args.file,
                      line=exc.lineno, column=exc.colno, why=exc.msg))
    except (ValueError, RecursionError) as exc:
        return fail(_("%(path)s: not a game record (%(why)s)", path=args.file,
                      why=str(exc)[:80] or _("nested too deeply")))
    try:
        record = GameRecord.from_json(data)
        steps = record.replay()
        _first, game = next(steps)
        _print_step(args, 0, None, game)
        for n, (action, game) in enumerate(steps, start=1):
            _print_step(args, n, format_action(action), game)
    except InvalidSetupError as exc:
        from ..i18n.text import error_text
        return fail(_("%(where)s: %(error)s", where=args.file, error=error_text(exc, language())))
    if not args.json:
        from ..i18n.text import render
        print(_("After %(num)s actions: %(summary)s", num=len(record.actions), summary=render(game.summary(), language())))
    return 0


def _print_step(args, n: int, action: dict | None, game) -> None:
    if args.json:
        print(json.dumps({"step": n, "action": action, "state": game.to_json()}, separators=(",", ":")))
        return
    what = _("new game") if action is None else json.dumps(action, separators=(",", ":"))
    print(f"{n:4d}  {what}")
    from ..i18n.text import render
    print(f"      {render(game.note, language())}")
    if action is not None and action["type"] in ("draw", "tile") and game.last_plan is not None:
        for sentence in game.last_plan.sentences():
            print(f"        {render(sentence, language())}")
