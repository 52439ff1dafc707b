"""The engine's wording data (engine.wording) in the players' language, rendered once at the edge.

The engine gives refusals, explanations and instructions as ``Text`` values: an English template
(the msgid, marked with ``N_`` in the engine and extracted from there) and named fields.  Here the
template is looked up in the language's catalog and the fields are rendered in turn: a pawn's name
and a colour are translated (``red 3/4`` -> ``Rot 3/4``), words from fixed lists are msgids of their
own, and squares, rule ids and numbers are kept as they are.  English gives exactly ``str(value)``.
"""
from __future__ import annotations

from engine.errors import FlureError
from engine.wording import N_, NP_, WORDING, Cap, Colour, Direction, Join, Moves, PawnName, Plural, Said, Term, Text

from . import gettext as _g
from . import pgettext as _pg
from . import pick, translations

# The colour inside a pawn's name agrees with the language's word for pawn (es: la ficha roja), while a
# player's colour is a name of its own (es: rojo): hence a context of their own ("pawn").
COLOURS = (N_("blue"), N_("yellow"), N_("red"), N_("green"), N_("purple"), N_("black"), N_("white"))
PAWN_COLOURS = (NP_("pawn", "blue"), NP_("pawn", "yellow"), NP_("pawn", "red"), NP_("pawn", "green"),
                NP_("pawn", "purple"), NP_("pawn", "black"), NP_("pawn", "white"))
DIRECTIONS = (NP_("direction", "N"), NP_("direction", "E"), NP_("direction", "S"), NP_("direction", "W"))
# A unit move's compass letter (``INNNW``): one letter in each language (W is O in French and Spanish).
COMPASS = (NP_("compass", "N"), NP_("compass", "E"), NP_("compass", "S"), NP_("compass", "W"))


def colour_name(lang: str, colour: str) -> str:
    return _g(lang, colour) if colour in COLOURS else colour


def pawn_name(lang: str, name: str) -> str:
    """A pawn's name (``red 3/4``) in ``lang`` (``Rot 3/4``, ``le pion rouge 3/4``, ``la ficha roja 3/4``: the
    article comes with the name, as with ``the stone``); a bare label stays as it is."""
    colour, _, rest = name.partition(" ")
    if rest and colour in PAWN_COLOURS:
        return _g(lang, "%(colour)s %(kind)s", colour=_pg(lang, "pawn", colour), kind=rest)
    return name


def render(value, lang: str) -> str:
    """``value`` (a Text, Join, Cap, PawnName, Colour, Term, Said or anything else) in ``lang``."""
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
    if isinstance(value, Join):
        sep = _g(lang, value.sep) if value.sep.strip() else value.sep
        return sep.join(render(p, lang) for p in value.parts)
    if isinstance(value, BaseException):
        return error_text(value, lang)
    if isinstance(value, Cap):
        text = render(value.inner, lang)
        return text[:1].upper() + text[1:]
    if isinstance(value, PawnName):
        return pawn_name(lang, str(value))
    if isinstance(value, Colour):
        return colour_name(lang, str(value))
    if isinstance(value, Direction):
        return _pg(lang, "direction", str(value)) if value in DIRECTIONS else str(value)
    if isinstance(value, Moves):
        return "".join(_pg(lang, "compass", c) if c in COMPASS else c for c in value)
    if isinstance(value, Term):
        return _g(lang, str(value))
    return str(value)


def localize(value, lang: str):
    """A payload (dicts, lists and tuples of JSON values) with every piece of wording data in it rendered
    in ``lang``: the session keeps sentences as wording data and each edge (an HTTP answer, one phone's
    live stream, the CLI) renders them once, in its reader's language.  Plain values pass unchanged."""
    if isinstance(value, dict):
        return {k: localize(v, lang) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [localize(v, lang) for v in value]
    if isinstance(value, (*WORDING, BaseException)):
        return render(value, lang)
    return value


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
