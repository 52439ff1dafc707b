"""LED layouts: which LED is under which square, and refusals that name the culprit."""
import numpy as np
import pytest

from engine.geometry import SQUARES, parse_square
from hardware.config import HardwareConfigError, load_config
from hardware.layout import CANVAS_SIZE, LayoutError, LedLayout


def idx(layout, name):
    return layout.leds[parse_square(name)]


def test_default_serpentine_rows_from_top_left():
    lay = LedLayout.from_config({})
    assert lay.led_count == 156
    # row 1 has a1…l1 (12 squares) left to right; row 2 (a2…m2) runs back right to left
    assert idx(lay, "a1") == (0,) and idx(lay, "l1") == (11,)
    assert idx(lay, "m2") == (12,) and idx(lay, "a2") == (24,)
    assert idx(lay, "a3") == (25,) and idx(lay, "p11") == (155,)
    assert sorted(i for v in lay.leds.values() for i in v) == list(range(156))


def test_row_major_keeps_every_row_left_to_right():
    lay = LedLayout.from_config({"order": "row-major"})
    assert idx(lay, "a2") == (12,) and idx(lay, "m2") == (24,)


def test_columns_from_bottom_right_with_dark_corners():
    lay = LedLayout.from_config({"run": "columns", "start": "bottom-right", "cut_corners": "dark"})
    assert lay.led_count == 176
    assert idx(lay, "p11") == (0,)
    # column p bottom-up: p11 … p5 are squares, p4…p1 are cut away (dark LEDs 7…10)
    assert idx(lay, "p5") == (6,)
    assert not {i for v in lay.leds.values() for i in v} & set(range(7, 11))
    # then column o runs top-down (serpentine): o1, o2, o3 are cut away (LEDs 11…13)
    assert idx(lay, "o4") == (14,) and idx(lay, "o5") == (15,)


def test_squares_without_led_and_several_leds_per_square():
    lay = LedLayout.from_config({"no_led": ["a1", "p11"], "leds_per_square": 2})
    assert parse_square("a1") not in lay.leds and parse_square("p11") not in lay.leds
    assert idx(lay, "b1") == (0, 1)
    assert lay.led_count == 2 * 154


def test_explicit_layout_and_to_strip():
    lay = LedLayout.from_config({"kind": "explicit", "squares": {"a1": 0, "b1": [1, 2], "p11": 5}})
    assert lay.led_count == 6
    canvas = np.zeros((CANVAS_SIZE, 3), dtype=np.uint8)
    canvas[parse_square("b1")] = (1, 2, 3)
    canvas[parse_square("p11")] = (9, 9, 9)
    strip = lay.to_strip(canvas)
    assert strip.tolist() == [[0, 0, 0], [1, 2, 3], [1, 2, 3], [0, 0, 0], [0, 0, 0], [9, 9, 9]]


def test_to_canvas_inverts_to_strip_on_every_square():
    lay = LedLayout.from_config({"order": "row-major", "start": "top-right"})
    canvas = np.zeros((CANVAS_SIZE, 3), dtype=np.uint8)
    for n, sq in enumerate(SQUARES):
        canvas[sq] = (n, 255 - n, n // 2)
    assert (lay.to_canvas(lay.to_strip(canvas)) == canvas).all()


@pytest.mark.parametrize("cfg, message", [
    ({"kind": "explicit", "squares": {"a1": 0, "b1": 0}}, "LED 0 is given to both a1 and b1"),
    ({"kind": "explicit", "squares": {"a1": 0, "z9": 1}}, "'z9' is not a square name"),
    ({"kind": "explicit", "squares": {"p1": 0}}, "'p1' is not on the board"),
    ({"kind": "explicit", "squares": {"c3": -4}}, "square c3: LED index -4"),
    ({"kind": "explicit", "squares": {"c3": []}}, "square c3 has an empty LED list"),
    ({"led_count": 150}, "square k11 needs LED 150 but the strip has only 150 LEDs"),
    ({"no_led": ["q3"]}, "no_led: 'q3' is not a square name"),
    ({"start": "middle"}, "start 'middle' is not a corner"),
    ({"order": "spiral"}, "order 'spiral'"),
    ({"leds_per_square": 0}, "leds_per_square = 0"),
    ({"wiring": "x"}, "unknown key"),
    ({"squares": {"a1": 0}}, "unknown key.*squares; to list each square's LEDs set kind = \"explicit\""),
])
def test_invalid_layouts_name_the_square_or_index(cfg, message):
    with pytest.raises(LayoutError, match=message):
        LedLayout.from_config(cfg)


def test_config_loads_defaults_and_refuses_bad_values(tmp_path):
    cfg = load_config(None)
    assert cfg.serial.url == "emulator" and cfg.serial.protocol == "adalight" and cfg.serial.baud == 921600
    assert cfg.buttons.pins == {"monster": 17, "confirm": 27, "undo": 22}
    path = tmp_path / "hw.toml"
    path.write_text('[serial]\nurl = "/dev/ttyACM0"\nprotocol = "tpm2"\n[layout]\norder = "row-major"\n')
    cfg = load_config(path)
    assert (cfg.serial.url, cfg.serial.protocol, cfg.layout["order"], cfg.layout["start"]) == \
        ("/dev/ttyACM0", "tpm2", "row-major", "top-left")
    for bad, message in [({"serial": {"protocol": "dmx"}}, "protocol 'dmx'"),
                         ({"serial": {"baud": 9600, "switch_from": 115200}}, "baud = 9600 has no WLED"),
                         ({"power": {"budget_ma": "lots"}}, r"\[power\] budget_ma must be a number"),
                         ({"buttons": {"pins": {"monster": 17, "undo": 17}}}, "undo and monster are both on GPIO17"),
                         ({"buttons": {"pins": {"fire": 5}}}, "'fire' is not a button"),
                         ({"serail": {}}, "unknown key"),
                         ]:
        with pytest.raises(HardwareConfigError, match=message):
            load_config(bad)
    with pytest.raises(HardwareConfigError, match="needs 30001 LEDs, too many for .* tpm2"):
        load_config({"serial": {"protocol": "tpm2"}, "layout": {"kind": "explicit", "squares": {"a1": 30000}}})
    assert load_config({"layout": {"kind": "explicit", "squares": {"a1": 30000}}}).serial.protocol == "adalight"
    path.write_text("[serial\n")
    with pytest.raises(HardwareConfigError, match="not valid TOML"):
        load_config(path)
    with pytest.raises(LayoutError, match="'zz' is not a square"):
        load_config({"layout": {"no_led": ["zz"]}})
