"""Reader speed and memory against the issue's targets, on one core.

    .venv/bin/python benchmarks/bench_vision.py [--scenes 12] [--ratio-scenes 6] [--repeats 15]
                                                [--only frames|ratio|moves]

Frames come from the synthetic camera at nominal conditions (a full random position,
tombstone tile, noise, JPEG), 3 consecutive frames per scene.  After
``cv2.setNumThreads(1)`` each scene's first frame is read on its own
(``vision.reader.read_image``) and all its frames through a ``TableCamera`` as the app
does.  Reported: median (and p90) CPU milliseconds per frame — the process's own CPU
time, so other work on the machine does not inflate it; wall time is shown too — at
1920×1080 and 1280×720 with the ratio to the targets (≤ 50 ms and ≤ 25 ms), and the
process's peak resident memory (target ≤ 200 MB).

Then the reader against a bare ``cv2.aruco`` ``detectMarkers`` (the dictionary with OpenCV's
default parameters) on the same 1920×1080 frames, measured in the same run, per frame kind
(``FRAME_KINDS``: clean; blurred 1.2, 1.5 and 1.8 px; a hand over the board; a camera tilted
15-23°; two piece stickers washed out by a glare spot, so they show as unread squares and
get the close second look), ``--ratio-scenes`` fixed-seed scenes each.  Per frame the
two are timed ``--repeats`` times, interleaved so that a busy machine slows both alike; the
frame's ratio is the median full read over the median bare detection.  Printed per kind:
both medians, the median ratio and the worst frame's.  Target ≤ 1.3 on every frame.

Last, reading a move (``flure vision explain``, the table loop): scenes of ``vision
eval --moves`` (a random position, the player to move, one of that player's legal moves on
the table) at 1920×1080, nominal conditions.  Per frame: the reader, then
``vision.change.explain_readings`` against the position before (``engine.reconcile``);
median CPU ms of each and of both, with the ratio of both to the frame target (50 ms), and
how many moves were read right (a wrong one is counted and fails the run).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGETS_MS = {(1920, 1080): 50.0, (1280, 720): 25.0}
TARGET_MB = 200.0
TARGET_RATIO = 1.3


def scenes_for(width: int, height: int, n: int):
    """``n`` still scenes at nominal conditions, 3 consecutive frames each."""
    from vision.twin.scene import random_position, render_burst
    out = []
    for i in range(n):
        position, tile = random_position(seed=4000 + i)
        burst = render_burst(position, tile, frames=3, seed=i, width=width, height=height,
                             noise=2.0, jpeg_quality=90, tilt_deg=(i % 5) * 2.0, light=0.2)
        out.append([f for f, _ in burst])
    return out


def washed_out(frame, truth, scheme, n: int = 2):
    """``frame`` with a glare spot over the middle of ``n`` pawn or stone stickers: they no
    longer decode but still show paper and ink (unread squares)."""
    import cv2
    import numpy as np
    img = frame.copy()
    for st in [s for s in truth.stickers if scheme.stickers[s.id].piece in ("pawn", "stone")][:n]:
        c = np.mean(np.array(st.corners_px), axis=0)
        cv2.circle(img, (int(round(c[0])), int(round(c[1]))), max(2, int(0.3 * st.side_px)), (250, 250, 250), -1,
                   cv2.LINE_AA)
    return img


# The frame kinds of the ratio check: the nominal scene, then what the issue names as the
# hard cases (blur 1.2-1.8 px, a hand, a tilted camera, squares whose sticker does not decode).
FRAME_KINDS = ("clean", "blur 1.2 px", "blur 1.5 px", "blur 1.8 px", "hand", "tilted 15-23 deg",
               "unread squares")


def ratio_frames(scheme, n: int) -> dict[str, list]:
    """``n`` 1920x1080 frames of each kind in FRAME_KINDS, fixed seeds: scene i is the same
    random position in every kind, so the kinds differ only by what the kind names."""
    from vision.twin.scene import random_position, render
    out: dict[str, list] = {k: [] for k in FRAME_KINDS}
    for i in range(n):
        position, tile = random_position(seed=4000 + i)
        base = dict(seed=i, noise=2.0, jpeg_quality=90, tilt_deg=(i % 5) * 2.0, light=0.2, scheme=scheme)
        clean, truth = render(position, tile, **base)
        out["clean"].append(clean)
        for sigma in (1.2, 1.5, 1.8):
            out[f"blur {sigma} px"].append(render(position, tile, **{**base, "blur": sigma})[0])
        out["hand"].append(render(position, tile, **{**base, "occluder": "hand"})[0])
        out["tilted 15-23 deg"].append(render(position, tile, **{**base, "tilt_deg": 15.0 + 2.0 * (i % 5)})[0])
        out["unread squares"].append(washed_out(clean, truth, scheme))
    return out


def detector_ratios(scheme, n: int, repeats: int) -> bool:
    """The full read against a bare ``detectMarkers`` on the same frames, per frame kind.

    Per frame, ``repeats`` rounds, each timing the bare detection and the full read back to
    back (which goes first alternates), so that whatever else loads the machine hits both
    alike; the frame's ratio is the median read over the median bare detection (CPU time).
    """
    import cv2

    from vision.reader import read_image
    bare = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, scheme.dictionary)),
                                   cv2.aruco.DetectorParameters())
    kinds = ratio_frames(scheme, n)
    frames = [(kind, f) for kind, fs in kinds.items() for f in fs]
    for _kind, f in frames:           # warm-up: detector construction, caches
        bare.detectMarkers(f)
        read_image(f, scheme)
    bare_ms: list[list[float]] = [[] for _ in frames]
    read_ms: list[list[float]] = [[] for _ in frames]
    for r in range(repeats):
        for j, (_kind, f) in enumerate(frames):
            pair = ((bare_ms, bare.detectMarkers, (f,)), (read_ms, read_image, (f, scheme)))
            for into, fn, args in (pair if (r + j) % 2 == 0 else pair[::-1]):
                into[j].append(timed(fn, *args)[2])
    print(f"1920x1080, the reader against a bare cv2.aruco detectMarkers (same frames, same run; per frame "
          f"the median of {repeats} interleaved CPU timings of each):")
    print(f"  {'frame kind':18} {'frames':>6} {'bare ms':>8} {'read ms':>8} {'ratio':>6} {'worst':>6}  what the reader said")
    worst_all, ratios_all = 0.0, []
    for kind in FRAME_KINDS:
        idx = [j for j, (k, _f) in enumerate(frames) if k == kind]
        b = [statistics.median(bare_ms[j]) for j in idx]
        m = [statistics.median(read_ms[j]) for j in idx]
        ratios = [y / x for x, y in zip(b, m)]
        said: dict[str, int] = {}
        for j in idx:
            codes = {p["code"] for p in read_image(frames[j][1], scheme).problems} or {"clean reading"}
            for c in codes & {"unread-square", "occluded", "hidden-square", "not-located", "clean reading"}:
                said[c] = said.get(c, 0) + 1
        worst_all = max(worst_all, max(ratios))
        ratios_all += ratios
        print(f"  {kind:18} {len(idx):>6} {statistics.median(b):>8.1f} {statistics.median(m):>8.1f} "
              f"{statistics.median(ratios):>6.2f} {max(ratios):>6.2f}  "
              + ", ".join(f"{c} {k}/{len(idx)}" for c, k in sorted(said.items())))
    ok = worst_all <= TARGET_RATIO
    print(f"  all {len(frames)} frames: ratio median {statistics.median(ratios_all):.2f}, worst frame "
          f"{worst_all:.2f}; target <= {TARGET_RATIO} on every frame -> {'met' if ok else 'MISSED'}")
    return ok


def move_reading(scheme, n: int) -> bool:
    """Per frame: the reader, then the change explained against the game (see the docstring)."""
    import numpy as np

    from vision.change import explain_readings
    from vision.evaluate_moves import make_scene
    from vision.reader import read_image
    from vision.twin.pieces import LayoutError
    from vision.twin.scene import render_burst

    read_ms, explain_ms, right, wrong, seed = [], [], 0, 0, 0
    while len(read_ms) < n and seed < 20 * n:
        seed += 1
        scene = make_scene(np.random.default_rng([7100, seed]))
        if scene is None or scene.kind != "move":
            continue
        try:
            (frame, _truth), = render_burst(scene.after, None, frames=1, seed=seed, noise=2.0, jpeg_quality=90)
        except LayoutError:
            continue
        reading, _wall, cpu_read = timed(read_image, frame, scheme)
        result, _wall, cpu_explain = timed(explain_readings, scene.before, [reading], scene.mover)
        read_ms.append(cpu_read)
        explain_ms.append(cpu_explain)
        if result.accepted:
            right += result.change == "move" and result.after == scene.after
            wrong += not (result.change == "move" and result.after == scene.after)
    both = [r + e for r, e in zip(read_ms, explain_ms)]
    target = TARGETS_MS[(1920, 1080)]
    print(f"1920x1080, reading a move (reader + engine.reconcile against the game), {len(both)} frames, "
          f"{right} moves read right, {wrong} wrong:")
    print(f"  reader median {statistics.median(read_ms):.1f} ms CPU, explain_readings median "
          f"{statistics.median(explain_ms):.2f} ms (worst {max(explain_ms):.2f}); both median "
          f"{statistics.median(both):.1f} ms per frame; target {target:.0f} ms -> ratio "
          f"{statistics.median(both) / target:.2f}")
    return wrong == 0 and statistics.median(both) <= target


def timed(fn, *args):
    """(result, wall ms, CPU ms of this process)."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, (time.perf_counter() - w0) * 1000.0, (time.process_time() - c0) * 1000.0


