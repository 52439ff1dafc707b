"""A monster move as a picture to keep or send: an animated GIF and a still PNG.

Drawn with Pillow from the engine's plan alone: the start position, then the position after each
step, got by applying the plan's recorded events (where the monster went, what it pushed where,
whom it ate) — the same replay the browser animates; no rule is worked out here.  The last frame
is the plan's result: ``step_boards`` ends where ``plan.result`` is (tests/test_share.py checks it
for every scenario).  Used by the phone's "Save this move" and ``flure resolve … --gif FILE``.
"""
from __future__ import annotations

import io
from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from engine.geometry import COLS, ROWS, SQUARES, square_col, square_row
from engine.plan import Eat, Enter, Plan, Push, Slide, Stop, Teleport, Wrap
from engine.position import BOARD, Position

from .palette import PLAYERS, hex_rgb, outline

CELL = 28
MARGIN = 10
STEP_MS = 900
LAST_MS = 3000

PAWN_RADIUS = CELL // 2 - 5
FLOOR, WALL, POOL = (226, 214, 188), (33, 28, 41), (130, 20, 25)
STONES = {"stone": (110, 110, 115), "crystal": (150, 215, 240), "pivot-right": (80, 80, 140), "pivot-about": (140, 80, 80)}
TELEPORTER, MONSTER, PATH = (150, 90, 210), (255, 120, 0), (255, 150, 40)
ARROW = ((0, -1), (1, 0), (0, 1), (-1, 0))   # N E S W on the picture


@dataclass
class Board:
    """What one frame shows: the monster, the stones and the pawns on the board."""

    monster: int
    facing: int
    stones: dict[int, str]
    pawns: dict[str, int]
    trail: list[int] = field(default_factory=list)   # squares the monster stood on, in order

    @classmethod
    def of(cls, position: Position) -> "Board":
        return cls(position.monster, position.facing, dict(position.stones),
                   {p.label: p.square for p in position.pawns if p.place == BOARD}, [position.monster])

    def copy(self) -> "Board":
        return Board(self.monster, self.facing, dict(self.stones), dict(self.pawns), list(self.trail))


def _push_all(board: Board, pushes: list[Push]) -> None:
    """One push of a line (M6): every piece leaves its square before any lands, as on the table."""
    moving = [(p, board.stones.pop(p.start) if p.pawn is None else board.pawns.pop(p.pawn)) for p in pushes]
    for p, stone in moving:
        if p.to is None:
            continue
        if p.pawn is None:
            board.stones[p.to] = stone
        else:
            board.pawns[p.pawn] = p.to


def step_boards(plan: Plan) -> list[Board]:
    """The start, then the board after each step of ``plan`` (one more than there are steps)."""
    board = Board.of(plan.start)
    boards = [board.copy()]
    for step in plan.steps:
        pushes: list[Push] = []
        for event in step.events:
            if isinstance(event, Push) and event.by is not None:   # a sliding pawn pushes it on, one at a time
                _push_all(board, [event])
                continue
            if isinstance(event, Push):
                pushes.append(event)
                continue
            if pushes:
                _push_all(board, pushes)
                pushes = []
            if isinstance(event, (Enter, Slide, Stop)):
                board.monster = event.square
            elif isinstance(event, (Wrap, Teleport)):
                board.monster = event.to
            elif isinstance(event, Eat):
                board.pawns.pop(event.pawn, None)
            if isinstance(event, (Enter, Slide, Wrap, Teleport)):
                board.trail.append(board.monster)
        if pushes:
            _push_all(board, pushes)
        board.monster, board.facing = step.end, step.facing
        boards.append(board.copy())
    boards[-1].facing = plan.final_look.new_facing   # the final look may turn it (M2)
    return boards


def square_box(sq: int) -> tuple[int, int, int, int]:
    x, y = MARGIN + square_col(sq) * CELL, MARGIN + square_row(sq) * CELL
    return x + 1, y + 1, x + CELL - 1, y + CELL - 1


def square_centre(sq: int) -> tuple[int, int]:
    x0, y0, x1, y1 = square_box(sq)
    return (x0 + x1) // 2, (y0 + y1) // 2


def draw(plan: Plan, board: Board) -> Image.Image:
    """One frame: the floor, pools and teleporters of the plan's position, then ``board``'s pieces."""
    position = plan.start
    colours = {p.label: p.colour for p in position.pawns}
    image = Image.new("RGB", (COLS * CELL + 2 * MARGIN, ROWS * CELL + 2 * MARGIN), WALL)
    pen = ImageDraw.Draw(image)
    for sq in SQUARES:
        pen.rectangle(square_box(sq), fill=POOL if sq in position.pools else FLOOR)
    for sq in position.teleporters:
        x0, y0, x1, y1 = square_box(sq)
        pen.ellipse((x0 + 3, y0 + 3, x1 - 3, y1 - 3), outline=TELEPORTER, width=3)
    for sq, kind in board.stones.items():
        x0, y0, x1, y1 = square_box(sq)
        pen.rectangle((x0 + 4, y0 + 4, x1 - 4, y1 - 4), fill=STONES[kind])
    if len(board.trail) > 1:
        pen.line([square_centre(sq) for sq in board.trail], fill=PATH, width=3)
    for label, sq in board.pawns.items():
        _pawn(pen, colours.get(label), sq)
    x0, y0, x1, y1 = square_box(board.monster)
    pen.rectangle((x0, y0, x1, y1), fill=MONSTER)
    cx, cy = square_centre(board.monster)
    dx, dy = ARROW[board.facing]
    pen.line((cx, cy, cx + dx * (CELL // 2 - 3), cy + dy * (CELL // 2 - 3)), fill=(0, 0, 0), width=3)
    return image


def _pawn(pen: ImageDraw.ImageDraw, colour: str | None, sq: int) -> None:
    """A pawn in its colour and its colour's shape (companion_app/palette.py): whose it is, without colour."""
    cx, cy = square_centre(sq)
    if colour not in PLAYERS:
        pen.ellipse((cx - PAWN_RADIUS, cy - PAWN_RADIUS, cx + PAWN_RADIUS, cy + PAWN_RADIUS), fill=(200, 200, 200),
                    outline=(0, 0, 0))
        return
    fill = hex_rgb(PLAYERS[colour][0])
    points = outline(colour, PAWN_RADIUS, cx, cy)
    if points is None:
        pen.ellipse((cx - PAWN_RADIUS, cy - PAWN_RADIUS, cx + PAWN_RADIUS, cy + PAWN_RADIUS), fill=fill, outline=(0, 0, 0))
    else:
        pen.polygon(points, fill=fill, outline=(0, 0, 0))


def move_gif(plan: Plan) -> bytes:
    """The animated GIF: the start, then one frame per step, the last one held longer."""
    frames = [draw(plan, b) for b in step_boards(plan)]
    out = io.BytesIO()
    durations = [STEP_MS] * (len(frames) - 1) + [LAST_MS]
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0, disposal=1,
                   optimize=False)
    return out.getvalue()


def move_png(plan: Plan) -> bytes:
    """The still picture: the board after the move with the monster's whole path."""
    out = io.BytesIO()
    draw(plan, step_boards(plan)[-1]).save(out, "PNG")
    return out.getvalue()
