"""An outside party's board photo generator, written from VISION.md and the scheme file alone.

VISION.md says that image sets made *independently*, from ``marker_scheme.json`` only, are
used to check ``flure vision read``.  ``vision_helpers.render`` borrows the product's own
scheme code (``load_scheme``, ``marker_corners_mm``, ``rotation_for``), so it shares any
misreading of the file's conventions with the reader.  This module does not import
``vision`` or ``engine`` at all: it reads the JSON itself, derives the corner order and the
rotation convention from the file's ``about`` text, and draws the table in its own style —
a plain white sheet (no board art) or a coloured one, any table colour, stickers with white
margins of any width, pieces as simple bodies (pawn discs, a monster block 60 mm high),
a pinhole camera at any height / tilt / turn / offset / resolution, or a flat top-down
"scan" (camera infinitely far away), then light, noise, blur and JPEG.

    python tests/vision_outside_renderer.py OUTDIR     # writes a small set with truth JSON
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

SCHEME_PATH = Path(__file__).resolve().parents[1] / "vision" / "marker_scheme.json"
COLS = "abcdefghijklmnop"
PAWN_RGB = {"blue": (40, 70, 200), "yellow": (230, 200, 30), "red": (200, 40, 40), "green": (40, 150, 60),
            "purple": (120, 50, 150), "black": (25, 25, 25), "white": (235, 235, 230)}


def load(path=SCHEME_PATH) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def square_centre(name: str, q: float) -> tuple[float, float]:
    return ((COLS.index(name[0]) + 0.5) * q, (int(name[1:]) - 0.5) * q)


def square_name(col: int, row: int) -> str:
    return f"{COLS[col]}{row + 1}"


def corners(centre, size, rotation) -> np.ndarray:
    """A marker's corners in cv2.aruco order (board frame, x east, y south).

    The scheme: rotation = direction of the first->second corner edge, clockwise from
    north (N = -y).  The second->third edge is that direction turned 90 deg clockwise.
    """
    a = math.radians(rotation)
    u = np.array([math.sin(a), -math.cos(a)])
    v = np.array([-u[1], u[0]])
    c, s = np.asarray(centre, float), size / 2
    return np.array([c - s * u - s * v, c + s * u - s * v, c + s * u + s * v, c - s * u + s * v])


# -- the scene ------------------------------------------------------------------------------

def stickers_for(setup: dict, tile: str | None, scheme: dict, *, jitter=None, tile_at=None,
                 turn_free=None, pool_turn: int = 0) -> list[dict]:
    """One sticker per piece of a scenario ``setup`` (pools given as ``setup["pool_tiles"]``:
    [(shape, anchor, orientation)]).  ``turn_free(body)`` turns stickers whose rotation means
    nothing (pawns, stones, 2x2 pool, tiles); ``jitter()`` moves each a little (mm);
    ``pool_turn`` picks among the rotations that mean the 1x4 pool's orientation."""
    q = scheme["square_mm"]
    pieces = scheme["pieces"]
    inv_head = {v: int(k) for k, v in scheme["headings"].items()}
    inv_pool: dict[str, list[int]] = {}
    for k, v in scheme["pool_orientations"].items():
        inv_pool.setdefault(v, []).append(int(k))
    out = []

    def add(p, at, rot, kind):
        x, y = at
        if jitter is not None:
            dx, dy = jitter()
            x, y = x + dx, y + dy
        free = not (p.get("heading_from_rotation") or p.get("arrow_from_rotation")
                    or p.get("orientation_from_rotation"))
        if free and turn_free is not None:
            rot = turn_free(kind)
        size = p.get("size_mm", scheme["sizes_mm"][p["piece"]])
        height = p.get("height_mm", scheme["heights_mm"][p["piece"]])
        out.append({"id": p["id"], "x": x, "y": y, "rotation": rot, "size": size, "height": height,
                    "piece": p["piece"], "body": kind})

    mon = next(p for p in pieces if p["piece"] == "monster")
    m = setup["monster"]
    add(mon, square_centre(m["at"], q), inv_head[m["facing"]], "monster")
    used = set()
    # Special kinds first: they exist on few tiles; a plain stone fits any tile left.
    for sq, kind in sorted(setup.get("stones", {}).items(), key=lambda kv: (kv[1] == "stone", kv[0])):
        p = next(p for p in pieces if p["piece"] == "stone" and p["kind"] == kind and p["tile"] not in used)
        used.add(p["tile"])
        add(p, square_centre(sq, q), 0, "stone")
    used_ids = set()
    for sq, tp in sorted(setup.get("teleporters", {}).items()):
        p = next(p for p in pieces if p["piece"] == "teleporter" and p["pair"] == tp["pair"]
                 and p["id"] not in used_ids)
        used_ids.add(p["id"])
        add(p, square_centre(sq, q), inv_head[tp["arrow"]], "teleporter")
    for shape, anchor, orient in setup.get("pool_tiles", []):
        p = next(p for p in pieces if p["piece"] == "pool" and p["shape"] == shape)
        rots = inv_pool[orient] if orient else [0]
        add(p, square_centre(anchor, q), rots[pool_turn % len(rots)], "pool")
    for label, pw in sorted(setup.get("pawns", {}).items()):
        if pw.get("at") is None:
            continue
        p = next(p for p in pieces if p["piece"] == "pawn" and p["color"] == pw["color"]
                 and p["pawn"] == pw["pawn"] and p["face"] == pw["face"])
        add(p, square_centre(pw["at"], q), 0, "pawn-" + pw["color"])
    if tile is not None:
        p = next(p for p in pieces if p["piece"] == "tile" and str(p["tile"]) == tile)
        z = scheme["card_zone_mm"]
        at = tile_at or (z["x"] + z["width"] / 2, z["y"] + z["height"] / 2)
        add(p, at, 90, "tile")
    return out


