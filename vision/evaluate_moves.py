"""``flure vision eval --moves``: reading *changes* with the game as prior, on our own renders.

Each scene is a random plausible position (``vision.twin.positions``) and a player to move,
then one change on the table: most often one legal move of that player (drawn from
``engine.reconcile.legal_changes``, so entering, leaving, pushes, slides, staying), now and
then a tombstone tile laid in the card zone, and one time in five an *illegal* change (a
pawn not flipped, two pawns moved, a stone moved with nobody to push it, a pawn beyond its
points, a pawn of another colour).  The table after the change is filmed by the synthetic
camera for ``--stable-frames`` frames under the level's conditions (those of the reading
eval, plus a 20–25° tilt), read, and explained through the table's stable-frame gate
(``vision.stable.explain_stable``: the frames fed one by one as the camera worker feeds them,
then ``engine.reconcile`` and the prior-guided look, as the table's loop does).

A legal change is *read* when the accepted answer is that change (same position after, or
the same tile); *refused* when no answer is accepted; *wrong* when another change is
accepted — that must never happen, nor may an illegal change be accepted.

To be as hard as the world (issue 24): positions put some pawns on the pools (half of them
on a pool's sticker, which they hide), one scene in ten is "nothing changed", the rare moves
(pushes, stones removed, pool slides, leaving by the exit) are drawn more often, a hand moves
over the board between frames, and the levels reach tilt 25°, blur 1.8 px, JPEG 60 and
14-px stickers; ``world`` draws all of these at once.  The report counts each kind of
change and each of these tags (``by_kind``).
"""
from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.geometry import COLS, CORNERS, SQUARES, around, square_name
from engine.observation import EMPTY, SquareLook, looks
from engine.position import BOARD, WAITING, Position
from engine.reconcile import legal_changes

from .evaluate import LEVELS, Level, images_per_level, level_params, per_condition, write_report

TARGET_NEAR_NOMINAL = 0.95
TARGET_ALL = 0.85
TARGET_UNCHANGED = 0.90   # "nothing changed" and "a tile was laid"
ILLEGAL_SHARE = 0.2
TILE_SHARE = 0.1
ILLEGAL_KINDS = ("unflipped", "two-pawns", "stone-moved", "too-far", "wrong-colour")

_BY_NAME = {lv.name: lv for lv in LEVELS}
MOVE_LEVELS: tuple[Level, ...] = (
    _BY_NAME["nominal"], _BY_NAME["tilt-15"],
    Level("tilt-25", "camera tilted 20-25 deg from vertical", ranges={"tilt_deg": (20, 25)}),
    _BY_NAME["720p"], _BY_NAME["720p-far"], _BY_NAME["blur"],
    Level("blur-1.8", "out of focus: blur sigma 1.4-1.8 px", ranges={"blur": (1.4, 1.8)}),
    _BY_NAME["noise"], _BY_NAME["warm-uneven"],
    Level("dim-warm", "a dim warm room: 2700-3000 K, light 1.0 falling off, noise 5",
          fixed={"light": 1.0, "noise": 5.0}, ranges={"colour_temp": (2700, 3000)}),
    Level("jpeg-60", "JPEG quality 60", fixed={"jpeg_quality": 60}), _BY_NAME["jpeg-35"],
    Level("hand", "a hand and forearm over a different part of the board in each frame",
          fixed={"occluder": "hand"}, occluded=True),
    Level("world", "like an independent set: camera 70-110 cm up, tilt 0-25, blur 0-1.8, JPEG 60-95, "
                   "2800-6000 K, light 0.2-0.9",
          ranges={"height_mm": (700, 1100), "tilt_deg": (0, 25), "blur": (0.0, 1.8), "jpeg_quality": (60, 95),
                  "colour_temp": (2800, 6000), "light": (0.2, 0.9)}),
)
POOL = SquareLook(pool=True)
DEFAULT_PER_LEVEL = 12
DEFAULT_FRAMES = 3
ON_POOLS = 0.3       # the share of pawns random positions put on a pool (half of them on its sticker)
NONE_SHARE = 0.1     # scenes where nothing changed
RARE_SHARE = 0.4     # of the legal moves, the share drawn among the rare ones when the position has any
RARE_KINDS = ("push", "stone-removed", "slide", "exit")


