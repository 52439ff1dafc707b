"""``flure replay FILE``: play a game record (``flure-game/1``) again through the rules and print each step.

A record comes from the referee's "Download game" (``/api/game/export``) or a bug
report; the engine replays it from its seed, so what is printed is what the
table saw: each action, the game's note after it and, after a monster move, the
plan in the engine's own words (``Plan.lines()``).  A file that is not a usable
record gets one plain line naming the field.
"""
from __future__ import annotations

import json

from . import fail


def register(sub) -> None:
    p = sub.add_parser("replay", help="play a game record (JSON from the referee's download) and print each step",
                       description="Replays a flure-game/1 record through the rules from its seed and prints "
                                   "every step; exit 2 with one line naming the field when the file cannot be used.")
    p.add_argument("file", help="a game record JSON file (format flure-game/1)")
    p.add_argument("--json", action="store_true", help="print each step's game state as one JSON line")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from pathlib import Path

    from engine.actions import format_action
    from engine.errors import InvalidSetupError
    from engine.record import GameRecord

    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return fail(f"{args.file}: cannot read the file ({getattr(exc, 'strerror', None) or exc})")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return fail(f"{args.file}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    except (ValueError, RecursionError) as exc:
        return fail(f"{args.file}: not a game record ({str(exc)[:80] or 'nested too deeply'})")
    try:
        record = GameRecord.from_json(data)
        steps = record.replay()
        _, game = next(steps)
        _print_step(args, 0, None, game)
        for n, (action, game) in enumerate(steps, start=1):
            _print_step(args, n, format_action(action), game)
    except InvalidSetupError as exc:
        return fail(f"{args.file}: {exc}")
    if not args.json:
        print(f"After {len(record.actions)} actions: {game.summary()}")
    return 0


def _print_step(args, n: int, action: dict | None, game) -> None:
    if args.json:
        print(json.dumps({"step": n, "action": action, "state": game.to_json()}, separators=(",", ":")))
        return
    what = "new game" if action is None else json.dumps(action, separators=(",", ":"))
    print(f"{n:4d}  {what}")
    print(f"      {game.note}")
    if action is not None and action["type"] in ("draw", "tile") and game.last_plan is not None:
        for line in game.last_plan.lines():
            print(f"        {line}")
