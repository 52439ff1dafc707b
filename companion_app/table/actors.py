"""Who gave an action, and what let a camera reading through the loop's one gate.

``By`` is saved with each action in the journal (its ``by`` key) as its string value, so a
journal written before these were an enum reads the same.  Code asks ``by.camera``, never the
string's spelling.
"""
from __future__ import annotations

from enum import StrEnum


class By(StrEnum):
    """Who gave an action (TABLE.md "Modes")."""

    REFEREE = "referee"                 # the referee's screen (and the table's accepted position)
    BUTTON = "button"                   # the table's MONSTER button
    CAMERA = "camera"                   # the camera's reading, applied by itself (auto mode)
    CAMERA_SCREEN = "camera+screen"     # the camera's reading, confirmed on the referee's screen
    CAMERA_BUTTON = "camera+button"     # the camera's reading, confirmed with the CONFIRM button

    @property
    def camera(self) -> bool:
        """The action is a camera reading of the table (the table already shows it)."""
        return self in CAMERA_READ


CAMERA_READ = frozenset({By.CAMERA, By.CAMERA_SCREEN, By.CAMERA_BUTTON})


def read_by(value) -> By | None:
    """A journal step's ``by`` (a string), or None for a value no version ever wrote."""
    try:
        return By(value)
    except ValueError:
        return None


class Trigger(StrEnum):
    """What opened the camera loop's gate for the current reading."""

    AUTO = "auto"         # auto mode: the loop itself
    SCREEN = "screen"     # the referee's CONFIRM on the screen
    BUTTON = "button"     # the table's CONFIRM button

    @property
    def by(self) -> By:
        """Who the applied action is saved as given by."""
        return {Trigger.AUTO: By.CAMERA, Trigger.SCREEN: By.CAMERA_SCREEN, Trigger.BUTTON: By.CAMERA_BUTTON}[self]