def default_report() -> Path:
    return Path(tempfile.gettempdir()) / "flure-vision-eval-moves-report.json"


def near_nominal(params: dict) -> bool:
    """The issue's near-nominal conditions: tilt under 10°, no hand, blur at most 0.8 px, no glare."""
    return (params.get("tilt_deg", 0.0) < 10 and not params.get("occluder") and params.get("blur", 0.0) <= 0.8
            and not params.get("glare"))


# -- scenes --------------------------------------------------------------------------------------

@dataclass
class Scene:
    before: Position
    mover: str
    kind: str                  # "move", "tile", "none" or one of ILLEGAL_KINDS
    after: Position
    tile: str | None = None
    tags: tuple = ()           # what makes it hard: "on-pool" (a pawn on a pool), a rare move's kind

    @property
    def legal(self) -> bool:
        return self.kind in ("move", "tile", "none")


def rare_kind(before: Position, change) -> str | None:
    """The rare kind of a legal move (``RARE_KINDS``): leaving by the exit, a stone removed (pushed
    onto a teleporter or off), a push, a slide over a pool (P8); None for a plain walk."""
    moved = change.after.pawn(change.pawn)
    if moved.place not in (BOARD, WAITING):
        return "exit"
    if len(change.after.stones) < len(before.stones):
        return "stone-removed"
    if change.after.stones != before.stones:
        return "push"
    start = before.pawn(change.pawn)
    if start.place == BOARD and moved.place == BOARD and change.moves:
        steps = sum(ch in "NESW" for ch in change.moves)
        a, b = start.square, moved.square
        if abs(a % COLS - b % COLS) + abs(a // COLS - b // COLS) > steps:
            return "slide"
    return None


def make_scene(rng) -> Scene | None:
    """One seeded scene: a position, the player to move and the change on the table."""
    from vision.twin.positions import TILE_NAMES, random_position
    before, _tile = random_position(rng, on_pools=ON_POOLS)
    colours = sorted({p.colour for p in before.pawns if p.place in (BOARD, WAITING) and p.colour})
    if not colours:
        return None
    mover = colours[int(rng.integers(len(colours)))]
    moves = [c for c in legal_changes(before, mover) if c.kind == "move"]
    u = float(rng.uniform())
    if u < ILLEGAL_SHARE:
        legal_after = {c.after for c in moves} | {before}
        for k in rng.permutation(len(ILLEGAL_KINDS)):
            after = _illegal(ILLEGAL_KINDS[int(k)], before, mover, moves, colours, rng)
            if after is not None and after not in legal_after and _visible(before, after):
                return Scene(before, mover, ILLEGAL_KINDS[int(k)], after)
        return None
    tags = ("on-pool",) if any(p.place == BOARD and p.square in before.pools for p in before.pawns) else ()
    if u < ILLEGAL_SHARE + TILE_SHARE or not moves:
        return Scene(before, mover, "tile", before, TILE_NAMES[int(rng.integers(len(TILE_NAMES)))], tags)
    if u < ILLEGAL_SHARE + TILE_SHARE + NONE_SHARE:
        return Scene(before, mover, "none", before, None, tags)
    rare = [(c, k) for c in moves if (k := rare_kind(before, c)) is not None]
    if rare and rng.uniform() < RARE_SHARE:
        change, kind = rare[int(rng.integers(len(rare)))]
        return Scene(before, mover, "move", change.after, None, (*tags, kind))
    change = moves[int(rng.integers(len(moves)))]
    kind = rare_kind(before, change)
    return Scene(before, mover, "move", change.after, None, (*tags, kind) if kind else tags)


def _visible(before: Position, after: Position) -> bool:
    a, b = looks(before), looks(after)
    return any(a.get(sq, EMPTY) != b.get(sq, EMPTY) for sq in a.keys() | b.keys())


def _pick(seq, rng):
    return seq[int(rng.integers(len(seq)))] if seq else None


def _illegal(kind: str, before: Position, mover: str, moves, colours, rng) -> Position | None:
    free = _free_squares(before)
    if kind == "unflipped":
        moved = [c for c in moves if c.after.pawn(c.pawn).where() != before.pawn(c.pawn).where()]
        c = _pick(moved, rng)
        return None if c is None else c.after.with_pawn(c.after.pawn(c.pawn).flipped())
    if kind == "two-pawns":
        first = _pick(moves, rng)
        if first is None:
            return None
        others = [c for c in legal_changes(first.after, mover) if c.kind == "move" and c.pawn != first.pawn]
        second = _pick(others, rng)
        return None if second is None else second.after
    if kind == "stone-moved":
        stone = _pick(sorted(before.stones), rng)
        if stone is None or not free:
            return None
        stones = dict(before.stones)
        stones[_pick(free, rng)] = stones.pop(stone)
        return replace(before, stones=stones)
    if kind == "too-far":
        mine = [p for p in before.pawns if p.colour == mover and p.place in (BOARD, WAITING)]
        pawn = _pick(mine, rng)
        if pawn is None or not free:
            return None
        return before.with_pawn(replace(pawn.flipped(), place=BOARD, square=_pick(free, rng)))
    if kind == "wrong-colour":
        other = _pick([c for c in colours if c != mover], rng)
        if other is None:
            return None
        c = _pick([c for c in legal_changes(before, other) if c.kind == "move"], rng)
        return None if c is None else c.after
    raise ValueError(kind)


def _free_squares(position: Position) -> list[int]:
    """Bare squares (a pool may lie there) away from the corners and the monster's figure."""
    shown = looks(position)
    blocked = CORNERS | around(position.monster)
    return [sq for sq in SQUARES if sq not in blocked and shown.get(sq, EMPTY) in (EMPTY, POOL)]


# -- running -------------------------------------------------------------------------------------

def evaluate_scene(level: Level, index: int, base_seed: int, image: int, frames: int, scheme,
                   calibration=None) -> dict | None:
    """Render one scene of a level, explain its frames, judge the answer.  Under the ``hand``
    level each frame has the hand over another square (a hand moving over a still table)."""
    import numpy as np

    from vision.reader import read_image
    from vision.stable import explain_stable

    rng = np.random.default_rng([base_seed, index, image, 11])
    scene = make_scene(rng)
    if scene is None:
        return None
    params = scene_params(level, index, base_seed, image)
    seed = scene_seed(base_seed, index, image)
    shots = film(scene, params, frames, seed, rng, scheme=scheme)
    if shots is None:
        return None
    readings = [read_image(img, scheme, calibration) for img, _truth in shots]
    t0 = time.perf_counter()
    result = explain_stable(scene.before, readings, scene.mover, [img for img, _truth in shots], scheme, frames)
    return judge(scene, params, result, (time.perf_counter() - t0) * 1000.0, seed)


def scene_params(level: Level, index: int, base_seed: int, image: int) -> dict:
    """The camera, room and sensor of one scene of a level (``level_params``, JPEG quality a whole number)."""
    params = level_params(level, index, base_seed, image)
    if "jpeg_quality" in params and params["jpeg_quality"] is not None:
        params["jpeg_quality"] = int(round(params["jpeg_quality"]))
    return params


def scene_seed(base_seed: int, index: int, image: int) -> int:
    return base_seed * 1_000_000 + index * 1000 + image


def film(scene: Scene, params: dict, frames: int, seed: int, rng, **look) -> list | None:
    """The table after the change, ``frames`` frames of it (``render_burst``'s (image, truth) pairs; ``look``:
    the scheme, or ``stickers=False`` and a ``look_seed``); under a hand each frame has it over another
    square.  None when the twin cannot lay the position out with the game's pieces."""
    from vision.twin.pieces import LayoutError
    from vision.twin.scene import render_burst
    try:
        if params.get("occluder") == "hand":
            over = [square_name(int(SQUARES[int(rng.integers(len(SQUARES)))])) for _ in range(frames)]
            return [render_burst(scene.after, scene.tile, frames=1, first_frame=k, seed=seed, hand_over=sq,
                                 **look, **params)[0] for k, sq in enumerate(over)]
        return render_burst(scene.after, scene.tile, frames=frames, seed=seed, **look, **params)
    except LayoutError:
        return None


def judge(scene: Scene, params: dict, result, ms: float, seed: int) -> dict:
    """One scene's outcome for the tally: the accepted answer against the change on the table."""
    if scene.kind == "tile":
        right = result.change == "tile" and result.tile == scene.tile
    elif scene.kind == "none":
        right = result.change == "none"
    else:
        right = result.change == "move" and result.after == scene.after
    return {"seed": seed, "kind": scene.kind, "legal": scene.legal, "near": near_nominal(params),
            "tags": list(scene.tags), "accepted": result.accepted, "right": result.accepted and right and scene.legal,
            "ms": ms, "problems": [p.code for p in result.problems][:3],
            "message": str(result.problems[0].message)[:300] if result.problems else None}


@dataclass
class Tally:
    name: str
    legal: int = 0
    read: int = 0
    refused: int = 0
    wrong: int = 0
    illegal: int = 0
    illegal_refused: int = 0
    illegal_accepted: int = 0
    near_legal: int = 0
    near_read: int = 0
    skipped: int = 0
    reasons: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)    # "move", "none", "tile", "on-pool", a rare kind -> [scenes, read]
    ms: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    refusals: list = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for k in ("legal", "read", "refused", "wrong", "illegal", "illegal_refused", "illegal_accepted",
                  "near_legal", "near_read", "skipped"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for k, v in other.reasons.items():
            self.reasons[k] = self.reasons.get(k, 0) + v
        for k, (n, r) in other.kinds.items():
            n0, r0 = self.kinds.get(k, (0, 0))
            self.kinds[k] = (n0 + n, r0 + r)
        self.ms += other.ms

    def summary(self) -> dict:
        def rate(a, b):
            return round(a / b, 4) if b else None
        return {"legal": self.legal, "read": self.read, "read_rate": rate(self.read, self.legal),
                "refused": self.refused, "wrong": self.wrong, "illegal": self.illegal,
                "illegal_refused": self.illegal_refused, "illegal_accepted": self.illegal_accepted,
                "near_nominal_legal": self.near_legal, "near_nominal_read": self.near_read,
                "skipped": self.skipped, "refusals": dict(sorted(self.reasons.items(), key=lambda kv: -kv[1])),
                "by_kind": {k: {"scenes": n, "read": r, "read_rate": rate(r, n)}
                            for k, (n, r) in sorted(self.kinds.items())},
                "explain_ms_median": round(statistics.median(self.ms), 1) if self.ms else None}


def _tally(t: Tally, out: dict | None) -> None:
    if out is None:
        t.skipped += 1
        return
    t.ms.append(out["ms"])
    if out["legal"]:
        t.legal += 1
        t.near_legal += out["near"]
        for k in (out["kind"], *out["tags"]):
            n, r = t.kinds.get(k, (0, 0))
            t.kinds[k] = (n + 1, r + bool(out["right"]))
        if out["right"]:
            t.read += 1
            t.near_read += out["near"]
        elif out["accepted"]:
            t.wrong += 1
        else:
            t.refused += 1
            code = out["problems"][0] if out["problems"] else "none"
            t.reasons[code] = t.reasons.get(code, 0) + 1
            if len(t.refusals) < 6:
                t.refusals.append({k: out[k] for k in ("seed", "kind", "tags", "problems", "message")})
    else:
        t.illegal += 1
        if out["accepted"]:
            t.illegal_accepted += 1
        else:
            t.illegal_refused += 1
    if (out["accepted"] and not out["right"]) and len(t.failures) < 12:
        t.failures.append({k: out[k] for k in ("seed", "kind", "tags", "problems", "message")})


def check_targets(total: Tally, near_target: float = TARGET_NEAR_NOMINAL, all_target: float = TARGET_ALL) -> list[dict]:
    near = total.near_read / total.near_legal if total.near_legal else 0.0
    overall = total.read / total.legal if total.legal else 0.0
    return [
        {"target": "no wrong change accepted (legal read as another, or an illegal one accepted)",
         "value": total.wrong + total.illegal_accepted, "met": total.wrong + total.illegal_accepted == 0},
        {"target": f">= {near_target:.0%} of legal changes read at near-nominal conditions "
                   "(tilt < 10 deg, no hand, blur <= 0.8 px)", "value": round(near, 4),
         "met": near >= near_target},
        {"target": f">= {all_target:.0%} of legal changes read over all conditions", "value": round(overall, 4),
         "met": overall >= all_target},
        *({"target": f">= {TARGET_UNCHANGED:.0%} of '{kind}' scenes read", "value": round(r / n, 4) if n else None,
           "met": n > 0 and r / n >= TARGET_UNCHANGED}
          for kind in ("none", "tile") for n, r in [total.kinds.get(kind, (0, 0))]),
    ]


def run(args, levels, path: Path | None, scheme, calibration=None, *, evaluate=evaluate_scene,
        targets=(TARGET_NEAR_NOMINAL, TARGET_ALL), name: str = "vision eval --moves",
        fmt: str = "flure-vision-eval-moves/1", default_per_level: int = DEFAULT_PER_LEVEL, extra=None) -> int:
    """The ``--moves`` set over ``levels`` ((index, Level) pairs), its table and its report at ``path``;
    returns 0 when the set ran (targets are reported, not enforced).  ``evaluate`` (``evaluate_scene``'s
    arguments), ``targets``, ``name``, ``fmt`` and ``extra()`` (more report keys) let another reader's
    evaluation (``evaluate_nostickers``) share the scenes, conditions, tally and report."""
    per_level = images_per_level(args, default_per_level)
    frames = max(1, int(getattr(args, "stable_frames", None) or DEFAULT_FRAMES))
    print(f"{name}: {len(levels)} levels x {per_level} scenes, {frames} frames each, seed {args.seed}")
    t0 = time.perf_counter()

    def scene(index, level, image):
        return evaluate(level, 100 + index, args.seed, image, frames, scheme, calibration)
    tallies = per_condition(levels, per_level, scene, lambda level: Tally(level.name),
                            lambda t, _level, out: _tally(t, out))
    total = Tally("all")
    for t in tallies:
        total.add(t)
    elapsed = time.perf_counter() - t0
    checks = check_targets(total, *targets)
    print_table(tallies, total, checks, elapsed)
    return write_report(path, {"format": fmt, "seed": args.seed, "per_level": per_level, **(extra() if extra else {}),
                               "frames": frames,
                               "levels": {t.name: {**t.summary(), "failures": t.failures,
                                                   "refused_examples": t.refusals} for t in tallies},
                               "all": total.summary(), "targets": checks, "elapsed_s": round(elapsed, 1),
                               "grid": [{"name": lv.name, "about": lv.about} for _, lv in levels]})


def print_table(tallies: list[Tally], total: Tally, checks: list[dict], elapsed: float) -> None:
    head = (f"{'level':12} {'legal':>5} {'read':>7} {'refused':>7} {'wrong':>5} {'illegal':>7} "
            f"{'refused':>7} {'accepted':>8}  main refusal")
    print(head)
    print("-" * len(head))
    for t in tallies + [total]:
        if t is total:
            print("-" * len(head))
        s = t.summary()
        top = next(iter(s["refusals"]), "")
        rate = f"{100 * s['read_rate']:.1f}%" if s["read_rate"] is not None else "-"
        print(f"{t.name:12} {t.legal:>5} {rate:>7} {t.refused:>7} {t.wrong:>5} {t.illegal:>7} "
              f"{t.illegal_refused:>7} {t.illegal_accepted:>8}  {top}")
    near = f"{100 * total.near_read / total.near_legal:.1f}%" if total.near_legal else "-"
    kinds = total.summary()["by_kind"]
    print("by kind: " + ", ".join(f"{k} {v['read']}/{v['scenes']}" for k, v in kinds.items()))
    print(f"near-nominal: {total.near_read}/{total.near_legal} legal changes read ({near}); "
          f"{sum(t.skipped for t in tallies)} scenes skipped; {elapsed:.0f} s")
    for c in checks:
        print(f"  [{'met' if c['met'] else 'MISSED'}] {c['target']}: {c['value']}")
