"""flure stickers: every marker printed once, at its exact physical size, PDF and PNG."""
import re

import cv2
import numpy as np
import pytest
from PIL import Image

from companion_app.cli import main
from vision.scheme import load_scheme
from vision.stickers import DPI, PAGE_MM


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    out = tmp_path_factory.mktemp("stickers")
    assert main(["stickers", "-o", str(out / "png"), "--format", "png"]) == 0
    assert main(["stickers", "-o", str(out / "pdf")]) == 0
    return out


def test_png_pages_are_a4_at_300_dpi(sheets):
    pages = sorted((sheets / "png").glob("stickers-*.png"))
    assert pages
    for path in pages:
        with Image.open(path) as im:
            assert im.size == (round(PAGE_MM[0] / 25.4 * DPI), round(PAGE_MM[1] / 25.4 * DPI))
            assert tuple(round(v) for v in im.info["dpi"]) == (DPI, DPI)


def test_every_marker_is_printed_once_at_its_size_in_mm(sheets):
    """Detect the markers on the printed pages: each id once, side = size_mm at 300 dpi."""
    scheme = load_scheme()
    want = {m.id: m.size_mm for m in scheme.board_markers}
    want.update({i: st.size_mm for i, st in scheme.stickers.items()})
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, scheme.dictionary))
    detector = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    seen: list[int] = []
    for path in sorted((sheets / "png").glob("stickers-*.png")):
        gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
        corners, ids, _ = detector.detectMarkers(gray)
        for c, i in zip(corners, ids.ravel()):
            c = c.reshape(4, 2)
            side_px = np.mean([np.linalg.norm(c[k] - c[k - 1]) for k in range(4)])
            side_mm = side_px * 25.4 / DPI
            # cv2.aruco reports the outer corners of the black border to about a pixel.
            assert abs(side_mm - want[int(i)]) < 0.25, (int(i), side_mm)
            seen.append(int(i))
    assert sorted(seen) == sorted(want)


def test_pdf_has_the_same_pages_at_a4_page_size(sheets):
    data = (sheets / "pdf" / "stickers.pdf").read_bytes()
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    n_png = len(list((sheets / "png").glob("stickers-*.png")))
    assert len(boxes) == n_png
    for w, h in boxes:
        # Points (1/72 in) to mm: A4 within a tenth of a millimetre.
        assert abs(float(w) / 72 * 25.4 - PAGE_MM[0]) < 0.1
        assert abs(float(h) / 72 * 25.4 - PAGE_MM[1]) < 0.1


def test_a_broken_scheme_file_is_named_not_a_traceback(tmp_path, capsys):
    bad = tmp_path / "scheme.json"
    bad.write_text('{"dictionary": 5}')
    assert main(["stickers", "--scheme", str(bad), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "scheme.json" in err and "Traceback" not in err


def test_sizes_changed_in_the_scheme_file_are_printed(tmp_path):
    """VISION.md: a table owner may change sizes in the file and print again."""
    import json

    from vision.scheme import DEFAULT_PATH
    data = json.loads(DEFAULT_PATH.read_text())
    data["sizes_mm"]["pawn"] = 13.0
    custom = tmp_path / "scheme.json"
    custom.write_text(json.dumps(data))
    assert main(["stickers", "--scheme", str(custom), "-o", str(tmp_path / "out"), "--format", "png"]) == 0
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_100)
    detector = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters())
    sides = {}
    for path in (tmp_path / "out").glob("stickers-*.png"):
        corners, ids, _ = detector.detectMarkers(cv2.imread(str(path), cv2.IMREAD_GRAYSCALE))
        for c, i in zip(corners, ids.ravel()):
            c = c.reshape(4, 2)
            sides[int(i)] = np.mean([np.linalg.norm(c[k] - c[k - 1]) for k in range(4)]) * 25.4 / DPI
    assert abs(sides[57] - 13.0) < 0.25      # red 6/1, white face: a pawn
    assert abs(sides[4] - 25.0) < 0.25       # the monster is unchanged
