"""What a real camera and a real room do to the picture: uneven light, colour temperature,
a glare spot, a hand over the board, defocus blur, sensor noise and JPEG compression.

Each effect is a small function of (float32 BGR image, strength, rng) so the perturbation
grid of the evaluation can switch them on one at a time.  All randomness comes from the
``rng`` passed in: same seed, same picture.
"""
from __future__ import annotations

import math

import cv2
import numpy as np

SKIN_TONES = ((150, 180, 225), (128, 160, 208), (104, 136, 186), (78, 104, 150), (56, 74, 112))
SLEEVES = ((120, 60, 30), (40, 40, 40), (60, 120, 60), (180, 180, 180), (40, 40, 140))


def uneven_light(img: np.ndarray, strength: float, rng, away=None) -> np.ndarray:
    """A lamp off to one side: a linear fall-off across the frame plus vignetting.
    ``strength`` 1 darkens the far side to about 40 %; ``away`` is the image direction
    (dx, dy) away from the lamp (random when not given)."""
    if strength <= 0:
        return img
    a = math.atan2(away[1], away[0]) if away is not None else rng.uniform(0, 2 * math.pi)
    xs, ys = _smooth_grid(img.shape, -1.0, 1.0)
    ramp = (math.cos(a) * xs + math.sin(a) * ys) * 0.5 + 0.5  # 0..1 across the frame
    gain = 1.0 - 0.55 * strength * ramp - 0.2 * strength * (xs * xs + ys * ys) / 2
    return img * _full(gain, img.shape)[..., None]


def _smooth_grid(shape, lo: float, hi: float, step: int = 8):
    """Coordinates over a coarse grid (one point per ``step`` pixels) spanning lo..hi: smooth
    fields are computed there and resized up, which is far cheaper than per pixel."""
    h, w = shape[:2]
    gh, gw = max(2, h // step), max(2, w // step)
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float32)
    return lo + (hi - lo) * (xs + 0.5) / gw, lo + (hi - lo) * (ys + 0.5) / gh


def _full(field: np.ndarray, shape) -> np.ndarray:
    return cv2.resize(field.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Approximate RGB of a black body (Tanner Helland's fit), 0..1, as BGR."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    return np.clip(np.array([b, g, r]), 1, 255) / 255.0


def colour_temperature(img: np.ndarray, kelvin: float, white_balance_k: float = 5500.0) -> np.ndarray:
    """Light of ``kelvin`` seen by a camera white-balanced for ``white_balance_k``."""
    if abs(kelvin - white_balance_k) < 1:
        return img
    gain = kelvin_rgb(kelvin) / kelvin_rgb(white_balance_k)
    gain = gain / gain.max() * 1.0
    return img * gain.astype(np.float32)


def glare(img: np.ndarray, strength: float, rng, centre=None) -> np.ndarray:
    """A specular reflection of a lamp on the glossy board: a bright, washed-out spot."""
    if strength <= 0:
        return img
    h, w = img.shape[:2]
    if centre is None:
        centre = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.25, 0.75) * h)
    sigma = rng.uniform(0.05, 0.09) * w
    x, y = _smooth_grid(img.shape, 0.0, 1.0, step=4)
    d2 = ((x * w - centre[0]) ** 2 + (y * h - centre[1]) ** 2) / (2 * sigma * sigma)
    spot = np.exp(-d2) * (255.0 * 1.3 * strength) + np.exp(-d2 / 6) * (255.0 * 0.15 * strength)
    return img + _full(spot, img.shape)[..., None]


def defocus(img: np.ndarray, sigma: float) -> np.ndarray:
    if sigma <= 0:
        return img
    return cv2.GaussianBlur(img, (0, 0), sigma)


