"""Helpers for the phone camera tests: a session whose camera is a phone (the real camera worker reading
vision/phone_source.py), served over HTTP and HTTPS with a certificate made for the test, and a video
file for Chromium's fake camera made from the synthetic camera's render of a position."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np

SIZE = (1280, 720)


def render_position(position, frame: int = 0, size=SIZE) -> np.ndarray:
    from vision.twin.scene import render

    image, _ = render(position, None, seed=1, frame=frame, width=size[0], height=size[1])
    return image


def write_y4m(path: Path, frames: list[np.ndarray], fps: int = 4) -> Path:
    """A .y4m video (I420) of ``frames``, what Chromium's --use-file-for-fake-video-capture plays in a loop."""
    import cv2

    h, w = frames[0].shape[:2]
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in frames:
            f.write(b"FRAME\n" + cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420).tobytes())
    return path


def jpeg_of(image: np.ndarray) -> bytes:
    import cv2

    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


@contextmanager
def phone_table(tmp_path, *, https: bool = True, fps: float = 4.0, pieces=None, **phone_options):
    """A game in confirm mode whose camera worker reads a PhoneFrames, served by the real servers;
    yields (session, phone, http server, https server or None).  With ``pieces`` (a taught
    ``vision.nostickers.Pieces``) the frames are read without stickers against the game, as
    ``flure play --camera phone --pieces`` wires it."""
    from companion_app.table.devices.devices import open_camera
    from companion_app.table.session.session import TableSession
    from companion_app.table.session.store import Store
    from companion_app.tls import ensure_certificate
    from companion_app.web.camera_page import attach
    from companion_app.web.https import HttpsServer
    from companion_app.web.server import Server
    from vision.phone_source import PhoneFrames
    from web_helpers import make_app

    session = TableSession(Store(tmp_path / "session.sqlite3"))
    session.new_game(["red", "blue"], "red", seed=3)
    phone = PhoneFrames(**phone_options)
    prior = None
    if pieces is not None:
        from companion_app.table.camera.nostickers import table_prior
        prior = table_prior(session.prior)
    session.camera = open_camera("phone", None, None, 2, on_update=session.on_camera, fps=fps,
                                 open_frames=phone, pieces=pieces, prior=prior)
    app, _ = make_app(tmp_path, session)
    secure = None
    try:
        with Server(app) as server:
            tls = None
            if https:
                tls = ensure_certificate(tmp_path / "tls", ["localhost"], ["127.0.0.1"])
                secure = HttpsServer(app, "127.0.0.1", 0, tls.cert, tls.key).start()
            attach(app, phone, secure.url if secure else None, tls.ca_cert if tls else None)
            yield session, phone, server, secure
    finally:
        if secure is not None:
            secure.close()
        phone.close()
        session.close()
