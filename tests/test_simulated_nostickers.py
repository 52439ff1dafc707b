"""The simulated table without stickers (issue 27): its camera films the box's own looks, the teaching
layout's steps are laid out on it and photographed by that camera, and the rig teaches from them."""
from __future__ import annotations

import cv2
import numpy as np

from engine.game import Game
from engine.position import basic_position
from vision.nostickers import explain_change
from vision.scheme import load_scheme
from vision.teaching_layout import load_layout
from vision.twin.table import PhysicalTable, SimulatedCamera, teaching_photos

SIZE = dict(width=960, height=540)


def _markers(img) -> int:
    d = load_scheme().aruco_dictionary()
    _corners, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(img)
    return 0 if ids is None else len(ids)


def test_the_tables_camera_films_the_box_without_stickers_each_look_its_own():
    game = Game.new(["red", "blue"], seed=3)
    frames = {}
    for look in (1, 1, 2):
        table = PhysicalTable(game.position, seed=5)
        table.move_pawn("red-6/1", "k11")
        frames.setdefault(look, []).append(SimulatedCamera(table, seed=2, stickers=False, look_seed=look, **SIZE).read())
    assert frames[1][0].tobytes() == frames[1][1].tobytes()       # seeded: the same table, the same frame
    assert np.abs(frames[1][0].astype(np.float32) - frames[2][0]).mean() > 8   # another box looks otherwise
    assert _markers(frames[1][0]) == 0
    with_stickers = SimulatedCamera(PhysicalTable(game.position, seed=5), seed=2, **SIZE).read()
    assert _markers(with_stickers) >= 4


def test_teaching_photos_are_the_layouts_steps_laid_out_on_the_table():
    layout = load_layout()
    table = PhysicalTable(basic_position(), seed=4)
    camera = SimulatedCamera(table, seed=4, stickers=False, look_seed=6, **SIZE)
    seen = []
    original = camera.read

    def read():
        seen.append(table.view())
        return original()
    camera.read = read
    photos = teaching_photos(table, camera, layout)
    assert len(photos) == len(seen) == len(layout)
    for view, step in zip(seen, layout.steps):
        assert view.hand is None and view.tile == step.tile
        assert view.position().stones == step.pieces().stones
        on_board = {p.label: (p.square, p.face) for p in view.position().pawns if p.square is not None}
        assert on_board == {p.label: (p.square, p.face) for p in step.pieces().pawns}
        assert view.position().monster == step.pieces().monster     # none on the empty board
    assert all(np.abs(a.astype(np.float32) - b).mean() > 0.5 for a, b in zip(photos, photos[1:]))


def test_the_rig_teaches_from_its_own_camera_then_reads_the_game(tmp_path, monkeypatch):
    """The rig photographs every step with its own camera, hands the photos to the real ``teach``, and sets
    the game's position back whatever the teaching answers.  Whether the reader (issue 27v, in progress)
    accepts this box is its own business: taught, the still table reads as "nothing changed"; refused,
    the refusal names the step."""
    import vision.nostickers as nostickers
    from companion_app.table.demo import SimulatedRig
    from companion_app.table.session import TableSession
    from companion_app.table.store import Store
    from vision.nostickers import TeachError

    given = []
    real = nostickers.teach

    def spy(layout, photos, *args, **kw):
        given.append(list(photos))
        return real(layout, photos, *args, **kw)
    monkeypatch.setattr(nostickers, "teach", spy)
    session = TableSession(Store(tmp_path / "s.sqlite3"))
    session.new_game(["red", "blue"], seed=28)
    rig = SimulatedRig(session, seed=28, speed=20, stickers=False, look_seed=3)
    try:
        try:
            pieces = rig.teach()
        except TeachError as exc:
            pieces = None
            assert str(exc).startswith("step "), exc
        assert len(given) == 1 and len(given[0]) == len(load_layout())
        assert all(p.shape == (720, 1280, 3) and _markers(p) == 0 for p in given[0])
        assert rig.table.differences(session.game.position) == [] and rig.table.view().tile is None
        if pieces is not None:
            frames = [rig.source.read() for _ in range(3)]
            answer = explain_change(session.game.position, frames, pieces)
            assert answer.accepted and answer.change == "none", [p.code for p in answer.problems]
    finally:
        rig.close()
