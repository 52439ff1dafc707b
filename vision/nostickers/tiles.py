"""The advanced setup's pools and teleporters read without stickers (RULES.md A1, A2; NOSTICKERS.md).

A stone tile put down is read as any piece face (``Pieces.match``); a pool or a teleporter tile is
read here, against what teaching learned of the box's own tiles (``TileLooks``) *and* the square's
own taught empty look:

- a **pool** square: the share of the square's middle whose colour is the taught pools' (a palette of
  their colours, ``palette``) and clearly not the empty square's own colour there (``pool_share``):
  a pool differs from the bare board by its picture and colour, not only by its brightness.  Which
  pool (2×2, 1×4, which orientation) the squares make, the game tells (``engine.reconcile_place``);
- a **teleporter**: the square's polar sample compared with each taught teleporter tile at each
  quarter turn (``read_teleporter``): its pair is the clearly nearest pair's, its arrow the taught
  arrow turned by the clearly best quarter turn.  Two pairs that look alike under this light, or an
  arrow not seen (no turn clearly best), leave the square unknown: a guess is never made.

Only squares where a legal placement may leave such a tile (``allowed``: the faces ``pool`` or
``teleporter``) and the game has none are read here; anything else on them stays as the per-square
reading left it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.geometry import COLS, DIRECTION_NAMES
from engine.observation import EMPTY, SquareLook
from engine.position import Teleporter

from . import looks as L

PALETTE = 12                # colours kept of the taught pools (k-means over their pixels of another colour than the board)
POOL_NEAR = 14.0            # Lab distance within which a pixel has one of the pools' colours …
POOL_RATIO = 0.5            # … and is this much nearer to it than to the empty square's own colour there
CHROMA = 12.0               # a pixel whose colour (a, b) differs this much from the empty square's: not a mere shadow
POOL_BOX_MM = 11.0          # half the side of the box a pool square is measured in (about its middle)
POOL_FIT_MM = (44.0, 66.0, 126.0)   # a pool's patch fits in 66 × 66 mm (2 × 2) or 44 × 126 mm (1 × 4): its tile, with slack
POOL_SHARE = 0.45           # at least this share of that box shows the pool: a pool square
NOT_POOL = 0.3              # under this share a teleporter may be read there (its portal may share a colour)
TURN_SLACK = 3              # angle bins (of ``looks.ANGLES``) a tile may lie turned off the grid
TELEPORTER_RATIO = 0.75     # the pair read must be this much nearer than the other, the arrow's turn than the others
QUARTER = L.ANGLES // 4


@dataclass
class TileLooks:
    """What teaching learned of the advanced setup's fixed tiles: the pools' colours (``palette``, Lab, None: no
    pool taught) and each taught teleporter tile's polar sample about its square's middle, with its pair and
    arrow as the layout lists them."""

    palette: np.ndarray | None = None
    teleporters: list[tuple[int, int, np.ndarray]] = field(default_factory=list)

    def to_json(self) -> dict:
        from .teach import _b64

        return {"palette": None if self.palette is None else np.round(self.palette, 2).tolist(),
                "teleporters": [{"pair": p, "arrow": DIRECTION_NAMES[a], "polar": _b64(s)}
                                for p, a, s in self.teleporters]}

    @classmethod
    def from_json(cls, data) -> "TileLooks":
        """Raises ValueError/KeyError/TypeError on a malformed entry (``Pieces.load`` names the file)."""
        palette = data.get("palette")
        if palette is not None:
            palette = np.asarray(palette, dtype=np.float32).reshape(-1, 3)
            if not np.all(np.isfinite(palette)):
                raise ValueError("the pools' colours are malformed")
        from .teach import _polar

        teleporters = [(int(t["pair"]), DIRECTION_NAMES.index(str(t["arrow"])), _polar(t["polar"], "teleporter"))
                       for t in data.get("teleporters") or []]
        return cls(palette, teleporters)


# -- teaching ------------------------------------------------------------------------------------

def learn_step(frame, expected: dict, canvas, ref_lab: np.ndarray, pool_pixels: list, tiles: TileLooks) -> None:
    """One teaching photo (``teach.Frame``) whose step lays ``expected`` (square → SquareLook): the pixels of its
    pool squares whose colour differs from the empty board's (``CHROMA``) gathered in ``pool_pixels``; each
    teleporter square's sample added to ``tiles`` (once per pair and arrow)."""
    for sq, look in sorted(expected.items()):
        if look.pool and look.pawn is None and look.stone is None:
            x0, y0, x1, y1 = _box(canvas, sq)
            lab = frame.lab[y0:y1, x0:x1].reshape(-1, 3)
            pool_pixels.append(lab[_chroma(lab, ref_lab[y0:y1, x0:x1].reshape(-1, 3)) > CHROMA])
        t = look.teleporter
        if t is not None and not any((p, a) == (t.pair, t.arrow) for p, a, _s in tiles.teleporters):
            tiles.teleporters.append((t.pair, t.arrow, L.polar_at(frame.blurred, _middle(canvas, sq), canvas)))


