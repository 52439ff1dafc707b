"""Reading a *change* on single photos drawn by ``vision_outside_renderer`` (no product code in
the drawing): a legal move, "nothing changed" or a tile laid, read by ``vision.reader`` and
explained as ``flure vision explain`` does (one photo, the game as prior).

The scenes stand in for an independent set: random positions with every piece type, a third
of the pawns stood on the pools (half of those over a pool's sticker, which they hide), camera
tilt 0-25 deg, blur up to 1.8 px, JPEG 60-95, uneven light, and now and then a shadow
across part of the board.  A legal change is *read* when the accepted answer is that change,
*refused* when nothing is accepted, *wrong* when another is accepted (must never happen).

    python tests/vision_outside_changes.py --seeds 7000-7099 [--kinds none,tile] [--show]

The renderer stays free of product code; this harness uses the engine to pick legal changes.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_outside_renderer as out  # noqa: E402

KINDS = ("move", "none", "tile")
SCHEME = out.load()


def on_pools(setup: dict, rng, share: float = 0.33) -> dict:
    """``setup`` with about ``share`` of its pawns moved onto free pool squares (half of those onto
    a pool's sticker square)."""
    pools = out.pool_squares(setup.get("pool_tiles", []))
    anchors = [a for _shape, a, _o in setup.get("pool_tiles", [])]
    taken = {p["at"] for p in setup["pawns"].values()} | set(setup["stones"]) | set(setup["teleporters"])
    taken.add(setup["monster"]["at"])
    for label in sorted(setup["pawns"]):
        if rng.random() >= share:
            continue
        spots = [s for s in (anchors if rng.random() < 0.5 else pools) if s not in taken]
        if not spots:
            continue
        to = spots[int(rng.integers(len(spots)))]
        taken.discard(setup["pawns"][label]["at"])
        setup["pawns"][label] = {**setup["pawns"][label], "at": to}
        taken.add(to)
    return setup


def world_style(rng) -> out.Style:
    """``random_style`` with the independent set's ranges: tilt 0-25, blur 0-1.8 px, JPEG 60-95,
    light falling off up to 0.6, a shadow over part of the board (any edge, angle and softness)
    one time in five."""
    style = out.random_style(rng, flat_share=0.1)
    tilt = 0.0 if rng.random() < 0.3 else float(rng.uniform(0, 25))
    blur = float(rng.uniform(0, 1.8)) if rng.random() < 0.5 else 0.0
    shadow = float(rng.uniform(0.15, 0.4)) if rng.random() < 0.2 else 0.0
    edge = np.random.default_rng(style.seed)       # (its own draws: the scenes' other draws stay as they were)
    style = replace(style, tilt_deg=tilt if style.cam_height_mm > 0 else 0.0, blur=blur,
                    jpeg=int(rng.integers(60, 96)), light=float(rng.uniform(0, 0.6)), shadow=shadow,
                    shadow_origin=(float(edge.uniform(0.3, 0.7)), float(edge.uniform(0.3, 0.7))),
                    shadow_angle_deg=float(edge.uniform(0, 360)), shadow_soft_px=float(edge.uniform(2, 60)),
                    monster_top_mm=float(rng.uniform(26, 32)), width=min(style.width, 1920),
                    height=min(style.height, 1440))
    return out.fit_camera(style, SCHEME, float(rng.uniform(1.1, 1.4)))


def near_nominal(style: out.Style) -> bool:
    return style.tilt_deg < 10 and style.blur <= 0.8 and not style.shadow


def to_outside(position, pool_tiles) -> dict:
    setup = position.to_setup()
    setup.pop("pools")
    setup["pool_tiles"] = pool_tiles
    return setup


def make_scene(seed: int, kind: str | None = None):
    """(before Position, mover, kind, after Position, tile, style, photo) or None when the seeded
    position has no pawn or no legal move."""
    from engine.position import BOARD, WAITING, Position
    from engine.reconcile import legal_changes

    rng = np.random.default_rng(seed)
    setup, _tile = out.random_setup(rng, SCHEME)
    setup = on_pools(setup, rng)
    style = world_style(rng)
    before = Position.from_setup(out.expected_setup(setup), strict=False)
    colours = sorted({p.colour for p in before.pawns if p.place in (BOARD, WAITING) and p.colour})
    drawn = KINDS[int(rng.choice(3, p=[0.6, 0.25, 0.15]))]
    kind = kind or drawn
    if not colours:
        return None
    mover = colours[int(rng.integers(len(colours)))]
    tiles = sorted({str(p["tile"]) for p in SCHEME["pieces"] if p["piece"] == "tile"})
    tile = tiles[int(rng.integers(len(tiles)))] if kind == "tile" else None
    after = before
    if kind == "move":
        moves = [c for c in legal_changes(before, mover) if c.kind == "move"]
        if not moves:
            return None
        after = moves[int(rng.integers(len(moves)))].after
    image = out.render(to_outside(after, setup["pool_tiles"]), tile, style, SCHEME,
                       jitter_mm=float(rng.uniform(0, 2)))
    return before, mover, kind, after, tile, style, image


def judge(seed: int, kind: str | None = None, save: Path | None = None) -> dict | None:
    from vision.change import explain_readings
    from vision.reader import read_image
    from vision.scheme import load_scheme

    scene = make_scene(seed, kind)
    if scene is None:
        return None
    before, mover, kind, after, tile, style, image = scene
    if save is not None:
        import cv2
        save.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(save / f"{seed}-{kind}.png"), image)
    scheme = load_scheme()
    result = explain_readings(before, [read_image(image, scheme)], mover, [image], scheme)
    right = (result.change == kind and (result.tile == tile if kind == "tile" else result.after == after))
    return {"seed": seed, "kind": kind, "near": near_nominal(style), "accepted": result.accepted,
            "right": result.accepted and right, "shadow": bool(style.shadow), "tilt": round(style.tilt_deg, 1),
            "blur": round(style.blur, 2), "problems": [p.code for p in result.problems],
            "message": result.problems[0].message if result.problems else None}


