"""Lens calibration from rendered views of the ChArUco board with a known camera,
the calibration file (JSON/NPZ, corrupt files), the registration check and the CLI."""
from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

from calibration.intrinsics import CharucoSpec, NotEnoughViews, Views, calibrate
from calibration.registration import check_registration
from calibration.store import Calibration, CalibrationError, load_calibration, save_calibration
from companion_app.cli import main
from vision.reader import read_image
from vision_helpers import make_camera, pawn, pos, render

W, H = 1280, 720
F = 1000.0
K = np.array([[F, 0, 640.0], [0, F, 360.0], [0, 0, 1]])
DIST = np.array([-0.18, 0.05, 0, 0, 0])
SPEC = CharucoSpec()


def _distort_map(k, dist, size):
    """For every pixel of a distorted frame, where it comes from in the ideal image."""
    w, h = size
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    ideal = cv2.undistortPoints(pts, k, dist, P=k).reshape(h, w, 2)
    return ideal[..., 0], ideal[..., 1]


MAPS = _distort_map(K, DIST, (W, H))


def charuco_view(rx, ry, rz, dist_mm, dx=0.0, dy=0.0, seed=0):
    """The board photographed by the camera K/DIST from a pose (degrees, mm; the board's
    centre ``dx``, ``dy`` off the optical axis)."""
    px_per_mm = 4
    board = SPEC.image(dpi=int(25.4 * px_per_mm), margin_mm=10)
    bw, bh = SPEC.squares[0] * SPEC.square_mm, SPEC.squares[1] * SPEC.square_mm
    rvec = np.radians([rx, ry, rz])
    r, _ = cv2.Rodrigues(rvec)
    t = np.array([dx, dy, dist_mm]) - r @ np.array([bw / 2, bh / 2, 0])
    # board image pixel -> board mm (its margin is 10 mm) -> ideal camera pixel
    to_mm = np.array([[1 / px_per_mm, 0, -10], [0, 1 / px_per_mm, -10], [0, 0, 1]])
    hmat = K @ np.column_stack([r[:, 0], r[:, 1], t]) @ to_mm
    ideal = cv2.warpPerspective(board, hmat, (W, H), borderValue=200)
    frame = cv2.remap(ideal, MAPS[0], MAPS[1], cv2.INTER_LINEAR, borderValue=200)
    rng = np.random.default_rng(seed)
    return np.clip(frame + rng.normal(0, 2, frame.shape), 0, 255).astype(np.uint8)


POSES = [(0, 0, 0, 450), (20, 0, 5, 500, 150, 80), (-20, 10, -5, 480, -160, 90), (0, 25, 10, 520, 170, -90),
         (15, -20, 0, 460, -150, -80), (-10, -25, 20, 500, 0, 100), (25, 15, -10, 550, 200, 0),
         (5, 5, 30, 420, -180, 0), (10, -10, 0, 600, 0, -110), (-15, 15, -20, 380)]


@pytest.fixture(scope="module")
def views():
    v = Views(SPEC)
    for i, pose in enumerate(POSES):
        v.add(charuco_view(*pose, seed=i), f"view {i}")
    return v


def test_calibration_recovers_the_camera(views):
    assert len(views) == len(POSES)
    cal = calibrate(views)
    assert cal.image_size == (W, H)
    assert cal.rms_px < 1.0
    assert math.isclose(cal.camera_matrix[0, 0], F, rel_tol=0.02)
    assert math.isclose(cal.camera_matrix[1, 1], F, rel_tol=0.02)
    assert abs(cal.camera_matrix[0, 2] - 640) < 40 and abs(cal.camera_matrix[1, 2] - 360) < 40
    assert cal.dist_coeffs[0] == pytest.approx(DIST[0], abs=0.05)


def test_too_few_views_says_why():
    v = Views(SPEC)
    v.add(np.full((H, W), 128, np.uint8), "blank")
    v.add(charuco_view(*POSES[0]), "good")
    with pytest.raises(NotEnoughViews, match="only 1 usable view.*blank: only 0 ChArUco corners"):
        calibrate(v)


@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_calibration_file_round_trip(tmp_path, suffix):
    cal = Calibration(K, DIST, (W, H), 0.4, 8, registration={"ok": True})
    path = save_calibration(cal, tmp_path / f"cal{suffix}")
    back = load_calibration(path)
    assert np.allclose(back.camera_matrix, K) and np.allclose(back.dist_coeffs, DIST)
    assert back.image_size == (W, H) and back.rms_px == 0.4 and back.registration == {"ok": True}


@pytest.mark.parametrize("content, field", [
    ("{not json", "not valid JSON"),
    ('{"format": "flure-calibration/1", "image_size": [1280, 720], "camera_matrix": [[1, 0], [0, 1]], '
     '"dist_coeffs": [0, 0, 0, 0, 0]}', "camera_matrix"),
    ('{"format": "flure-calibration/1", "image_size": "big", "camera_matrix": [[1000,0,640],[0,1000,360],[0,0,1]], '
     '"dist_coeffs": [0,0,0,0,0]}', "image_size"),
    ('{"format": "flure-calibration/1", "image_size": [1280, 720], "camera_matrix": [[1000,0,640],[0,1000,360],[0,0,1]], '
     '"dist_coeffs": [1, 2]}', "dist_coeffs"),
    ('[1, 2, 3]', "must hold an object"),
    ('{"image_size": [1280, 720], "camera_matrix": [[1000,0,640],[0,1000,360],[0,0,1]], "dist_coeffs": [0,0,0,0,0]}',
     "format: missing"),
    ('{"format": "flure-calibration/2", "image_size": [1280, 720]}', "this version reads 'flure-calibration/1' only"),
    ('{"format": "flure-calibration/1", "image_size": [1280, 7', "not valid JSON"),     # truncated
])
def test_corrupt_calibration_file_names_the_problem(tmp_path, content, field):
    p = tmp_path / "cal.json"
    p.write_text(content)
    with pytest.raises(CalibrationError, match=field) as exc:
        load_calibration(p)
    assert str(p) in str(exc.value)


