"""The game's status line (engine.game.Game.summary) in the players' language.

The engine keeps its English sentence (the msgid); this renders the same sentence from the game's
fields in any language, so English is exactly ``game.summary()`` (tests/test_i18n_game.py plays
random games to check it), the advanced setup's placement line (A2) included; ``placed_line`` is
the camera's sentence for a piece put down (English = ``table.readings.placed_text``).
"""
from __future__ import annotations

from engine.deck import TILES, tile_rule
from engine.game import Game
from engine.geometry import parse_square, square_name
from engine.pools import pool_squares

from . import gettext as _g
from . import ngettext_in, pick
from . import pgettext as _pg
from .plan_text import colour_name as _colour
from .plan_text import pawn_name as _pawn
from .text import render

N_ = lambda s: s   # noqa: E731 - marks a msgid for extraction
WAITING = N_("Waiting for the referee to start a game.")


def waiting_summaries() -> dict[str, str]:
    """The status line before any game, in each language."""
    from . import LANGUAGES
    return {lang: _g(lang, WAITING) for lang in LANGUAGES}


def summary(game: Game, lang: str) -> str:
    lang = pick(lang)
    if game.phase == "placement":
        return _placement(game, lang)
    if game.phase == "over":
        return _result(game, lang)
    deck = ngettext_in(lang, "%(num)s tile left in the deck", "%(num)s tiles left in the deck", game.deck_left)
    if game.phase == "monster":
        return _g(lang, "Round %(round)s, turn %(turn)s: every pawn has moved; reveal the monster's tile (G7). %(deck)s.",
                  round=game.round, turn=game.turn, deck=deck)
    mine = [_pawn(lang, game.position.pawn(lab).name) for lab in game.unmoved
            if game.position.pawn(lab).colour == game.to_move]
    return _g(lang, "Round %(round)s, turn %(turn)s: %(colour)s moves %(pawns)s (G3). %(deck)s.", round=game.round,
              turn=game.turn, colour=_colour(lang, game.to_move), pawns=_g(lang, " or ").join(mine), deck=deck)


# A1's pieces, one plural pair each (English = engine.placement.pieces_text).
PIECE_COUNTS = {
    "stone": lambda lang, n: ngettext_in(lang, "%(num)s plain stone", "%(num)s plain stones", n),
    "crystal": lambda lang, n: ngettext_in(lang, "%(num)s crystal", "%(num)s crystals", n),
    "pivot-right": lambda lang, n: ngettext_in(lang, "%(num)s right-turn pivot stone",
                                               "%(num)s right-turn pivot stones", n),
    "pivot-about": lambda lang, n: ngettext_in(lang, "%(num)s about-turn pivot stone",
                                               "%(num)s about-turn pivot stones", n),
    "pool-2x2": lambda lang, n: ngettext_in(lang, "%(num)s 2×2 pool", "%(num)s 2×2 pools", n),
    "pool-1x4": lambda lang, n: ngettext_in(lang, "%(num)s 1×4 pool", "%(num)s 1×4 pools", n),
    "teleporter": lambda lang, n: ngettext_in(lang, "%(num)s teleporter", "%(num)s teleporters", n),
}
# The camera's sentence for one piece put down (English = table.readings.placed_text of the engine's
# Placement.describe); one message per piece so each language has its own article.
PLACED = {
    "stone": N_("%(colour)s placed a plain stone on %(square)s (A2)"),
    "crystal": N_("%(colour)s placed a crystal on %(square)s (A2)"),
    "pivot-right": N_("%(colour)s placed a right-turn pivot stone on %(square)s (A2)"),
    "pivot-about": N_("%(colour)s placed an about-turn pivot stone on %(square)s (A2)"),
    "pool-2x2": N_("%(colour)s placed a 2×2 pool on %(square)s (A2)"),
    "pool-1x4": N_("%(colour)s placed a 1×4 pool on %(square)s (A2)"),
    "teleporter": N_("%(colour)s placed a teleporter on %(square)s (pair %(pair)s, arrow %(arrow)s) (A2)"),
}


def pieces_left(left: dict[str, int], lang: str) -> str:
    """engine.placement.pieces_text in ``lang``: ``3 plain stones, 2 crystals, …`` or ``none``."""
    parts = [PIECE_COUNTS[p](lang, n) for p, n in left.items() if n]
    return ", ".join(parts) if parts else _g(lang, "none")


def _placement(game: Game, lang: str) -> str:
    left = dict(game.pieces_left)
    return ngettext_in(lang, "Advanced setup: %(colour)s places the next piece (A2); %(num)s left: %(pieces)s.",
                       "Advanced setup: %(colour)s places the next piece (A2); %(num)s left: %(pieces)s.",
                       sum(left.values()), colour=_colour(lang, game.placer), pieces=pieces_left(left, lang))


def placed_line(action: dict, placer: str, lang: str) -> str:
    """The camera's sentence for the ``place`` action ``action`` (JSON) by ``placer``, in ``lang``."""
    piece = action["piece"]
    where = action["square"]
    if piece in ("pool-2x2", "pool-1x4"):
        cells = pool_squares(parse_square(where), piece[5:], action.get("orientation") or "horizontal")
        where = f"{square_name(cells[0])}–{square_name(cells[-1])}"
    return _g(lang, PLACED[piece], colour=_colour(lang, placer), square=where, pair=action.get("pair"),
              arrow=_pg(lang, "direction", action["arrow"]) if action.get("arrow") else None)


def all_placed_lines(action: dict, placer: str) -> dict[str, str]:
    from . import LANGUAGES
    return {lang: placed_line(action, placer, lang) for lang in LANGUAGES}


def _result(game: Game, lang: str) -> str:
    return render(game.result_words(), lang)   # the engine's own wording data (engine.wording)


def all_summaries(game: Game) -> dict[str, str]:
    from . import LANGUAGES
    return {lang: summary(game, lang) for lang in LANGUAGES}


PREY_WORDS = {1: N_("one prey"), 2: N_("two prey"), 3: N_("three prey")}


def tile_name(tile: str, lang: str, *, prey3_variant: bool = False) -> str:
    """engine.deck.tile_name in ``lang``: ``8 steps``, ``one prey``; the 5 under G11 ``5 (three prey, G11)``."""
    steps, prey = tile_rule(tile, prey3_variant=prey3_variant)
    if steps is not None:
        return _g(lang, "%(n)s steps", n=tile)
    if tile.startswith("prey-"):
        return _g(lang, PREY_WORDS[prey])
    return _g(lang, "%(tile)s (%(prey)s, G11)", tile=tile, prey=_g(lang, PREY_WORDS[prey]))


def all_tile_names(game: Game) -> dict[str, dict[str, str]]:
    """Each language's names of the tiles for this game (the phones' tile badges)."""
    from . import LANGUAGES
    return {lang: {t: tile_name(t, lang, prey3_variant=game.prey3_variant) for t in dict.fromkeys(TILES)}
            for lang in LANGUAGES}
