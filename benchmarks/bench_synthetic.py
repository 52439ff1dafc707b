"""Synthetic camera speed: medians against the eval's budget.

Run: .venv/bin/python benchmarks/bench_synthetic.py
Target (issue 3: "fast enough to make 500 images in a few minutes"): a 1920x1080 nominal
render ≤ 300 ms median on one core (500 scenes in 2.5 min), a 3-frame burst ≤ 400 ms
(the eval renders bursts: the scene once, the sensor noise per frame).  The digital twin's
next frame of an unchanged table (only new sensor noise) ≤ 100 ms, so it keeps up with the
reader's frame rate.  The first
render of a lens with distortion pays a one-off per-pixel undistortion table (reported apart).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2  # noqa: E402

from vision.twin.positions import random_position  # noqa: E402
from vision.twin.scene import render, render_burst  # noqa: E402

TARGETS_MS = {"render 1920x1080 nominal": 300.0, "render 1280x720 nominal": 300.0,
              "burst of 3 at 1920x1080": 400.0, "render 1920x1080 all effects + hand": 400.0,
              "twin: next frame of an unchanged table": 100.0}
NOMINAL = dict(noise=2.0, light=0.2, jpeg_quality=90, tilt_deg=5.0)


def median_ms(fn, positions) -> float:
    times = []
    for i, (pos, tile) in enumerate(positions):
        t0 = time.perf_counter()
        fn(pos, tile, i)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> int:
    cv2.setNumThreads(1)  # one core, as the target says
    positions = [random_position(seed) for seed in range(30)]
    render(*positions[0])  # board texture and marker caches
    t0 = time.perf_counter()
    render(*positions[0], distortion=-0.2)
    first_lens_ms = (time.perf_counter() - t0) * 1000
    results = {
        "render 1920x1080 nominal": median_ms(lambda p, t, i: render(p, t, seed=i, **NOMINAL), positions),
        "render 1280x720 nominal": median_ms(
            lambda p, t, i: render(p, t, seed=i, width=1280, height=720, **NOMINAL), positions),
        "burst of 3 at 1920x1080": median_ms(
            lambda p, t, i: render_burst(p, t, frames=3, seed=i, **NOMINAL), positions),
        "render 1920x1080 all effects + hand": median_ms(
            lambda p, t, i: render(p, t, seed=i, tilt_deg=25, distortion=-0.2, light=0.8, colour_temp=3200,
                                   glare=0.7, noise=6, blur=1.2, jpeg_quality=60, occluder="hand"), positions),
        "twin: next frame of an unchanged table": median_ms(
            lambda p, t, i: render(positions[0][0], positions[0][1], frame=i, **NOMINAL), positions[1:]),
    }
    print(f"{'case':40} {'median ms':>10} {'target':>8} {'ratio':>6}")
    ok = True
    for name, ms in results.items():
        target = TARGETS_MS[name]
        ok &= ms <= target
        print(f"{name:40} {ms:10.1f} {target:8.0f} {ms / target:6.2f}")
    print(f"{'first render with a new distorted lens':40} {first_lens_ms:10.1f} {'(once)':>8}")
    eval_min = 510 * results["burst of 3 at 1920x1080"] / 1000 / 60
    print(f"rendering the 510-scene eval set: about {eval_min:.1f} min (plus reading)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