def test_corrupt_npz_and_missing_file(tmp_path):
    p = tmp_path / "cal.npz"
    p.write_bytes(b"PK\x03\x04 definitely not a zip")
    with pytest.raises(CalibrationError, match="not a readable .npz"):
        load_calibration(p)
    with pytest.raises(CalibrationError, match="no such file"):
        load_calibration(tmp_path / "nope.json")


def _distorted_table(position, camera):
    """The table seen through the lens K/DIST at 1280x720 (rendered ideal, then distorted)."""
    ideal = render(position, "5", camera=camera)
    return cv2.remap(ideal, MAPS[0], MAPS[1], cv2.INTER_LINEAR, borderValue=(150, 150, 150))


def test_reader_undistorts_with_the_calibration():
    cam = make_camera(width=W, height=H, hfov_deg=2 * math.degrees(math.atan(640 / F)), tilt_deg=10)
    p = pos(monster="b1", facing="S", stones={"o5": "stone", "e10": "crystal"},
            pawns={"red-6/1": pawn("l1", "red", "6/1"), "blue-2/5": pawn("p11", "blue", "2/5")})
    frame = _distorted_table(p, cam)
    cal = Calibration(K, DIST, (W, H))
    reading = read_image(frame, calibration=cal)
    assert reading.ok and reading.position == p and reading.tile == "5"
    assert reading.location.reprojection_px < 0.5
    from vision.pipeline import TableCamera

    class Frames:
        def __init__(self):
            self.left = 3

        def read(self):
            self.left -= 1
            return frame if self.left >= 0 else None

    cam = TableCamera(Frames(), calibration=cal)
    for _ in range(3):
        cam.poll()
    assert cam.accepted is not None and cam.accepted.position == p and not cam.status()["bumped"]
    # Calibrated at another resolution (same lens): the matrix is scaled to the frame.
    big = Calibration(K * np.array([[2], [2], [1]]), DIST, (2 * W, 2 * H))
    assert read_image(frame, calibration=big).position == p


def test_the_reader_takes_a_loaded_calibration_not_a_path(tmp_path):
    """Loading the file is the caller's job (vision never imports calibration): a path is refused."""
    path = save_calibration(Calibration(K, DIST, (W, H)), tmp_path / "cal.json")
    from vision.pipeline import TableCamera
    for call in (lambda: read_image(np.zeros((H, W, 3), np.uint8), calibration=str(path)),
                 lambda: TableCamera(None, calibration=path)):
        with pytest.raises(TypeError, match="loaded calibration"):
            call()


def test_registration_check_reports_what_is_wrong():
    good = render(pos(), "8", camera=make_camera())
    rep = check_registration(good)
    assert rep.ok and rep.markers_missing == [] and rep.card_zone_in_view
    assert max(rep.marker_error_mm.values()) < 1.0 and 850 < rep.camera_height_mm < 950
    far = render(pos(), "8", camera=make_camera(width=640, height=360), hide_board_markers=(2,))
    rep = check_registration(far)
    assert not rep.ok and rep.markers_missing == [2]
    assert any("not seen" in str(p) for p in rep.problems) and any("px" in str(p) for p in rep.problems)
    assert [str(p) for p in check_registration(None).problems] == ["board not located: no image (the frame is empty)"]


def test_cli_board_camera_check_show(tmp_path, views, capsys):
    board = tmp_path / "board.png"
    assert main(["calibrate", "board", "-o", str(board), "--dpi", "100"]) == 0
    assert cv2.imread(str(board)).shape[:2] == SPEC.image(dpi=100).shape[:2]
    folder = tmp_path / "shots"
    folder.mkdir()
    for i, pose in enumerate(POSES):
        cv2.imwrite(str(folder / f"{i:02d}.png"), charuco_view(*pose, seed=i))
    out = tmp_path / "cal.json"
    assert main(["calibrate", "camera", str(folder), "-o", str(out)]) == 0
    assert "10 views" in capsys.readouterr().out
    table = tmp_path / "table.png"
    cam = make_camera(width=W, height=H, hfov_deg=2 * math.degrees(math.atan(640 / F)))
    cv2.imwrite(str(table), _distorted_table(pos(), cam))
    assert main(["calibrate", "check", str(table), "--calibration", str(out), "--save"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["markers_missing"] == []
    assert load_calibration(out).registration["ok"] is True
    assert main(["calibrate", "show", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["image_size"] == [W, H]
    (tmp_path / "bad.json").write_text("{")
    assert main(["calibrate", "show", str(tmp_path / "bad.json")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_check_is_not_ok_when_the_verdict_is_not_good(tmp_path, capsys):
    """A camera tilted 25° is located with every marker, but "too tilted": not ok, exit status 1."""
    table = tmp_path / "tilted.png"
    assert main(["vision", "render", "--tilt", "25", "--width", "1280", "--height", "720", "-o", str(table)]) == 0
    capsys.readouterr()
    assert main(["calibrate", "check", str(table)]) == 1
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["verdict"] == "too tilted" and report["ok"] is False
    assert "tilted" in out.err
