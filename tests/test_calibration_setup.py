"""Setting up a table: lens calibration on views the synthetic camera renders of a
ChArUco sheet (known camera), refusals of views that cannot be right, the camera-placement
verdict on both sides of its thresholds, registration with hidden corner markers, and the
calibration file (versioned, atomic, refused in one sentence when unusable)."""
from __future__ import annotations

import json
import os

import cv2
import numpy as np
import pytest

from calibration.intrinsics import CharucoSpec, NotEnoughViews, Views, calibrate
from calibration.registration import MIN_STICKER_PX, check_registration
from calibration.store import Calibration, CalibrationError, check_size, load_calibration, save_calibration
from engine.position import basic_position
from tests.web_helpers import each_language
from vision.detect import detect_markers
from vision.locate import locate_board
from vision.scheme import load_scheme
from vision.twin.plane import calibration_poses, render_sheet
from vision.twin.scene import render

SPEC = CharucoSpec()
DPI = 200
SHEET = SPEC.image(DPI, margin_mm=10)
PX_PER_MM = DPI / 25.4
ORIGIN = (0.0, 0.0)          # the sheet's corner on the table; the ChArUco board starts 10 mm in


def sheet_views(count, **kw):
    cams = calibration_poses(count, 1280, 720, **kw)
    return cams, [render_sheet(c, SHEET, PX_PER_MM, ORIGIN) for c in cams]


@pytest.fixture(scope="module")
def eighteen():
    return sheet_views(18, distortion=-0.15)


def test_calibration_round_trip_recovers_the_rendered_camera(eighteen, tmp_path):
    cams, frames = eighteen
    views = Views(SPEC)
    for i, frame in enumerate(frames):
        assert views.add(frame, f"view {i + 1}") >= 20, views.rejected
    cal = calibrate(views)
    truth = cams[0].K
    k = cal.camera_matrix
    for got, want in ((k[0, 0], truth[0, 0]), (k[1, 1], truth[1, 1]), (k[0, 2], truth[0, 2]), (k[1, 2], truth[1, 2])):
        assert abs(got - want) < 0.02 * want
    assert abs(cal.dist_coeffs[0] - (-0.15)) < 0.05 and cal.rms_px < 0.5
    path = save_calibration(cal, tmp_path / "lens.json")
    back = load_calibration(path)
    assert np.allclose(back.camera_matrix, k) and back.image_size == (1280, 720)
    data = json.loads(path.read_text())
    assert data["format"] == "flure-calibration/1" and data["views"] == 18 and "date" in data
    summary = views.summary()
    assert summary["tilt_directions"] == 4 and summary["coverage_filled"] > 10


