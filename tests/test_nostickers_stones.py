"""Two reading weaknesses found on look 11 of the twin at the demo's 1280×720 (issue 27: ``flure play --demo
--no-stickers --seed 11`` stopped at its 4th move, "p9 is not seen"):

- a plain ``stone`` has two looks in the box — one tile's plain front and every tile's plain back
  (NOSTICKERS.md) — and a copy may print them unlike: teaching kept only the first two samples of the face,
  both fronts, so every stone of the game (their backs up) was read as unknown;
- the board's fit is good to about a pixel, and on busy printed art a pixel off lit every brick edge: bare
  squares read as partly covered, so unknown ("uncover p9").
"""
from __future__ import annotations

import numpy as np
import pytest

from engine.geometry import SQUARES, parse_square, square_name
from engine.observation import ANY_PAWN, looks
from engine.position import Position, basic_position
from vision.nostickers import looks as L
from vision.nostickers import teach
from vision.nostickers.read import Reader, allowed_faces
from vision.nostickers.teach import MORE_SAMPLES, OTHER_LOOK, SAMPLES, frame_view
from vision.teaching_layout import load_layout
from vision.twin.scene import render

LAYOUT = load_layout()
DEMO = dict(width=1280, height=720)


@pytest.fixture(scope="module", params=[11, 3])
def taught(request):
    look = request.param
    photos = [render(step.pieces(), step.tile, stickers=False, look_seed=look, **DEMO)[0] for step in LAYOUT.steps]
    return look, photos, teach(LAYOUT, photos)


def test_a_plain_stone_is_read_by_its_back_as_by_its_front(taught):
    look, _photos, pieces = taught
    pos = basic_position()
    assert set(pos.stones.values()) == {"stone"}
    reader = Reader(pieces)
    for seed in (1, 2):
        image, _truth = render(pos, None, stickers=False, look_seed=look, seed=seed, **DEMO)
        got = reader.read_frame(image, pos, allowed_faces(pos, ANY_PAWN))
        seen, unseen = got.seen, got.unseen
        stones = {square_name(sq): (seen.get(sq) and seen[sq].stone, unseen.get(sq)) for sq in pos.stones}
        assert all(kind == "stone" for kind, _why in stones.values()), (look, seed, stones)
    # the face keeps a sample of each look it showed when they differ: the layout shows the plain front in the
    # fronts step and the plain back of every tile in the next
    steps = {f.step for f in pieces.faces if f.key == "stone:stone"}
    fronts = next(n for n, step in enumerate(LAYOUT.steps, 1) if "crystal" in step.setup.get("stones", {}).values())
    assert fronts in steps
    kept = [f.polar for f in pieces.faces if f.key == "stone:stone"]
    assert SAMPLES <= len(kept) <= MORE_SAMPLES
    if len(kept) > SAMPLES:      # another look kept only when it is one: far from the first ones
        assert min(L.distance(kept[-1], k) for k in kept[:SAMPLES]) > OTHER_LOOK


