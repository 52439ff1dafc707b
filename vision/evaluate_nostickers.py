"""``flure vision eval --moves --no-stickers``: reading changes without stickers (NOSTICKERS.md, issue 27).

The scenes, conditions, tally and report of the sticker evaluation (``vision.evaluate_moves``: the
same random positions and changes — legal moves, rare ones, a tile, nothing, illegal changes — under
the same levels), but each case is a box of its own: a look of the twin without stickers
(``vision.twin.look``: pawn colours and pictures, tiles, the monster, the board's printed art) drawn
from the case's seed, taught from the teaching layout's photos taken by the case's camera in the
case's room (``vision.nostickers.teach``; no hand over the board while teaching), then the change
read with ``vision.nostickers.explain_change`` exactly as ``flure vision explain --pieces`` does.

A case whose teaching is refused counts as refused (``teach-refused``), an illegal one as refused
too.  Targets (issue 27): never a wrong change accepted; ≥ 90 % of near-nominal legal changes and
≥ 70 % of all legal changes read right.  The report adds the teaching time per case.
"""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from . import evaluate_moves as moves

TARGET_NEAR_NOMINAL = 0.90
TARGET_ALL = 0.70
DEFAULT_PER_LEVEL = 3           # each case is taught: nine teaching photos and a teaching per scene
TEACH_REFUSED = "teach-refused"


def default_report() -> Path:
    return Path(tempfile.gettempdir()) / "flure-vision-eval-nostickers-report.json"


def look_seed(base_seed: int, index: int, image: int) -> int:
    """The case's own box: another look for every case of every level."""
    return moves.scene_seed(base_seed, index, image) % 1_000_003


def teaching_photos(layout, params: dict, seed: int, look: int) -> list:
    """The layout's photos of the box ``look`` under the case's camera and in its room (the scene's ``seed``:
    the same light as the game's frames; no hand while teaching)."""
    from vision.twin.scene import render
    quiet = {k: v for k, v in params.items() if k != "occluder"}
    return [render(step.pieces(), step.tile, seed=seed, frame=n, stickers=False, look_seed=look, **quiet)[0]
            for n, step in enumerate(layout.steps)]


class Cases:
    """``evaluate_scene``'s replacement for ``evaluate_moves.run``: renders, teaches, reads, judges;
    keeps each case's teaching time."""

    def __init__(self, layout=None):
        from vision.teaching_layout import load_layout
        self.layout = layout if layout is not None else load_layout()
        self.teach_s: list[float] = []
        self.teach_refused: list[dict] = []

    def __call__(self, level, index: int, base_seed: int, image: int, frames: int, scheme=None,
                 calibration=None) -> dict | None:
        import numpy as np

        from vision.nostickers import TeachError, explain_change, teach

        rng = np.random.default_rng([base_seed, index, image, 11])
        scene = moves.make_scene(rng)
        if scene is None:
            return None
        params = moves.scene_params(level, index, base_seed, image)
        seed = moves.scene_seed(base_seed, index, image)
        look = look_seed(base_seed, index, image)
        shots = moves.film(scene, params, frames, seed, rng, stickers=False, look_seed=look)
        if shots is None:
            return None
        t0 = time.perf_counter()
        try:
            pieces = teach(self.layout, teaching_photos(self.layout, params, seed, look), calibration)
        except TeachError as exc:
            self.teach_refused.append({"seed": seed, "look_seed": look, "level": level.name, "message": str(exc)[:300]})
            return {"seed": seed, "kind": scene.kind, "legal": scene.legal, "near": moves.near_nominal(params),
                    "tags": list(scene.tags), "accepted": False, "right": False, "ms": 0.0,
                    "problems": [TEACH_REFUSED], "message": str(exc)[:300]}
        self.teach_s.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        result = explain_change(scene.before, [img for img, _truth in shots], pieces, calibration=calibration,
                                player=scene.mover)
        out = moves.judge(scene, params, result, (time.perf_counter() - t0) * 1000.0 / max(1, len(shots)), seed)
        out["look_seed"] = look
        return out

    def report(self) -> dict:
        return {"teaching": {"cases_taught": len(self.teach_s), "refused": len(self.teach_refused),
                             "teach_s_median": round(statistics.median(self.teach_s), 2) if self.teach_s else None,
                             "refused_examples": self.teach_refused[:6]},
                "read_ms_is": "per frame"}


def run(args, levels, path: Path | None, calibration=None) -> int:
    """The set over ``levels``, its table and its report (``evaluate_moves.run`` with this reader)."""
    cases = Cases()
    return moves.run(args, levels, path, None, calibration, evaluate=cases,
                     targets=(TARGET_NEAR_NOMINAL, TARGET_ALL), name="vision eval --moves --no-stickers",
                     fmt="flure-vision-eval-nostickers/1", default_per_level=DEFAULT_PER_LEVEL, extra=cases.report)
