"""``flure config``: the table configuration file — what is in effect and where it came from.

Also the options every table command shares (``--config`` and the command-line overrides),
so ``flure play``, ``flure doctor`` and ``flure config show`` read a configuration the
same way and ``show`` can say which value came from the command line.
"""
from __future__ import annotations

import argparse

from . import fail, needs_action
from .lang import _, language

# option dest -> the configuration key it overrides
OVERRIDES = {
    "host": "web.host", "port": "web.port", "https_port": "web.https_port", "pin": "web.pin", "db": "web.database",
    "camera": "camera.source", "pieces": "camera.pieces", "leds": "serial.url",
}


def add_table_options(p: argparse.ArgumentParser, devices: bool = True) -> None:
    """``--config`` and the options that override its values (each defaults to the file's)."""
    p.add_argument("--config", metavar="TOML", default=None,
                   help=_("table configuration file (flure config default prints a documented one)"))
    p.add_argument("--host", default=None, help=_("address to listen on ([web] host; default: every interface)"))
    p.add_argument("--port", type=int, default=None, help=_("port ([web] port; default 8000)"))
    p.add_argument("--https-port", type=int, default=None,
                   help=_("HTTPS port for the phone camera page ([web] https_port; default 8443)"))
    p.add_argument("--pin", default=None, help=_("the referee's PIN or token ([web] pin; default: a new random PIN)"))
    p.add_argument("--db", default=None, help=_("session database ([web] database; default: "
                                                "$STATE_DIRECTORY or ~/.local/share/flure/session.sqlite3)"))
    p.add_argument("--camera", metavar="SPEC", default=None,
                   help=_("camera ([camera] source): a USB index like 0, 'picamera', a video file or URL, "
                          "a folder, 'phone' (a phone's camera page), 'simulated' (default: the simulated table), "
                          "'synthetic' or 'none'"))
    p.add_argument("--pieces", metavar="FILE", default=None,
                   help=_("read the pieces without stickers ([camera] pieces): the file flure teach wrote"))
    p.add_argument("--leds", metavar="URL", default=None,
                   help=_("LED device ([serial] url): a pyserial URL like /dev/flure-leds, /dev/ttyUSB0 or "
                          "socket://host:port (default: the simulated device)"))
    if devices:
        p.add_argument("--no-camera", action="store_true",
                       help=_("run without a camera (camera source 'none')"))


def overrides_from(args) -> dict:
    out = {key: getattr(args, dest, None) for dest, key in OVERRIDES.items()}
    if getattr(args, "no_camera", False):
        out["camera.source"] = "none"
    return {k: v for k, v in out.items() if v is not None}


def load_from_args(args):
    """(TableConfig, None) or (None, the one-line error) for a command's ``--config`` and overrides."""
    from ..config import TableConfigError, load_table_config

    try:
        return load_table_config(args.config, overrides_from(args)), None
    except TableConfigError as exc:
        from ..i18n.text import error_text
        return None, error_text(exc, language())   # its wording data in the command's language


def register(subparsers) -> None:
    p = subparsers.add_parser("config", help=_("the table configuration file: show, check, print the defaults"),
                              description=_("The table configuration (one TOML file: camera, table, web app, "
                                            "LED grid and buttons). Command-line options override the file."))
    sub = p.add_subparsers(dest="config_command", metavar=_("ACTION"))
    show = sub.add_parser("show", help=_("every value in effect and where it came from (default / file / command "
                                         "line)"))
    add_table_options(show)
    show.set_defaults(func=cmd_show)
    check = sub.add_parser("check", help=_("check a configuration file; exit status 1 if it is wrong"))
    add_table_options(check)
    check.set_defaults(func=cmd_check)
    default = sub.add_parser("default", help=_("print the documented defaults (a file to start your own from)"))
    default.add_argument("--set", metavar="SECTION.KEY=VALUE", action="append", default=[],
                         help=_("set a value in the printed file, e.g. --set web.port=8080"))
    default.set_defaults(func=cmd_default)
    needs_action(p, sub)


def cmd_show(args) -> int:
    from ..config import describe

    config, error = load_from_args(args)
    if config is None:
        return fail(error)   # a file it cannot use: the CLI's one way (status 2); `check` answers 1
    print("# " + _("the table configuration in effect (%(path)s)", path=config.path or _("defaults only")))
    section = None
    for key, value, origin in describe(config):
        head, _dot, name = key.rpartition(".")
        if head != section:
            print(f"\n[{head}]")
            section = head
        note = _origin(origin)
        if key == "table.mode" and config.camera.source == "simulated" and value != "auto":
            # flure play's simulated table always reads in auto (companion_app/README.md): say the mode in use
            note = _("the simulated table plays in auto; %(origin)s says %(value)s", origin=note, value=_show(value))
            value = "auto"
        print(f"{name} = {_show(value)}".ljust(44) + f"  # {note}")
    return 0


def cmd_check(args) -> int:
    config, error = load_from_args(args)
    if config is None:
        return fail(error, 1)   # status 1: the file was checked and is not valid
    print(_("ok: %(path)s is a valid table configuration", path=config.path or _("the defaults")))
    return 0


def cmd_default(args) -> int:
    from ..config import main

    return main(args.set)


def _origin(origin: str) -> str:
    """Where a value came from (``default``, ``file PATH``, ``command line``) in the command's language."""
    if origin.startswith("file "):
        return _("file %(path)s", path=origin[5:])
    return {"default": _("default"), "command line": _("command line")}.get(origin, origin)


def _show(value) -> str:
    from ..config import toml_value

    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_show(v)}" for k, v in value.items()) + " }"
    return toml_value(value)
