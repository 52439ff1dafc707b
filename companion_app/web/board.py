"""The board's fixed geometry as JSON for the browser, taken from engine.geometry (never re-typed), and the
pieces' names (engine.names) as wording data, said in the request's language where the JSON is sent."""
from __future__ import annotations

from functools import lru_cache

from engine.geometry import (
    COLS,
    DIRECTIONS,
    ENTRANCE,
    EXIT,
    ROWS,
    SQUARES,
    direction_name,
    square_col,
    square_name,
    square_row,
    wall_letter,
)
from engine.names import KINDS, piece_name

from ..palette import players_json


@lru_cache(maxsize=1)
def board_json() -> dict:
    walls = []
    for sq in SQUARES:
        for d in DIRECTIONS:
            letter = wall_letter(sq, d)
            if letter:
                walls.append({"square": square_name(sq), "side": direction_name(d), "letter": letter})
    return {
        "cols": COLS, "rows": ROWS,
        "squares": [{"name": square_name(sq), "col": square_col(sq), "row": square_row(sq)} for sq in SQUARES],
        "exit": square_name(EXIT), "entrance": square_name(ENTRANCE),
        "walls": walls,
        "size_mm": {"pitch": 30, "width": 520, "height": 360},
        "players": players_json(),   # each colour's fill, number ink and shape (companion_app/palette.py)
        "pieces": {kind: piece_name(kind) for kind in (*KINDS, "pawn")},   # each piece's name (engine.names)
    }