def test_identical_and_degenerate_views_are_refused(eighteen):
    _cams, frames = eighteen
    views = Views(SPEC)
    for i in range(6):                       # six copies of one photo
        views.add(frames[0], f"copy {i + 1}")
    assert len(views) == 1 and all("nearly the same as view 1" in str(r) for r in views.rejected)
    with pytest.raises(NotEnoughViews, match="only 1 usable view"):
        calibrate(views)
    blank = np.full((720, 1280, 3), 200, np.uint8)
    assert views.add(blank, "blank") == 0 and "only 0 ChArUco corners" in str(views.rejected[-1])
    # Fifteen views all facing the camera squarely: the focal length is not pinned down.
    flat = Views(SPEC)
    from vision.twin.camera import BOARD_CENTRE_MM, pose_camera
    for i in range(15):
        cam = pose_camera(1280, 720, height_mm=320 + 8 * i, hfov_deg=60,
                          offset_mm=(105 - BOARD_CENTRE_MM[0] + (i % 5 - 2) * 12,
                                     75 - BOARD_CENTRE_MM[1] + (i // 5 - 1) * 10))
        flat.add(render_sheet(cam, SHEET, PX_PER_MM, ORIGIN), f"flat {i + 1}")
    assert len(flat) >= 10
    with pytest.raises(NotEnoughViews, match="cannot pin the focal length|no real camera"):
        calibrate(flat)


def test_board_homography_reprojects_within_a_pixel():
    img, truth = render(basic_position(), width=1280, height=720, height_mm=850, tilt_deg=8, hfov_deg=66)
    scheme = load_scheme(None)
    det = detect_markers(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), scheme)
    loc = locate_board(det, (1280, 720), scheme).location
    q = scheme.square_mm
    grid = np.array([(c * q, r * q) for c in range(17) for r in range(12)], dtype=float)   # every grid corner
    errors = np.linalg.norm(loc.to_raw_image(grid) - truth.camera.project(grid), axis=1)
    assert float(np.sqrt(np.mean(errors ** 2))) < 1.0 and errors.max() < 2.0


def _hide(img, truth, ids):
    out = img.copy()
    for m in truth.board_markers:
        if m.id in ids:
            pts = np.array(m.corners_px, dtype=np.float32)
            centre = pts.mean(axis=0)
            cv2.fillPoly(out, [((pts - centre) * 1.3 + centre).round().astype(np.int32)], (120, 120, 120))
    return out


def test_registration_with_one_corner_marker_hidden_and_with_all_four():
    img, truth = render(basic_position(), width=1280, height=720, height_mm=800, hfov_deg=66)
    one = check_registration(_hide(img, truth, {2}))
    assert one.markers_missing == [2] and one.smallest_sticker_px is not None
    assert not one.ok and any("corner marker 2 not seen" in str(p) for p in one.problems)   # one: singular (Plural)
    none = check_registration(_hide(img, truth, {0, 1, 2, 3}))
    assert not none.ok and none.smallest_sticker_px is None and "no corner markers seen" in str(none.problems[0])


def _threshold_heights():
    """Where the smallest (15 mm) sticker is MIN_STICKER_PX wide looking straight down (deploy/README.md)."""
    f = 640 / np.tan(np.radians(33))
    return 15 * f / MIN_STICKER_PX


@pytest.mark.parametrize("factor, verdict", [(0.94, "good"), (1.08, "too far")])
def test_too_far_on_both_sides_of_its_threshold(factor, verdict):
    img, _ = render(basic_position(), width=1280, height=720, height_mm=_threshold_heights() * factor, hfov_deg=66)
    rep = check_registration(img)
    assert rep.verdict == verdict, rep.advice
    if verdict == "too far":
        assert "cm lower or use 1080p" in str(rep.advice)


@pytest.mark.parametrize("height, verdict", [(640, "too close"), (700, "good")])
def test_too_close_on_both_sides_of_its_threshold(height, verdict):
    # The grid and card zone with 8 cm to spare reach the picture's edge near 67 cm (1280x720, 66°).
    img, _ = render(basic_position(), width=1280, height=720, height_mm=height, hfov_deg=66)
    rep = check_registration(img)
    assert rep.verdict == verdict, rep.advice
    assert (rep.view_extent > 1) == (verdict == "too close")
    if verdict == "too close":
        assert "cm higher" in str(rep.advice)


def test_tilted_camera_is_named():
    img, _ = render(basic_position(), width=1280, height=720, height_mm=800, tilt_deg=25, hfov_deg=66)
    rep = check_registration(img)
    assert rep.verdict == "too tilted" and "tilted 25°" in str(rep.advice)


def test_calibration_of_another_resolution_is_refused_by_the_check():
    img, _ = render(basic_position(), width=1280, height=720, height_mm=800, hfov_deg=66)
    cal = Calibration(np.array([[2000.0, 0, 1358], [0, 2000, 1004], [0, 0, 1]]), np.zeros(5), (2717, 2008), 0.3)
    rep = check_registration(img, None, cal)
    assert not rep.ok and "made at 2717×2008 but this image is 1280×720" in str(rep.problems[0])
    with pytest.raises(CalibrationError, match="made at 2717×2008 but the camera gives 1920×1080"):
        check_size(cal, (1920, 1080))


def _cal(fx=1000.0):
    return Calibration(np.array([[fx, 0, 640], [0, fx, 360], [0, 0, 1]]), np.zeros(5), (1280, 720), 0.3)


def test_save_is_atomic_and_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "lens.json"
    save_calibration(_cal(1000), path)
    before = path.read_bytes()

    def power_cut(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", power_cut)
    with pytest.raises(OSError):
        save_calibration(_cal(1100), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    save_calibration(_cal(1200), path)
    assert load_calibration(path).camera_matrix[0, 0] == 1200
    assert load_calibration(tmp_path / "lens.json.bak").camera_matrix[0, 0] == 1000


@pytest.mark.parametrize("content, words", [
    ("{\"format\": \"flure-calibration/1\", \"image_si", "not valid JSON"),                 # truncated
    ("\x00\x01garbage", "not"),                                                                    # corrupt
    ('{"format": "flure-calibration/7", "image_size": [1280, 720]}', "this version reads"),   # wrong version
    (None, "no such file"),                                                                    # missing
])
def test_an_unusable_calibration_leaves_the_session_running_and_says_what_to_run(tmp_path, content, words):
    from companion_app.config import CameraConfig
    from companion_app.table.devices.devices import open_camera

    path = tmp_path / "lens.json"
    if content is not None:
        path.write_text(content)
    device = open_camera("synthetic", lambda: (basic_position(), None), CameraConfig(calibration=path))
    assert device.obj is None and words in device.why and str(path) in str(device.why)
    assert "flure calibrate camera" in str(device.why)
    status = device.status()
    assert status == {"present": False, "message": device.why}
    said = each_language(status["message"])   # wording data, said in each reader's language
    assert said["en"] == device.why
    assert said["de"].startswith("Kamera 'synthetic' nicht verfügbar: ")   # the reason kept as is


def test_a_calibration_of_another_resolution_leaves_the_camera_off_with_the_reason(tmp_path):
    from companion_app.config import CameraConfig
    from companion_app.table.devices.devices import open_camera

    save_calibration(_cal(), tmp_path / "lens.json")          # 1280x720
    device = open_camera("synthetic", lambda: (basic_position(), None),
                         CameraConfig(resolution=(1920, 1080), calibration=tmp_path / "lens.json"))
    assert device.obj is None and "made at 1280×720" in str(device.why) and "1920×1080" in str(device.why)
