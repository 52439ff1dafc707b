"""The language ``flure`` speaks: ``--lang LANG``, else the locale, else English.

Why a module of its own: every command module words its messages through ``_`` here, and
``main`` sets the language once, before the parser (whose help texts are translated too) is
built.  The locale is read as gettext reads it for messages (POSIX): the first of ``LC_ALL``,
``LC_MESSAGES`` and ``LANG`` that is set decides (``LANG=de_DE.UTF-8`` gives German; ``C``,
``POSIX`` or a language we do not have gives English).  The catalogs are the app's own
(companion_app.i18n, one gettext domain), so a word means the same on the phones and here.

JSON outputs never change with the language, and lines another program parses (``demo
finished: …``, TABLE.md) stay English verbatim: the callers say where.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ..i18n import DEFAULT, LANGUAGES, gettext, ngettext_in, pick

OPTION = "--lang"
_language = DEFAULT


class LanguageError(ValueError):
    """``--lang`` names no language flure speaks (``args[0]``: what it was given, "" for nothing)."""

    def sentence(self) -> str:
        """In the locale's language (the one ``--lang`` failed to replace)."""
        given, choices = self.args[0], ", ".join(LANGUAGES[:-1])
        if not given:
            return _("--lang needs a language: %(choices)s or %(last)s", choices=choices, last=LANGUAGES[-1])
        return _("--lang %(given)s is not a language flure speaks: use %(choices)s or %(last)s",
                 given=repr(given), choices=choices, last=LANGUAGES[-1])


def from_locale(environ: Mapping[str, str] | None = None) -> str:
    """The language of the locale's messages: the first set of LC_ALL, LC_MESSAGES, LANG."""
    environ = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return pick(value.split(".")[0].split("@")[0])
    return DEFAULT


def take_option(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """(the ``--lang`` value or None, ``argv`` without it).  Taken out before argparse runs, so
    it may stand anywhere on the line (``flure resolve P.json --tile 8 --lang de`` too) and the
    parser's own help is already in that language.  Raises LanguageError for a value we lack."""
    rest, value = [], None
    args = list(argv)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest += args[i:]
            break
        if arg == OPTION or arg.startswith(OPTION + "="):
            if arg == OPTION:
                if i + 1 >= len(args):
                    raise LanguageError("")
                value, i = args[i + 1], i + 2
            else:
                value, i = arg.split("=", 1)[1], i + 1
            code = value.strip().replace("_", "-").lower()
            if code.split("-")[0] not in LANGUAGES:
                raise LanguageError(value)
            value = pick(code)
            continue
        rest.append(arg)
        i += 1
    return value, rest


def set_language(lang: str | None) -> str:
    global _language
    _language = pick(lang)
    return _language


def language() -> str:
    """The language this ``flure`` command speaks."""
    return _language


def _(message: str, **params) -> str:
    """``message`` (the English msgid) in the command's language, ``%(name)s`` filled from ``params``."""
    return gettext(_language, message, **params)


def n_(singular: str, plural: str, num: int, **params) -> str:
    """The singular or plural message for ``num`` in the command's language (``%(num)s`` filled)."""
    return ngettext_in(_language, singular, plural, num, **params)


def why(exc: BaseException) -> str:
    """Why the system refused a file, port or device (an ``OSError``), in the command's language."""
    from engine.wording import os_reason

    from ..i18n.text import render
    return render(os_reason(exc), _language)


N_ = lambda s: s   # noqa: E731 - marks a msgid for extraction; translated where it is used

# argparse's own words (its help headings and the errors it prints), taken from our catalogs
# through ``speak_argparse``: Python ships no French, German or Spanish for them.
ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"), N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
)


def speak_argparse() -> None:
    """Let argparse word its headings and errors in the command's language (it looks its
    module-level ``_`` up at each call; English stays argparse's own text)."""
    import argparse

    from ..i18n import translations

    argparse._ = lambda message: translations(_language).gettext(message)