def summary(label: str, cpu: list[float], wall: list[float], target: float) -> bool:
    med = statistics.median(cpu)
    p90 = sorted(cpu)[int(0.9 * (len(cpu) - 1))]
    print(f"  {label}: median {med:.1f} ms CPU (p90 {p90:.1f}; wall median {statistics.median(wall):.1f}) "
          f"over {len(cpu)} frames; target {target:.0f} ms -> ratio {med / target:.2f}")
    return med <= target


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=12, help="scenes per resolution, 3 frames each (default 12)")
    ap.add_argument("--ratio-scenes", type=int, default=6,
                    help="scenes per frame kind in the check against a bare detectMarkers (default 6)")
    ap.add_argument("--repeats", type=int, default=15,
                    help="interleaved timings per frame in the check against a bare detectMarkers (default 15)")
    ap.add_argument("--only", choices=("frames", "ratio", "moves"),
                    help="run one part: frame times and memory, the ratio to detectMarkers, or reading a move")
    args = ap.parse_args(argv)

    import cv2
    cv2.setNumThreads(1)
    from vision.scheme import load_scheme

    scheme = load_scheme()
    ok = True
    if args.only in (None, "frames"):
        ok &= frame_times(scheme, args.scenes)
    if args.only in (None, "ratio"):
        ok &= detector_ratios(scheme, args.ratio_scenes, args.repeats)
    if args.only in (None, "moves"):
        ok &= move_reading(scheme, args.scenes)
    return 0 if ok else 1