def pool_squares(pool_tiles) -> list[str]:
    out = []
    for shape, anchor, orient in pool_tiles:
        c, r = COLS.index(anchor[0]), int(anchor[1:]) - 1
        if shape == "2x2":
            cells = [(c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)]
        elif orient == "vertical":
            cells = [(c, r + i) for i in range(4)]
        else:
            cells = [(c + i, r) for i in range(4)]
        out += [square_name(cc, rr) for cc, rr in cells]
    return out


def expected_setup(setup: dict) -> dict:
    """The VISION.md ``setup`` the reader should print for ``setup``."""
    return {"monster": dict(setup["monster"]), "stones": dict(setup.get("stones", {})),
            "pools": sorted(pool_squares(setup.get("pool_tiles", []))),
            "teleporters": {k: dict(v) for k, v in setup.get("teleporters", {}).items()},
            "pawns": {k: dict(v) for k, v in setup.get("pawns", {}).items() if v.get("at")}}


def same_setup(got: dict | None, want: dict) -> bool:
    if got is None:
        return False
    norm = lambda s: json.dumps({**s, "pools": sorted(s.get("pools", []))}, sort_keys=True)  # noqa: E731
    return norm({k: got.get(k, {} if k != "pools" else []) for k in want}) == norm(want)


# -- the camera -----------------------------------------------------------------------------

@dataclass
class Style:
    width: int = 1600
    height: int = 1200
    cam_height_mm: float = 1000.0      # None-like 0: a flat top-down scan (orthographic)
    tilt_deg: float = 0.0
    tilt_towards_deg: float = 90.0     # azimuth in the board frame the camera leans away from
    roll_deg: float = 0.0
    offset_mm: tuple[float, float] = (0.0, 0.0)
    hfov_deg: float = 66.0
    k1: float = 0.0
    table_bgr: tuple[int, int, int] = (60, 90, 130)
    sheet_bgr: tuple[int, int, int] = (250, 250, 250)
    grid: bool = False
    margin_modules: float = 1.0        # white border around each marker, in marker cells
    bodies: bool = True                # draw pawn discs, monster block, tiles under the stickers
    monster_top_mm: float = 32.0       # the monster's head (wider than its square hides neighbours)
    ignore_heights: bool = False       # stickers drawn on the board plane
    light: float = 0.0                 # linear light fall-off across the frame (0..1)
    shadow: float = 0.0                # a hard-edged shadow over part of the frame (0..1 darker)
    shadow_origin: tuple[float, float] = (0.55, 0.5)   # a point of its edge (fractions of the frame)
    shadow_angle_deg: float = 36.87    # the direction (clockwise from +x) the shadow lies towards
    shadow_soft_px: float = 6.0        # its penumbra's width
    wood: bool = False                 # a wood-grain table instead of a plain one
    slabs: bool = False                # board art: every square a stone slab of its own shade
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    noise: float = 0.0
    blur: float = 0.0
    jpeg: int = 0
    seed: int = 0
    px_per_mm_flat: float = 2.4        # for the flat scan


