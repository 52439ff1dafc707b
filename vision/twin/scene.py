"""The synthetic camera: the digital twin, the demo default and the test-data generator.

``render(position, tile)`` draws what an overhead camera sees of a position on the real
table: the board to scale, the pieces with their stickers from the marker scheme, lifted to
their real heights (pawn discs 8 mm, the monster's sticker 60 mm up), through a posed pinhole
camera with lens distortion, then the room and the sensor: uneven light, colour temperature,
a glare spot, a hand and forearm, blur, noise and JPEG.  It returns the BGR image and its
ground truth (``Truth``): the position and tile, the camera used, and every sticker's pixel
corners, size and how much of it is visible.

Seeded and deterministic: the same arguments give the same bytes.  ``render_burst`` gives
consecutive frames of one scene (only the sensor noise differs), as a still table filmed by a
real camera would, which is what the reader's stability check needs.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from engine.geometry import SQUARES, parse_square, square_name
from engine.position import BOARD, Position

from ..scheme import Scheme, load_scheme
from . import effects as fx
from .board import TABLE, TEXTURE_ORIGIN_MM, TEXTURE_SIZE_MM, board_texture
from .camera import DEFAULT_HFOV_DEG, Camera, mm_to_texture, pose_camera, sample, texture_map
from .look import Look, art_board_texture
from .pieces import LayoutError, Placed, body_of, layout, piece_face
from .positions import random_position

__all__ = ["render", "render_burst", "Truth", "StickerTruth", "LayoutError", "random_position"]


@dataclass(frozen=True)
class StickerTruth:
    """Where one sticker ended up: board frame, pixels, and how much of it the camera sees."""

    id: int
    what: str
    square: str | None
    centre_mm: tuple[float, float]
    rotation: float
    height_mm: float
    corners_px: tuple[tuple[float, float], ...]
    side_px: float
    visible: float  # fraction of the marker not hidden by other pieces or the hand

    def to_json(self) -> dict:
        return {"id": self.id, "what": self.what, "square": self.square,
                "centre_mm": [round(v, 2) for v in self.centre_mm], "rotation": round(self.rotation, 2),
                "height_mm": self.height_mm, "corners_px": [[round(a, 2), round(b, 2)] for a, b in self.corners_px],
                "side_px": round(self.side_px, 2), "visible": round(self.visible, 3)}


@dataclass
class Truth:
    """Ground truth of one rendered frame.

    ``position`` holds only what is on the board (pawns waiting or out are not in the
    picture); ``camera`` projects board-frame points (``camera.project(xy, height_mm)``).
    """

    position: Position
    tile: str | None
    camera: Camera
    pose: dict
    perturbations: dict
    stickers: list[StickerTruth]
    board_markers: list[StickerTruth]
    occluded_squares: list[str] = field(default_factory=list)
    seed: int = 0
    square_mm: float = 30.0

    @property
    def min_sticker_px(self) -> float:
        """Side of the smallest piece sticker in pixels (the eval's "≥ 14 px" criterion)."""
        return min((s.side_px for s in self.stickers), default=float("nan"))

    @property
    def occluded(self) -> bool:
        return bool(self.occluded_squares) or any(s.visible < 0.98 for s in self.stickers)

    def sticker(self, marker_id: int) -> StickerTruth:
        return next(s for s in self.stickers + self.board_markers if s.id == marker_id)

    def to_json(self) -> dict:
        return {"setup": _setup(self.position), "tile": self.tile, "seed": self.seed,
                "camera": self.camera.to_json(), "pose": self.pose, "perturbations": self.perturbations,
                "min_sticker_px": round(self.min_sticker_px, 2),
                "occluded_squares": self.occluded_squares,
                "stickers": [s.to_json() for s in self.stickers],
                "board_markers": [s.to_json() for s in self.board_markers]}


def _setup(position: Position) -> dict:
    """The setup on the table (a teaching step's position may have no monster: no ``monster`` key)."""
    if position.monster is not None:
        return position.to_setup()
    setup = replace(position, monster=0).to_setup()
    del setup["monster"]
    return setup


def render(position: Position, tile: str | None = None, *, seed: int = 0, width: int = 1920,
           height: int = 1080, height_mm: float = 900.0, tilt_deg: float = 0.0,
           tilt_azimuth_deg: float = 180.0, rotation_deg: float = 0.0, offset_mm=(0.0, 0.0),
           hfov_deg: float = DEFAULT_HFOV_DEG, distortion=0.0, light: float = 0.0,
           colour_temp: float = 5500.0, glare: float = 0.0, noise: float = 0.0, blur: float = 0.0,
           jpeg_quality: int | None = None, occluder: str | None = None,
           scheme: Scheme | str | Path | None = None, supersample: int = 2,
           frame: int = 0, hand_over: str | None = None, stickers: bool = True,
           look_seed: int = 0) -> tuple[np.ndarray, Truth]:
    """Draw ``position`` (and the tombstone ``tile`` in the card zone) as a camera sees it.

    Camera: ``height_mm`` above the board, ``tilt_deg`` from vertical (standing towards
    ``tilt_azimuth_deg``), ``rotation_deg`` about its axis, aimed at the grid centre plus
    ``offset_mm``; ``distortion`` is the radial k1 (or OpenCV coefficients).
    Room and sensor: ``light`` 0..1 unevenness, ``colour_temp`` in kelvin (camera balanced for
    5500 K), ``glare`` 0..1, ``occluder`` None or ``"hand"`` (over a random square, or the
    square ``hand_over``: a hand moving over a still table), ``blur`` Gaussian sigma in
    pixels, ``noise`` sigma in 8-bit levels, ``jpeg_quality`` 1..100 or None.
    ``frame`` numbers consecutive frames of one still scene: same layout and light, new noise.
    ``stickers=False`` draws the box without stickers (NOSTICKERS.md): the pieces' own pictures and the
    board's printed art of the look ``look_seed`` (``look.Look``), no corner markers; ``position.monster``
    None leaves the monster off the table (a teaching step without it).
    Raises LayoutError (a ValueError) when the position needs pieces the game does not have.
    """
    return render_burst(position, tile, frames=1, first_frame=frame, seed=seed, width=width, height=height,
                        height_mm=height_mm, tilt_deg=tilt_deg, tilt_azimuth_deg=tilt_azimuth_deg,
                        rotation_deg=rotation_deg, offset_mm=offset_mm, hfov_deg=hfov_deg,
                        distortion=distortion, light=light, colour_temp=colour_temp, glare=glare,
                        noise=noise, blur=blur, jpeg_quality=jpeg_quality, occluder=occluder,
                        scheme=scheme, supersample=supersample, hand_over=hand_over, stickers=stickers,
                        look_seed=look_seed)[0]


def render_burst(position: Position, tile: str | None = None, *, frames: int = 3, first_frame: int = 0,
                 seed: int = 0,
                 width: int = 1920, height: int = 1080, height_mm: float = 900.0, tilt_deg: float = 0.0,
                 tilt_azimuth_deg: float = 180.0, rotation_deg: float = 0.0, offset_mm=(0.0, 0.0),
                 hfov_deg: float = DEFAULT_HFOV_DEG, distortion=0.0, light: float = 0.0,
                 colour_temp: float = 5500.0, glare: float = 0.0, noise: float = 0.0, blur: float = 0.0,
                 jpeg_quality: int | None = None, occluder: str | None = None,
                 scheme: Scheme | str | Path | None = None,
                 supersample: int = 2, hand_over: str | None = None, stickers: bool = True,
                 look_seed: int = 0) -> list[tuple[np.ndarray, Truth]]:
    """``frames`` consecutive frames of one still scene (see ``render``), numbered from
    ``first_frame``; frame k is exactly what ``render(..., frame=k)`` returns."""
    if occluder not in (None, "hand"):
        raise ValueError(f"unknown occluder {occluder!r} (None or 'hand')")
    if jpeg_quality is not None and not 1 <= int(jpeg_quality) <= 100:
        raise ValueError(f"jpeg_quality {jpeg_quality} must be 1..100")
    if not isinstance(scheme, Scheme):
        scheme = load_scheme(scheme)
    scene_args = dict(seed=seed, width=width, height=height, height_mm=height_mm, tilt_deg=tilt_deg,
                      tilt_azimuth_deg=tilt_azimuth_deg, rotation_deg=rotation_deg,
                      offset_mm=tuple(offset_mm), hfov_deg=hfov_deg,
                      distortion=distortion if isinstance(distortion, (int, float)) else tuple(distortion),
                      light=light, colour_temp=colour_temp, glare=glare, blur=blur, occluder=occluder,
                      supersample=max(1, int(supersample)), hand_over=hand_over,
                      look=None if stickers else Look.from_seed(look_seed))
    key = (position, tile, tuple(sorted(scene_args.items())))
    kept = _last_scene.get("entry")   # one read: another thread may replace it meanwhile
    if kept is not None and kept[0] == key and kept[1] is scheme:
        img, cam, drawn, occluded = kept[2]
    else:
        img, cam, drawn, occluded = _draw_still(position, tile, scheme, **scene_args)
        _last_scene["entry"] = (key, scheme, (img, cam, drawn, occluded))

    pose = {"height_mm": height_mm, "tilt_deg": tilt_deg, "tilt_azimuth_deg": tilt_azimuth_deg,
            "rotation_deg": rotation_deg, "offset_mm": list(offset_mm), "hfov_deg": hfov_deg,
            "distortion": distortion if isinstance(distortion, (int, float)) else list(distortion)}
    perturb = {"light": light, "colour_temp": colour_temp, "glare": glare, "noise": noise, "blur": blur,
               "jpeg_quality": jpeg_quality, "occluder": occluder, "width": width, "height": height}
    if not stickers:
        perturb.update(stickers=False, look_seed=look_seed)
    seen = Position(position.monster, position.facing, position.stones, position.pools,
                    position.teleporters, tuple(p for p in position.pawns if p.place == BOARD))
    piece_stickers = [s for s in drawn if s.id not in scheme.board_marker_ids]
    markers = [s for s in drawn if s.id in scheme.board_marker_ids]
    out = []
    for f in range(first_frame, first_frame + frames):
        frng = np.random.default_rng([seed, 1, f])
        frame = fx.jpeg(fx.to_uint8(fx.sensor_noise(img, noise, frng)), jpeg_quality)
        truth = Truth(seen, tile, cam, pose, perturb, piece_stickers, markers, occluded, seed, scheme.square_mm)
        out.append((frame, truth))
    return out


# The last still scene drawn (before sensor noise and JPEG): the digital twin asks for frame
# after frame of an unchanged position, and only the noise differs between them.
_last_scene: dict = {}


def _draw_still(position: Position, tile: str | None, scheme: Scheme, *, seed, width, height, height_mm,
                tilt_deg, tilt_azimuth_deg, rotation_deg, offset_mm, hfov_deg, distortion, light,
                colour_temp, glare, blur, occluder, supersample, hand_over=None, look=None):
    """Everything up to the sensor: the posed camera, the table, the room's light and the hand.
    Returns the float32 image, the camera, every sticker's truth and the occluded squares."""
    cam = pose_camera(width, height, height_mm=height_mm, tilt_deg=tilt_deg,
                      tilt_azimuth_deg=tilt_azimuth_deg, rotation_deg=rotation_deg,
                      offset_mm=offset_mm, hfov_deg=hfov_deg, distortion=distortion)
    rng = np.random.default_rng([seed, 0])
    placed = layout(position, tile, scheme, rng, look=look)
    room = room_rng(seed, look, rng)
    lamp = Lamp(room.uniform(0, 360), room.uniform(45, 75), 0.15 + 0.2 * min(1.0, max(0.0, light)))
    img, stickers = _draw_scene(cam, scheme, placed, supersample, lamp, look)
    occluded: list[str] = []
    if occluder == "hand":
        stickers, occluded = _add_hand(img, cam, scheme, stickers, rng, height_mm, hand_over)
    img = fx.uneven_light(img, light, room, away=_image_direction(cam, lamp))
    img = fx.colour_temperature(img, colour_temp)
    img = fx.glare(img, glare, room)
    img = fx.defocus(img, blur)
    return img, cam, stickers, occluded


def room_rng(seed: int, look, rng):
    """Where the room's lamp, uneven light and glare are drawn from.  Without stickers, from the seed alone:
    one room whatever lies on the table (the teaching photos and the game's frames of one seed share
    their light, as a family teaches and plays in one room); with stickers, as it always was (after the
    layout, so the light changes with the pieces)."""
    return rng if look is None else np.random.default_rng([seed, 3])


# -- drawing -----------------------------------------------------------------------

def _scale_at_board(cam: Camera) -> float:
    """Pixels per millimetre on the board near the middle of the grid."""
    a, b = cam.project([(230.0, 165.0), (250.0, 165.0)])
    return float(np.hypot(*(b - a))) / 20.0


@dataclass(frozen=True)
class Lamp:
    """The room's main light: where it stands (clockwise from north), how high, and how dark
    the pieces' shadows on the board are (0..1)."""

    azimuth_deg: float
    elevation_deg: float
    shadow: float


def _image_direction(cam: Camera, lamp: Lamp) -> tuple[float, float]:
    """The direction, in the image, from the lamp's side of the board to the far side."""
    a = np.radians(lamp.azimuth_deg)
    near, far = cam.project([(240 + 100 * np.sin(a), 165 - 100 * np.cos(a)), (240.0, 165.0)])
    d = far - near
    return float(d[0]), float(d[1])


def _cast_shadows(canvas: np.ndarray, cam: Camera, placed: list[Placed], lamp: Lamp, look=None) -> None:
    """Soft shadows of the pieces on the board, away from the lamp (before the pieces are drawn,
    so they fall on the board and the pieces' own feet)."""
    a = np.radians(lamp.azimuth_deg)
    away = -np.array([np.sin(a), -np.cos(a)]) / np.tan(np.radians(lamp.elevation_deg))
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for p in placed:
        body = body_of(p, look)
        if body is None:
            continue
        foot = _to_board(p, body.bottom)
        top = _to_board(p, body.top) + away * body.top_height
        pts = cam.project(np.vstack([foot, top]), 0.0)
        cv2.fillConvexPoly(mask, cv2.convexHull(np.round(pts * 16).astype(np.int32)), 255, cv2.LINE_AA, 4)
    x, y, bw, bh = cv2.boundingRect(mask)
    if bw == 0:
        return
    soft = max(1.0, 1.5 * _scale_at_board(cam))
    pad = int(3 * soft) + 2
    x0, y0, x1, y1 = max(0, x - pad), max(0, y - pad), min(w, x + bw + pad), min(h, y + bh + pad)
    shade = cv2.GaussianBlur(mask[y0:y1, x0:x1], (0, 0), soft).astype(np.float32) * (lamp.shadow / 255.0)
    region = canvas[y0:y1, x0:x1]
    region[:] = (region * (1.0 - shade)[..., None] + 0.5).astype(np.uint8)


def _draw_scene(cam: Camera, scheme: Scheme, placed: list[Placed], ss: int, lamp: Lamp | None = None,
                look: Look | None = None):
    """Board and pieces, supersampled ``ss`` times and averaged down; returns the float32
    image and every sticker's truth (with its visibility among the pieces; without stickers, the
    truth of where each piece's sticker would be, and no board markers)."""
    cam_ss = cam.scaled(ss) if ss > 1 else cam
    scale = _scale_at_board(cam_ss)
    board_px = 3.0 if scale < 2.5 else (4.0 if scale < 4.5 else 6.0)
    piece_px = 4.0 if scale < 2.5 else 8.0
    if look is None:
        tex = board_texture(scheme, board_px)
    else:
        tex = art_board_texture(scheme, board_px, look, TEXTURE_ORIGIN_MM, TEXTURE_SIZE_MM)
    a = mm_to_texture(TEXTURE_ORIGIN_MM, board_px)
    size = (cam_ss.width, cam_ss.height)
    canvas = sample(tex, texture_map(cam_ss, 0.0, a, (0, 0) + size), size,
                    border_value=TABLE if look is None else look.table)
    owner = np.full(canvas.shape[:2], -1, np.int16)
    if lamp is not None:
        _cast_shadows(canvas, cam_ss, placed, lamp, look)

    order = sorted(range(len(placed)), key=lambda i: (placed[i].height_mm > 2.5,
                                                      -cam.depth([placed[i].centre_mm], placed[i].height_mm)[0]))
    for i in order:
        _draw_piece(canvas, owner, cam_ss, placed[i], i, scheme.dictionary, piece_px, look)

    truths = []
    for i, p in enumerate(placed):
        truths.append(_sticker_truth(cam, cam_ss, p.sticker.id, p.sticker.describe(), p.square, p.centre_mm,
                                     p.rotation, p.height_mm, p.corners_mm(), owner, i))
    for m in scheme.board_markers if look is None else ():
        truths.append(_sticker_truth(cam, cam_ss, m.id, f"board marker {m.corner}", None, m.center_mm,
                                     m.rotation, 0.0, m.corners_mm(), None, -1))
    if ss > 1:
        canvas = cv2.resize(canvas, (cam.width, cam.height), interpolation=cv2.INTER_AREA)
    return canvas.astype(np.float32), truths


def _roi(pts: np.ndarray, w: int, h: int, pad: int = 2):
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + pad
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


def _to_board(p: Placed, local: np.ndarray) -> np.ndarray:
    a = np.radians(p.angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return local @ rot.T + np.asarray(p.centre_mm)


def _draw_piece(canvas, owner, cam: Camera, p: Placed, index: int, dictionary: str, px_per_mm: float,
                look: Look | None = None) -> None:
    h, w = canvas.shape[:2]
    body = body_of(p, look)
    if body is not None:
        pts = np.vstack([cam.project(_to_board(p, body.bottom), 0.0),
                         cam.project(_to_board(p, body.top), body.top_height)])
        hull = cv2.convexHull(np.round(pts * 16).astype(np.int32))
        cv2.fillConvexPoly(canvas, hull, body.colour, cv2.LINE_AA, 4)
        cv2.fillConvexPoly(owner, hull, index, cv2.LINE_8, 4)
    face = piece_face(p, dictionary, px_per_mm, look)
    fh, fw = face.image.shape[:2]
    ox, oy = face.origin_mm
    ext = np.array([(ox, oy), (ox + fw / px_per_mm, oy), (ox + fw / px_per_mm, oy + fh / px_per_mm),
                    (ox, oy + fh / px_per_mm)])
    roi = _roi(cam.project(_to_board(p, ext), p.height_mm), w, h)
    if roi is None:
        return
    x0, y0, x1, y1 = roi
    m = mm_to_texture(face.origin_mm, px_per_mm, p.centre_mm, p.angle_deg)
    patch = sample(face.image, texture_map(cam, p.height_mm, m, roi), (x1 - x0, y1 - y0))
    alpha = patch[..., 3:4].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1]
    region[:] = (region * (1 - alpha) + patch[..., :3] * alpha + 0.5).astype(np.uint8)
    owner[y0:y1, x0:x1][alpha[..., 0] > 0.5] = index


def _sticker_truth(cam, cam_ss, marker_id, what, sq, centre, rotation, height, corners_mm, owner, index):
    corners = cam.project(corners_mm, height)
    side = float(np.mean([np.hypot(*(corners[k] - corners[k - 1])) for k in range(4)]))
    visible = 1.0
    if owner is not None:
        pts = cam_ss.project(corners_mm, height)
        roi = _roi(pts, owner.shape[1], owner.shape[0], pad=0)
        if roi is None:
            visible = 0.0
        else:
            x0, y0, x1, y1 = roi
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.round((pts - (x0, y0)) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            inside = mask.astype(bool)
            if inside.any():
                visible = float(np.mean(owner[y0:y1, x0:x1][inside] == index))
            # Off the picture counts as hidden.
            full = cv2.contourArea(pts.astype(np.float32))
            if full > 0:
                visible *= min(1.0, inside.sum() / full)
    return StickerTruth(marker_id, what, square_name(sq) if sq is not None else None,
                        (float(centre[0]), float(centre[1])), float(rotation), float(height),
                        tuple((float(u), float(v)) for u, v in corners), side, visible)


def _add_hand(img, cam: Camera, scheme: Scheme, stickers: list[StickerTruth], rng, height_mm: float,
              over: str | None = None):
    """A hand over a random square (or the square named ``over``), ~15 cm above the board;
    updates sticker visibility and lists the squares it hides."""
    target_sq = SQUARES[int(rng.integers(len(SQUARES)))]
    if over is not None:
        target_sq = parse_square(over)
    cx, cy = scheme.square_center_mm(target_sq)
    lift = min(150.0, height_mm * 0.4)
    # The palm is seen over the square (somewhere on the line of sight, ~15 cm up).
    target = cam.project([(cx, cy)], 0.0)[0]
    scale = _scale_at_board(cam) * height_mm / (height_mm - lift)
    cover = fx.hand(img, target, scale, rng)
    h, w = cover.shape
    out = []
    for s in stickers:
        pts = np.asarray(s.corners_px)
        roi = _roi(pts, w, h, pad=0)
        hidden = 0.0
        if roi is not None:
            x0, y0, x1, y1 = roi
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(mask, np.round((pts - (x0, y0)) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
            inside = mask.astype(bool)
            hidden = float(cover[y0:y1, x0:x1][inside].mean()) if inside.any() else 0.0
        out.append(StickerTruth(s.id, s.what, s.square, s.centre_mm, s.rotation, s.height_mm, s.corners_px,
                                s.side_px, s.visible * (1.0 - hidden)))
    squares = []
    centres = cam.project([scheme.square_center_mm(sq) for sq in SQUARES], 0.0)
    for sq, (u, v) in zip(SQUARES, centres):
        if 0 <= u < w and 0 <= v < h and cover[int(v), int(u)] > 0.5:
            squares.append(square_name(sq))
    return out, squares
