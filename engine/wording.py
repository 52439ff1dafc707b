"""Sentences for people as data: an English template (the msgid) with named fields.

The engine speaks English and stays pure: a refusal, a reading's explanation, a follow-up
instruction, the monster's step lines (engine/plan.py) or the status line (Game.summary) is a
``Text`` whose ``str()`` is the English sentence the engine always gave, and whose ``template``
and ``params`` let a renderer (companion_app/i18n/text.py) say the same in another language.
Each sentence has this one home: the English is rendered from it, never written again, and the
app keeps the data until its edge says it in the reader's language.  Fields keep what they are:
a ``PawnName`` or ``Colour`` is translated, a square (``g7``), a rule id (``M4``) or a number stays
exactly as it is in every language.

``N_`` marks a template for ``pybabel extract`` (the ``N_`` keyword) and returns it unchanged.
"""
from __future__ import annotations

import errno


def N_(message: str) -> str:
    """Mark ``message`` as a msgid for extraction; the engine itself uses the English as is."""
    return message


def NP_(context: str, message: str) -> str:
    """``N_`` with a gettext context, for a short English phrase that other languages word apart."""
    return message


def n_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a singular/plural pair for extraction (the ``n_`` keyword); returns both unchanged."""
    return singular, plural


class PawnName(str):
    """A pawn's name as players read it (``red 3/4``): a renderer translates its colour."""

    __slots__ = ()


class Colour(str):
    """A player's colour (``red``): a renderer translates it."""

    __slots__ = ()


class Direction(str):
    """A heading or an arrow's direction (``N``, ``E``, ``S``, ``W``): a renderer uses the language's letters."""

    __slots__ = ()


class Moves(str):
    """A pawn's unit moves (``INNNW``, engine.actions): a renderer gives each compass letter in the
    language's letters (``W`` is ``O`` in French); ``I`` (enter) and ``X`` (exit) stay as they are."""

    __slots__ = ()


class Term(str):
    """A word from a fixed list (``crystal``, ``white``, ``pivot stone (right)``), marked with ``N_``
    where it is defined: the word is its own msgid."""

    __slots__ = ()


class Text:
    """One sentence: ``template % params`` in English; ``params`` may hold other ``Text``s."""

    __slots__ = ("template", "params", "context")

    def __init__(self, template: str, **params):
        self.template = template
        self.params = params
        self.context: str | None = None

    @classmethod
    def in_context(cls, context: str, template: str, **params) -> "Text":
        """A Text whose msgid has a gettext context (marked with ``NP_(context, template)``)."""
        text = cls(template, **params)
        text.context = context
        return text

    def __str__(self) -> str:
        if not self.params:
            return self.template
        return self.template % {k: str(v) for k, v in self.params.items()}

    def __repr__(self) -> str:
        return f"Text({str(self)!r})"

    def __eq__(self, other) -> bool:
        """The same wording data (template, context and fields): never equal to a plain text, so
        nothing decides by the English words."""
        if type(other) is not type(self):
            return NotImplemented
        return (self.template, self.context, self.params) == (other.template, other.context, other.params)

    def __hash__(self) -> int:
        return hash((self.template, self.context))


class Plural(Text):
    """A sentence with a singular and a plural template chosen by ``num`` (gettext's ngettext);
    English uses the singular for 1 only, other languages their own plural rule."""

    __slots__ = ("plural", "num")

    def __init__(self, singular: str, plural: str, num: int, **params):
        super().__init__(singular, num=num, **params)
        self.plural = plural
        self.num = num

    def __str__(self) -> str:
        template = self.template if self.num == 1 else self.plural
        return template % {k: str(v) for k, v in self.params.items()}

    def __eq__(self, other) -> bool:
        return Text.__eq__(self, other) is True and self.plural == other.plural

    __hash__ = Text.__hash__


class Join:
    """Several parts said as one: ``sep.join(parts)``; ``sep`` is a msgid (`` or ``) or punctuation."""

    __slots__ = ("sep", "parts")

    def __init__(self, sep: str, parts):
        self.sep = sep
        self.parts = tuple(parts)

    def __str__(self) -> str:
        return self.sep.join(str(p) for p in self.parts)

    def __eq__(self, other) -> bool:
        """The same separator and parts (wording data), never a plain text."""
        if type(other) is not type(self):
            return NotImplemented
        return (self.sep, self.parts) == (other.sep, other.parts)

    def __hash__(self) -> int:
        return hash((self.sep, len(self.parts)))

    def __repr__(self) -> str:
        return f"Join({str(self)!r})"


class Cap:
    """``inner`` with its first letter made a capital (a sentence that starts with a field)."""

    __slots__ = ("inner",)

    def __init__(self, inner):
        self.inner = inner

    def __str__(self) -> str:
        text = str(self.inner)
        return text[:1].upper() + text[1:]

    def __eq__(self, other) -> bool:
        """The same inner wording, never a plain text."""
        if type(other) is not type(self):
            return NotImplemented
        return self.inner == other.inner

    def __hash__(self) -> int:
        return hash(("cap", self.inner))

    def __repr__(self) -> str:
        return f"Cap({str(self)!r})"


def join_or(parts) -> Join:
    return Join(N_(" or "), parts)


def join_and(parts) -> Join:
    return Join(N_(" and "), parts)


def listing(parts) -> Join:
    return Join(", ", parts)


class Worded:
    """Mixin for an exception raised with wording data: ``raise SomeError(Text(N_("…"), …))``
    keeps the Text as ``text`` (a renderer words it in the players' language,
    companion_app/i18n/text.py ``error_text``) and ``str(err)`` is the English sentence as before.
    Raised with a plain ``str``, ``text`` is None and the message stays English everywhere."""

    text = None

    def __init__(self, message="", *args):
        self.text = None if isinstance(message, str) else message
        super().__init__(str(message), *args)


