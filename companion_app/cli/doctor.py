"""``flure doctor``: checks the table configuration and every device; exit status 1 if
something needs fixing.  The checks are in ``companion_app.cli.checks``."""
from __future__ import annotations

import sys

from .config import add_table_options, load_from_args
from .lang import _, language, n_


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "doctor", help=_("check the configuration, camera, calibration, LEDs, buttons, database and port"),
        description=_("Checks what the table session needs, one line each: ok, or what to do. "
                      "Exit status 1 if something needs fixing. Run it with the service stopped "
                      "(sudo systemctl stop flure): the session holds the camera and the LED device."))
    add_table_options(p, devices=False)
    p.add_argument("--camera-timeout", type=float, default=10.0, metavar="S",
                   help=_("seconds to wait for the camera's first picture (default 10)"))
    p.set_defaults(func=doctor)


def doctor(args) -> int:
    config, error = load_from_args(args)
    if config is None:
        print("FIX  " + _("configuration: %(why)s", why=error))
        return 1
    from .checks import run_checks

    print("ok   " + _("configuration: %(path)s is valid", path=config.path or _("the defaults (no --config)")),
          flush=True)
    bad = 0
    for finding in run_checks(config, camera_timeout=args.camera_timeout, lang=language()):
        print(finding.line(language()), flush=True)
        bad += not finding.ok
    if bad:
        print(n_("%(num)s thing to fix (above).", "%(num)s things to fix (above).", bad), file=sys.stderr)
    return 1 if bad else 0
