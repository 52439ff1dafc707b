"""The players' colours on screens and pictures, and the mark each colour carries.

Colour alone must not say whose pawn it is (a colour-blind player sees red and green alike): every
player colour has a shape of its own, drawn as the pawn's outline on the board (static/board.js, from
``/api/board``), on the move picture (companion_app/share.py) and beside the colour's name on the
referee's buttons.  The fills are chosen to stay apart under protanopia, deuteranopia and tritanopia
(tests/test_palette.py simulates them), and each carries its number in the ink that reads best on it.
The LED grid's own colours (hardware/animation.py) are a separate matter: LEDs are not pixels.
"""
from __future__ import annotations

# colour: (fill on screen, ink of the number on it, shape)
PLAYERS: dict[str, tuple[str, str, str]] = {
    "blue": ("#2448b8", "#ffffff", "circle"),
    "yellow": ("#eccf2f", "#16131a", "triangle"),
    "red": ("#dc3013", "#ffffff", "square"),
    "green": ("#1b9d78", "#16131a", "diamond"),
    "purple": ("#c47be8", "#16131a", "cross"),
    "black": ("#1b1b1f", "#ffffff", "down-triangle"),
    "white": ("#f4f1ea", "#16131a", "bar"),
}


def _cross(arm: float, reach: float) -> list[tuple[float, float]]:
    """A plus sign: arms ``arm`` wide either side of the centre, reaching ``reach``."""
    return [(-arm, -reach), (arm, -reach), (arm, -arm), (reach, -arm), (reach, arm), (arm, arm),
            (arm, reach), (-arm, reach), (-arm, arm), (-reach, arm), (-reach, -arm), (-arm, -arm)]


# Each shape's outline for a pawn of radius 1 (y down), about the area of the unit circle so no colour
# looks bigger; the number sits at the centre.  None: a circle.
SHAPES: dict[str, list[tuple[float, float]] | None] = {
    "circle": None,
    "square": [(-0.88, -0.88), (0.88, -0.88), (0.88, 0.88), (-0.88, 0.88)],
    "triangle": [(0.0, -1.3), (1.28, 0.92), (-1.28, 0.92)],
    "diamond": [(0.0, -1.22), (1.22, 0.0), (0.0, 1.22), (-1.22, 0.0)],
    "cross": _cross(0.5, 1.08),
    "down-triangle": [(0.0, 1.3), (-1.28, -0.92), (1.28, -0.92)],
    "bar": [(-1.2, -0.6), (1.2, -0.6), (1.2, 0.6), (-1.2, 0.6)],
}


def outline(colour: str, radius: float, cx: float = 0.0, cy: float = 0.0) -> list[tuple[float, float]] | None:
    """The polygon of ``colour``'s pawn of ``radius`` centred on (cx, cy); None for a circle."""
    points = SHAPES[PLAYERS[colour][2]]
    return None if points is None else [(cx + radius * x, cy + radius * y) for x, y in points]


def hex_rgb(text: str) -> tuple[int, int, int]:
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def players_json() -> dict:
    """For the browser (``/api/board``): each colour's fill, number ink, shape and unit outline."""
    return {colour: {"fill": fill, "ink": ink, "shape": shape,
                     "points": [[round(x, 4), round(y, 4)] for x, y in SHAPES[shape]] if SHAPES[shape] else None}
            for colour, (fill, ink, shape) in PLAYERS.items()}
