"""JSON text handed to us by a person or another program, parsed with limits.

Python's ``json`` module ends in a ``RecursionError`` on text nested about a
thousand deep, and in a ``ValueError`` on a whole number with more than 4,300
digits; our own code (schemas, the engine's readers) would recurse on deep data
too.  Every file the program reads and every request body goes through
``loads`` here, so each of these is one plain sentence instead of a traceback.
Pure: text in, data out, no I/O.
"""
from __future__ import annotations

import json
import math
import re

from .errors import FlureError
from .wording import N_, Text

MAX_DEPTH = 64      # our deepest real document (a calibration, a plan) is under 10 levels
MAX_DIGITS = 40     # whole numbers we read are seeds, counts and pixel sizes

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


class JsonTextError(FlureError, ValueError):
    """Text that is not JSON we can use; the message says what is wrong and where (no file name:
    the caller adds it)."""


class NotJsonError(JsonTextError):
    """Text that is not JSON at all (not UTF-8, not valid JSON): its message reads "not …", so a
    caller says "the file is <message>"; other JsonTextErrors are JSON that "cannot be used"."""


def nesting_depth(text: str) -> int:
    """How deeply lists and objects nest in ``text`` (brackets inside strings do not count)."""
    depth = deepest = 0
    for match in _BRACKET.finditer(_STRING.sub('""', text)):
        depth += 1 if match.group() in "[{" else -1
        deepest = max(deepest, depth)
    return deepest


def data_depth(value) -> int:
    """How deeply lists and dicts nest in already parsed data (TOML, for one); iterative, so a
    deep value cannot end it in a RecursionError."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, tuple, dict)):
            depth += 1
            deepest = max(deepest, depth)
            todo.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise JsonTextError(Text(N_("a whole number with %(digits)s digits is too long (at most %(most)s)"),
                                 digits=len(text.lstrip("-")), most=MAX_DIGITS))
    return int(text)


def _real(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonTextError(Text(N_("the number %(number)s is too large"), number=text[:20]))
    return value


def _constant(name: str):
    raise JsonTextError(Text(N_("%(name)s is not a number JSON allows"), name=name))


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH, **kwargs):
    """The data in ``text``; JsonTextError for text that is not UTF-8, not JSON, nested deeper
    than ``max_depth``, or holding numbers too long or not finite.  Extra keyword arguments
    (``object_pairs_hook``) go to ``json.loads``."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotJsonError(Text(N_("not UTF-8 text (byte %(byte)s)"), byte=exc.start)) from None
    deepest = nesting_depth(text)
    if deepest > max_depth:
        raise JsonTextError(Text(N_("lists and objects are nested too deeply (%(levels)s levels, at most %(most)s)"),
                                 levels=deepest, most=max_depth))
    try:
        return json.loads(text, parse_int=_whole, parse_float=_real, parse_constant=_constant, **kwargs)
    except json.JSONDecodeError as exc:
        raise NotJsonError(Text(N_("not valid JSON (line %(line)s, column %(column)s: %(why)s)"),
                                 line=exc.lineno, column=exc.colno, why=exc.msg)) from None
    except RecursionError:   # a lower recursion limit than usual: still one sentence
        raise JsonTextError(N_("lists and objects are nested too deeply")) from None
