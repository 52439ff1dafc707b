"""An outside party's no-sticker table photos, written from NOSTICKERS.md and the layout file alone.

Like ``vision_outside_renderer`` (whose pinhole camera, light, blur, noise and JPEG it uses), this
module imports neither ``vision`` nor ``engine``: it reads ``vision/teaching_layout.json`` itself and
draws every box in its own style, varied per ``look`` seed — the board's printed art (stone slabs of
one palette, cracks, runes, the AUSGANG corner), wooden pawn discs 24 mm wide and 8 mm high with a
coloured face (an emblem and its number) and a partly black face (a black share of its own shape
and its other number), stone tiles with their own pictures, teleporters (pair dots and an arrow),
water pools, a monster built from any block of any colour with eyes towards its heading, and
tombstone tiles as cards with their name.  The board is photographed with a1 at the picture's top
left (NOSTICKERS.md's teaching), the camera rolled at most a few degrees.

    python tests/vision_outside_nostickers.py OUTDIR [LOOK]   # the layout's photos of one box
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vision_outside_renderer as out  # noqa: E402

LAYOUT_PATH = Path(__file__).resolve().parents[1] / "vision" / "teaching_layout.json"
SCHEME = out.load()            # sizes only: the squares, the sheet and the card zone (BOARD.md)
Q = SCHEME["square_mm"]
COLOURS = ("blue", "yellow", "red", "green", "purple", "black", "white")
# The outside party's own hues (degrees, saturation, value) per colour; each box moves them a little.
HUES = {"blue": (220, 0.75, 0.75), "yellow": (52, 0.85, 0.92), "red": (2, 0.8, 0.8), "green": (125, 0.7, 0.6),
        "purple": (285, 0.6, 0.6), "black": (0, 0.0, 0.16), "white": (40, 0.05, 0.93)}


def load_layout(path=LAYOUT_PATH) -> list[dict]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    assert data["format"] == "flure-teach/1", data.get("format")
    return data["steps"]


def _bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    c = v * s
    x = c * (1 - abs((h / 60) % 2 - 1))
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h // 60) % 6]
    m = v - c
    return tuple(int(255 * (u + m)) for u in (b, g, r))


@dataclass
class Look:
    """One box: its board art and its pieces' pictures (textures, BGR uint8, square)."""

    seed: int

    def __post_init__(self):
        rng = np.random.default_rng([self.seed, 27])
        self.rng_seed = int(rng.integers(1 << 30))
        self.pawn_bgr = {}
        for c, (h, s, v) in HUES.items():
            self.pawn_bgr[c] = _bgr((h + rng.uniform(-8, 8)) % 360, min(1, s * rng.uniform(0.85, 1.1)),
                                    min(1, v * rng.uniform(0.85, 1.05)))
        self.black_share = float(rng.uniform(0.45, 0.7))      # how much of the partly black face is black
        self.black_shape = int(rng.integers(3))               # half disc, a wedge, a ring
        self.emblem = int(rng.integers(3))                    # the coloured face's picture
        self.stone_bgr = tuple(int(v) for v in rng.integers(95, 160, 3))
        self.tele_bgr = _bgr(float(rng.uniform(0, 360)), 0.6, 0.55)
        self.water_bgr = _bgr(float(rng.uniform(185, 215)), 0.7, float(rng.uniform(0.5, 0.75)))
        self.monster_bgr = _bgr(float(rng.uniform(0, 360)), float(rng.uniform(0.3, 0.8)), float(rng.uniform(0.25, 0.5)))
        self.monster_h = float(rng.uniform(45, 70))
        self.board = self._board(rng)

    # -- the board's printed picture --------------------------------------------------------
    def _board(self, rng) -> np.ndarray:
        sh = SCHEME["sheet_mm"]
        ppm = 3
        w, h = int((sh["right"] - sh["left"]) * ppm), int((sh["bottom"] - sh["top"]) * ppm)
        base = rng.integers(70, 150, 3).astype(np.float32)
        tex = np.empty((h, w, 3), np.float32)
        tex[:] = base * 0.5
        for r in range(11):
            for c in range(16):
                x0, y0 = int((c * Q - sh["left"]) * ppm), int((r * Q - sh["top"]) * ppm)
                shade = base + rng.uniform(-25, 25) + rng.uniform(-8, 8, 3)
                cv2.rectangle(tex, (x0 + 2, y0 + 2), (x0 + int(Q * ppm) - 3, y0 + int(Q * ppm) - 3),
                              tuple(float(v) for v in shade), -1)
        tex = np.clip(tex, 0, 255).astype(np.uint8)
        for _ in range(260):          # cracks and worn marks
            pts = np.cumsum(rng.normal(0, 9, (int(rng.integers(3, 7)), 2)), axis=0) + rng.uniform([0, 0], [w, h])
            cv2.polylines(tex, [pts.astype(np.int32)], False, tuple(int(v) for v in base * rng.uniform(0.3, 0.6)),
                          int(rng.integers(1, 3)), cv2.LINE_AA)
        for _ in range(60):           # runes scratched into the slabs
            x, y = rng.uniform([0, 0], [w, h])
            cv2.putText(tex, "ABCDEFGHKMNRSTXZ"[int(rng.integers(16))], (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX,
                        float(rng.uniform(0.5, 1.2)), tuple(int(v) for v in base * 0.35), 2, cv2.LINE_AA)
        cv2.putText(tex, "AUSGANG", (int((2 - sh["left"]) * ppm), int((-3 - sh["top"]) * ppm)),
                    cv2.FONT_HERSHEY_DUPLEX, 1.0, (30, 30, 30), 2, cv2.LINE_AA)
        return np.clip(tex + rng.normal(0, 5, (h, w, 1)), 0, 255).astype(np.uint8)

    # -- the pieces' pictures --------------------------------------------------------------
    def pawn_face(self, colour: str, pawn: str, face: str, px: int = 96) -> np.ndarray:
        col = self.pawn_bgr[colour]
        tex = np.zeros((px, px, 3), np.uint8)
        tex[:] = col
        c = px // 2
        ink = (20, 20, 20) if sum(col) > 380 else (240, 240, 240)
        first, second = pawn.split("/")
        if face == "white":
            if self.emblem == 0:
                cv2.circle(tex, (c, int(px * 0.32)), px // 8, ink, -1, cv2.LINE_AA)       # a head
                cv2.ellipse(tex, (c, int(px * 0.62)), (px // 5, px // 7), 0, 180, 360, ink, -1, cv2.LINE_AA)
            elif self.emblem == 1:
                cv2.circle(tex, (c, c), int(px * 0.38), ink, 3, cv2.LINE_AA)
            else:
                cv2.drawMarker(tex, (c, int(px * 0.35)), ink, cv2.MARKER_STAR, px // 4, 3)
            number = first
        else:
            dark = (18, 18, 18) if colour != "black" else (60, 60, 60)
            if self.black_shape == 0:
                tex[int(px * (1 - self.black_share)):] = dark
            elif self.black_shape == 1:
                cv2.ellipse(tex, (c, c), (px, px), -90, 0, 360 * self.black_share, dark, -1, cv2.LINE_AA)
            else:
                cv2.circle(tex, (c, c), int(c * math.sqrt(self.black_share) * 1.05), dark, -1, cv2.LINE_AA)
            ink = (235, 235, 235)
            number = second
        cv2.putText(tex, number, (int(px * 0.36), int(px * 0.78)), cv2.FONT_HERSHEY_DUPLEX, px / 60, ink, 3,
                    cv2.LINE_AA)
        return tex

    def stone_face(self, kind: str, px: int = 84) -> np.ndarray:
        tex = np.zeros((px, px, 3), np.uint8)
        tex[:] = self.stone_bgr
        rng = np.random.default_rng([self.seed, len(kind)])
        tex = np.clip(tex + rng.normal(0, 12, (px, px, 1)), 0, 255).astype(np.uint8)
        cv2.rectangle(tex, (2, 2), (px - 3, px - 3), (40, 40, 40), 2)
        c = px // 2
        if kind == "crystal":
            pts = np.array([[c, 12], [px - 18, c], [c, px - 12], [18, c]], np.int32)
            cv2.fillPoly(tex, [pts], (220, 200, 60), cv2.LINE_AA)
        elif kind == "pivot-right":
            cv2.ellipse(tex, (c, c), (px // 3, px // 3), 0, 180, 450, (30, 60, 200), 5, cv2.LINE_AA)
            cv2.arrowedLine(tex, (c, c - px // 3), (c + 12, c - px // 3), (30, 60, 200), 5, tipLength=0.9)
        elif kind == "pivot-about":
            cv2.ellipse(tex, (c, c), (px // 3, px // 3), 0, 0, 330, (40, 160, 40), 5, cv2.LINE_AA)
            cv2.circle(tex, (c, c), 7, (40, 160, 40), -1, cv2.LINE_AA)
        return tex

    def teleporter(self, pair: int, arrow: str, px: int = 84) -> np.ndarray:
        tex = np.zeros((px, px, 3), np.uint8)
        tex[:] = self.tele_bgr
        c = px // 2
        cv2.circle(tex, (c, c), int(px * 0.36), (230, 230, 230), 3, cv2.LINE_AA)
        for k in range(pair):
            cv2.circle(tex, (c - 10 + 20 * k if pair == 2 else c, c), 6, (240, 240, 240), -1, cv2.LINE_AA)
        d = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}[arrow]
        tip = (c + int(d[0] * px * 0.44), c + int(d[1] * px * 0.44))
        cv2.arrowedLine(tex, (c + d[0] * 12, c + d[1] * 12), tip, (250, 250, 250), 4, tipLength=0.5)
        return tex

    def water(self, px: int = 90) -> np.ndarray:
        rng = np.random.default_rng([self.seed, 3])
        tex = np.zeros((px, px, 3), np.float32)
        tex[:] = self.water_bgr
        yy, xx = np.mgrid[0:px, 0:px]
        tex += (np.sin(xx * 0.3 + rng.uniform(0, 6)) * np.sin(yy * 0.21) * 14)[..., None]
        return np.clip(tex, 0, 255).astype(np.uint8)

    def card(self, tile: str) -> np.ndarray:
        tex = np.zeros((150, 110, 3), np.uint8)
        tex[:] = (55, 60, 70)
        cv2.rectangle(tex, (5, 5), (104, 144), (200, 200, 200), 2)
        text = tile.replace("prey-", "P")
        cv2.putText(tex, text, (18 if len(text) > 1 else 35, 100), cv2.FONT_HERSHEY_DUPLEX, 2.0, (230, 230, 230), 3,
                    cv2.LINE_AA)
        return tex


def _disc_alpha(px: int) -> np.ndarray:
    yy, xx = np.mgrid[0:px, 0:px]
    r = np.hypot(xx - px / 2 + 0.5, yy - px / 2 + 0.5)
    return np.clip(px / 2 - r, 0, 1).astype(np.float32)


def _quad(x, y, half, z, turn_deg=0.0):
    a = math.radians(turn_deg)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    pts = [np.array([x, y]) + half * (sx * u + sy * v) for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    return np.array([(p[0], p[1], -z) for p in pts])


def render(setup: dict, tile: str | None, look: Look, style: out.Style, *, jitter_mm: float = 0.0,
           seed: int = 0) -> np.ndarray:
    """A BGR photo of ``setup`` (scenario setup, pools as the squares they cover) and ``tile`` in the
    card zone, of the box ``look`` by the camera and in the room of ``style``."""
    rng = np.random.default_rng([look.rng_seed, style.seed, seed])
    cam = out.Camera(style, SCHEME)
    canvas = np.empty((style.height, style.width, 3), np.float32)
    canvas[:] = style.table_bgr
    canvas += rng.normal(0, 4, (style.height, style.width, 1)).astype(np.float32)
    if style.wood:
        yy, xx = np.mgrid[0:style.height, 0:style.width].astype(np.float32)
        canvas += (np.sin((xx * 0.02 + yy * 0.15) + 3 * np.sin(xx * 0.003)) * 18)[..., None] * \
            np.array([0.6, 0.8, 1.0], np.float32)
    sh = SCHEME["sheet_mm"]
    sheet = np.array([[sh["left"], sh["top"], 0], [sh["right"], sh["top"], 0], [sh["right"], sh["bottom"], 0],
                      [sh["left"], sh["bottom"], 0]], float)
    out._paste(canvas, look.board, cam.project(sheet))

    def jit():
        return rng.uniform(-jitter_mm, jitter_mm, 2) if jitter_mm else np.zeros(2)

    def centre(sq):
        x, y = out.square_centre(sq, Q)
        dx, dy = jit()
        return x + dx, y + dy

    for sq in setup.get("pools", []):
        x, y = out.square_centre(sq, Q)
        out._paste(canvas, look.water(), cam.project(_quad(x, y, Q / 2 - 0.5, 1.0)))
    for sq, t in setup.get("teleporters", {}).items():
        x, y = centre(sq)
        out._poly(canvas, out._hull(cam, _quad(x, y, 14, 0)[:, :2], 2.0), (40, 40, 40))
        out._paste(canvas, look.teleporter(int(t["pair"]), t["arrow"]),
                   cam.project(_quad(x, y, 14, 2.0, float(rng.uniform(-4, 4)))))
    for sq, kind in setup.get("stones", {}).items():
        x, y = centre(sq)
        out._poly(canvas, out._hull(cam, _quad(x, y, 14, 0)[:, :2], 2.0), (50, 50, 50))
        out._paste(canvas, look.stone_face(kind), cam.project(_quad(x, y, 14, 2.0, 90 * int(rng.integers(4))
                                                                    + float(rng.uniform(-5, 5)))))
    for p in sorted(setup.get("pawns", {}).values(), key=lambda p: out.square_centre(p["at"], Q)[1]):
        x, y = centre(p["at"])
        ring = [(x + 12 * math.cos(t), y + 12 * math.sin(t)) for t in np.linspace(0, 2 * math.pi, 40)]
        out._poly(canvas, out._hull(cam, ring, 8.0), (45, 70, 100))           # the wood's edge
        out._paste(canvas, look.pawn_face(p["color"], p["pawn"], p["face"]),
                   cam.project(_quad(x, y, 12, 8.0, float(rng.uniform(0, 360)))), _disc_alpha(96))
    if setup.get("monster"):
        m = setup["monster"]
        x, y = out.square_centre(m["at"], Q)
        foot = _quad(x, y, 13, 0)[:, :2]
        out._poly(canvas, out._hull(cam, foot, look.monster_h), tuple(0.6 * v for v in look.monster_bgr))
        top = _quad(x, y, 13, look.monster_h)
        out._poly(canvas, cam.project(top), look.monster_bgr)
        d = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}[m["facing"]]
        for side in (-1, 1):
            ex, ey = x + d[0] * 8 + side * d[1] * 5, y + d[1] * 8 - side * d[0] * 5
            eye = [(ex + 2.5 * math.cos(t), ey + 2.5 * math.sin(t), -look.monster_h) for t in np.linspace(0, 6.3, 16)]
            out._poly(canvas, cam.project(eye), (40, 230, 240))
    if tile is not None:
        z = SCHEME["card_zone_mm"]
        x, y = z["x"] + z["width"] / 2 + float(rng.uniform(-4, 4)), z["y"] + z["height"] / 2 + float(rng.uniform(-4, 4))
        quad = np.array([(x - 26, y - 36, -0.5), (x + 26, y - 36, -0.5), (x + 26, y + 36, -0.5), (x - 26, y + 36, -0.5)])
        out._paste(canvas, look.card(tile), cam.project(quad))
    return out.finish(canvas, style, rng)


def camera(rng, *, near: bool) -> out.Style:
    """A camera over the table and a room: near-nominal (tilt < 10°, blur ≤ 0.8 px, no shadow) or harder
    (tilt 10-25°, blur up to 1.8 px, a shadow one time in three); warm or dim light now and then."""
    tint = (1.0, 1.0, 1.0)
    pick = rng.random()
    if pick < 0.25:
        tint = (float(rng.uniform(0.7, 0.85)), float(rng.uniform(0.88, 0.95)), 1.05)      # warm bulb
    elif pick < 0.4:
        tint = (float(rng.uniform(0.55, 0.7)),) * 3                                       # dim room
    tilt = float(rng.uniform(0, 9)) if near else float(rng.uniform(10, 25))
    blur = (float(rng.uniform(0, 0.8)) if rng.random() < 0.5 else 0.0) if near else float(rng.uniform(0.5, 1.8))
    shadow = float(rng.uniform(0.15, 0.35)) if not near and rng.random() < 1 / 3 else 0.0
    style = out.Style(width=1920, height=1080, cam_height_mm=800.0, tilt_deg=tilt,
                      tilt_towards_deg=float(rng.uniform(0, 360)), roll_deg=float(rng.uniform(-6, 6)),
                      offset_mm=(float(rng.uniform(-20, 20)), float(rng.uniform(-20, 20))),
                      hfov_deg=float(rng.uniform(50, 80)),
                      table_bgr=tuple(int(v) for v in rng.integers(20, 200, 3)), wood=bool(rng.random() < 0.4),
                      light=float(rng.uniform(0, 0.4)), tint=tint, noise=float(rng.uniform(0, 3)), blur=blur,
                      jpeg=int(rng.integers(70, 96)), shadow=shadow,
                      shadow_origin=(float(rng.uniform(0.3, 0.7)), float(rng.uniform(0.3, 0.7))),
                      shadow_angle_deg=float(rng.uniform(0, 360)), shadow_soft_px=float(rng.uniform(2, 40)),
                      seed=int(rng.integers(1 << 30)))
    return out.fit_camera(style, SCHEME, float(rng.uniform(1.05, 1.3)))


def near_nominal(style: out.Style) -> bool:
    return style.tilt_deg < 10 and style.blur <= 0.8 and not style.shadow


def teaching_photos(look: Look, style: out.Style, steps=None) -> list[np.ndarray]:
    return [render(step["setup"], step["tile"], look, style, jitter_mm=1.0, seed=n)
            for n, step in enumerate(steps or load_layout())]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    folder = Path(argv[0] if argv else "outside-nostickers")
    look = Look(int(argv[1]) if len(argv) > 1 else 1)
    folder.mkdir(parents=True, exist_ok=True)
    style = camera(np.random.default_rng(look.seed), near=True)
    for n, img in enumerate(teaching_photos(look, replace(style)), 1):
        cv2.imwrite(str(folder / f"step{n:02d}.jpg"), img)
    print(f"wrote the layout's photos of box {look.seed} to {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