def test_a_fit_a_pixel_off_leaves_bare_squares_bare_and_pieces_covered(taught):
    look, photos, pieces = taught
    canvas, ref_lab = pieces.board.canvas, L.lab(pieces.board.picture)
    seen = np.ones(ref_lab.shape[:2], bool)
    off = np.roll(ref_lab, (1, 1), axis=(0, 1))      # the empty board, its fit a pixel off each way
    strict = L.covers(L.difference(off, ref_lab), canvas, seen)
    tolerant = L.covers(L.difference(off, ref_lab, L.REGISTRATION_PX), canvas, seen)
    inside = [sq for sq in SQUARES if 0 < sq % 16 < 15 and 0 < sq // 16 < 10]     # (the roll wraps at the edges)
    if look == 11:      # the busy art that showed it: a pixel off, squares read partly covered
        assert max(strict[sq] for sq in inside) >= L.EMPTY_COVER
    assert max(tolerant[sq] for sq in inside) < L.EMPTY_COVER
    # and every piece of a teaching photo still covers its square
    reader = Reader(pieces)
    for n in (2, 3):
        frame, why = frame_view(pieces.board, photos[n - 1], reader.lens, reader.ref_lab, reader.sheet)
        assert why is None
        step = LAYOUT.steps[n - 1].pieces()
        covered = set(step.stones) | set(step.board_pawns())
        low = {square_name(sq): round(frame.cover[sq], 2) for sq in covered if frame.cover[sq] < L.PIECE_COVER}
        assert not low, (look, n, low)


def test_a_pawn_beside_the_monster_is_read_though_the_figure_joins_its_silhouette():
    """The monster's figure and a pawn put down beside it, a little off centre, make one silhouette whose
    centroid lay several millimetres towards the figure, farther than ``Pieces.match`` searches: a red 4/3 on
    o10 beside the monster on o9 went unread at the demo's 1280×720 (``flure play --demo --no-stickers --seed 12``
    needed the referee).  The monster's own square is left out of its neighbours' silhouettes."""
    from vision.twin.table import PhysicalTable, SimulatedCamera

    look = 12
    photos = [render(step.pieces(), step.tile, stickers=False, look_seed=look, **DEMO)[0] for step in LAYOUT.steps]
    reader = Reader(teach(LAYOUT, photos))
    monster = {"monster": {"at": "o9", "facing": "E"}}      # the figure leans over p9, the square it faces
    unread = []
    for square in ("o10", "n9", "o8", "p9"):
        pos = Position.from_setup({**monster, "pawns": {"red-4/3": {"at": square, "color": "red", "pawn": "4/3",
                                                                    "face": "black"}}})
        for seed in range(6):
            table = PhysicalTable(Position.from_setup(monster), seed=seed)
            table.arrange(pos)          # put down a little off centre, as a hand does
            image = SimulatedCamera(table, seed=seed, stickers=False, look_seed=look, **DEMO).read()
            frame = reader.read_frame(image, pos, allowed_faces(pos, ANY_PAWN))
            got = frame.seen.get(parse_square(square))
            assert got is None or got == looks(pos)[parse_square(square)], (square, seed, got)   # never wrong
            if got is None:
                unread.append((square, seed))
    assert all(square == "p9" for square, _seed in unread), unread     # (p9 lies under the figure's lean)


def test_the_tile_is_read_though_the_monsters_shadow_reaches_it_in_the_card_zone():
    """The monster on the board's edge beside the card zone casts its figure's shadow off the board into the zone;
    where the shadow touches the tile, the two made one outline larger than a tile, and the tile went unread
    (``flure play --demo --no-stickers --seed 13``: the players pressed MONSTER).  The table only darker, its
    colour kept, is set apart when what the zone shows is larger than a tile; a tile is still never guessed."""
    from vision.twin.table import PhysicalTable, SimulatedCamera

    look = 13
    photos = [render(step.pieces(), step.tile, stickers=False, look_seed=look, **DEMO)[0] for step in LAYOUT.steps]
    reader = Reader(teach(LAYOUT, photos))
    for at in ("p7", "p8"):
        pos = Position.from_setup({"monster": {"at": at, "facing": "N"}})
        for seed in range(6):
            table = PhysicalTable(Position.from_setup({"monster": {"at": "m6", "facing": "N"}}), seed=seed)
            table.arrange(pos)          # the figure put down a little off its square's middle, as a hand does
            camera = SimulatedCamera(table, seed=seed, stickers=False, look_seed=look, **DEMO)
            for tile in ("8", "5"):     # (the 5 is the tile most like the 8: told by its middle)
                table.lay_tile(tile)
                read = reader.read_frame(camera.read(), pos, allowed_faces(pos, ANY_PAWN)).tile
                assert read == tile, (at, seed, tile, read)


def test_a_teaching_photo_whose_own_match_goes_wrong_is_taken_where_the_last_one_had_the_board():
    """The simulated table of ``flure play --demo --no-stickers --seed 18`` could not teach itself: step 8's own
    match of the board's picture went wrong (a sheared fit putting the top rows outside the photo), and the check
    that then tries the last step's location counted only the squares in view, so it saw nothing missing.  A
    piece's square out of view is missing too: the last step's location is tried, and fits."""
    from types import SimpleNamespace

    from companion_app.table.simulated.demo import SimulatedRig
    from engine.game import Game

    game = Game.new(["red", "blue"], seed=18)
    pieces = SimulatedRig(SimpleNamespace(game=game), seed=18, stickers=False, look_seed=18).teach()
    taught = {f.key for f in pieces.faces}
    assert {"pawn:blue:6/1:black", "pawn:blue:6/1:white", "stone:stone", "pool", "teleporter"} <= taught
    assert {f.key for f in pieces.tiles} == {f"tile:{t}" for t in ("5", "7", "8", "10", "prey-1", "prey-2")}
