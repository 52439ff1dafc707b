"""The hardware guide's camera table (deploy/README.md) follows from the sticker-size
requirement: recomputed here from each camera's field of view, the reader's 14 px minimum
and the scheme's smallest sticker, so an edited number or a changed requirement shows."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from calibration.registration import MIN_STICKER_PX

REPO = Path(__file__).resolve().parents[1]
VIEW_MM = (660, 410)     # board sheet and card zone with 2.5 cm to spare (the guide's words)


def rows():
    text = (REPO / "deploy" / "README.md").read_text()
    pattern = re.compile(r"^\| (.+?) \((\d+)° × (\d+)°\) \| (\d+)×(\d+) \| (\d+) \| (\d+) cm \| (\d+) cm \| "
                         r"(\d+) cm \| (\d+) px \|$", re.M)
    return pattern.findall(text)


def test_the_guide_states_the_requirement_it_computes_from():
    scheme = json.loads((REPO / "vision" / "marker_scheme.json").read_text())
    smallest = min(scheme["sizes_mm"].values())
    text = (REPO / "deploy" / "README.md").read_text()
    assert MIN_STICKER_PX == 14 and "**14 px**" in text
    assert smallest == 15 and "**15 mm**" in text
    sheet = scheme["sheet_mm"]
    zone = scheme["card_zone_mm"]
    width = max(sheet["right"], zone["x"] + zone["width"]) - sheet["left"] + 50
    height = sheet["bottom"] - sheet["top"] + 50
    assert abs(width - VIEW_MM[0]) <= 10 and abs(height - VIEW_MM[1]) <= 10


def test_every_row_of_the_camera_table_follows_from_the_field_of_view():
    found = rows()
    cameras = {(r[0], r[3]) for r in found}
    assert len(found) == 6 and len(cameras) == 6
    assert {r[3] for r in found} == {"1280", "1920"}
    for name, hfov, vfov, w, h, f, lowest, highest, suggested, px in found:
        hfov, vfov, w, f = float(hfov), float(vfov), int(w), int(f)
        assert int(h) * 16 == w * 9
        want_f = (w / 2) / math.tan(math.radians(hfov / 2))
        assert abs(f - want_f) <= 1, name
        low = max(VIEW_MM[0] / (2 * math.tan(math.radians(hfov / 2))),
                  VIEW_MM[1] / (2 * math.tan(math.radians(vfov / 2))))
        assert abs(int(lowest) * 10 - low) <= 5, name
        high = 15 * want_f / MIN_STICKER_PX
        assert abs(int(highest) * 10 - high) <= 5, name
        assert low < int(suggested) * 10 < high, name
        assert abs(int(px) - 15 * want_f / (int(suggested) * 10)) <= 0.5, name
        assert int(px) >= MIN_STICKER_PX
