"""Why the no-sticker reader refuses legal changes: the cases of ``flure vision eval --moves --no-stickers``
kept on disk once (render, teaching photos, teaching), then read again as often as the reader changes.

    .venv/bin/python benchmarks/nostickers_cases.py build [--seed 2024] [--per-level 2] [--dir DIR]
    .venv/bin/python benchmarks/nostickers_cases.py tally [--dir DIR] [--reteach [--save]] [--verbose] [--only TEXT]

``build`` renders each case as the eval does (``vision.evaluate_nostickers.Cases``: the same scenes,
conditions, looks and teaching photos) and keeps it (a pickle per case).  ``tally`` reads every kept
case with the reader as it is now (``--reteach``: teaches again too), judges it as the eval does and
prints the refusal reasons per level and per kind, and, for each refused legal change, the squares the
change touches that a frame left unknown (with their cover and nearest faces).  Any wrong answer is
printed first and makes the exit status 1.
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEFAULT_DIR = Path("/tmp/nostickers-cases")


def build(args) -> int:
    import numpy as np

    from vision import evaluate_moves as moves
    from vision import evaluate_nostickers as ns
    from vision.nostickers import TeachError, teach
    from vision.teaching_layout import load_layout
    layout = load_layout()
    out = Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    levels = [lv for lv in moves.MOVE_LEVELS if not args.levels or lv.name in args.levels.split(",")]
    for index, level in enumerate(moves.MOVE_LEVELS):
        if level not in levels:
            continue
        for image in range(args.per_level):
            path = out / f"{args.seed}-{level.name}-{image}.pkl"
            if path.exists():
                continue
            t0 = time.perf_counter()
            rng = np.random.default_rng([args.seed, 100 + index, image, 11])
            scene = moves.make_scene(rng)
            if scene is None:
                continue
            params = moves.scene_params(level, 100 + index, args.seed, image)
            seed = moves.scene_seed(args.seed, 100 + index, image)
            look = ns.look_seed(args.seed, 100 + index, image)
            shots = moves.film(scene, params, 3, seed, rng, stickers=False, look_seed=look)
            if shots is None:
                continue
            photos = ns.teaching_photos(layout, params, seed, look)
            try:
                pieces = teach(layout, photos)
                pieces_json = pieces_blob(pieces)
            except TeachError as exc:
                pieces_json = None
                print(f"  {path.name}: teaching refused: {exc}", file=sys.stderr)
            case = {"level": level.name, "params": params, "seed": seed, "look": look, "scene": scene,
                    "near": moves.near_nominal(params), "frames": [img for img, _t in shots],
                    "photos": photos, "pieces": pieces_json}
            path.write_bytes(pickle.dumps(case))
            print(f"  {path.name}: {scene.kind} {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return 0


def pieces_blob(pieces) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".json") as fh:
        pieces.save(fh.name)
        return Path(fh.name).read_text()


def pieces_of(blob: str):
    import tempfile

    from vision.nostickers import Pieces
    with tempfile.NamedTemporaryFile("w", suffix=".json") as fh:
        fh.write(blob)
        fh.flush()
        return Pieces.load(fh.name)


def tally(args) -> int:
    from engine.geometry import square_name
    from engine.observation import ANY_PAWN, EMPTY, looks
    from vision import evaluate_moves as moves
    from vision.nostickers import TeachError, teach
    from vision.nostickers.read import Reader, allowed_faces, explained
    from vision.teaching_layout import load_layout
    layout = load_layout()
    reasons: dict[str, Counter] = {}
    counts = Counter()
    wrong = []
    ms = []
    for path in sorted(Path(args.dir).glob("*.pkl")):
        case = pickle.loads(path.read_bytes())
        scene = case["scene"]
        if args.only and args.only not in path.name:
            continue
        try:
            pieces = teach(layout, case["photos"]) if args.reteach else (
                pieces_of(case["pieces"]) if case["pieces"] else None)
        except TeachError:
            pieces = None
        if args.reteach and args.save:
            case["pieces"] = None if pieces is None else pieces_blob(pieces)
            path.write_bytes(pickle.dumps(case))
        if pieces is None:
            outcome = {"accepted": False, "right": False, "problems": ["teach-refused"]}
            reader = None
        else:
            reader = Reader(pieces)
            allowed = allowed_faces(scene.before, scene.mover or ANY_PAWN)
            t0 = time.process_time()
            frames = [reader.read_frame(img, scene.before, allowed) for img in case["frames"]]
            ms.append((time.process_time() - t0) * 1000 / len(frames))
            result = explained(scene.before, frames, scene.mover)
            outcome = moves.judge(scene, case["params"], result, 0.0, case["seed"])
        key = "legal" if scene.legal else "illegal"
        counts[(key, "all")] += 1
        counts[(key, case["level"])] += 1
        if case["near"] and scene.legal:
            counts[("near", "all")] += 1
        if outcome["accepted"] and not outcome["right"]:
            wrong.append(path.name)
            print(f"WRONG {path.name}: {scene.kind}", flush=True)
        if scene.legal and outcome["right"]:
            counts[("read", "all")] += 1
            counts[("read", case["level"])] += 1
            counts[("read", scene.kind)] += 1
            if case["near"]:
                counts[("near-read", "all")] += 1
        if scene.legal:
            counts[("legal", scene.kind)] += 1
        if scene.legal and not outcome["right"]:
            code = outcome["problems"][0] if outcome["problems"] else "none"
            reasons.setdefault(case["level"], Counter())[code] += 1
            line = (f"  refused {path.name}{' (near-nominal)' if case['near'] else ''} "
                    f"[{scene.kind} {','.join(scene.tags)}] {outcome['problems']}")
            if reader is not None and args.verbose:
                before, after = looks(scene.before), looks(scene.after)
                touched = sorted(sq for sq in before.keys() | after.keys()
                                 if before.get(sq, EMPTY) != after.get(sq, EMPTY))
                line += " touched " + " ".join(square_name(s) for s in touched)
                for n, reading in enumerate(f.data for f in frames):
                    uns = {u["square"]: u.get("why", u.get("reason")) for u in reading.get("unseen", [])} \
                        if isinstance(reading.get("unseen"), list) else reading.get("unseen", {})
                    line += f"\n    frame {n}: unseen {len(uns)}: " + ", ".join(
                        f"{k}={v}" for k, v in list(uns.items())[:12])
                if outcome.get("message"):
                    line += f"\n    {outcome['message'][:200]}"
            print(line, flush=True)
    print("refusals per level:")
    for level, c in reasons.items():
        print(f"  {level:12} {dict(c)}")
    legal, read = counts[("legal", "all")], counts[("read", "all")]
    print(f"legal read {read}/{legal}; near-nominal {counts[('near-read', 'all')]}/{counts[('near', 'all')]}; "
          f"illegal {counts[('illegal', 'all')]}; wrong {len(wrong)}")
    print("by kind: " + ", ".join(f"{k} {counts[('read', k)]}/{counts[('legal', k)]}" for k in ("move", "none", "tile")))
    if ms:
        import statistics
        print(f"read CPU ms per frame: median {statistics.median(ms):.0f}")
    return 1 if wrong else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--seed", type=int, default=2024)
    b.add_argument("--per-level", type=int, default=2)
    b.add_argument("--levels", default="")
    b.add_argument("--dir", default=str(DEFAULT_DIR))
    t = sub.add_parser("tally")
    t.add_argument("--dir", default=str(DEFAULT_DIR))
    t.add_argument("--reteach", action="store_true")
    t.add_argument("--save", action="store_true", help="with --reteach: keep the new teaching")
    t.add_argument("--verbose", action="store_true")
    t.add_argument("--only", default="")
    args = ap.parse_args()
    return build(args) if args.cmd == "build" else tally(args)


if __name__ == "__main__":
    sys.exit(main())