def palette_of(pool_pixels: list) -> np.ndarray | None:
    """The pools' colours: ``PALETTE`` k-means centres (Lab) of their differing pixels (None: none seen)."""
    pixels = np.concatenate(pool_pixels) if pool_pixels else np.zeros((0, 3), np.float32)
    if len(pixels) < 4 * PALETTE:
        return None
    pixels = np.ascontiguousarray(pixels[:: max(1, len(pixels) // 6000)], dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    cv2.setRNGSeed(27)
    _c, _labels, centres = cv2.kmeans(pixels, PALETTE, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
    return centres.astype(np.float32)


# -- reading -------------------------------------------------------------------------------------

def pool_share(frame_lab: np.ndarray, ref_lab: np.ndarray, canvas, sq: int, palette: np.ndarray) -> float:
    """The share of square ``sq``'s middle (``POOL_BOX_MM``) that shows the pools' colours (``pool_mask``)."""
    x0, y0, x1, y1 = _box(canvas, sq)
    return float(pool_mask(frame_lab, ref_lab, palette, (x0, y0, x1, y1)).mean()) if x1 > x0 and y1 > y0 else 0.0


def pool_mask(frame_lab: np.ndarray, ref_lab: np.ndarray, palette: np.ndarray, box) -> np.ndarray:
    """Per pixel of ``box`` (x0, y0, x1, y1, canonical pixels): whether its colour is one of the pools' (within
    ``POOL_NEAR``), clearly not the empty board's own there (``POOL_RATIO``) and of another colour than it
    (``CHROMA``: not the board in a shadow)."""
    x0, y0, x1, y1 = box
    lab = frame_lab[y0:y1, x0:x1].reshape(-1, 3)
    ref = ref_lab[y0:y1, x0:x1].reshape(-1, 3)
    to_palette = np.full(len(lab), np.inf, np.float32)
    for colour in palette:
        np.minimum(to_palette, np.sqrt(((lab - colour) ** 2).sum(axis=1)), out=to_palette)
    to_bare = np.sqrt(((lab - ref) ** 2).sum(axis=1))
    near = (to_palette <= POOL_NEAR) & (to_palette <= POOL_RATIO * to_bare) & (_chroma(lab, ref) > CHROMA)
    return near.reshape(y1 - y0, x1 - x0)


def pool_sized(frame_lab: np.ndarray, ref_lab: np.ndarray, canvas, squares: list[int], palette,
               placed=()) -> set[int]:
    """The ``squares`` (read as showing the pools' colours) whose pool-coloured patches each fit in one pool tile
    (2 × 2 or 1 × 4 squares, ``POOL_FIT_MM``; either way round): a red sleeve or anything else of the pools'
    colours that reaches farther is no pool, and its squares stay unknown.  The squares of the pools already
    ``placed`` are left out (a pool put down beside one is not one patch with it)."""
    if not squares:
        return set()
    boxes = [_box(canvas, sq) for sq in squares]
    grow = int(round(2 * L.SQUARE_MM * canvas.scale))
    x0, y0 = max(0, min(b[0] for b in boxes) - grow), max(0, min(b[1] for b in boxes) - grow)
    x1 = min(canvas.width, max(b[2] for b in boxes) + grow)
    y1 = min(canvas.height, max(b[3] for b in boxes) + grow)
    mask = pool_mask(frame_lab, ref_lab, palette, (x0, y0, x1, y1)).astype(np.uint8)
    for sq in placed:
        bx0, by0, bx1, by1 = L.square_box(canvas, sq, (L.SQUARE_MM - L.MIDDLE_MM) / 2)
        mask[max(0, by0 - y0):max(0, by1 - y0), max(0, bx0 - x0):max(0, bx1 - x0)] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.dilate(mask, np.ones((5, 5), np.uint8))      # a pool's blobs, with floor between them, are one patch
    _n, labels, stats, _c = cv2.connectedComponentsWithStats(mask, connectivity=8)
    one, two, four = (np.array(POOL_FIT_MM) * canvas.scale).tolist()
    out = set()
    for sq, (bx0, by0, bx1, by1) in zip(squares, boxes):
        here = labels[by0 - y0:by1 - y0, bx0 - x0:bx1 - x0]
        ids = [i for i in np.unique(here) if i > 0 and np.mean(here == i) > 0.1]
        sizes = [sorted((stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT])) for i in ids]
        if ids and all(b <= two or (a <= one and b <= four) for a, b in sizes):
            out.add(sq)
    return out


def _chroma(lab: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Per pixel, how far the colour (Lab a, b) lies from the empty square's: a shadow or a brighter lamp moves the
    lightness, a pool's picture its colour."""
    return np.sqrt(((lab[:, 1:] - ref[:, 1:]) ** 2).sum(axis=1))


def turn_distances(sample: np.ndarray, taught: np.ndarray) -> np.ndarray:
    """(ANGLES,) the weighted RMS Lab distance (as ``looks.Bank``) between ``sample`` and ``taught`` turned by each
    angle bin: ``out[k]`` compares the sample with the taught tile turned k bins the way the angles go."""
    w = L._WEIGHT
    a, b = np.asarray(sample, np.float32) * w, np.asarray(taught, np.float32) * w
    cross = np.sum(np.fft.rfft(a, axis=0) * np.conj(np.fft.rfft(b, axis=0)), axis=(1, 2))
    corr = np.fft.irfft(cross, n=L.ANGLES)
    d2 = (np.sum(a * a) + np.sum(b * b) - 2.0 * corr) / L._CELLS
    return np.sqrt(np.maximum(d2, 0.0))


def quarter_distances(sample: np.ndarray, taught: np.ndarray) -> list[float]:
    """The distance between ``sample`` and the ``taught`` tile turned by each quarter turn (``turn_distances``,
    the nearest within ``TURN_SLACK`` bins of it: a tile lies a little turned off the grid): ``out[q]`` is
    the taught tile's arrow turned ``q`` quarters the way the directions go."""
    d = turn_distances(sample, taught)
    return [float(min(d[(q * QUARTER + k) % L.ANGLES] for k in range(-TURN_SLACK, TURN_SLACK + 1)))
            for q in range(4)]


def pairs_missing(taught: list[tuple[int, int, np.ndarray]]) -> list[int]:
    """The teleporter pairs of which no tile was taught: unless none, ``read_teleporter`` reads no teleporter (a
    pair never taught could be taken for the other)."""
    from engine.placement import TELEPORTER_PAIRS

    return sorted(set(TELEPORTER_PAIRS) - {p for p, _a, _s in taught})


def pairs_distance(taught: list[tuple[int, int, np.ndarray]]) -> float | None:
    """How far apart the two teleporter pairs look as taught: the nearest of a tile of one pair to a tile of
    the other at any quarter turn (``quarter_distances``, the measure ``read_teleporter`` compares a square
    with); None when a pair was not taught (``pairs_missing``)."""
    if pairs_missing(taught):
        return None
    return min(min(quarter_distances(a, b)) for i, (pair, _a, a) in enumerate(taught)
               for other, _b, b in taught[i + 1:] if other != pair)


def pairs_apart() -> float:
    """How far apart (``pairs_distance``) the pairs must look for ``read_teleporter`` to tell them under this
    light: a tile seen as far from its own taught look as the reader accepts (``MAX_DISTANCE``) is still
    clearly nearer (``TELEPORTER_RATIO``) to it than the other pair lies."""
    from .teach import MAX_DISTANCE

    return MAX_DISTANCE / TELEPORTER_RATIO


def pairs_alike(taught: list[tuple[int, int, np.ndarray]]) -> bool:
    """Whether the taught pairs look too alike (nearer than ``pairs_apart``): the reader may then ask the referee
    which pair a teleporter is rather than guess.  False when a pair was not taught (the reader reads none:
    said apart)."""
    distance = pairs_distance(taught)
    return distance is not None and distance < pairs_apart()


def read_teleporter(samples, taught: list[tuple[int, int, np.ndarray]]) -> tuple[Teleporter | None, dict]:
    """(the teleporter ``samples`` show, or None when it cannot be told; what was measured): ``samples`` are polar
    samples of the square (its middle moved a little: the tile is not put down exactly).  Each taught tile is
    compared at each quarter turn (within ``TURN_SLACK``); the pair is the nearest's, when clearly nearer
    (``TELEPORTER_RATIO``) than any tile of the other pair and within ``MAX_DISTANCE``; its arrow, the taught
    arrow turned by that quarter, when that turn is clearly nearer than the other turns of that pair's tiles
    (an arrow not seen: unknown).  Unless every pair was taught, nothing is read."""
    from .teach import MAX_DISTANCE

    if pairs_missing(taught):
        return None, {}         # a pair never taught could be taken for the other: asked
    # (pair, arrow) → its distance: each taught tile turned by each quarter gives one arrow
    best: dict[tuple[int, int], float] = {}
    for sample in samples:
        for pair, arrow, polar in taught:
            for q, near in enumerate(quarter_distances(sample, polar)):
                key = (pair, (arrow + q) % 4)
                best[key] = min(best.get(key, np.inf), near)
    ranked = sorted(best.items(), key=lambda kv: kv[1])
    (pair, arrow), dist = ranked[0]
    other_pair = min((d for (p, _a), d in ranked if p != pair), default=np.inf)
    other_turn = min((d for (p, a), d in ranked if p == pair and a != arrow), default=np.inf)
    measured = {"pair": pair, "arrow": DIRECTION_NAMES[arrow], "distance": dist, "other_pair": other_pair,
                "other_turn": other_turn}
    if dist > MAX_DISTANCE or dist > TELEPORTER_RATIO * other_pair or dist > TELEPORTER_RATIO * other_turn:
        return None, measured
    return Teleporter(pair, arrow), measured


def read_placed(pieces, frame, before_looks: dict, allowed: dict, seen: dict, unseen: dict, ref_lab,
                doubts: dict | None = None) -> dict:
    """Reads the pools and teleporters a legal placement may have put down (``allowed``), on the squares where
    the game has none and the per-square reading told no piece (``unseen``: unknown; never under a hand,
    ``looks.occluded``, whose colours may be the pools'): a pool
    square or a teleporter clearly seen there becomes seen (``seen``, ``unseen`` changed in place); a square that
    clearly shows neither keeps its reading.  A teleporter must also be clearly nearer (``TELEPORTER_RATIO``)
    than every other taught face the per-square reading measured there (``doubts``: a stone tile the light
    hides is no teleporter).  Returns square → what was measured."""
    tiles = pieces.placed
    if tiles is None:
        return {}
    from .read import UNKNOWN_PIECE
    from .teach import SHIFTS

    canvas = pieces.board.canvas
    out, pools = {}, {}
    for sq in sorted(unseen):
        faces = allowed.get(sq, ())
        if unseen[sq] != UNKNOWN_PIECE or before_looks.get(sq, EMPTY) != EMPTY:
            continue
        pool, teleporter, share = False, None, None
        if "pool" in faces and tiles.palette is not None:
            share = pool_share(frame.lab, ref_lab, canvas, sq, tiles.palette)
            pool = share >= POOL_SHARE
        if "teleporter" in faces and tiles.teleporters:
            cx, cy = _middle(canvas, sq)
            samples = [L.polar_at(frame.blurred, (cx + dx, cy + dy), canvas) for dx, dy in [(0.0, 0.0), *SHIFTS]]
            teleporter, measured = read_teleporter(samples, tiles.teleporters)
            other = min((d for k, d in ((doubts or {}).get(sq) or {}).items() if k not in ("pool", "teleporter")),
                        default=np.inf)
            if teleporter is not None and measured["distance"] > TELEPORTER_RATIO * other:
                teleporter = None
            out[sq] = {**measured, "other_face": other}
        out.setdefault(sq, {})["pool_share"] = share
        if pool and teleporter is None:         # (a square never read as both)
            pools[sq] = True
        elif teleporter is not None and not (share is not None and share > NOT_POOL):
            seen[sq] = SquareLook(teleporter=teleporter)
            del unseen[sq]
    placed = [sq for sq, look in before_looks.items() if look.pool]
    for sq in pool_sized(frame.lab, ref_lab, canvas, sorted(pools), tiles.palette, placed):
        seen[sq] = SquareLook(pool=True)
        del unseen[sq]
    return out


def _middle(canvas, sq: int) -> tuple[float, float]:
    c, r = sq % COLS, sq // COLS
    x, y = canvas.px([((c + 0.5) * L.SQUARE_MM, (r + 0.5) * L.SQUARE_MM)])[0]
    return float(x), float(y)


def _box(canvas, sq: int) -> tuple[int, int, int, int]:
    return L.square_box(canvas, sq, POOL_BOX_MM - L.MIDDLE_MM / 2)

