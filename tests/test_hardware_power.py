"""The current cap keeps a USB-powered strip under its budget."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
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


def test_every_frame_on_the_wire_is_within_budget():
    """End to end: a plan streamed through a pty to the emulator; each frame the device got
    stays under the budget, though the plan's pictures would not without the cap."""
    from hardware.animation import PlanShow
    from hardware.leds import LedGrid
    from tests.hardware_helpers import plan, running_emulator, wait_until
    power = {"budget_ma": 200, "ma_per_channel": 20, "idle_ma_per_led": 1}
    with running_emulator(keep_frames=True) as emu:
        with LedGrid({"power": power, "animation": {"beat_ms": 15, "hold_s": 0.3, "fps": 60}}, url=emu.path) as g:
            p = plan()
            assert g.show_plan(p) and g.wait_done(20)
            assert wait_until(lambda: emu.frames_decoded == g.status()["frames_sent"])
            cfg = PowerConfig(**power)
            show = PlanShow(p, g.config.animation)
            uncapped = max(estimate_ma(g.layout.to_strip(show.frame_at(t)), cfg) for t in np.linspace(0, show.duration, 60))
            assert uncapped > 300                                   # the cap had work to do
            on_wire = [estimate_ma(np.frombuffer(rgb, np.uint8).reshape(-1, 3), cfg) for rgb in emu.history]
            assert len(on_wire) > 20 and max(on_wire) <= 200
            assert max(on_wire) - 0.05 <= g.status()["peak_ma"] <= 200   # the referee sees the real peak
