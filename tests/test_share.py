"""The shared move picture: an animated GIF with one frame per step plus the start."""
import io
import json
from pathlib import Path

from PIL import Image

from companion_app.share import MONSTER, Board, move_gif, move_png, square_centre, step_boards
from engine.monster import resolve
from engine.position import Position
from engine.scenario import parse_scenario

HERE = Path(__file__).resolve().parent


def scenario_plans():
    for path in sorted((HERE / "scenarios").glob("*.json")):
        s = parse_scenario(json.loads(path.read_text()))
        if s.kind == "monster":
            yield path.stem, resolve(s.position, s.action.get("card"), steps=s.action.get("steps"))


def test_the_replayed_steps_end_on_the_engines_result_for_every_scenario():
    for name, plan in scenario_plans():
        boards = step_boards(plan)
        assert len(boards) == len(plan.steps) + 1, name
        end, want = boards[-1], Board.of(plan.result)
        assert (end.monster, end.facing, end.stones, end.pawns) == (want.monster, want.facing, want.stones, want.pawns), name
        for board, step in zip(boards[1:], plan.steps):
            assert board.monster == step.end, name


def frames(data: bytes) -> list[Image.Image]:
    image = Image.open(io.BytesIO(data))
    out = []
    for i in range(image.n_frames):
        image.seek(i)
        out.append(image.convert("RGB").copy())
    return out


def test_the_gif_has_the_start_and_one_frame_per_step_and_ends_on_the_monsters_square():
    position = Position.from_setup({"monster": {"at": "a5", "facing": "E"}, "stones": {"f5": "stone"},
                                    "pawns": {"R": {"at": "k5", "color": "red", "pawn": "3/4"}}})
    plan = resolve(position, "7")
    gif = frames(move_gif(plan))
    assert len(gif) == len(plan.steps) + 1 == 8
    end, start = square_centre(plan.result.monster), square_centre(plan.start.monster)
    corner = lambda sq: (square_centre(sq)[0] - 9, square_centre(sq)[1] - 9)   # beside the heading line
    assert gif[-1].getpixel(corner(plan.result.monster)) == MONSTER
    assert gif[-1].getpixel(corner(plan.start.monster)) != MONSTER
    assert gif[0].getpixel(corner(plan.start.monster)) == MONSTER and gif[0].getpixel(corner(plan.result.monster)) != MONSTER
    assert end != start
    stone = next(iter(position.stones))                # pushed on by the monster (M6): f5 is empty at the end
    assert stone not in plan.result.stones
    assert gif[0].getpixel(square_centre(stone)) != gif[-1].getpixel(square_centre(stone))
    png = Image.open(io.BytesIO(move_png(plan))).convert("RGB")
    assert png.getpixel(corner(plan.result.monster)) == MONSTER


from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.engine_strategies import positions  # noqa: E402


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_the_replayed_steps_end_on_the_engines_result_for_random_positions(position):
    for tile in ("10", "prey-3"):
        plan = resolve(position, tile)
        end, want = step_boards(plan)[-1], Board.of(plan.result)
        assert (end.monster, end.facing, end.stones, end.pawns) == (want.monster, want.facing, want.stones, want.pawns)
