"""The pieces' names: one vocabulary, keyed by the piece's kind, for every sentence that names a piece.

A kind is what the engine calls a piece (``stone``, ``crystal``, ``pivot-right``, ``pivot-about``,
``teleporter``, ``pool-2x2``, ``pool-1x4``, ``monster``).  Each has one English name
(``right-turn pivot stone``), said in the role a sentence gives it:

- ``name``: the bare noun (a label, a list of pieces: ``right-turn pivot stone``);
- ``names``: its plural (``right-turn pivot stones``); ``count_words`` gives a number of them;
- ``a`` and ``the``, each as the subject of a sentence (``a crystal is on g7``) or as its object
  (``put a crystal on g7``).

English says a role's name the same whether subject or object; a language that does not (German:
``ein Drehstein`` / ``einen Drehstein``) words them apart through the gettext context of each role
(``NP_``), so every language has the right article and case from the one table.
"""
from __future__ import annotations

from .wording import NP_, Plural, Text, n_

KINDS = ("stone", "crystal", "pivot-right", "pivot-about", "teleporter", "pool-2x2", "pool-1x4", "monster")

# The gettext context of each role; the English of the subject and the object roles is the same.
ROLES = {"name": "piece", "names": "pieces", "a": "a piece, subject", "a-object": "a piece, object",
         "the": "the piece, subject", "the-object": "the piece, object"}

_NAMES = {
    "name": {"stone": NP_("piece", "stone"), "crystal": NP_("piece", "crystal"),
             "pivot-right": NP_("piece", "right-turn pivot stone"),
             "pivot-about": NP_("piece", "about-turn pivot stone"), "teleporter": NP_("piece", "teleporter"),
             "pool-2x2": NP_("piece", "2×2 pool"), "pool-1x4": NP_("piece", "1×4 pool"),
             "monster": NP_("piece", "monster"), "pawn": NP_("piece", "pawn")},   # (a pawn: its name only)
    "names": {"stone": NP_("pieces", "stones"), "crystal": NP_("pieces", "crystals"),
              "pivot-right": NP_("pieces", "right-turn pivot stones"),
              "pivot-about": NP_("pieces", "about-turn pivot stones"), "teleporter": NP_("pieces", "teleporters"),
              "pool-2x2": NP_("pieces", "2×2 pools"), "pool-1x4": NP_("pieces", "1×4 pools"),
              "monster": NP_("pieces", "monsters")},
    "a": {"stone": NP_("a piece, subject", "a stone"), "crystal": NP_("a piece, subject", "a crystal"),
          "pivot-right": NP_("a piece, subject", "a right-turn pivot stone"),
          "pivot-about": NP_("a piece, subject", "an about-turn pivot stone"),
          "teleporter": NP_("a piece, subject", "a teleporter"),
          "pool-2x2": NP_("a piece, subject", "a 2×2 pool"), "pool-1x4": NP_("a piece, subject", "a 1×4 pool"),
          "monster": NP_("a piece, subject", "a monster")},
    "a-object": {"stone": NP_("a piece, object", "a stone"), "crystal": NP_("a piece, object", "a crystal"),
                 "pivot-right": NP_("a piece, object", "a right-turn pivot stone"),
                 "pivot-about": NP_("a piece, object", "an about-turn pivot stone"),
                 "teleporter": NP_("a piece, object", "a teleporter"),
                 "pool-2x2": NP_("a piece, object", "a 2×2 pool"), "pool-1x4": NP_("a piece, object", "a 1×4 pool"),
                 "monster": NP_("a piece, object", "a monster")},
    "the": {"stone": NP_("the piece, subject", "the stone"), "crystal": NP_("the piece, subject", "the crystal"),
            "pivot-right": NP_("the piece, subject", "the right-turn pivot stone"),
            "pivot-about": NP_("the piece, subject", "the about-turn pivot stone"),
            "teleporter": NP_("the piece, subject", "the teleporter"),
            "pool-2x2": NP_("the piece, subject", "the 2×2 pool"),
            "pool-1x4": NP_("the piece, subject", "the 1×4 pool"),
            "monster": NP_("the piece, subject", "the monster")},
    "the-object": {"stone": NP_("the piece, object", "the stone"), "crystal": NP_("the piece, object", "the crystal"),
                   "pivot-right": NP_("the piece, object", "the right-turn pivot stone"),
                   "pivot-about": NP_("the piece, object", "the about-turn pivot stone"),
                   "teleporter": NP_("the piece, object", "the teleporter"),
                   "pool-2x2": NP_("the piece, object", "the 2×2 pool"),
                   "pool-1x4": NP_("the piece, object", "the 1×4 pool"),
                   "monster": NP_("the piece, object", "the monster")},
}

# A number of pieces (``3 stones``): a singular and a plural template each (gettext's ngettext).
_COUNTS = {
    "stone": n_("%(num)s stone", "%(num)s stones"),
    "crystal": n_("%(num)s crystal", "%(num)s crystals"),
    "pivot-right": n_("%(num)s right-turn pivot stone", "%(num)s right-turn pivot stones"),
    "pivot-about": n_("%(num)s about-turn pivot stone", "%(num)s about-turn pivot stones"),
    "teleporter": n_("%(num)s teleporter", "%(num)s teleporters"),
    "pool-2x2": n_("%(num)s 2×2 pool", "%(num)s 2×2 pools"),
    "pool-1x4": n_("%(num)s 1×4 pool", "%(num)s 1×4 pools"),
    "monster": n_("%(num)s monster", "%(num)s monsters"),
}


def piece_name(kind: str, role: str = "name") -> Text:
    """The piece of ``kind`` named in ``role`` (``name``, ``names``, ``a``, ``a-object``, ``the``,
    ``the-object``), as wording data: its ``str()`` is the English (``the right-turn pivot stone``)."""
    return Text.in_context(ROLES[role], _NAMES[role][kind])


def count_words(kind: str, num: int) -> Plural:
    """``num`` pieces of ``kind`` (``3 stones``, ``1 crystal``), as wording data."""
    return Plural(*_COUNTS[kind], num)
