"""The result of reading one frame: the engine's Position plus what went wrong.

``to_json()`` is exactly the VISION.md object printed by ``flure vision read``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.geometry import square_name
from engine.position import Position
from engine.wording import Said, Text

from .problems import NOT_LOCATED, Sentence


@dataclass(frozen=True)
class SeenSticker:
    """One piece sticker found on the board: where, what, how sure."""

    id: int
    piece: str
    square: int | None
    board_mm: tuple[float, float]
    pixel: tuple[float, float]
    rotation: int
    confidence: float
    what: str
    corners_px: tuple = ()     # undistorted pixel corners, cv2.aruco order

    def to_json(self) -> dict:
        return {"id": self.id, "piece": self.piece,
                "square": square_name(self.square) if self.square is not None else None,
                "board_mm": [round(self.board_mm[0], 1), round(self.board_mm[1], 1)],
                "rotation": self.rotation, "confidence": round(self.confidence, 3), "what": self.what}


def problem(sentence: Sentence, sq: int | None = None, **params) -> dict:
    """A problem of a reading, ``{code, message, square}`` (VISION.md): one of vision.problems' sentences
    with its fields; ``message`` is a ``Said``: the English that JSON and logs see, keeping the sentence's
    wording data, which each reader's edge says in their language (companion_app/i18n/text.py)."""
    return status_problem(sentence.code, sentence(**params), square_name(sq) if sq is not None else None)


def status_problem(code: str, words: Text, square: str | None = None) -> dict:
    """A problem already worded: one of ``Position.status_words()`` (engine codes such as ``monster-on-pool``),
    or a board not located (``not_located``)."""
    return {"code": code, "message": Said(words), "square": square}


@dataclass
class Reading:
    """What the camera saw in one frame.

    ``position`` is None when the board was not located or no monster was seen (the
    engine's Position needs one); ``setup`` in the JSON then lists what was seen.
    ``problems`` are ``{code, message, square}``; any problem makes the reading doubtful
    and the pipeline will not accept it.
    """

    located: bool
    position: Position | None = None
    tile: str | None = None
    problems: list[dict] = field(default_factory=list)
    confidence: float = 0.0
    stickers: list[SeenSticker] = field(default_factory=list)
    setup: dict | None = None
    occluded: bool = False
    bumped: bool = False
    location: object | None = field(default=None, repr=False, compare=False)
    # Every square whose contents this frame could not establish, with the problem code that
    # says why (the ``problems`` name only the first square of an occluded or out-of-view region).
    unseen: dict[int, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Usable as it is: located, a position, nothing doubtful."""
        return self.located and self.position is not None and not self.problems

    def key(self) -> tuple | None:
        """What must stay identical over consecutive frames for the reading to be accepted."""
        if not self.located or self.setup is None:
            return None
        return (repr(sorted(_flatten(self.setup))), self.tile)

    def to_json(self) -> dict:
        out: dict = {"located": self.located}
        if self.located and self.setup is not None:
            out["setup"] = self.setup
        out["tile"] = self.tile
        out["problems"] = list(self.problems)
        return out

    @property
    def reason(self) -> str | None:
        """The first problem's message (why the board was not located, say)."""
        return self.problems[0]["message"] if self.problems else None


def not_located(reason: Text, *, bumped: bool = False) -> Reading:
    """A reading of a board not found; ``reason`` is ``board_not_located(why)``, as wording data."""
    return Reading(False, problems=[status_problem(NOT_LOCATED.code, reason)], bumped=bumped)


def _flatten(value, prefix=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _flatten(v, f"{prefix}/{k}")
    elif isinstance(value, list):
        yield (prefix, tuple(sorted(map(str, value))))
    else:
        yield (prefix, str(value))
