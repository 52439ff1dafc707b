"""Where the board is in the phone's picture, with advice for the person holding the phone:
companion_app/table/camera/phone_camera.look on the synthetic camera's renders of known placements."""
from __future__ import annotations

import numpy as np
import pytest

from companion_app.i18n.text import render as say_in
from engine.position import basic_position
from vision.scheme import load_scheme
from vision.twin.scene import render

SCHEME = load_scheme(None)


def look_at(**camera):
    from companion_app.table.camera.phone_camera import look

    image, _ = render(basic_position(), None, seed=2, width=1280, height=720, **camera)
    return look(image, SCHEME)


def test_a_good_placement_is_located_with_the_outline_and_four_corner_markers():
    seen = look_at()
    assert seen["located"] and seen["verdict"] == "good", seen
    assert str(seen["advice"]) == "The board is located: keep the phone still."
    assert len(seen["markers"]) == 4
    outline = np.array(seen["outline"])
    assert outline.shape == (4, 2) and (outline > 0).all() and (outline < 1).all()
    assert say_in(seen["advice"], "fr").startswith("Le plateau est repéré")   # said in each reader's language


@pytest.mark.parametrize("camera, verdict, advice", [
    ({"tilt_deg": 25.0}, "too tilted", "Tilt less"),
    ({"height_mm": 420.0}, "not located", "Move the phone up until all four corner markers"),
    ({"height_mm": 2400.0}, "too far", "Move the phone down"),
])
def test_a_poor_placement_gets_the_advice_that_fixes_it(camera, verdict, advice):
    from companion_app.table.camera.phone_camera import ADVICE

    seen = look_at(**camera)
    assert seen["verdict"] == verdict and seen["advice"].template == ADVICE[verdict], seen   # wording data
    assert ADVICE[verdict].startswith(advice)


def test_a_dark_picture_says_too_dark():
    from companion_app.table.camera.phone_camera import ADVICE, look

    image, _ = render(basic_position(), None, seed=2, width=1280, height=720)
    seen = look((image * 0.03).astype(np.uint8), SCHEME)   # a room with the light off
    assert seen["verdict"] == "dark" and seen["advice"].template == ADVICE["dark"] and not seen["located"], seen
    assert ADVICE["dark"].startswith("Too dark")
