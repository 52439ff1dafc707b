"""Reading changes without stickers on photos drawn by ``vision_outside_nostickers`` (an independent set,
issue 27): per box, the product is taught from the layout's photos of that box (``vision.nostickers.teach``),
then reads changes with ``explain_change`` as ``flure vision explain --pieces`` does (one photo, the game
as prior).

Each box (a seed) has its own look and its own camera and room, near-nominal (tilt < 10°, blur ≤ 0.8 px, no
shadow) or harder (tilt 10-25°, blur 0.5-1.8 px, a shadow one time in three), warm or dim light now and
then.  Its scenes are random positions (every piece type, a third of the pawns on pools) and a change:
a legal move of the player's pawn, nothing changed, or an illegal change (a pawn not turned over, two
pawns moved, a stone tile moved by nobody, a pawn too far, another colour's move).  A legal change is
*read* when the accepted answer is that change, *refused* when nothing is accepted, *wrong* when another
is accepted; an illegal one must be refused.  A box whose teaching is refused counts all its legal
scenes as refused.

    python tests/vision_outside_nostickers_changes.py --boxes 100-107 [--per-box 5] [--show]

The renderer stays free of product code; this harness uses the engine to pick the changes.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vision_outside_nostickers as ons  # noqa: E402
import vision_outside_renderer as out  # noqa: E402
from vision_outside_changes import on_pools  # noqa: E402

KINDS = ("move", "none", "illegal")
NEAR_SHARE = 2 / 3                 # boxes under a near-nominal camera


def box_camera(box: int):
    rng = np.random.default_rng([box, 5])
    return ons.camera(rng, near=bool(rng.random() < NEAR_SHARE))


def make_scene(box: int, index: int):
    """(before Position, mover, kind, after Position) or None when the drawn position has no pawn or no
    such change."""
    from engine.position import BOARD, WAITING, Position
    from engine.reconcile import legal_changes
    from vision.evaluate_moves import ILLEGAL_KINDS, _illegal, _visible

    rng = np.random.default_rng([box, index, 9])
    setup, _tile = out.random_setup(rng, out.load())
    setup = on_pools(setup, rng)
    before = Position.from_setup(out.expected_setup(setup), strict=False)
    colours = sorted({p.colour for p in before.pawns if p.place in (BOARD, WAITING) and p.colour})
    if not colours:
        return None
    mover = colours[int(rng.integers(len(colours)))]
    kind = KINDS[int(rng.choice(3, p=[0.6, 0.2, 0.2]))]
    moves = [c for c in legal_changes(before, mover) if c.kind == "move"]
    if kind == "none":
        return before, mover, kind, before
    if kind == "move":
        return (before, mover, kind, moves[int(rng.integers(len(moves)))].after) if moves else None
    legal_after = {c.after for c in moves} | {before}
    for k in rng.permutation(len(ILLEGAL_KINDS)):
        after = _illegal(ILLEGAL_KINDS[int(k)], before, mover, moves, colours, rng)
        if after is not None and after not in legal_after and _visible(before, after):
            return before, mover, kind, after
    return None


def judge_box(box: int, per_box: int, layout=None) -> list[dict]:
    """The box taught from its photos, then ``per_box`` scenes read: one row per scene."""
    from vision.nostickers import TeachError, explain_change, teach
    from vision.teaching_layout import load_layout

    layout = layout if layout is not None else load_layout()
    look = ons.Look(box)
    style = box_camera(box)
    near = ons.near_nominal(style)
    t0 = time.perf_counter()
    refused_teaching = None
    try:
        pieces = teach(layout, ons.teaching_photos(look, style))
    except TeachError as exc:
        pieces, refused_teaching = None, str(exc)
    teach_s = time.perf_counter() - t0
    rows = []
    for index in range(per_box):
        scene = make_scene(box, index)
        if scene is None:
            continue
        before, mover, kind, after = scene
        row = {"box": box, "index": index, "kind": kind, "near": near, "tilt": round(style.tilt_deg, 1),
               "blur": round(style.blur, 2), "shadow": bool(style.shadow), "tint": style.tint,
               "teach_s": round(teach_s, 1)}
        if pieces is None:
            rows.append({**row, "accepted": False, "right": False, "problems": ["teach-refused"],
                         "message": refused_teaching})
            continue
        image = ons.render(after.to_setup(), None, look, style, jitter_mm=1.5, seed=100 + index)
        result = explain_change(before, [image], pieces, player=mover)
        if kind == "none":
            right = result.change == "none"
        else:
            right = kind == "move" and result.change == "move" and result.after == after
        rows.append({**row, "accepted": result.accepted, "right": result.accepted and right,
                     "problems": [p.code for p in result.problems][:3],
                     "message": str(result.problems[0].message)[:200] if result.problems else None})
    return rows


def summary(rows: list[dict]) -> dict:
    """Per level (near-nominal, harder) and kind: scenes, read (legal) or refused (illegal), wrong."""
    out_ = {}
    groups = [(f"{lvl} {k}", lambda r, k=k, n=n: r["kind"] == k and r["near"] == n)
              for lvl, n in (("near-nominal", True), ("harder", False)) for k in KINDS]
    groups += [("legal near-nominal", lambda r: r["kind"] != "illegal" and r["near"]),
               ("legal all", lambda r: r["kind"] != "illegal"), ("illegal all", lambda r: r["kind"] == "illegal")]
    for name, pick in groups:
        sel = [r for r in rows if pick(r)]
        legal = not name.endswith("illegal") and "illegal " not in name
        out_[name] = {"scenes": len(sel),
                      "accepted": sum(r["right"] for r in sel) if legal else sum(r["accepted"] for r in sel),
                      "refused": sum(not r["accepted"] for r in sel),
                      "wrong": sum(r["accepted"] and not r["right"] for r in sel)}
    return out_


def table(rows: list[dict]) -> str:
    lines = [f"{'':28} {'scenes':>6} {'accepted':>8} {'refused':>7} {'wrong':>5}"]
    for name, s in summary(rows).items():
        lines.append(f"{name:28} {s['scenes']:>6} {s['accepted']:>8} {s['refused']:>7} {s['wrong']:>5}")
    return "\n".join(lines)


def run(boxes, per_box: int, show: bool = False) -> list[dict]:
    rows = []
    for box in boxes:
        got = judge_box(box, per_box)
        rows += got
        if show:
            for r in got:
                if not r["right"] and (r["kind"] != "illegal" or r["accepted"]):
                    print(f"{'WRONG' if r['accepted'] else 'refused'} box {box}/{r['index']} {r['kind']} "
                          f"near={r['near']} tilt {r['tilt']} blur {r['blur']} shadow {r['shadow']} "
                          f"tint {tuple(round(v, 2) for v in r['tint'])}: {r['problems']} {r['message']}", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boxes", default="100-107", help="FIRST-LAST (inclusive): one look and camera per box")
    ap.add_argument("--per-box", type=int, default=5)
    ap.add_argument("--show", action="store_true", help="print each refusal")
    a = ap.parse_args(argv)
    first, last = (int(v) for v in a.boxes.split("-"))
    t0 = time.perf_counter()
    rows = run(range(first, last + 1), a.per_box, a.show)
    print(table(rows))
    print(f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
