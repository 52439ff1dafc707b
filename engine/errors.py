"""Error kinds, split as python-chess does: bad input vs. illegal by the rules."""


class FlureError(Exception):
    """Base for every engine error; its message is meant for players."""


class InvalidSetupError(FlureError, ValueError):
    """A position or scenario file that is malformed; ``field`` names where."""

    def __init__(self, message: str, field: str | None = None):
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)


class IllegalMoveError(FlureError):
    """A move the rules forbid; ``rule`` is the rule id, ``index`` the unit move."""

    def __init__(self, message: str, rule: str, index: int | None = None, move: str | None = None):
        self.rule = rule
        self.index = index
        self.move = move
        self.reason = message
        super().__init__(f"{message} ({rule})")


class GameActionError(FlureError):
    """An action that does not fit the game's current state (wrong turn, phase, ...)."""

    def __init__(self, message: str, rule: str | None = None):
        self.rule = rule
        super().__init__(f"{message} ({rule})" if rule else message)


class InvalidActionError(InvalidSetupError):
    """Input that is not a well-formed action (engine/actions.py); ``field`` names where.

    Kept apart from the rule errors: an action that is well formed but not allowed now raises
    GameActionError or IllegalMoveError instead."""