class Camera:
    """A pinhole camera (or, with ``ortho``, a flat top-down scan) over the board frame."""

    def __init__(self, style: Style, scheme: dict):
        self.w, self.h = style.width, style.height
        gw, gh = scheme["grid_mm"]["width"], scheme["grid_mm"]["height"]
        target = np.array([gw / 2 + 30 + style.offset_mm[0], gh / 2 + style.offset_mm[1], 0.0])
        self.ortho = style.cam_height_mm <= 0
        a = math.radians(style.roll_deg)
        if self.ortho:
            s = style.px_per_mm_flat
            rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]) * s
            self.affine = np.hstack([rot, (np.array([self.w / 2, self.h / 2]) - rot @ target[:2])[:, None]])
            return
        t, az = math.radians(style.tilt_deg), math.radians(style.tilt_towards_deg)
        d = style.cam_height_mm / math.cos(t)
        # Up is -z (the board frame is right-handed with x east, y south).
        self.c = target + d * np.array([math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), -math.cos(t)])
        f = target - self.c
        f /= np.linalg.norm(f)
        hint = np.array([0.0, 1.0, 0.0])
        y = hint - (hint @ f) * f
        y /= np.linalg.norm(y)
        x = np.cross(y, f)
        x, y = math.cos(a) * x - math.sin(a) * y, math.sin(a) * x + math.cos(a) * y
        self.r = np.vstack([x, y, f])
        fl = (self.w / 2) / math.tan(math.radians(style.hfov_deg) / 2)
        self.k = np.array([[fl, 0, self.w / 2], [0, fl, self.h / 2], [0, 0, 1]])

    def project(self, xyz) -> np.ndarray:
        p = np.asarray(xyz, float).reshape(-1, 3)
        if self.ortho:
            return (self.affine @ np.column_stack([p[:, :2], np.ones(len(p))]).T).T
        cam = (self.r @ (p - self.c).T).T
        uv = (self.k @ cam.T).T
        return uv[:, :2] / uv[:, 2:3]


# -- drawing --------------------------------------------------------------------------------

