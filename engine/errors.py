"""Error kinds, split as python-chess does: bad input vs. illegal by the rules.

Each error keeps its message as data (``text``: an engine.wording Text, English template and
named fields) beside the English ``str(err)``, so a renderer can give the same refusal in the
players' language: ``err.frame(words)`` wraps any wording of ``text`` exactly as ``str(err)``
wraps the English (the rule id, the field), which never changes with the language.
"""
from __future__ import annotations

from .wording import Text


class FlureError(Exception):
    """Base for every engine error; its message is meant for players."""

    text = None   # the message without its frame, as engine.wording data (a Text), when raised with one

    def __init__(self, message=""):
        self.text = message if not isinstance(message, str) else Text(message)
        super().__init__(self.frame(str(message)))

    def frame(self, message: str) -> str:
        """The whole message around ``message`` (the English one, or a translation of ``text``)."""
        return message


class InvalidSetupError(FlureError, ValueError):
    """A position or scenario file that is malformed; ``field`` names where."""

    def __init__(self, message, field: str | None = None):
        self.field = field
        super().__init__(message)

    def frame(self, message: str) -> str:
        return f"{self.field}: {message}" if self.field else message


class IllegalMoveError(FlureError):
    """A move the rules forbid; ``rule`` is the rule id, ``index`` the unit move."""

    def __init__(self, message, rule: str, index: int | None = None, move: str | None = None):
        self.rule = rule
        self.index = index
        self.move = move
        self.reason = str(message)
        super().__init__(message)

    def frame(self, message: str) -> str:
        return f"{message} ({self.rule})"


class GameActionError(FlureError):
    """An action that does not fit the game's current state (wrong turn, phase, ...)."""

    def __init__(self, message, rule: str | None = None):
        self.rule = rule
        super().__init__(message)

    def frame(self, message: str) -> str:
        return f"{message} ({self.rule})" if self.rule else message


class InvalidActionError(InvalidSetupError):
    """Input that is not a well-formed action (engine/actions.py); ``field`` names where.

    Kept apart from the rule errors: an action that is well formed but not allowed now raises
    GameActionError or IllegalMoveError instead."""
