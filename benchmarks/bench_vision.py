"""Reader speed and memory against the issue's targets, on one core.

    .venv/bin/python benchmarks/bench_vision.py [--frames 30]

Frames come from the synthetic camera at nominal conditions (a full random position,
tombstone tile, noise, JPEG).  Each is read with ``vision.reader.read_image`` after
``cv2.setNumThreads(1)``; reported: median and 90th-percentile milliseconds per frame
at 1920×1080 and 1280×720 with their ratio to the targets (≤ 50 ms and ≤ 25 ms), and
the process's peak resident memory (target ≤ 200 MB).
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGETS_MS = {(1920, 1080): 50.0, (1280, 720): 25.0}
TARGET_MB = 200.0


def frames_for(width: int, height: int, n: int):
    from vision.synthetic import random_position, render
    out = []
    for i in range(n):
        position, tile = random_position(seed=4000 + i)
        image, _ = render(position, tile, seed=i, width=width, height=height, noise=2.0, jpeg_quality=90,
                          tilt_deg=(i % 5) * 2.0, light=0.2)
        out.append(image)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=30, help="frames per resolution (default 30)")
    args = ap.parse_args(argv)

    import cv2
    cv2.setNumThreads(1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from vision.reader import read_image
    from vision.scheme import load_scheme

    scheme = load_scheme()
    ok = True
    for (w, h), target in TARGETS_MS.items():
        frames = frames_for(w, h, args.frames)
        read_image(frames[0], scheme)          # warm-up (detector construction, caches)
        times, located = [], 0
        for f in frames:
            t0 = time.perf_counter()
            r = read_image(f, scheme)
            times.append((time.perf_counter() - t0) * 1000.0)
            located += r.located
        med = statistics.median(times)
        p90 = sorted(times)[int(0.9 * (len(times) - 1))]
        ok &= med <= target
        print(f"{w}x{h}: median {med:.1f} ms, p90 {p90:.1f} ms over {len(times)} frames "
              f"({located} located); target {target:.0f} ms -> ratio {med / target:.2f}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    ok &= peak_mb <= TARGET_MB
    print(f"peak memory {peak_mb:.0f} MB (renderer included); target {TARGET_MB:.0f} MB -> "
          f"ratio {peak_mb / TARGET_MB:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
