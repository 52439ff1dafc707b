"""LED grid speed: medians against the targets of the LED issue.

Run: .venv/bin/python benchmarks/bench_leds.py
Targets (this machine):
  * encoding a frame takes ≤ 2 % of its wire time at 921600 baud;
  * a 20-step plan's animation streams into the emulator at ≥ 30 frames/s at 921600 baud
    with no frame lost (the emulator reads no faster than a 921600-baud UART).  Judged on
    two runs: the product's own setting (30 fps: no frame lost) and an animation set to
    40 fps (delivered ≥ 30 fps, with no tolerance, and no frame lost); 60 and 120 fps runs
    show the margin;
  * the link is back within 2 s of the device returning.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from engine.monster import resolve  # noqa: E402
from engine.position import Position  # noqa: E402
from hardware.animation import PlanShow  # noqa: E402
from hardware.config import load_config  # noqa: E402
from hardware.emulator import LedEmulator  # noqa: E402
from hardware.layout import LedLayout  # noqa: E402
from hardware.leds import LedGrid  # noqa: E402
from hardware.power import cap_current  # noqa: E402
from hardware.protocol import make_encoder  # noqa: E402

BAUD = 921600
SETUP = {
    "monster": {"at": "j8", "facing": "E"}, "stones": {"k8": "pivot-right", "m7": "pivot-about", "k5": "crystal"},
    "pools": ["k6", "l6", "k7", "l7"],
    "teleporters": {"j5": {"pair": 1, "arrow": "E"}, "o7": {"pair": 1, "arrow": "N"}},
    "pawns": {"A": {"at": "j3"}, "B": {"at": "i5"}, "C": {"at": "l5"}, "D": {"at": "n7"}, "E": {"at": "m6"}},
}


def line(name: str, value: float, unit: str, target: float, better: str) -> bool:
    ok = value <= target if better == "low" else value >= target
    ratio = f"ratio {value / target:.3f}" if target else "must be zero"
    print(f"  {name:<58} {value:10.3f} {unit:<6} target {'≤' if better == 'low' else '≥'} {target:g} "
          f"({ratio}) {'OK' if ok else 'MISSED'}")
    return ok


def median_us(fn, repeat: int = 2000) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def bench_encoding(plan: dict) -> bool:
    cfg = load_config(None)
    layout = LedLayout.from_config(cfg.layout)
    show = PlanShow(plan, cfg.animation)
    canvases = [show.frame_at(t) for t in np.linspace(0, show.duration, 50)]
    ok = True
    print("Encoding (156 LEDs, one frame):")
    for protocol in ("adalight", "tpm2"):
        enc = make_encoder(protocol, layout.led_count)
        strips = [cap_current(layout.to_strip(c), cfg.power).tobytes() for c in canvases]
        wire_us = len(enc.encode(strips[0])) * 10 / BAUD * 1e6
        i = iter(range(10 ** 9))
        enc_us = median_us(lambda: enc.encode(strips[next(i) % 50]))
        full_us = median_us(lambda: enc.encode(cap_current(layout.to_strip(canvases[next(i) % 50]),
                                                           cfg.power).tobytes()), 500)
        print(f"  {protocol}: wire time {wire_us:.0f} µs per frame at {BAUD} baud")
        ok &= line(f"{protocol}: encode / wire time (%)", 100 * enc_us / wire_us, "%", 2.0, "low")
        print(f"  {'(info) layout + current cap + encode / wire time':<58} {100 * full_us / wire_us:10.3f} %")
        times = iter(np.linspace(0, show.duration, 1000).tolist() * 1000)
        draw_us = median_us(lambda: enc.encode(cap_current(layout.to_strip(show.frame_at(next(times))),
                                                           cfg.power).tobytes()), 500)
        print(f"  {'(info) draw the animation frame + all of the above / wire':<58} {100 * draw_us / wire_us:10.3f} %")
    return ok


def bench_stream(plan: dict) -> bool:
    """Frames per second are measured at the emulator, between the first and the last
    frame that arrived; "lost" counts frames replaced before sending plus frames sent
    but not decoded.  30 fps is the target and the product's setting (judged); 60 and 120 fps
    are information about the headroom: on a loaded machine a stall of the sender longer
    than the 6-frame queue shows there as replaced frames (the newest frame wins)."""
    print("Streaming a 20-step plan into the emulator (paced at 921600 baud):")
    ok = True
    for fps, judged in ((30, True), (40, True), (60, False), (120, False)):
        results = []
        for _ in range(3):
            with LedEmulator(wire_baud=BAUD) as emu:
                grid = LedGrid({"animation": {"fps": fps, "hold_s": 0.5}, "serial": {"keepalive_s": 60}},
                               url=emu.path)
                grid.show_plan(plan)
                grid.wait_done(60)
                emu.wait_for_frames(grid.status()["frames_sent"], 5)
                status = grid.status()
                grid.close()
                span = emu.last_frame_at - emu.first_frame_at
                results.append(((emu.frames_decoded - 1) / span, status["frames_sent"], emu.frames_decoded,
                                status["frames_replaced"]))
        rate = statistics.median(r[0] for r in results)
        lost = max(r[3] + (r[1] - r[2]) for r in results)
        print(f"  animation set to {fps} fps: decoded/sent {[f'{r[2]}/{r[1]}' for r in results]}, "
              f"replaced {[r[3] for r in results]}, delivered {rate:.2f} fps")
        if judged and fps > 30:
            ok &= line(f"frames per second delivered (animation at {fps} fps), median of 3", rate, "fps",
                       30, "high")
        elif judged:  # at exactly the target rate, the measured rate is 30 less clock jitter
            print(f"  {'(info) frames per second delivered at the product setting':<58} {rate:10.3f} fps")
        if judged:
            ok &= line(f"frames lost at {fps} fps, worst of 3", lost, "frames", 0, "low")
    return ok


def bench_reconnect() -> bool:
    print("Reconnect after an unplug (pty re-created at the same path):")
    times = []
    with LedEmulator() as emu:
        grid = LedGrid({"serial": {"keepalive_s": 0.2}}, url=emu.path)
        grid.show_idle("red")
        emu.wait_for_frames(3, 5)
        for _ in range(7):
            emu.unplug()
            while grid.status()["connected"]:
                time.sleep(0.005)
            time.sleep(0.5)
            before = emu.frames_decoded
            emu.replug()
            t0 = time.monotonic()
            emu.wait_for_frames(before + 1, 10)
            times.append(time.monotonic() - t0)
        reconnects = grid.status()["reconnects"]
        grid.close()
    print(f"  {reconnects} reconnects, seconds until the first frame arrived again: "
          f"{', '.join(f'{t:.2f}' for t in times)}")
    return line("median time until the link is back (s)", statistics.median(times), "s", 2.0, "low") \
        & line("worst time until the link is back (s)", max(times), "s", 2.0, "low")


def main() -> int:
    import os
    print(f"Machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start")
    plan = resolve(Position.from_setup(SETUP), steps=20).to_json()
    assert len(plan["steps"]) == 20
    ok = bench_encoding(plan)
    ok &= bench_stream(plan)
    ok &= bench_reconnect()
    print("ALL TARGETS MET" if ok else "SOME TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
