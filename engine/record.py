"""A game record: the setup, the seed and every action, in one versioned JSON form (``flure-game/1``).

Why a record and not the saved state: the state says where the game is, the record
says how it got there.  A table keeps or shares a game with it, a bug report
carries one, and ``flure replay`` plays it again through the rules — the seed
decides every shuffle (G7), so the same record always gives the same game.
Pure like the rest of the engine: reading a record refuses malformed input with
``InvalidSetupError`` naming the field (``actions[3].pawn``), replaying it refuses
an action the rules do not allow at its step the same way.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .actions import Action, format_action, parse_action
from .errors import FlureError, InvalidSetupError
from .game import Game
from .wording import N_, Text, shown

FORMAT = "flure-game/1"
FIELDS = ("format", "players", "first_player", "setup", "prey3_variant", "seed", "actions", "result")


@dataclass(frozen=True)
class GameRecord:
    players: tuple[str, ...]
    first_player: str | None      # None: Game.new's choice (a record with no players is refused)
    setup: str
    prey3_variant: bool
    seed: int
    actions: tuple[Action, ...]

    @classmethod
    def of(cls, game: Game, actions) -> "GameRecord":
        """The record of a game that started as ``game`` (its settings) and took ``actions``."""
        return cls(tuple(game.players), game.first_player, game.setup, game.prey3_variant, game.seed,
                   tuple(parse_action(a) for a in actions))

    def start(self) -> Game:
        try:
            return Game.new(self.players, self.first_player, self.setup, prey3_variant=self.prey3_variant,
                            seed=self.seed)
        except InvalidSetupError:
            raise
        except FlureError as exc:
            raise InvalidSetupError(exc, "players") from exc

    def replay(self) -> Iterator[tuple[Action | None, Game]]:
        """The new game (with ``None``), then each action and the game after it.  An action the rules
        refuse at its step raises InvalidSetupError naming it (``actions[4]``)."""
        game = self.start()
        yield None, game
        for i, action in enumerate(self.actions):
            try:
                game = game.apply(action)
            except FlureError as exc:
                raise InvalidSetupError(Text(N_("step %(number)s (%(kind)s) is not allowed there: %(reason)s"),
                                             number=i + 1, kind=format_action(action)["type"], reason=exc),
                                        f"actions[{i}]") from exc
            yield action, game

    def final(self) -> Game:
        game = None
        for _, game in self.replay():
            pass
        assert game is not None     # replay yields the new game first
        return game

    def to_json(self) -> dict:
        final = self.final()
        return {"format": FORMAT, "players": list(self.players), "first_player": self.first_player,
                "setup": self.setup, "prey3_variant": self.prey3_variant, "seed": self.seed,
                "actions": [format_action(a) for a in self.actions],
                "result": {"steps": len(self.actions), "summary": str(final.summary())}}

    @classmethod
    def from_json(cls, data) -> "GameRecord":
        """Read a record; anything malformed raises InvalidSetupError naming the field."""
        if not isinstance(data, dict):
            raise InvalidSetupError(Text(N_("a game record is a JSON object")), "format")
        if "format" not in data:   # a position or a plan given where a game record was asked for
            raise InvalidSetupError(Text(N_("not a game record (it has no %(form)s)"), form=f'"format": "{FORMAT}"'),
                                    "format")
        if data.get("format") != FORMAT:
            raise InvalidSetupError(Text(N_("not a game record (expected %(form)s, got %(value)s)"),
                                         form=f'"format": "{FORMAT}"', value=shown(data["format"])), "format")
        for key in data:
            if key not in FIELDS:
                raise InvalidSetupError(Text(N_("a game record has no field %(key)s (fields: %(known)s)"),
                                             key=f"{key!r:.40}", known=", ".join(FIELDS)),
                                        str(key)[:40])
        for key in ("players", "seed", "actions"):
            if key not in data:
                raise InvalidSetupError(Text(N_("missing")), key)
        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise InvalidSetupError(Text(N_("must be a list of colours, e.g. %(example)s"), example='["red", "blue"]'),
                                    "players")
        first = data.get("first_player", players[0] if players else None)
        if first is not None and not isinstance(first, str):
            raise InvalidSetupError(Text(N_("must be one of the players' colours")), "first_player")
        setup = data.get("setup", "basic")
        if not isinstance(setup, str):
            raise InvalidSetupError(Text(N_("must be basic or advanced")), "setup")
        variant = data.get("prey3_variant", False)
        if not isinstance(variant, bool):
            raise InvalidSetupError(Text(N_("must be true or false")), "prey3_variant")
        seed = data["seed"]
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise InvalidSetupError(Text(N_("must be a whole number from 0 to 2^63")), "seed")
        if not isinstance(data["actions"], list):
            raise InvalidSetupError(Text(N_("must be a list of actions")), "actions")
        actions = []
        for i, item in enumerate(data["actions"]):
            try:
                actions.append(parse_action(item))
            except InvalidSetupError as exc:
                where = f"actions[{i}]" + (f".{exc.field}" if exc.field and exc.field != "action" else "")
                raise InvalidSetupError(exc.text, where) from exc   # its message without its own field
        record = cls(tuple(players), first, setup, variant, seed, tuple(actions))
        record.start()   # the setup itself is checked here (players, colours, G11)
        return record
