"""The sentences of teaching and of the pieces file (engine.wording data; pybabel extracts them)."""
from __future__ import annotations

from engine.wording import N_, Text


def _text(template: str):
    return lambda **params: Text(template, **params)


COUNT = _text(N_("%(photos)s photos for %(steps)s teaching steps: take one photo per step, in the layout's order"))
NOT_READ_STEP = _text(N_("step %(step)s: the photo cannot be used (%(why)s)"))
NOT_LOCATED_STEP = _text(N_("step %(step)s: %(why)s"))
EXPECTED_PIECE = _text(N_("step %(step)s: %(what)s expected on %(square)s, the square looks empty"))
EXPECTED_EMPTY = _text(N_("step %(step)s: %(squares)s should be empty, but something lies there"))
BAD_PIECES = _text(N_("%(path)s: not a pieces file from flure teach (%(why)s)"))
NO_PIECES = _text(N_("%(path)s: no such file (teach the camera your box first: flure teach … -o pieces.json, or the "
                     "Setup page's “Teaching the box without stickers”)"))
NOT_TURNED = _text(N_("steps %(steps)s: %(count)s of %(total)s pawns do not show more black on their partly black "
                      "face than on their coloured face: were the photos taken in the layout's order, the pawns "
                      "turned over as each step says?"))
TILE_MISSING = _text(N_("step %(step)s: tombstone tile %(tile)s expected in the card zone, the zone looks empty"))
NOT_WHAT_IT_LEAVES = _text(N_("%(square)s shows a piece that is clearly not what the only fitting change leaves there: "
                              "something else changed too (a guess is never applied)"))
