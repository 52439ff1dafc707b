"""A printed sheet lying flat on the table, seen by the synthetic camera (known ground truth).

Why: lens calibration is tested on views whose camera matrix and distortion are known
exactly.  The sheet (a ChArUco board's image, say) is drawn through ``Camera`` like the
game board, so the views carry the same pinhole projection and lens distortion the reader
is tested with.  The sheet's picture is handed in: vision does not know what is printed on it.
"""
from __future__ import annotations

import numpy as np

from .camera import Camera, pose_camera, sample, texture_map


def render_sheet(camera: Camera, sheet: np.ndarray, px_per_mm: float, origin_mm=(0.0, 0.0),
                 table_grey: int = 90) -> np.ndarray:
    """The BGR frame ``camera`` sees of ``sheet`` (a picture printed at ``px_per_mm``) lying with its
    top-left corner at ``origin_mm`` on the table plane (z = 0), on a plain table of ``table_grey``."""
    tex = sheet if sheet.ndim == 3 else np.repeat(sheet[:, :, None], 3, axis=2)
    board_to_texture = np.array([[px_per_mm, 0, -origin_mm[0] * px_per_mm - 0.5],
                                 [0, px_per_mm, -origin_mm[1] * px_per_mm - 0.5],
                                 [0, 0, 1.0]])
    how = texture_map(camera, 0.0, board_to_texture, (0, 0, camera.width, camera.height))
    return sample(tex, how, (camera.width, camera.height), border_value=(table_grey,) * 3)


def calibration_poses(count: int, width: int = 1280, height: int = 720, *, hfov_deg: float = 60.0,
                      distortion=0.0, centre_mm=(105.0, 75.0), seed: int = 0) -> list[Camera]:
    """``count`` varied views of a sheet centred at ``centre_mm``: heights, tilts (15–40°) in every
    direction, turns and offsets, as a person moving a board in front of a camera would give."""
    from .camera import BOARD_CENTRE_MM

    rng = np.random.default_rng(seed)
    cams = []
    for i in range(count):
        azimuth = (360.0 * i / count + rng.uniform(-15, 15)) % 360
        offset = (centre_mm[0] - BOARD_CENTRE_MM[0] + rng.uniform(-30, 30),
                  centre_mm[1] - BOARD_CENTRE_MM[1] + rng.uniform(-25, 25))
        cams.append(pose_camera(width, height, height_mm=float(rng.uniform(300, 420)),
                                tilt_deg=float(rng.uniform(15, 40)), tilt_azimuth_deg=float(azimuth),
                                rotation_deg=float(rng.uniform(-25, 25)), offset_mm=offset,
                                hfov_deg=hfov_deg, distortion=distortion))
    return cams
