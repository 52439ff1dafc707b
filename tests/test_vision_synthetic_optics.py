"""The synthetic camera's physics against numbers that can be worked out by hand."""
import cv2
import numpy as np

from engine.geometry import E, parse_square
from engine.position import Position
from vision.twin import effects as fx
from vision.twin.camera import pose_camera
from vision.twin.scene import render


def test_lifted_monster_shifts_as_vision_md_says():
    """VISION.md: at the board's edge, camera 90 cm up, a 60 mm height moves a sticker by
    about 20 mm.  Map the rendered sticker back to the board plane with the homography of
    the corner markers (what a reader without heights would do) and measure the shift."""
    pos = Position(parse_square("a1"), E, {}, frozenset(), {}, ())
    img, truth = render(pos, None, height_mm=900)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    corners, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(img)
    found = {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())}
    src = np.vstack([found[m.id] for m in truth.board_markers])
    dst = np.vstack([np.asarray(_scheme_corners(m.id)) for m in truth.board_markers])
    h, _ = cv2.findHomography(src, dst)
    seen = cv2.perspectiveTransform(found[4].mean(axis=0).reshape(1, 1, 2), h).ravel()
    true = np.asarray(truth.sticker(4).centre_mm)
    radius = np.hypot(*(true - (240, 165)))
    # Similar triangles: shift = h * r / (H - h), with r measured from the point under the camera.
    expected = 60 * radius / (900 - 60)
    assert abs(np.hypot(*(seen - true)) - expected) < 2.5
    assert 17 < expected < 24


def _scheme_corners(marker_id):
    from vision.scheme import load_scheme
    return next(m for m in load_scheme().board_markers if m.id == marker_id).corners_mm()


def test_camera_height_and_tilt_are_what_was_asked():
    cam = pose_camera(1920, 1080, height_mm=800, tilt_deg=30, tilt_azimuth_deg=180)
    centre = cam.centre_mm
    assert abs(-centre[2] - 800) < 1e-6                     # 800 mm above the board
    assert abs(centre[1] - (165 + 800 * np.tan(np.radians(30)))) < 1e-6   # standing to the south
    forward = cam.R[2]
    assert abs(np.degrees(np.arccos(forward[2])) - 30) < 1e-6
    # The aim point is the image centre.
    (u, v), = cam.project([(240.0, 165.0)])
    assert abs(u - 959.5) < 1e-6 and abs(v - 539.5) < 1e-6


def test_turned_camera_sees_the_board_upside_down():
    cam = pose_camera(1920, 1080, rotation_deg=180)
    (ua, va), (up, vp) = cam.project([(15.0, 15.0), (465.0, 315.0)])   # a1, p11
    assert ua > up and va > vp


def test_distortion_is_the_opencv_lens_model_and_invertible():
    cam = pose_camera(640, 360, distortion=-0.25)
    pts = np.array([(0.0, 0.0), (480.0, 330.0), (240.0, 165.0), (-40.0, 300.0)])
    px = cam.project(pts)
    xn, yn = cam.normalised_grid(0, 0, 640, 360)
    for (u, v) in px:
        iu, iv = int(round(u)), int(round(v))
        if 0 <= iu < 640 and 0 <= iv < 360:
            back = cv2.undistortPoints(np.array([[[iu, iv]]], np.float64), cam.K, cam.dist).ravel()
            assert np.allclose(back, (xn[iv, iu], yn[iv, iu]), atol=1e-4)


def test_light_effects_do_what_they_say():
    rng = np.random.default_rng(0)
    grey = np.full((90, 160, 3), 128, np.float32)
    warm = fx.colour_temperature(grey, 3000)
    assert warm[0, 0, 2] > warm[0, 0, 0] + 30               # more red than blue (BGR)
    cool = fx.colour_temperature(grey, 8000)
    assert cool[0, 0, 0] > cool[0, 0, 2]
    lit = fx.uneven_light(grey, 1.0, rng)
    assert lit.max() / lit.min() > 1.8
    spot = fx.glare(grey, 1.0, rng, centre=(80, 45))
    assert spot[45, 80].min() > 255 and spot[0, 0].max() < 170
    noisy = fx.sensor_noise(grey, 6.0, np.random.default_rng(1))
    assert 5.0 < (noisy - grey).std() < 8.0
    assert fx.jpeg(fx.to_uint8(noisy), 30).shape == grey.shape


def test_a_lens_that_folds_inside_the_frame_is_refused():
    import pytest
    with pytest.raises(ValueError, match="too strong"):
        pose_camera(1920, 1080, distortion=-0.45)


def test_truth_corners_match_cv2_aruco_over_random_poses_and_lenses():
    """Random positions under random tilt, turn, offset and lens: the fully visible stickers
    are found by cv2.aruco (default settings miss a few small ones with a thin hand-cut
    margin) exactly where the truth says, corner by corner."""
    from vision.twin.positions import random_position
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    detector = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    rng = np.random.default_rng(123)
    checked = missed = 0
    for seed in range(6):
        pos, tile = random_position(1000 + seed)
        kw = dict(tilt_deg=rng.uniform(0, 30), tilt_azimuth_deg=rng.uniform(0, 360),
                  rotation_deg=rng.uniform(-180, 180) if seed % 2 else rng.uniform(-10, 10),
                  offset_mm=tuple(rng.uniform(-30, 30, 2)), distortion=float(rng.choice([0.0, -0.2, 0.1])),
                  height_mm=rng.uniform(1000, 1200))
        img, truth = render(pos, tile, seed=seed, **kw)
        corners, ids, _ = detector.detectMarkers(img)
        found = {} if ids is None else {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel())}
        for s in truth.stickers + truth.board_markers:
            inside = all(0 <= u < img.shape[1] and 0 <= v < img.shape[0] for u, v in s.corners_px)
            if s.visible < 1.0 or s.side_px < 16 or not inside:
                continue
            if s.id not in found:
                missed += 1
                continue
            assert np.abs(found[s.id] - np.asarray(s.corners_px)).max() < 2.0, (seed, s.what, kw)
            checked += 1
    assert checked > 100 and missed <= 0.05 * (checked + missed)
