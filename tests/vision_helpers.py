"""A small pinhole renderer for reader tests.

It is separate from ``vision.twin.scene`` (the product's digital twin): it draws only what
the marker scheme promises — ArUco stickers with a white quiet zone at their board-frame
position and height — on a plain board.  It is *not* independent of the product's reading
of the scheme file, though: it uses ``vision.scheme`` (``load_scheme``,
``marker_corners_mm``, ``rotation_for``), so a misread convention there would be shared.
``vision_outside_renderer`` is the one written from VISION.md and the JSON alone.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.geometry import COLS, SQUARES
from engine.position import Position
from vision.scheme import Scheme, load_scheme, marker_corners_mm


@dataclass
class Camera:
    k: np.ndarray
    r: np.ndarray      # board -> camera rotation
    t: np.ndarray      # board -> camera translation
    size: tuple[int, int]

    def project(self, pts3: np.ndarray) -> np.ndarray:
        pts3 = np.asarray(pts3, dtype=np.float64).reshape(-1, 3)
        cam = (self.r @ pts3.T).T + self.t
        uv = (self.k @ cam.T).T
        return uv[:, :2] / uv[:, 2:3]

    def board_homography(self) -> np.ndarray:
        return self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], self.t])


def make_camera(width=1920, height=1080, height_mm=900.0, tilt_deg=0.0, rotation_deg=0.0,
                hfov_deg=60.0, target=(240.0, 165.0), offset=(0.0, 0.0)) -> Camera:
    """A camera ``height_mm`` above the board looking at ``target``, tilted towards -y."""
    f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1.0]])
    tx, ty = target[0] + offset[0], target[1] + offset[1]
    back = height_mm * math.tan(math.radians(tilt_deg))
    c = np.array([tx, ty + back, -height_mm])
    fwd = np.array([tx, ty, 0.0]) - c
    fwd /= np.linalg.norm(fwd)
    hint = np.array([0.0, 1.0, 0.0])
    y = hint - (hint @ fwd) * fwd
    y /= np.linalg.norm(y)
    x = np.cross(y, fwd)
    a = math.radians(rotation_deg)
    x, y = math.cos(a) * x + math.sin(a) * y, -math.sin(a) * x + math.cos(a) * y
    r = np.vstack([x, y, fwd])
    return Camera(k, r, -r @ c, (width, height))


def stickers_for(position: Position, tile: str | None, scheme: Scheme) -> list[tuple[int, float, float, int]]:
    """(id, x_mm, y_mm, rotation) for every sticker showing the position."""
    out = []
    q = scheme.square_mm
    by = {}
    for st in scheme.stickers.values():
        by.setdefault(st.piece, []).append(st)

    def centre(sq):
        return ((sq % COLS) + 0.5) * q, ((sq // COLS) + 0.5) * q

    mon = by["monster"][0]
    out.append((mon.id, *centre(position.monster), scheme.rotation_for("NESW"[position.facing], "monster")))
    tiles_used: set = set()
    for sq, kind in sorted(position.stones.items()):
        st = next(s for s in by["stone"] if s.kind == kind and s.tile not in tiles_used)
        tiles_used.add(st.tile)
        out.append((st.id, *centre(sq), 0))
    tele_used: set[int] = set()
    for sq, tp in sorted(position.teleporters.items()):
        st = next(s for s in by["teleporter"] if s.pair == tp.pair and s.id not in tele_used)
        tele_used.add(st.id)
        out.append((st.id, *centre(sq), scheme.rotation_for("NESW"[tp.arrow], "teleporter")))
    for pw in position.pawns:
        if pw.square is None:
            continue
        st = next(s for s in by["pawn"] if s.colour == pw.colour and s.pawn == pw.kind and s.face == pw.face)
        out.append((st.id, *centre(pw.square), 0))
    for anchor, shape, orient in pool_pieces(position.pools):
        st = next(s for s in by["pool"] if s.shape == shape)
        rot = scheme.rotation_for(orient, "pool") if orient else 0
        out.append((st.id, *centre(anchor), rot))
    if tile is not None:
        st = next(s for s in by["tile"] if s.tile == tile)
        x, y, w, h = scheme.card_zone_mm
        out.append((st.id, x + w / 2, y + h / 2, 0))
    return out


def pool_pieces(pools) -> list[tuple[int, str, str | None]]:
    """Split pool squares into the 2x2 and 1x4 tiles: (anchor, shape, orientation)."""
    left, out = set(pools), []
    for sq in sorted(pools):
        if sq not in left:
            continue
        block = {sq, sq + 1, sq + COLS, sq + COLS + 1}
        row = {sq + i for i in range(4)}
        col = {sq + i * COLS for i in range(4)}
        if block <= left:
            out.append((sq, "2x2", None)); left -= block
        elif row <= left:
            out.append((sq, "1x4", "horizontal")); left -= row
        elif col <= left:
            out.append((sq, "1x4", "vertical")); left -= col
        else:
            raise ValueError(f"pools {sorted(pools)} are not 2x2/1x4 tiles")
    return out


def render(position: Position | None, tile: str | None = None, *, camera: Camera | None = None,
           scheme: Scheme | None = None, extra: list[tuple[int, float, float, int]] = (),
           hide_board_markers: tuple[int, ...] = (), heights: bool = True,
           board_colour=(70, 95, 120), noise: float = 0.0, seed: int = 0) -> np.ndarray:
    """Render stickers (plus ``extra`` ones) as ``camera`` sees them; BGR uint8."""
    scheme = scheme or load_scheme()
    camera = camera or make_camera()
    w, h = camera.size
    img = np.full((h, w, 3), 150, np.uint8)
    # The board sheet with its grid, drawn in the board plane.
    s = scheme.sheet_mm
    ppm = 2.0
    sheet = np.zeros((int((s["bottom"] - s["top"]) * ppm), int((s["right"] - s["left"]) * ppm), 3), np.uint8)
    sheet[:] = board_colour
    q = scheme.square_mm
    for sq in SQUARES:
        x0 = ((sq % COLS) * q - s["left"]) * ppm
        y0 = ((sq // COLS) * q - s["top"]) * ppm
        cv2.rectangle(sheet, (int(x0), int(y0)), (int(x0 + q * ppm), int(y0 + q * ppm)), (40, 50, 60), 1)
    to_sheet = np.array([[1 / ppm, 0, s["left"]], [0, 1 / ppm, s["top"]], [0, 0, 1]])
    hmat = camera.board_homography() @ to_sheet
    warped = cv2.warpPerspective(sheet, hmat, (w, h))
    mask = cv2.warpPerspective(np.full(sheet.shape[:2], 255, np.uint8), hmat, (w, h))
    img[mask > 0] = warped[mask > 0]

    dic = scheme.aruco_dictionary()
    items = []
    for m in scheme.board_markers:
        if m.id not in hide_board_markers:
            items.append((m.id, m.center_mm[0], m.center_mm[1], m.rotation, m.size_mm, 0.0))
    stickers = (stickers_for(position, tile, scheme) if position is not None else []) + list(extra)
    for sid, x, y, rot in stickers:
        st = scheme.stickers.get(sid)
        size = st.size_mm if st else 20.0
        hgt = st.height_mm if (st and heights) else 0.0
        items.append((sid, x, y, rot, size, hgt))
    for sid, x, y, rot, size, hgt in items:
        _draw_marker(img, camera, dic, sid, (x, y), size, rot, hgt)
    if noise:
        rng = np.random.default_rng(seed)
        img = np.clip(img + rng.normal(0, noise, img.shape), 0, 255).astype(np.uint8)
    return img


def _draw_marker(img, camera: Camera, dic, sid, centre, size, rot, height):
    cells = dic.markerSize + 2
    px = 10 * (cells + 2)      # marker plus one white cell of quiet zone each side
    marker = cv2.aruco.generateImageMarker(dic, sid, 10 * cells)
    tile = np.full((px, px), 255, np.uint8)
    tile[10:-10, 10:-10] = marker
    quiet = size * (cells + 2) / cells
    corners = np.array(marker_corners_mm(centre, quiet, rot))
    pts3 = np.column_stack([corners, np.full(4, -height)])
    dst = camera.project(pts3).astype(np.float32)
    src = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 1
    h, w = img.shape[:2]
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    m = cv2.getPerspectiveTransform(src, dst - np.array([x0, y0], np.float32))
    roi = (x1 - x0, y1 - y0)
    warped = cv2.warpPerspective(tile, m, roi, flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full_like(tile, 255), m, roi, flags=cv2.INTER_NEAREST)
    region = img[y0:y1, x0:x1]
    region[mask > 0] = warped[mask > 0][:, None]


def pos(monster="j8", facing="E", stones=None, pools=None, teleporters=None, pawns=None):
    return Position.from_setup({"monster": {"at": monster, "facing": facing}, "stones": stones or {},
                                "pools": pools or [], "teleporters": teleporters or {},
                                "pawns": pawns or {}}, strict=False)


def pawn(at, colour, kind, face="white"):
    return {"at": at, "color": colour, "pawn": kind, "face": face}


def draw_hand(image, reading, over: str, colour=(120, 160, 215)):
    """A skin-coloured hand and forearm reaching in from the bottom edge to cover ``over``."""
    from engine.geometry import parse_square
    loc = reading.location
    tip = loc.to_image(np.array([load_scheme().square_center_mm(parse_square(over))]))[0]
    out = image.copy()
    h, w = out.shape[:2]
    base = np.array([tip[0] + 0.1 * w, h + 50])
    cv2.line(out, tuple(tip.astype(int)), tuple(base.astype(int)), colour, int(0.07 * w))
    cv2.ellipse(out, tuple(tip.astype(int)), (int(0.045 * w), int(0.06 * w)), 20, 0, 360, colour, -1)
    return out
