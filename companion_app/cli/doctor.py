"""``flure doctor``: checks the table configuration and every device; exit status 1 if
something needs fixing.  The checks are in ``companion_app.cli.checks``."""
from __future__ import annotations

import sys

from .config import add_table_options, load_from_args


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "doctor", help="check the configuration, camera, calibration, LEDs, buttons, database and port",
        description="Checks what the table session needs, one line each: ok, or what to do. "
                    "Exit status 1 if something needs fixing. Run it with the service stopped "
                    "(sudo systemctl stop flure): the session holds the camera and the LED device.")
    add_table_options(p, devices=False)
    p.add_argument("--camera-timeout", type=float, default=10.0, metavar="S",
                   help="seconds to wait for the camera's first picture (default 10)")
    p.set_defaults(func=doctor)


def doctor(args) -> int:
    config, error = load_from_args(args)
    if config is None:
        print(f"FIX  configuration: {error}")
        return 1
    from .checks import run_checks

    print(f"ok   configuration: {config.path or 'the defaults (no --config)'} is valid", flush=True)
    bad = 0
    for finding in run_checks(config, camera_timeout=args.camera_timeout):
        print(finding.line(), flush=True)
        bad += not finding.ok
    if bad:
        print(f"{bad} thing(s) to fix (above).", file=sys.stderr)
    return 1 if bad else 0