def summary(rows: list[dict]) -> dict:
    out_ = {}
    for name, pick in (*((k, lambda r, k=k: r["kind"] == k) for k in KINDS),
                       ("near-nominal move", lambda r: r["kind"] == "move" and r["near"]),
                       ("all", lambda r: True)):
        sel = [r for r in rows if pick(r)]
        out_[name] = {"scenes": len(sel), "read": sum(r["right"] for r in sel),
                      "wrong": sum(r["accepted"] and not r["right"] for r in sel)}
    return out_


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="7000-7059", help="FIRST-LAST (inclusive)")
    ap.add_argument("--kinds", default=None, help="force each scene's change: a comma list cycled over the seeds")
    ap.add_argument("--show", action="store_true", help="print each refusal")
    ap.add_argument("--save", type=Path, default=None, help="write each scene's photo into this folder")
    a = ap.parse_args(argv)
    first, last = (int(v) for v in a.seeds.split("-"))
    forced = a.kinds.split(",") if a.kinds else None
    rows, t0 = [], time.perf_counter()
    for k, seed in enumerate(range(first, last + 1)):
        row = judge(seed, forced[k % len(forced)] if forced else None, a.save)
        if row is None:
            continue
        rows.append(row)
        if a.show and not row["right"]:
            print(f"{'WRONG' if row['accepted'] else 'refused'} seed {seed} {row['kind']} tilt {row['tilt']} "
                  f"blur {row['blur']} shadow {row['shadow']}: {row['problems']} {row['message']}", flush=True)
    for name, s in summary(rows).items():
        print(f"{name:18} {s['read']:>3}/{s['scenes']:<3} read, {s['wrong']} wrong")
    print(f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
