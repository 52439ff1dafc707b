"""Frame sources behind one interface, with real files through OpenCV."""
from __future__ import annotations

import importlib.util

import cv2
import numpy as np
import pytest

from vision.sources import (
    FolderSource,
    FrameSource,
    PicameraSource,
    SourceError,
    SyntheticSource,
    VideoCaptureSource,
    load_image_file,
    open_source,
)
from vision_helpers import make_camera, pos, render


def frames(n, size=(160, 120)):
    return [np.full((size[1], size[0], 3), 40 * i, np.uint8) for i in range(n)]


def test_folder_source_reads_images_in_name_order(tmp_path):
    for i, f in enumerate(frames(3)):
        cv2.imwrite(str(tmp_path / f"frame{i}.png"), f)
    (tmp_path / "notes.txt").write_text("not an image")
    src = open_source(str(tmp_path))
    assert isinstance(src, FolderSource) and isinstance(src, FrameSource)
    got = [src.read() for _ in range(4)]
    assert [int(g[0, 0, 0]) for g in got[:3]] == [0, 40, 80] and got[3] is None
    looping = FolderSource(tmp_path, loop=True)
    assert [int(looping.read()[0, 0, 0]) for _ in range(4)] == [0, 40, 80, 0]


def test_folder_without_images_is_a_clear_error(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        open_source(str(tmp_path))


def test_video_file_through_videocapture(tmp_path):
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (160, 120))
    assert writer.isOpened()
    for f in frames(4):
        writer.write(f)
    writer.release()
    src = open_source(str(path))
    assert isinstance(src, VideoCaptureSource)
    got = [src.read() for _ in range(5)]
    assert all(g is not None and g.shape == (120, 160, 3) for g in got[:4]) and got[4] is None
    assert abs(int(got[2].mean()) - 80) < 6
    src.close()


def test_a_video_of_the_table_is_read_like_photos(tmp_path):
    from vision.pipeline import TableCamera
    image = render(pos(monster="c3", facing="W"), "7", camera=make_camera(width=1280, height=720))
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 720))
    for _ in range(3):
        writer.write(image)
    writer.release()
    cam = TableCamera(open_source(str(path)), stable_frames=3)
    for _ in range(3):
        cam.poll()
    assert cam.accepted is not None and cam.accepted.to_json()["setup"]["monster"] == {"at": "c3", "facing": "W"}


def test_unknown_or_missing_sources_say_what_to_use(tmp_path):
    with pytest.raises(SourceError, match="unknown camera source"):
        open_source("no-such-thing")
    with pytest.raises(SourceError, match="cannot open camera 97"):
        open_source("97")


def test_picamera_source_behind_the_picamera2_interface():
    class FakePicamera2:
        """Stands in for picamera2.Picamera2: capture_array/stop/close, as on the Pi."""

        def __init__(self):
            self.stopped = False

        def capture_array(self):
            return np.zeros((1080, 1920, 4), np.uint8)

        def stop(self):
            self.stopped = True

        def close(self):
            pass

    cam = FakePicamera2()
    src = PicameraSource(camera=cam)
    assert src.read().shape == (1080, 1920, 3)
    src.close()
    assert cam.stopped


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is not None, reason="picamera2 is installed here")
def test_picamera_without_the_pi_extra_explains():
    with pytest.raises(SourceError, match=r"picamera2.*\[pi\]"):
        open_source("picamera")


@pytest.mark.skipif(importlib.util.find_spec("picamera2") is None,
                    reason="needs a Raspberry Pi camera module with picamera2 installed")
def test_real_picamera():
    src = open_source("picamera")
    try:
        assert src.read() is not None
    finally:
        src.close()


def test_synthetic_source_shows_the_current_state():
    from engine.position import basic_position
    state = {"position": basic_position(), "tile": "8"}
    src = open_source("synthetic", get_state=lambda: (state["position"], state["tile"]), width=640, height=360)
    assert isinstance(src, SyntheticSource)
    a = src.read()
    assert a.shape == (360, 640, 3) and src.last_truth.tile == "8"
    state["tile"] = "5"
    src.read()
    assert src.last_truth.tile == "5" and src.frames == 2


def test_load_image_file(tmp_path):
    good = tmp_path / "a.png"
    cv2.imwrite(str(good), frames(1)[0])
    assert load_image_file(good)[0].shape == (120, 160, 3)
    (tmp_path / "b.png").write_bytes(b"not a png")
    image, why = load_image_file(tmp_path / "b.png")
    assert image is None and str(why) == f"{tmp_path / 'b.png'}: not an image file OpenCV can read"
    assert str(load_image_file(tmp_path / "c.png")[1]).endswith("no such file")


def test_synthetic_source_feeds_the_table_camera():
    from engine.position import Position
    from vision.pipeline import TableCamera
    position = Position.from_setup({"monster": {"at": "f6", "facing": "S"}, "stones": {"c3": "crystal"},
                                    "pawns": {"red-6/1": {"at": "k4", "color": "red", "pawn": "6/1",
                                                          "face": "black"}}})
    src = SyntheticSource(lambda: (position, "10"), seed=3, width=1280, height=720, noise=3.0)
    cam = TableCamera(src, stable_frames=3)
    for _ in range(3):
        cam.poll()
    assert cam.accepted is not None and cam.accepted.position == position and cam.accepted.tile == "10"
