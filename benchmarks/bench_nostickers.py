"""The no-sticker reader's speed against issue 27's targets, on one core.

    .venv/bin/python benchmarks/bench_nostickers.py [--looks 3] [--scenes 4] [--seed 2024]

Each look (``vision.twin.look``: a box of its own, drawn from a seed) is photographed through the
teaching layout at 1920×1080 under nominal conditions and taught (``vision.nostickers.teach``,
timed); then ``--scenes`` scenes of ``flure vision eval --moves`` (a random position, the player to
move, a legal change on the table) are filmed in that box, 3 frames each, and each frame is read
(``Reader.read_frame`` with the faces the legal changes allow, as ``explain_change`` does), after
``cv2.setNumThreads(1)``.  Printed: the median (and p90) CPU milliseconds per frame — the process's
own CPU time, so other work on a shared machine does not inflate it; wall time is shown too — with
its ratio to the target (≤ 150 ms per 1080p frame), the median teaching time (CPU and wall seconds)
with its ratio to the target (≤ 30 s), and how many changes were read right, refused or wrong (a
wrong one fails the run).  Exit status 1 when a target is missed or an answer is wrong.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_READ_MS = 150.0
TARGET_TEACH_S = 30.0
NOMINAL = {"width": 1920, "height": 1080, "noise": 2.0, "light": 0.2, "jpeg_quality": 90, "tilt_deg": 4.0}


def pct(values, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--looks", type=int, default=3)
    ap.add_argument("--scenes", type=int, default=4, help="scenes read per look (3 frames each)")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args()
    import cv2
    import numpy as np
    cv2.setNumThreads(1)

    from vision import evaluate_moves as moves
    from vision.evaluate_nostickers import teaching_photos
    from vision.nostickers import teach
    from vision.nostickers.read import Reader, allowed_faces, explained
    from vision.teaching_layout import load_layout

    layout = load_layout()
    teach_cpu, teach_wall, read_cpu, read_wall = [], [], [], []
    seen = {"right": 0, "refused": 0, "wrong": 0}
    for look in range(args.looks):
        look_seed = args.seed * 100 + look
        params = dict(NOMINAL, tilt_azimuth_deg=90.0 * look)
        photos = teaching_photos(layout, params, look_seed, look_seed)
        c0, w0 = time.process_time(), time.perf_counter()
        pieces = teach(layout, photos)
        teach_cpu.append(time.process_time() - c0)
        teach_wall.append(time.perf_counter() - w0)
        reader = Reader(pieces)
        rng = np.random.default_rng([args.seed, look])
        done = 0
        while done < args.scenes:
            scene = moves.make_scene(rng)
            if scene is None or not scene.legal:
                continue
            shots = moves.film(scene, params, 3, look_seed * 10 + done, rng, stickers=False, look_seed=look_seed)
            if shots is None:
                continue
            done += 1
            allowed = allowed_faces(scene.before, scene.mover)
            frames = []
            for img, _truth in shots:
                c0, w0 = time.process_time(), time.perf_counter()
                frames.append(reader.read_frame(img, scene.before, allowed))
                read_cpu.append((time.process_time() - c0) * 1000.0)
                read_wall.append((time.perf_counter() - w0) * 1000.0)
            result = explained(scene.before, frames, scene.mover)
            out = moves.judge(scene, params, result, 0.0, look_seed)
            seen["right" if out["right"] else "wrong" if out["accepted"] else "refused"] += 1
        print(f"  look {look_seed}: taught in {teach_wall[-1]:.1f} s, {done} scenes read", file=sys.stderr, flush=True)

    read_med, teach_med = statistics.median(read_cpu), statistics.median(teach_cpu)
    print(f"reading a 1920x1080 frame (CPU ms, {len(read_cpu)} frames): median {read_med:.1f}, "
          f"p90 {pct(read_cpu, 0.9):.1f} (wall median {statistics.median(read_wall):.1f}); "
          f"target <= {TARGET_READ_MS:.0f}: ratio {read_med / TARGET_READ_MS:.2f}")
    print(f"teaching ({len(teach_cpu)} looks, {len(layout.steps)} photos each): median {teach_med:.1f} s CPU "
          f"(wall {statistics.median(teach_wall):.1f} s); target <= {TARGET_TEACH_S:.0f} s: "
          f"ratio {teach_med / TARGET_TEACH_S:.2f}")
    print(f"changes: {seen['right']} read right, {seen['refused']} refused, {seen['wrong']} wrong")
    met = read_med <= TARGET_READ_MS and teach_med <= TARGET_TEACH_S and seen["wrong"] == 0
    print("targets met" if met else "TARGET MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