class Said(str):
    """A device's live status sentence: the English ``str`` (what logs, tests and JSON see, as
    before) that also keeps its wording data as ``text``, so each reader gets it in their own
    language (companion_app/i18n/text.py ``render``)."""

    __slots__ = ("text",)

    def __new__(cls, text):
        said = super().__new__(cls, str(text))
        said.text = text
        return said


# The operating system's reasons a file, port or device could not be used, by errno: the
# English is the C library's own message (what ``strerror`` says on Linux), so English output
# is unchanged while a renderer can word it in another language.
OS_REASONS = {
    errno.ENOENT: N_("No such file or directory"),
    errno.EACCES: N_("Permission denied"),
    errno.EPERM: N_("Operation not permitted"),
    errno.EISDIR: N_("Is a directory"),
    errno.ENOTDIR: N_("Not a directory"),
    errno.ENOSPC: N_("No space left on device"),
    errno.EROFS: N_("Read-only file system"),
    errno.EEXIST: N_("File exists"),
    errno.ENODEV: N_("No such device"),
    errno.ENXIO: N_("No such device or address"),
    errno.EIO: N_("Input/output error"),
    errno.EBUSY: N_("Device or resource busy"),
    errno.ENAMETOOLONG: N_("File name too long"),
    errno.ELOOP: N_("Too many levels of symbolic links"),
    errno.EADDRINUSE: N_("Address already in use"),
    errno.EADDRNOTAVAIL: N_("Cannot assign requested address"),
    errno.EDQUOT: N_("Disk quota exceeded"),
}


def os_reason(exc: BaseException):
    """Why a file, port or device could not be used (an ``OSError``'s errno, or text that is not
    UTF-8) as a ``Term`` a renderer translates; an uncommon errno keeps the system's own English
    words (``strerror``), anything else its text."""
    if isinstance(exc, UnicodeDecodeError):
        return Term(N_("not a text file in UTF-8"))
    code = getattr(exc, "errno", None)
    reason = OS_REASONS.get(code) if isinstance(code, int) else None
    if reason is not None:
        return Term(reason)
    return getattr(exc, "strerror", None) or str(exc)


_NAMES = {"pawn": PawnName, "colour": Colour, "direction": Direction, "moves": Moves, "term": Term}


def words_json(value):
    """Wording data in JSON (a camera reading's problems cross the process edge as JSON and keep their
    words): a Text is ``{"text", "params", ...}``, a Join ``{"join", "parts"}``, a Cap ``{"cap"}``, a pawn's
    name ``{"pawn": "red 3/4"}`` (likewise colour, direction, term); text and numbers are themselves."""
    if isinstance(value, Text):
        out = {"text": value.template, "params": {k: words_json(v) for k, v in value.params.items()}}
        if value.context is not None:
            out["context"] = value.context
        if isinstance(value, Plural):
            out["plural"] = value.plural
        return out
    if isinstance(value, Join):
        return {"join": value.sep, "parts": [words_json(p) for p in value.parts]}
    if isinstance(value, Cap):
        return {"cap": words_json(value.inner)}
    for name, kind in _NAMES.items():
        if isinstance(value, kind):
            return {name: str(value)}
    return value if value is None or isinstance(value, (int, float)) else str(value)


def words_from_json(data):
    """The wording data ``words_json`` wrote (its English ``str()`` unchanged)."""
    if not isinstance(data, dict):
        return data
    if "said" in data:
        return Said(words_from_json(data["said"]))
    if "text" in data:
        params = {k: words_from_json(v) for k, v in (data.get("params") or {}).items()}
        if "plural" in data:   # (variables, not subscripts: pybabel would take a literal argument for a msgid)
            singular, plural, num = data["text"], data["plural"], params.pop("num")
            return Plural(singular, plural, num, **params)
        if data.get("context") is not None:
            return Text.in_context(data["context"], data["text"], **params)
        return Text(data["text"], **params)
    if "join" in data:
        return Join(data["join"], [words_from_json(p) for p in data.get("parts") or []])
    if "cap" in data:
        return Cap(words_from_json(data["cap"]))
    for name, kind in _NAMES.items():
        if name in data:
            return kind(data[name])
    return str(data)


WORDING = (Text, Join, Cap, Said, PawnName, Colour, Direction, Moves, Term)   # what a renderer words


def payload_json(value):
    """A payload (dicts and lists) that holds wording data, as plain JSON to store: each piece of wording
    data becomes ``{"$words": …}`` (``words_json``; a ``Said`` as ``{"said": …}``), so
    ``payload_from_json`` gives it back, to be said in any language later."""
    if isinstance(value, dict):
        return {k: payload_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [payload_json(v) for v in value]
    if isinstance(value, Said):
        return {"$words": {"said": words_json(value.text)}}
    if isinstance(value, WORDING):
        return {"$words": words_json(value)}
    return value


def payload_from_json(data):
    """The payload ``payload_json`` stored, its wording data back."""
    if isinstance(data, dict):
        if set(data) == {"$words"}:
            return words_from_json(data["$words"])
        return {k: payload_from_json(v) for k, v in data.items()}
    if isinstance(data, list):
        return [payload_from_json(v) for v in data]
    return data


def shown(value, cut: int = 40) -> str:
    """A value read from a JSON file, quoted in a message as the file wrote it: ``null``, ``true``,
    ``false`` (never Python's ``None``), else its ``repr`` cut to ``cut`` characters."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    return f"{value!r:.{cut}}"
