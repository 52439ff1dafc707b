"""The current cap keeps a USB-powered strip under its budget."""
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from hardware.config import PowerConfig
from hardware.power import cap_current, estimate_ma

POWER = PowerConfig(budget_ma=400, ma_per_channel=20, idle_ma_per_led=1)


def test_estimate_counts_idle_and_channels():
    strip = np.zeros((156, 3), dtype=np.uint8)
    assert estimate_ma(strip, POWER) == 156
    strip[0] = (255, 255, 255)
    assert estimate_ma(strip, POWER) == 156 + 60


def test_full_white_is_scaled_under_budget_keeping_ratios():
    strip = np.full((156, 3), 255, dtype=np.uint8)
    strip[1] = (255, 0, 0)
    capped = cap_current(strip, POWER)
    assert estimate_ma(capped, POWER) <= 400
    assert estimate_ma(capped, POWER) > 350          # not needlessly dark
    assert capped[1, 1] == capped[1, 2] == 0          # red stays red


def test_a_frame_within_budget_is_unchanged():
    strip = np.zeros((156, 3), dtype=np.uint8)
    strip[:5] = (255, 30, 0)
    assert (cap_current(strip, POWER) == strip).all()


def test_brightness_applies_before_the_cap():
    strip = np.full((10, 3), 200, dtype=np.uint8)
    assert cap_current(strip, PowerConfig(budget_ma=10_000, brightness=0.5))[0].tolist() == [100, 100, 100]


def test_too_many_leds_for_the_supply_stays_dark():
    strip = np.full((500, 3), 10, dtype=np.uint8)
    assert not cap_current(strip, POWER).any()


@settings(max_examples=80, deadline=None)
@given(strip=arrays(np.uint8, st.tuples(st.integers(1, 300), st.just(3))),
       budget=st.floats(50, 3000))
def test_no_frame_ever_exceeds_the_budget(strip, budget):
    power = PowerConfig(budget_ma=budget, ma_per_channel=20, idle_ma_per_led=0.5)
    assert estimate_ma(cap_current(strip, power), power) <= max(budget, len(strip) * 0.5) + 1e-6
