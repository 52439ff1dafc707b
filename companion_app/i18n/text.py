"""The engine's wording data (engine.wording) in the players' language.

The engine gives refusals, explanations and instructions as ``Text`` values: an English template
(the msgid, marked with ``N_`` in the engine and extracted from there) and named fields.  Here the
template is looked up in the language's catalog and the fields are rendered in turn: a pawn's name
and a colour are translated (``red 3/4`` -> ``Rot 3/4``), words from fixed lists are msgids of their
own, and squares, rule ids and numbers are kept as they are.  English gives exactly ``str(value)``.
"""
from __future__ import annotations

from engine.errors import FlureError
from engine.wording import Cap, Colour, Direction, Join, Pawn, Plural, Said, Term, Text

from . import LANGUAGES, pick, translations
from . import gettext as _g
from . import pgettext as _pg
from .plan_text import colour_name, pawn_name


class Rendered:
    """A sentence already rendered in every language (``{lang: text}``, as the broadcast ``_i18n`` fields
    are), to pass on where wording data goes: ``str()`` is its English."""

    __slots__ = ("every",)

    def __init__(self, every: dict[str, str]):
        self.every = every

    def __str__(self) -> str:
        return self.every["en"]


def render(value, lang: str) -> str:
    """``value`` (a Text, Join, Cap, Pawn, Colour, Term, Said or anything else) in ``lang``."""
    if isinstance(value, Text):
        params = {k: render(v, lang) for k, v in value.params.items()}
        if isinstance(value, Plural):
            template = translations(lang).ngettext(value.template, value.plural, value.num)
        elif value.context is not None:
            template = _pg(lang, value.context, value.template)
        else:
            template = _g(lang, value.template)
        return template % params if params else template
    if isinstance(value, Said):
        return render(value.text, lang)
    if isinstance(value, Rendered):
        return value.every.get(pick(lang), str(value))
    if isinstance(value, Join):
        sep = _g(lang, value.sep) if value.sep.strip() else value.sep
        return sep.join(render(p, lang) for p in value.parts)
    if isinstance(value, BaseException):
        return error_text(value, lang)
    if isinstance(value, Cap):
        text = render(value.inner, lang)
        return text[:1].upper() + text[1:]
    if isinstance(value, Pawn):
        return pawn_name(lang, str(value))
    if isinstance(value, Colour):
        return colour_name(lang, str(value))
    if isinstance(value, Direction):
        return _pg(lang, "direction", str(value)) if value in ("N", "E", "S", "W") else str(value)
    if isinstance(value, Term):
        return _g(lang, str(value))
    return str(value)


def in_all(value) -> dict[str, str]:
    """``value`` in every language, for the broadcast state's ``<field>_i18n``."""
    return {lang: render(value, lang) for lang in LANGUAGES}


def error_text(exc: BaseException, lang: str) -> str:
    """An error in ``lang``: an engine refusal framed as ``str(exc)`` is (rule id, field), or any
    other error raised with wording data (a ``text`` attribute holding a Text: the table's
    configuration, its files, its devices).  English is ``str(exc)``; errors raised with plain
    English (no wording data) stay English."""
    lang = pick(lang)
    text = getattr(exc, "text", None)
    if lang == "en" or text is None or isinstance(text, str):
        return str(exc)
    if isinstance(exc, FlureError):
        return exc.frame(render(text, lang))
    return render(text, lang)
