"""Pawns told apart without colour: the players' screen colours stay apart under simulated
colour-vision deficiencies, every colour has a shape of its own, the numbers read on every pawn, and
the move picture draws the shapes.

The simulation: Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of
color vision deficiency", severity 1.0 (dichromacy), applied in linear sRGB; differences are CIEDE2000
(Sharma, Wu & Dalal 2005) in CIELAB (D65).
"""
from __future__ import annotations

import io
import itertools
import math
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from companion_app.palette import PLAYERS, SHAPES, hex_rgb
from companion_app.share import CELL, move_png, square_box
from engine.geometry import parse_square
from engine.monster import resolve
from engine.position import COLOURS, Position

CSS = Path(__file__).resolve().parent.parent / "companion_app" / "web" / "static" / "app.css"
MACHADO = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}
APART = 15.0   # CIEDE2000: about 2 is just noticeable; 15 reads as two different colours at a glance


def linear(hex_colour: str) -> np.ndarray:
    c = np.array(hex_rgb(hex_colour)) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb_linear: np.ndarray) -> tuple[float, float, float]:
    m = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                  [0.0193339, 0.1191920, 0.9503041]])
    xyz = m @ np.clip(rgb_linear, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 216 / 24389, np.cbrt(xyz), (24389 / 27 * xyz + 16) / 116)
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def ciede2000(lab1, lab2) -> float:
    (l1, a1, b1), (l2, a2, b2) = lab1, lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p, h2p = math.degrees(math.atan2(b1, a1p)) % 360, math.degrees(math.atan2(b2, a2p)) % 360
    dh = 0.0 if c1p * c2p == 0 else (h2p - h1p + 180) % 360 - 180
    d_l, d_c = l2 - l1, c2p - c1p
    d_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_mean, cp_mean = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_mean = (h1p + h2p) / 2
    else:
        h_mean = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_mean - 30)) + 0.24 * math.cos(math.radians(2 * h_mean))
         + 0.32 * math.cos(math.radians(3 * h_mean + 6)) - 0.20 * math.cos(math.radians(4 * h_mean - 63)))
    rc = 2 * math.sqrt(cp_mean ** 7 / (cp_mean ** 7 + 25 ** 7))
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    sc, sh = 1 + 0.045 * cp_mean, 1 + 0.015 * cp_mean * t
    rt = -math.sin(math.radians(2 * 30 * math.exp(-((h_mean - 275) / 25) ** 2))) * rc
    return math.sqrt((d_l / sl) ** 2 + (d_c / sc) ** 2 + (d_h / sh) ** 2 + rt * (d_c / sc) * (d_h / sh))