def frame_times(scheme, n: int) -> bool:
    """Per frame CPU time at both resolutions against the targets, then the peak memory."""
    from vision.pipeline import TableCamera
    from vision.reader import read_image

    class NoSource:
        def read(self):
            return None

    ok = True
    for (w, h), target in TARGETS_MS.items():
        scenes = scenes_for(w, h, n)
        read_image(scenes[0][0], scheme)          # warm-up (detector construction, caches)
        single_cpu, single_wall, feed_cpu, feed_wall, accepted = [], [], [], [], 0
        for frames in scenes:
            _r, wall, cpu = timed(read_image, frames[0], scheme)
            single_cpu.append(cpu)
            single_wall.append(wall)
            cam = TableCamera(NoSource(), scheme, stable_frames=3)
            for f in frames:
                _r, wall, cpu = timed(cam.feed, f)
                feed_cpu.append(cpu)
                feed_wall.append(wall)
            accepted += cam.accepted is not None
        print(f"{w}x{h} ({accepted}/{len(scenes)} scenes accepted):")
        summary("read_image, one frame on its own", single_cpu, single_wall, target)
        ok &= summary("TableCamera.feed, a live stream", feed_cpu, feed_wall, target)
        if w == 1920:
            big_frames = scenes[0]
    peak_mb = reader_memory_mb(big_frames)
    ok &= peak_mb <= TARGET_MB
    print(f"peak memory of a process that only reads 1920x1080 frames: {peak_mb:.0f} MB; "
          f"target {TARGET_MB:.0f} MB -> ratio {peak_mb / TARGET_MB:.2f}")
    return ok


def reader_memory_mb(frames) -> float:
    """Peak resident memory of a fresh process that reads ``frames`` through a TableCamera
    (the renderer that made them is not loaded there)."""
    import subprocess
    import tempfile

    import numpy as np
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "frames.npy"
        np.save(path, np.stack(frames))
        code = ("import numpy as np, cv2; cv2.setNumThreads(1); "
                "from vision.pipeline import TableCamera\n"
                "class S:\n def read(self): return None\n"
                "cam = TableCamera(S())\n"
                f"for f in np.load({str(path)!r}): cam.feed(f)\n"
                # VmHWM: this process's own peak (ru_maxrss would include the parent's after fork)
                "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0])")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=str(Path(__file__).resolve().parent.parent))
    return int(out.stdout.split()[-1]) / 1024.0


if __name__ == "__main__":
    sys.exit(main())
