"""The game's status line (engine.game.Game.summary) in the players' language.

The engine keeps its English sentence (the msgid); this renders the same sentence from the game's
fields in any language, so English is exactly ``game.summary()`` (tests/test_i18n_game.py plays
random games to check it).  The advanced setup's placement line is the one phase left in English.
"""
from __future__ import annotations

from engine.deck import TILES, tile_rule
from engine.game import Game

from . import gettext as _g, ngettext_in, pick
from .plan_text import colour_name as _colour, pawn_name as _pawn
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
        return game.summary()
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