def sensor_noise(img: np.ndarray, sigma: float, rng) -> np.ndarray:
    """Read noise plus shot noise (brighter pixels are noisier); ``sigma`` in 8-bit levels
    at mid grey.  cv2.randn is seeded from ``rng``, so the noise is reproducible."""
    if sigma <= 0:
        return img
    level = cv2.sqrt(np.clip(img, 0, 255) * np.float32(1 / 212.0) + np.float32(0.4))
    # One channel as far as OpenCV knows: cv2.randn with a scalar fills only channel 0.
    noise = np.empty((img.shape[0], img.size // img.shape[0]), np.float32)
    cv2.setRNGSeed(int(rng.integers(2**31 - 1)))
    cv2.randn(noise, 0.0, float(sigma))
    return img + noise.reshape(img.shape) * level


def to_uint8(img: np.ndarray) -> np.ndarray:
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def jpeg(img: np.ndarray, quality: int | None) -> np.ndarray:
    if quality is None:
        return img
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def hand(img: np.ndarray, target_px, px_per_mm: float, rng) -> np.ndarray:
    """Draw a hand and forearm reaching in from a frame edge to ``target_px`` (the palm's
    centre), sized for a hand ~15 cm above the board.  Returns the hand's coverage mask
    (float32 0..1, image size) after drawing it, with its shadow, into ``img`` in place."""
    h, w = img.shape[:2]
    tx, ty = float(target_px[0]), float(target_px[1])
    # Players sit all round the table: come in from the nearest frame edge, mostly.
    edges = {"left": (-1.0, 0.0, tx), "right": (1.0, 0.0, w - tx), "bottom": (0.0, 1.0, h - ty),
             "top": (0.0, -1.0, ty)}
    names = sorted(edges, key=lambda k: edges[k][2])
    side = names[0] if rng.uniform() < 0.7 else names[1]
    ex, ey, _ = edges[side]
    ang = math.atan2(ey, ex) + rng.uniform(-0.45, 0.45)
    ux, uy = math.cos(ang), math.sin(ang)      # from the palm towards the elbow
    px, py = -uy, ux                            # across the arm
    s = px_per_mm

    def at(along, across):
        return (tx + (ux * along + px * across) * s, ty + (uy * along + py * across) * s)

    mask = np.zeros((h, w), np.uint8)
    sleeve = np.zeros((h, w), np.uint8)
    reach = (w + h) / s
    arm = [at(45, -30), at(45, 30), at(reach, 40), at(reach, -40)]
    _fill(mask, arm)
    if rng.uniform() < 0.5:
        _fill(sleeve, [at(150, -45), at(150, 45), at(reach, 45), at(reach, -45)])
    cv2.ellipse(mask, _pt(at(5, 0)), (int(55 * s), int(45 * s)),
                math.degrees(ang), 0, 360, 255, -1, cv2.LINE_AA)
    # Fingers point away from the elbow; the thumb sticks out to one side.
    thumb_side = 1 if rng.uniform() < 0.5 else -1
    for across, length in ((-27, 80), (-9, 92), (9, 88), (26, 70)):
        spread = rng.uniform(-0.12, 0.12)
        a0 = at(-30, across)
        a1 = (a0[0] + (-ux * math.cos(spread) - px * math.sin(spread)) * length * s,
              a0[1] + (-uy * math.cos(spread) - py * math.sin(spread)) * length * s)
        cv2.line(mask, _pt(a0), _pt(a1), 255, max(2, int(17 * s)), cv2.LINE_AA)
    t0 = at(10, thumb_side * 38)
    t1 = at(-45, thumb_side * 62)
    cv2.line(mask, _pt(t0), _pt(t1), 255, max(2, int(20 * s)), cv2.LINE_AA)

    cover = mask.astype(np.float32) / 255.0
    # Shadow: the hand is above the board, the lamp off to one side.  Work in the box the
    # hand and its shadow can reach: the rest of the frame is untouched.
    shift = rng.uniform(10, 25) * s
    sa = rng.uniform(0, 2 * math.pi)
    blur = max(1.0, 6 * s)
    bx, by, bw, bh = cv2.boundingRect(mask)
    pad = int(shift + 3 * blur) + 2
    x0, y0 = max(0, bx - pad), max(0, by - pad)
    x1, y1 = min(w, bx + bw + pad), min(h, by + bh + pad)
    if x1 <= x0 or y1 <= y0:
        return cover
    box = (slice(y0, y1), slice(x0, x1))
    m = np.float32([[1, 0, math.cos(sa) * shift], [0, 1, math.sin(sa) * shift]])
    shadow = cv2.warpAffine(cover[box], m, (x1 - x0, y1 - y0))
    shadow = cv2.GaussianBlur(shadow, (0, 0), blur)
    region = img[box]
    region *= (1 - 0.45 * shadow)[..., None]

    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32)
    cloth = np.array(SLEEVES[int(rng.integers(len(SLEEVES)))], np.float32)
    # Rounded shading across the arm: darker towards its edges.
    xx, yy = _smooth_grid(img.shape, 0.0, 1.0, step=4)
    across = ((xx * w - tx) * px + (yy * h - ty) * py) / (45 * s)
    shade = _full(0.75 + 0.3 * np.cos(np.clip(across, -1.5, 1.5)), img.shape)[box][..., None]
    colour = np.where((sleeve[box] > 0)[..., None], cloth, skin) * shade
    a = cover[box][..., None]
    region[:] = region * (1 - a) + colour * a
    return cover


def _fill(mask, pts) -> None:
    cv2.fillPoly(mask, [np.round(np.asarray(pts) * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)


def _pt(p) -> tuple[int, int]:
    return int(round(p[0])), int(round(p[1]))
