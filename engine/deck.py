"""The tombstone deck (G7–G9) as plain tuples, shuffled only from the game's seed.

Each shuffle uses its own ``random.Random`` seeded with ``"<seed>:<purpose>"``
(string seeds are hashed with SHA-512, so they are stable across processes and
Python runs).  No RNG state needs storing: a game saved as JSON and replayed
from the same actions deals exactly the same tiles.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from .errors import GameActionError, InvalidSetupError
from .monster import tile_rule
from .wording import N_, Join, Plural, Term, Text, listing

TILES = ("5", "7", "7", "8", "8", "10", "prey-1", "prey-2")   # the eight tombstone tiles (G7)
TILES_PLAYED_PER_ROUND = len(TILES) - 1  # G9: the last tile is never played
_PREY_WORDS = {1: N_("one prey"), 2: N_("two prey"), 3: N_("three prey")}


def is_prey(tile: str, *, prey3_variant: bool = False) -> bool:
    """A prey tile (M1); with the G11 variant the "5" counts as three prey (tile_rule says so)."""
    return tile_rule(tile, prey3_variant=prey3_variant)[1] is not None


def shuffled(tiles, seed: int, purpose: str) -> tuple[str, ...]:
    """``tiles`` in the order a shuffle seeded by (seed, purpose) gives."""
    order = list(tiles)
    random.Random(f"{seed}:{purpose}").shuffle(order)
    return tuple(order)


def tile_effect_words(tile: str, *, prey3_variant: bool = False) -> Text:
    """What the revealed tile makes the monster do, for the game log (M1, G11), as wording data."""
    steps, prey = tile_rule(tile, prey3_variant=prey3_variant)
    if steps is not None:
        return Text(N_("%(tile)s: the monster walks %(num)s steps (M1)"), tile=tile_words(tile), num=steps)
    assert prey is not None     # tile_rule gives exact steps or a prey count
    hunt = Plural("the monster hunts until it has eaten %(num)s pawn (M1)",
                  "the monster hunts until it has eaten %(num)s pawns (M1)", prey)
    if not tile.startswith("prey-"):
        return Text(N_("the %(tile)s tile counts as %(prey)s (G11): %(hunt)s"), tile=tile, prey=Term(_PREY_WORDS[prey]),
                    hunt=hunt)
    return Text(N_("%(tile)s: %(hunt)s"), tile=tile_words(tile), hunt=hunt)


def tile_words(tile: str, *, prey3_variant: bool = False) -> Text:
    """The tile's name as wording data (engine.wording): ``8 steps``, ``one prey``; the 5 under G11 is
    ``5 (three prey, G11)``."""
    steps, prey = tile_rule(tile, prey3_variant=prey3_variant)
    if steps is not None:
        return Text(N_("%(n)s steps"), n=tile)
    assert prey is not None     # tile_rule gives exact steps or a prey count
    if tile.startswith("prey-"):
        return Text(_PREY_WORDS[prey])
    return Text(N_("%(tile)s (%(prey)s, G11)"), tile=tile, prey=Term(_PREY_WORDS[prey]))


def tiles_words(tiles, *, prey3_variant: bool = False) -> Join | Text:
    """``5 steps, 7 steps, one prey`` in deck order (TILES), as wording data; ``none`` when empty."""
    names = [tile_words(t, prey3_variant=prey3_variant) for t in sorted(tiles, key=TILES.index)]
    return listing(names) if names else Text(N_("none"))


@dataclass(frozen=True)
class TileDrawn:
    """One tile taken from the deck: the tile to play and the deck left afterwards."""

    tile: str
    deck: tuple[str, ...]
    set_aside: tuple[str, ...] = ()  # prey tiles revealed before it (G8), shuffled back in

    @property
    def reshuffled(self) -> bool:
        return bool(self.set_aside)


def draw_top(deck: tuple[str, ...], *, first_of_game: bool, seed: int, prey3_variant: bool) -> TileDrawn:
    """Reveal the top tile (G7); the game's first tile follows G8."""
    if not deck:
        raise GameActionError(N_("The deck is empty"), rule="G9")
    if not first_of_game:
        return TileDrawn(deck[0], deck[1:])
    for i, tile in enumerate(deck):
        if not is_prey(tile, prey3_variant=prey3_variant):
            if i == 0:
                return TileDrawn(tile, deck[1:])
            rest = deck[:i] + deck[i + 1:]
            return TileDrawn(tile, shuffled(rest, seed, "first-tile"), deck[:i])
    raise GameActionError(N_("The deck holds no step tile"), rule="G8")


def take(deck: tuple[str, ...], tile, *, first_of_game: bool, prey3_variant: bool) -> TileDrawn:
    """A tile revealed at the table: it must still be in the deck (G7, G8)."""
    if isinstance(tile, int) and not isinstance(tile, bool):
        tile = str(tile)   # a step tile given as a number: 8 is the "8" tile
    if not isinstance(tile, str) or tile not in TILES:
        raise InvalidSetupError(Text(N_("%(tile)s is not a tombstone tile (one of %(known)s)"), tile=repr(tile),
                                     known=", ".join(dict.fromkeys(TILES))),
                                "tile")
    name = tile_words(tile, prey3_variant=prey3_variant)
    if tile not in deck:
        raise GameActionError(Text(N_("There is no %(tile)s tile left in the deck (left: %(left)s)"), tile=name,
                                   left=tiles_words(deck, prey3_variant=prey3_variant)), rule="G7")
    if first_of_game and is_prey(tile, prey3_variant=prey3_variant):
        raise GameActionError(Text(N_("The first tile of the game may not be a prey tile (%(tile)s): set it aside "
                                      "and reveal the next one until a step tile appears; then all the other tiles "
                                      "are shuffled into a new deck"), tile=name), rule="G8")
    # The table's own stack is what counts; our copy just loses that tile.
    i = deck.index(tile)
    return TileDrawn(tile, deck[:i] + deck[i + 1:])
