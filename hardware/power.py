"""Current budget: keep a USB-powered strip safe.

Every frame is estimated (idle draw of each LED plus each channel's share of
``ma_per_channel``) and, if it would exceed the budget, scaled down as a whole so colours
keep their ratios.  Done on the host, before encoding, so it holds whatever firmware is
on the other end.
"""
from __future__ import annotations

import numpy as np

from hardware.config import PowerConfig


def estimate_ma(strip: np.ndarray, power: PowerConfig) -> float:
    """Estimated current (mA at 5 V) of a strip frame (N, 3) uint8."""
    return len(strip) * power.idle_ma_per_led + float(strip.sum(dtype=np.int64)) * power.ma_per_channel / 255.0


def cap_current(strip: np.ndarray, power: PowerConfig) -> np.ndarray:
    """Apply the global brightness, then scale the frame so it fits ``budget_ma``.

    When even a dark strip exceeds the budget (too many LEDs for the supply) the frame
    is blanked: nothing lit is the only safe answer.
    """
    out = strip.astype(np.float32)
    if power.brightness < 1.0:
        out *= power.brightness
    idle = len(strip) * power.idle_ma_per_led
    colour_ma = float(out.sum()) * power.ma_per_channel / 255.0
    allowed = power.budget_ma - idle
    if allowed <= 0:
        return np.zeros_like(strip)
    if colour_ma > allowed:
        out *= allowed / colour_ma
        return np.floor(out).astype(np.uint8)  # floor: rounding up could cross the budget
    return np.rint(out).astype(np.uint8) if power.brightness < 1.0 else strip.copy()
