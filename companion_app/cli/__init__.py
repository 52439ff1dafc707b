"""The ``flure`` command: one entry point, one sub-command per job.

Each command module adds its sub-commands through a ``register(subparsers)``
function.  Every command's front-end lives here (``leds.py``, ``stickers.py``,
``render.py`` beside the ones that wire packages together): the packages keep the
work, this package parses the line, loads the files and fails one way.
Those modules must be cheap to import: heavy libraries are imported inside
the command functions.  A command function takes the parsed ``args`` and
returns the exit status.

Failing is done one way: input a command cannot use ends as one plain sentence
``flure: …`` on stderr and exit status 2, never a traceback.  Commands here
``return fail("…")``; any package's plain-language error (``engine.errors.FlureError``,
which the reader's and calibration's errors derive from) that a command lets
through is printed the same way by ``main``.

Every message a person reads is in the command's language (``lang.py``: ``--lang LANG``
anywhere on the line, else the locale, else English), worded through ``lang._``; JSON
outputs and the lines other programs parse stay as they are in every language.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import unicodedata

from .lang import LanguageError, _, from_locale, language, set_language, speak_argparse, take_option

# Modules that contribute sub-commands, in --help order.
COMMAND_MODULES = (
    "companion_app.cli.engine",
    "companion_app.cli.replay",
    "companion_app.cli.play",
    "companion_app.cli.config",
    "companion_app.cli.doctor",
    "companion_app.cli.vision",
    "companion_app.cli.teach",
    "companion_app.cli.stickers",
    "companion_app.cli.calibrate",
    "companion_app.cli.leds",
)


def fail(message: str, code: int = 2) -> int:
    """Say what is wrong in one sentence on stderr; the status to return (2: input it cannot use).

    One line even when the message quotes a file's key with a line break in it: control
    characters are shown escaped (``\\r``)."""
    print(f"flure: {one_line(message)}", file=sys.stderr)
    return code


def needs_action(parser, actions) -> None:
    """A command group run without its action (``flure calibrate``) is a usage error like any other:
    the group's usage on stderr and status 2 (``actions``: the group's subparsers action)."""
    parser.set_defaults(func=lambda args: parser.error(_("choose an action: %(actions)s",
                                                         actions=", ".join(actions.choices))))


def one_line(text: str) -> str:
    """``text`` with control characters (line breaks, NUL, escape) written as Python escapes.  Spaces
    stay, the no-break ones included: French sets one before ``:`` (translations/GLOSSARY.md)."""
    return "".join(c if c.isprintable() or unicodedata.category(c) == "Zs" else c.encode("unicode_escape").decode("ascii")
                   for c in text)


class Parser(argparse.ArgumentParser):
    """``flure``'s parsers: an argument a command does not take is that command's usage error (its
    own usage line, status 2), not the top-level ``usage: flure …`` argparse gives by default.  Its
    sub-command parsers are of this class too (argparse makes them of their parent's class)."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(argparse._("unrecognized arguments: %s") % " ".join(extras))
        return namespace, extras


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="flure",
        description=_("Finstere Flure Companion: plays the monster for your table."),
    )
    # Read (and taken off the line) by main before parsing: listed here for --help.
    parser.add_argument("--lang", metavar="LANG",
                        help=_("the language of flure's messages: en, fr, de or es (default: the locale's, "
                               "like LANG=de_DE.UTF-8, else English); JSON output is the same in every language"))
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"))
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that part of the product is not installed
            raise
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    import os
    # OpenCV's own log lines ("global cap_v4l.cpp:914 open VIDEOIO ...") are for programmers; every
    # command says what went wrong in its own words.  Set before any command imports cv2.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    set_language(from_locale())
    speak_argparse()
    try:
        lang, argv = take_option(sys.argv[1:] if argv is None else argv)
    except LanguageError as exc:
        return fail(exc.sentence())
    if lang is not None:
        set_language(lang)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    from engine.errors import FlureError

    try:
        return int(args.func(args) or 0)
    except FlureError as exc:
        from ..i18n.text import error_text
        return fail(error_text(exc, language()))   # the engine's wording data in the command's language
    except KeyboardInterrupt:
        print(_("Stopped."), file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of our output went away (``flure ... | head``): not an error for the user
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