def seen(hex_colour: str, vision: str | None) -> tuple[float, float, float]:
    rgb = linear(hex_colour)
    return lab(rgb if vision is None else np.array(MACHADO[vision]) @ rgb)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""
    la, lb = (float(np.dot([0.2126, 0.7152, 0.0722], linear(c))) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_the_colour_difference_formula_matches_sharma_s_reference_pairs():
    # Sharma, Wu & Dalal (2005), table 1: pairs 1, 7 and 17
    assert ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-3)
    assert ciede2000((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-3)
    assert ciede2000((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-3)


def test_the_old_palette_failed_where_the_issue_says():
    # issue 28: red and green were almost the same under deuteranopia (#d8342c, #2e9e4f)
    assert ciede2000(seen("#d8342c", "deuteranopia"), seen("#2e9e4f", "deuteranopia")) < APART


@pytest.mark.parametrize("vision", [None, *MACHADO])
def test_every_pair_of_player_colours_stays_apart(vision):
    fills = {c: PLAYERS[c][0] for c in COLOURS}
    close = [(a, b, round(ciede2000(seen(fills[a], vision), seen(fills[b], vision)), 1))
             for a, b in itertools.combinations(COLOURS, 2)]
    assert [pair for pair in close if pair[2] < APART] == [], vision or "normal vision"


def test_every_colour_has_its_own_shape_and_a_readable_number():
    assert set(PLAYERS) == set(COLOURS)
    shapes = [PLAYERS[c][2] for c in COLOURS]
    assert len(set(shapes)) == len(shapes) and set(shapes) <= set(SHAPES)
    for colour, (fill, ink, _) in PLAYERS.items():
        assert contrast(fill, ink) >= 4.5, colour                  # the pawn's number, small text
        assert contrast("#16131a", "#ffffff") >= 4.5               # on a black face: white


def test_the_stylesheet_uses_the_palette():
    css = CSS.read_text()
    for colour, (fill, _, _) in PLAYERS.items():
        assert re.search(rf"--{colour}: {fill};", css), colour


def test_the_move_picture_draws_each_colour_in_its_shape():
    """Turned to black and white (what colour alone cannot tell), each pawn's outline still differs."""
    squares = ["c3", "e3", "g3", "i3", "c7", "e7", "g7"]
    position = Position.from_setup({"monster": {"at": "p11", "facing": "N"}, "pawns": {
        f"P{i}": {"at": sq, "color": colour, "pawn": "3/4"} for i, (sq, colour) in enumerate(zip(squares, COLOURS))}})
    plan = resolve(position, None, steps=1)
    picture = Image.open(io.BytesIO(move_png(plan))).convert("RGB")
    floor = picture.getpixel(square_box(parse_square("k9"))[:2])
    masks = {}
    for sq, colour in zip(squares, COLOURS):
        x0, y0, x1, y1 = square_box(parse_square(sq))
        cell = np.array(picture.crop((x0 + 1, y0 + 1, x1 - 1, y1 - 1)))
        masks[colour] = np.any(np.abs(cell.astype(int) - floor) > 24, axis=2)   # the pawn, whatever its colour
        assert 0.2 < masks[colour].mean() < 0.95, colour
    for a, b in itertools.combinations(COLOURS, 2):
        overlap = (masks[a] & masks[b]).sum() / (masks[a] | masks[b]).sum()
        assert overlap < 0.85, (a, b, overlap)
    assert CELL >= 24   # room for the shapes to show


def test_the_led_grid_s_meanings_differ_by_pattern_as_well_as_colour():
    """The LEDs (hardware/animation.py): what colour-blind players cannot tell by colour, they tell by
    pattern — a square to empty blinks while one to fill stays lit, an eaten pawn flashes, a pawn's
    move pulses — and the monster's path (blue) stays apart from the monster (red) in every simulation."""
    from hardware.animation import MONSTER, TRAIL, FollowShow, MarkShow, PlanShow
    from hardware.config import AnimationConfig
    from tests.hardware_helpers import ADVANCED_SETUP
    from tests.hardware_helpers import plan as led_plan

    def levels(show, square, seconds=2.0):
        sq = parse_square(square)
        return {tuple(int(v) for v in show.frame_at(i / show.fps)[sq]) for i in range(int(seconds * show.fps))}

    setup = {"monster": {"at": "a1", "facing": "E"}}
    follow = FollowShow(setup, empty=("g7",), fill=("h7",))
    assert len(levels(follow, "g7")) == 2 and len(levels(follow, "h7")) == 1     # blinking / steady
    mark = MarkShow(None, setup, "g7", "red", seconds=2.0)
    assert len(levels(mark, "g7", 1.0)) >= 3                                      # pulsing, not on and off
    show = PlanShow(led_plan(ADVANCED_SETUP, "8"), AnimationConfig(fps=30, beat_ms=100, hold_s=1.0))
    eaten = show.beats[-1].eaten
    assert eaten
    assert len({tuple(int(v) for v in show.frame_at(show.duration - 0.5 + k / 8)[eaten[0]]) for k in range(4)}) == 2
    as_hex = lambda rgb: "#%02x%02x%02x" % tuple(rgb)
    for vision in MACHADO:
        assert ciede2000(seen(as_hex(MONSTER), vision), seen(as_hex(TRAIL), vision)) >= APART, vision
