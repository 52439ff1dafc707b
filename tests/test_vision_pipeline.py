"""TableCamera: acceptance only after N identical problem-free frames, hands block it,
hidden corners keep the last good board location, a bumped camera is noticed."""
from __future__ import annotations

import numpy as np
import pytest

from engine.position import Position
from vision.pipeline import TableCamera
from vision.reader import read_image
from vision_helpers import draw_hand, make_camera, pawn, pos, render


class ListSource:
    """A FrameSource over prepared frames (the interface every real source has)."""

    def __init__(self, frames):
        self.frames = list(frames)
        self.closed = False

    def read(self):
        return self.frames.pop(0) if self.frames else None

    def close(self):
        self.closed = True


P = pos(monster="e1", facing="N", stones={"c3": "crystal"},
        pawns={"red-6/1": pawn("g7", "red", "6/1"), "green-3/4": pawn("m8", "green", "3/4", "black")})
CAM = make_camera(tilt_deg=12)
CLEAR = render(P, "8", camera=CAM, noise=2, seed=1)


def noisy(image, seed):
    rng = np.random.default_rng(seed)
    return np.clip(image.astype(np.int16) + rng.integers(-3, 4, image.shape), 0, 255).astype(np.uint8)


def test_accepted_only_after_n_identical_frames():
    cam = TableCamera(ListSource([noisy(CLEAR, i) for i in range(4)]), stable_frames=3)
    cam.poll()
    cam.poll()
    assert cam.accepted is None and cam.status()["stable"] == 2
    cam.poll()
    assert cam.accepted is not None and cam.accepted.position == P and cam.accepted.tile == "8"
    st = cam.status()
    assert st["located"] and st["accepted"] and not st["occluded"] and st["frames"] == 3


def test_a_change_restarts_the_count():
    moved = Position.from_setup({**P.to_setup(), "monster": {"at": "f1", "facing": "N"}}, strict=False)
    other = render(moved, "8", camera=CAM)
    cam = TableCamera(ListSource([CLEAR, CLEAR, other, other, other]), stable_frames=3)
    for _ in range(4):
        cam.poll()
    assert cam.accepted is None
    cam.poll()
    assert cam.accepted.position == moved


def test_a_hand_blocks_acceptance_and_keeps_the_last_accepted():
    hand = draw_hand(CLEAR, read_image(CLEAR), "g7")
    cam = TableCamera(ListSource([hand] * 5), stable_frames=3)
    for _ in range(5):
        r = cam.poll()
        assert not r.ok
    assert cam.accepted is None and cam.status()["occluded"]
    assert "covers the board" in cam.status()["last_problem"]

    cam = TableCamera(ListSource([CLEAR] * 3 + [hand] * 4), stable_frames=3)
    for _ in range(7):
        cam.poll()
    assert cam.accepted.position == P      # the pawn under the hand was not dropped


def test_hidden_corners_keep_the_last_good_location():
    hidden = render(P, "8", camera=CAM, hide_board_markers=(0, 1, 3))
    assert not read_image(hidden).located          # on its own: 1 of 4 corners is not enough
    cam = TableCamera(ListSource([CLEAR] + [hidden] * 3), stable_frames=3)
    first = cam.poll()
    assert first.ok
    for _ in range(3):
        r = cam.poll()
        assert r.located and r.location.kept and r.position == P
    assert cam.status()["corners_hidden"] == [0, 1, 3]
    assert cam.accepted is not None and cam.accepted.position == P


def test_a_bumped_camera_is_noticed_and_the_count_restarts():
    bumped = render(P, "8", camera=make_camera(tilt_deg=12, offset=(25.0, 10.0)))
    cam = TableCamera(ListSource([CLEAR] * 3 + [bumped] * 4), stable_frames=3)
    for _ in range(3):
        cam.poll()
    assert cam.accepted is not None
    first = cam.accepted
    r = cam.poll()
    assert r.bumped and cam.status()["bumped"] and cam.status()["stable"] == 0
    for _ in range(3):
        cam.poll()
    assert not cam.status()["bumped"] and cam.accepted is not first and cam.accepted.position == P


def test_bumped_while_corners_are_hidden_is_not_located():
    moved_hidden = render(P, "8", camera=make_camera(tilt_deg=12, offset=(30.0, 0.0)), hide_board_markers=(1, 2, 3))
    cam = TableCamera(ListSource([CLEAR, moved_hidden]), stable_frames=1)
    cam.poll()
    r = cam.poll()
    assert not r.located and r.bumped and "moved" in r.reason


def test_no_frame_and_a_failing_camera_are_reported_not_raised():
    class Broken:
        def read(self):
            raise OSError("USB disconnected")

        def close(self):
            pass

    cam = TableCamera(Broken())
    r = cam.poll()
    assert not r.located and "USB disconnected" in r.reason
    cam = TableCamera(ListSource([]))
    assert "no frame" in cam.poll().reason and cam.accepted is None


def test_close_closes_the_source():
    src = ListSource([])
    TableCamera(src).close()
    assert src.closed


def test_stable_frames_must_be_positive():
    with pytest.raises(ValueError):
        TableCamera(ListSource([]), stable_frames=0)