def _paste(canvas: np.ndarray, texture: np.ndarray, quad_px: np.ndarray, alpha: np.ndarray | None = None):
    """Warp ``texture`` (BGR) onto the quadrilateral ``quad_px`` of ``canvas`` (float32, in place)."""
    th, tw = texture.shape[:2]
    src = np.float32([[0, 0], [tw, 0], [tw, th], [0, th]])
    x0, y0 = np.floor(quad_px.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(quad_px.max(axis=0)).astype(int) + 2
    h, w = canvas.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    m = cv2.getPerspectiveTransform(src, (quad_px - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(texture.astype(np.float32), m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    a = np.ones((th, tw), np.float32) if alpha is None else alpha.astype(np.float32)
    a = np.pad(a, 1)          # transparent rim: anti-aliased edges
    m2 = cv2.getPerspectiveTransform(np.float32([[1, 1], [tw + 1, 1], [tw + 1, th + 1], [1, th + 1]]),
                                     (quad_px - [x0, y0]).astype(np.float32))
    wa = cv2.warpPerspective(a, m2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)[..., None]
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - wa) + warped * wa


def _poly(canvas, pts_px, bgr):
    h, w = canvas.shape[:2]
    x0, y0 = np.maximum(np.floor(np.asarray(pts_px).min(axis=0)).astype(int) - 2, 0)
    x1, y1 = np.minimum(np.ceil(np.asarray(pts_px).max(axis=0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)       # only the polygon's box is blended
    cv2.fillPoly(mask, [np.round((pts_px - [x0, y0]) * 4).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=2)
    a = (mask.astype(np.float32) / 255)[..., None]
    region = canvas[y0:y1, x0:x1]
    region[:] = region * (1 - a) + np.array(bgr, np.float32) * a


def _hull(cam, footprint_mm, z_top, z_bottom=0.0):
    pts = [(x, y, z) for x, y in footprint_mm for z in (z_bottom, -z_top)]
    px = cam.project(pts).astype(np.float32)
    return cv2.convexHull(px).reshape(-1, 2)


def marker_texture(dic, marker_id: int, margin_modules: float, module_px: int) -> np.ndarray:
    n = dic.markerSize + 2
    m = cv2.aruco.generateImageMarker(dic, marker_id, n * module_px)
    pad = int(round(margin_modules * module_px))
    m = np.pad(m, pad, constant_values=255)
    return cv2.cvtColor(m, cv2.COLOR_GRAY2BGR)


def _scale_px_per_mm(cam: Camera, xy, z) -> float:
    p = cam.project([(xy[0], xy[1], -z), (xy[0] + 10, xy[1], -z), (xy[0], xy[1] + 10, -z)])
    return max(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])) / 10


def _draw_sticker(canvas, cam, dic, s, margin, z, max_outer_mm=None):
    n = dic.markerSize + 2
    if max_outer_mm is not None:     # a sticker (turned as it lies) must fit on its piece
        a = math.radians(s["rotation"] % 90)
        if s.get("body", "").startswith("pawn"):
            fit = max_outer_mm / math.sqrt(2)           # on a disc, at any angle
        else:
            fit = max_outer_mm / (abs(math.cos(a)) + abs(math.sin(a)))
        margin = max(0.25, min(margin, (fit - s["size"]) / 2 / (s["size"] / n)))
    scale = _scale_px_per_mm(cam, (s["x"], s["y"]), z)
    module_px = max(2, int(math.ceil(1.5 * scale * s["size"] / n)))
    tex = marker_texture(dic, s["id"], margin, module_px)
    outer = s["size"] * tex.shape[0] / (n * module_px)
    quad = corners((s["x"], s["y"]), outer, s["rotation"])
    _paste(canvas, tex, cam.project(np.column_stack([quad, np.full(4, -z)])))


def render(setup: dict, tile: str | None, style: Style = Style(), scheme: dict | None = None, *,
           hide_markers=(), jitter_mm: float = 0.0, tile_at=None, extra=()) -> np.ndarray:
    """A BGR uint8 photo of the table showing ``setup`` (scenario format, pools as
    ``pool_tiles``) and ``tile`` in the card zone."""
    scheme = scheme or load()
    rng = np.random.default_rng(style.seed)
    cam = Camera(style, scheme)
    dic = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, scheme["dictionary"]))
    canvas = np.empty((style.height, style.width, 3), np.float32)
    canvas[:] = style.table_bgr
    canvas += rng.normal(0, 4, (style.height, style.width, 1)).astype(np.float32)   # table grain
    if style.wood:
        yy, xx = np.mgrid[0:style.height, 0:style.width].astype(np.float32)
        grain = np.sin((xx * 0.02 + yy * 0.15) + 3 * np.sin(xx * 0.003)) * 18
        canvas += grain[..., None] * np.array([0.6, 0.8, 1.0], np.float32)
    q = scheme["square_mm"]
    sh = scheme["sheet_mm"]
    sheet = np.array([[sh["left"], sh["top"]], [sh["right"], sh["top"]], [sh["right"], sh["bottom"]],
                      [sh["left"], sh["bottom"]]])
    ppm = 3
    tex = np.full((int((sh["bottom"] - sh["top"]) * ppm), int((sh["right"] - sh["left"]) * ppm), 3),
                  style.sheet_bgr, np.uint8)
    if style.slabs:
        for r in range(11):
            for c in range(16):
                x0, y0 = int((c * q - sh["left"]) * ppm), int((r * q - sh["top"]) * ppm)
                shade = rng.uniform(-35, 35)
                patch = tex[y0:y0 + int(q * ppm), x0:x0 + int(q * ppm)].astype(np.float32) + shade
                patch += rng.normal(0, 10, patch.shape[:2])[..., None]
                tex[y0:y0 + int(q * ppm), x0:x0 + int(q * ppm)] = np.clip(patch, 0, 255).astype(np.uint8)
    if style.grid:
        missing = {(c, r) for r in range(4) for c in range(12 + r, 16)}
        missing |= {(c, r) for r in range(7, 11) for c in range(0, r - 6)}
        for r in range(11):
            for c in range(16):
                if (c, r) in missing:
                    continue
                x0, y0 = (c * q - sh["left"]) * ppm, (r * q - sh["top"]) * ppm
                cv2.rectangle(tex, (int(x0), int(y0)), (int(x0 + q * ppm), int(y0 + q * ppm)), (90, 90, 90), 2)
    _paste(canvas, tex, cam.project(np.column_stack([sheet, np.zeros(4)])))
    for m in scheme["board_markers"]:
        if m["id"] in hide_markers:
            continue
        s = {"id": m["id"], "x": m["center_mm"][0], "y": m["center_mm"][1], "rotation": m.get("rotation", 0),
             "size": m["size_mm"]}
        _draw_sticker(canvas, cam, dic, s, max(style.margin_modules, 1.0), 0.0)

    jit = (lambda: rng.uniform(-jitter_mm, jitter_mm, 2)) if jitter_mm else None
    stickers = stickers_for(setup, tile, scheme, jitter=jit, tile_at=tile_at, pool_turn=style.seed,
                            turn_free=lambda body: float(rng.uniform(0, 360)) if body.startswith("pawn")
                            else float(90 * rng.integers(4) + rng.uniform(-6, 6))) + list(extra)
    for s in stickers:       # headed pieces put down by hand: a few degrees off
        if not s.get("body", "").startswith("pawn"):
            s["rotation"] += float(rng.uniform(-4, 4))
    for s in sorted(stickers, key=lambda s: s["height"]):
        z = 0.0 if style.ignore_heights else s["height"]
        x, y = s["x"], s["y"]
        if style.bodies and not style.ignore_heights:
            body = s.get("body", "")
            if body.startswith("pawn"):
                ring = [(x + 12 * math.cos(t), y + 12 * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 40)]
                rgb = PAWN_RGB[body[5:]]
                _poly(canvas, _hull(cam, ring, z), tuple(int(0.7 * v) for v in rgb[::-1]))
                _poly(canvas, cam.project([(a, b, -z) for a, b in ring]), rgb[::-1])
            elif body == "monster":
                cx, cy = square_centre(setup["monster"]["at"], q)
                foot = [(cx - 13, cy - 13), (cx + 13, cy - 13), (cx + 13, cy + 13), (cx - 13, cy + 13)]
                _poly(canvas, _hull(cam, foot, z), (40, 40, 70))
                e = style.monster_top_mm / 2
                top = [(x - e, y - e), (x + e, y - e), (x + e, y + e), (x - e, y + e)]
                _poly(canvas, cam.project([(a, b, -z) for a, b in top]), (60, 60, 110))
            elif body in ("stone", "teleporter", "tile"):
                half = 14 if body != "tile" else 24
                sq = [(x - half, y - half), (x + half, y - half), (x + half, y + half), (x - half, y + half)]
                colour = {"stone": (120, 125, 130), "teleporter": (160, 90, 40), "tile": (70, 80, 90)}[body]
                _poly(canvas, _hull(cam, sq, z), colour)
        outer = {"tile": 48.0, "monster": style.monster_top_mm, "pool": 28.0}.get(s.get("body", ""), 28.0)
        _draw_sticker(canvas, cam, dic, s, style.margin_modules, z, 24.0 if s.get("body", "").startswith("pawn")
                      else outer)

    return finish(canvas, style, rng)


def finish(canvas: np.ndarray, style: Style, rng) -> np.ndarray:
    """The camera's and the room's part (float32 BGR canvas, in place): shadow, light fall-off, tint,
    lens distortion, blur, noise, then 8 bits and JPEG."""
    if style.shadow:
        yy, xx = np.mgrid[0:style.height, 0:style.width].astype(np.float32)
        a = math.radians(style.shadow_angle_deg)
        edge = ((xx - style.shadow_origin[0] * style.width) * math.cos(a)
                + (yy - style.shadow_origin[1] * style.height) * math.sin(a))
        soft = np.clip(edge / style.shadow_soft_px + 0.5, 0, 1)          # the penumbra
        canvas *= (1 - style.shadow * soft)[..., None]
    if style.light:
        yy, xx = np.mgrid[0:style.height, 0:style.width].astype(np.float32)
        ramp = 1 - style.light * (0.6 * xx / style.width + 0.4 * yy / style.height)
        canvas *= ramp[..., None]
    canvas *= np.array(style.tint, np.float32)
    if style.k1:
        canvas = _distort(canvas, style.k1)
    if style.blur:
        canvas = cv2.GaussianBlur(canvas, (0, 0), style.blur)
    if style.noise:
        canvas += rng.normal(0, style.noise, canvas.shape).astype(np.float32)
    img = np.clip(canvas + 0.5, 0, 255).astype(np.uint8)
    if style.jpeg:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def _distort(img, k1):
    h, w = img.shape[:2]
    f = w / 2 / math.tan(math.radians(33))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xn, yn = (xs - w / 2) / f, (ys - h / 2) / f
    # Output pixel (distorted) -> undistorted source: invert r_d = r_u (1 + k1 r_u^2) by iteration.
    xu, yu = xn.copy(), yn.copy()
    for _ in range(8):
        r2 = xu * xu + yu * yu
        xu, yu = xn / (1 + k1 * r2), yn / (1 + k1 * r2)
    return cv2.remap(img, xu * f + w / 2, yu * f + h / 2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


# -- a small fixed set -----------------------------------------------------------------------

BASIC = {"monster": {"at": "a1", "facing": "E"},
         "stones": {s: "stone" for s in "c3 m4 h5 i6 n6 g7 e8 m8 o9 f10 i10".split()},
         "pool_tiles": [("2x2", "i3", None), ("1x4", "e9", "horizontal")],
         "teleporters": {}, "pawns": {}}

MIXED = {"monster": {"at": "p6", "facing": "S"},
         "stones": {"c3": "crystal", "m4": "pivot-right", "h6": "pivot-about", "d7": "stone"},
         "pool_tiles": [("2x2", "i3", None), ("1x4", "l7", "vertical")],
         "teleporters": {"c5": {"pair": 1, "arrow": "N"}, "n5": {"pair": 1, "arrow": "W"},
                         "e10": {"pair": 2, "arrow": "E"}, "o9": {"pair": 2, "arrow": "S"}},
         "pawns": {"red-6/1": {"at": "p11", "color": "red", "pawn": "6/1", "face": "white"},
                   "blue-2/5": {"at": "l1", "color": "blue", "pawn": "2/5", "face": "black"},
                   "white-3/4": {"at": "a7", "color": "white", "pawn": "3/4", "face": "white"},
                   "black-6/1": {"at": "e11", "color": "black", "pawn": "6/1", "face": "black"},
                   "purple-2/5": {"at": "o4", "color": "purple", "pawn": "2/5", "face": "white"},
                   "yellow-4/3": {"at": "g2", "color": "yellow", "pawn": "4/3", "face": "black"},
                   "green-3/4": {"at": "j9", "color": "green", "pawn": "3/4", "face": "white"}}}

STYLES = {
    "white-sheet-overhead": Style(),
    "green-felt-grid-tilt": Style(width=2048, height=1536, table_bgr=(50, 120, 40), sheet_bgr=(200, 225, 235),
                                  grid=True, tilt_deg=12, tilt_towards_deg=40, roll_deg=-7, margin_modules=0.5),
    "phone-12mp-turned": Style(width=4000, height=3000, cam_height_mm=700, hfov_deg=70, roll_deg=90,
                             margin_modules=2.5, noise=2, jpeg=88, table_bgr=(35, 55, 80)),
    "upside-down-720p": Style(width=1280, height=720, cam_height_mm=950, roll_deg=180, hfov_deg=62,
                              table_bgr=(200, 200, 200), sheet_bgr=(235, 240, 245), noise=3),
    "flat-scan": Style(width=1800, height=1300, cam_height_mm=0, table_bgr=(110, 110, 110), bodies=False,
                       ignore_heights=True),
    "dim-warm-blur": Style(width=1920, height=1080, cam_height_mm=900, tilt_deg=6, light=0.5,
                           tint=(0.7, 0.9, 1.1), noise=4, blur=1.0, jpeg=70, grid=True),
}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "outside-images")
    out.mkdir(parents=True, exist_ok=True)
    for name, style in STYLES.items():
        for sname, setup, tile in (("basic", BASIC, "8"), ("mixed", MIXED, "prey-2")):
            cv2.imwrite(str(out / f"{name}-{sname}.png"), render(setup, tile, style))
            (out / f"{name}-{sname}.json").write_text(json.dumps(
                {"setup": expected_setup(setup), "tile": tile}, indent=1))
    print(f"wrote {2 * len(STYLES)} images to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# -- random scenes ---------------------------------------------------------------------------

def all_squares() -> list[str]:
    out = []
    for r in range(11):
        for c in range(16):
            if (r < 4 and c >= 12 + r) or (r >= 7 and c < r - 6):
                continue
            out.append(square_name(c, r))
    return out


def random_setup(rng, scheme: dict | None = None) -> tuple[dict, str | None]:
    """A random position with the game's real pieces (scenario setup, pools as tiles)."""
    scheme = scheme or load()
    squares = all_squares()
    free = set(squares)

    def take(sq):
        free.discard(sq)
        return sq

    setup = {"stones": {}, "pool_tiles": [], "teleporters": {}, "pawns": {}}
    pools: list = []
    if rng.random() < 0.7:
        for _ in range(20):
            a = squares[rng.integers(len(squares))]
            c, r = COLS.index(a[0]), int(a[1:]) - 1
            cells = [square_name(c + dc, r + dr) for dr in (0, 1) for dc in (0, 1)] if c < 15 and r < 10 else []
            if cells and all(x in free for x in cells):
                pools.append(("2x2", a, None))
                for x in cells:
                    take(x)
                break
    if rng.random() < 0.7:
        for _ in range(40):
            a = squares[rng.integers(len(squares))]
            c, r = COLS.index(a[0]), int(a[1:]) - 1
            orient = "horizontal" if rng.random() < 0.5 else "vertical"
            cells = ([(c + i, r) for i in range(4)] if orient == "horizontal" else [(c, r + i) for i in range(4)])
            names = [square_name(cc, rr) for cc, rr in cells if cc < 16 and rr < 11]
            if len(names) == 4 and all(x in free for x in names):
                pools.append(("1x4", a, orient))
                for x in names:
                    take(x)
                break
    setup["pool_tiles"] = pools
    order = [s for s in squares if s in free]
    rng.shuffle(order)
    it = iter(order)
    setup["monster"] = {"at": take(next(it)), "facing": "NESW"[rng.integers(4)]}
    # stones: each tile once, on a random side
    tiles = {}
    for p in scheme["pieces"]:
        if p["piece"] == "stone":
            tiles.setdefault(p["tile"], []).append(p["kind"])
    for t in list(tiles)[: rng.integers(0, len(tiles) + 1)]:
        kinds = tiles[t]
        setup["stones"][take(next(it))] = kinds[rng.integers(len(kinds))]
    if rng.random() < 0.6:
        for pair in (1, 2)[: rng.integers(1, 3)]:
            for _ in range(2):
                setup["teleporters"][take(next(it))] = {"pair": pair, "arrow": "NESW"[rng.integers(4)]}
    pawns = sorted({(p["color"], p["pawn"]) for p in scheme["pieces"] if p["piece"] == "pawn"})
    rng.shuffle(pawns)
    for colour, kind in pawns[: rng.integers(0, 13)]:
        setup["pawns"][f"{colour}-{kind}"] = {"at": take(next(it)), "color": colour, "pawn": kind,
                                              "face": "white" if rng.random() < 0.5 else "black"}
    tiles_all = sorted({str(p["tile"]) for p in scheme["pieces"] if p["piece"] == "tile"})
    tile = None if rng.random() < 0.15 else tiles_all[rng.integers(len(tiles_all))]
    return setup, tile


def random_style(rng, flat_share: float = 0.15) -> Style:
    """A plausible camera and table, different from the product's own renderer."""
    sizes = [(1280, 720), (1600, 1200), (1920, 1080), (2592, 1944), (3264, 2448), (4000, 3000), (1080, 1920)]
    w, h = sizes[rng.integers(len(sizes))]
    flat = rng.random() < flat_share
    hfov = float(rng.uniform(48, 90))
    tilt = 0.0 if rng.random() < 0.3 else float(rng.uniform(0, 20))
    roll = float(rng.choice([0, 90, 180, 270]) + rng.uniform(-10, 10)) if rng.random() < 0.5 \
        else float(rng.uniform(-10, 10))
    colour = lambda lo, hi: tuple(int(v) for v in rng.integers(lo, hi, 3))  # noqa: E731
    white_sheet = rng.random() < 0.5
    return Style(width=w, height=h, cam_height_mm=0.0 if flat else 800.0, tilt_deg=tilt,
                 tilt_towards_deg=float(rng.uniform(0, 360)), roll_deg=roll,
                 offset_mm=(float(rng.uniform(-30, 30)), float(rng.uniform(-30, 30))), hfov_deg=hfov,
                 table_bgr=colour(20, 200), sheet_bgr=(245, 245, 245) if white_sheet else colour(60, 230),
                 grid=rng.random() < 0.5, margin_modules=float(rng.uniform(0.4, 2.5)),
                 bodies=not flat, ignore_heights=flat, light=float(rng.uniform(0, 0.5)),
                 tint=tuple(float(v) for v in rng.uniform(0.85, 1.1, 3)), noise=float(rng.uniform(0, 4)),
                 blur=float(rng.uniform(0, 1.0)) if rng.random() < 0.4 else 0.0,
                 jpeg=int(rng.integers(60, 96)) if rng.random() < 0.5 else 0, seed=int(rng.integers(1 << 30)))


def random_fitted_style(rng, scheme: dict, *, flat_share: float, max_size: tuple[int, int],
                        slack: tuple[float, float]) -> Style:
    """``random_style`` at most ``max_size`` pixels, its camera fitted to the board with a
    random ``slack``, the monster's head 27 mm wide."""
    style = random_style(rng, flat_share=flat_share)
    style = replace(style, monster_top_mm=27.0, width=min(style.width, max_size[0]),
                    height=min(style.height, max_size[1]))
    return fit_camera(style, scheme, float(rng.uniform(*slack)))


def fit_camera(style: Style, scheme: dict | None = None, slack: float = 1.0) -> Style:
    """The lowest camera (or the largest scan scale) that shows the corner markers and the
    card zone with a margin, then ``slack`` times higher (or smaller)."""
    scheme = scheme or load()
    z = scheme["card_zone_mm"]
    xs = [m["center_mm"][0] for m in scheme["board_markers"]] + [z["x"] + z["width"]]
    ys = [m["center_mm"][1] for m in scheme["board_markers"]] + [z["y"], z["y"] + z["height"]]
    box = [(min(xs) - 30, min(ys) - 30), (max(xs) + 30, min(ys) - 30), (max(xs) + 30, max(ys) + 30),
           (min(xs) - 30, max(ys) + 30)]

    def fits(s):
        p = Camera(s, scheme).project([(x, y, 0.0) for x, y in box])
        return bool(np.all((p >= 0) & (p <= [s.width - 1, s.height - 1])))

    if style.cam_height_mm <= 0:
        s = replace(style, px_per_mm_flat=10.0)
        while not fits(s):
            s = replace(s, px_per_mm_flat=s.px_per_mm_flat * 0.95)
        return replace(s, px_per_mm_flat=s.px_per_mm_flat / slack)
    s = replace(style, cam_height_mm=300.0)
    while not fits(s):
        s = replace(s, cam_height_mm=s.cam_height_mm * 1.05)
    return replace(s, cam_height_mm=s.cam_height_mm * slack)
