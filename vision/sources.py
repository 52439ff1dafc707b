"""Frame sources behind one small interface: ``read() -> image | None`` and ``close()``.

Swapping the camera is a string in the configuration, as with pyserial's URLs:
``"0"`` a USB camera, a video file or stream URL, a folder of images, ``"picamera"``
(the Raspberry Pi camera, ``pi`` extra), ``"synthetic"`` (the digital twin) or ``"simulated"``
(a simulated table, vision.twin.table: here its basic setup; ``flure play`` gives it players).
The cameras take ``exposure=`` to lock exposure, gain and white balance (a hand moving over
the table must not change the picture's brightness); ``exposure_note`` says what was honoured,
``exposure_honoured`` whether all of it was.
Every source returns BGR uint8 frames, or None when there is no frame (end of a
file, camera unplugged); none of them raises from ``read``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from engine.wording import N_, Join, Said, Term, Text, Worded, listing, os_reason

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


class SourceError(Worded, RuntimeError):
    """A source that cannot be opened at all (names the source and why), as wording data
    (engine.wording.Worded): flure doctor and the referee's devices card say it in their language."""


class UnknownSourceError(SourceError):
    """A source setting that names no kind of camera (not a camera index, file, URL, folder or
    known name): retrying cannot help, unlike a camera that is only unplugged now."""


@runtime_checkable
class FrameSource(Protocol):
    def read(self) -> np.ndarray | None: ...

    def close(self) -> None: ...


Exposure = dict   # {"exposure_us": int, "analogue_gain": float, "colour_gains": (red, blue) | None}; 0/None = automatic


def _exposure_note(done: list, ignored: list) -> str:
    """What locking the exposure did, in words (the doctor and the referee's devices card show it): a
    ``Said``, the English text that keeps its wording data (``text``) for the reader's language."""
    parts = []
    if done:
        parts.append(Text(N_("exposure locked: %(done)s"), done=listing(done)))
    if ignored:
        parts.append(Text(N_("not honoured by this camera: %(ignored)s"), ignored=listing(ignored)))
    return Said(Join("; ", parts)) if parts else ""


class VideoCaptureSource:
    """OpenCV VideoCapture: a USB camera index, a video file or a stream URL."""

    def __init__(self, spec: int | str, width: int | None = None, height: int | None = None,
                 exposure: Exposure | None = None):
        import cv2
        self.spec = spec
        self._cap = cv2.VideoCapture(spec)
        if not self._cap.isOpened():
            self._cap.release()
            raise SourceError(Text(N_("cannot open camera %(spec)s (not connected, or not a video OpenCV can read)"),
                                   spec=spec) if isinstance(spec, int) else
                              Text(N_("cannot open %(spec)s (not connected, or not a video OpenCV can read)"),
                                   spec=repr(spec)))
        if width:
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
        if height:
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.exposure_honoured = False      # every exposure setting asked for was taken (set by _lock)
        self.exposure_note = self._lock(exposure) if exposure else ""

    def _lock(self, exposure: Exposure) -> str:
        """OpenCV capture properties; a USB camera's driver may ignore any of them (said so)."""
        import cv2
        done, ignored = [], []

        def put(name, prop: int, value: float) -> None:
            (done if self._cap.set(prop, value) else ignored).append(name)

        us, gain, gains = exposure.get("exposure_us", 0), exposure.get("analogue_gain", 0.0), exposure.get("colour_gains")
        if us:
            put(Term(N_("manual exposure")), cv2.CAP_PROP_AUTO_EXPOSURE, 1)       # V4L2: 1 = manual
            put(Text(N_("exposure %(us)s µs"), us=us), cv2.CAP_PROP_EXPOSURE, us / 100)    # V4L2 counts 100 µs units
        if gain:
            put(Text(N_("gain %(gain)s"), gain=f"{gain:g}"), cv2.CAP_PROP_GAIN, gain)
        if gains:
            put(Term(N_("white balance locked")), cv2.CAP_PROP_AUTO_WB, 0)
            ignored.append(Term(N_("colour gains (OpenCV has no control for them)")))
        self.exposure_honoured = bool(done) and not ignored
        return _exposure_note(done, ignored)

    def read(self) -> np.ndarray | None:
        ok, frame = self._cap.read()
        return frame if ok and frame is not None and frame.size else None

    def close(self) -> None:
        self._cap.release()


class FolderSource:
    """The images of a folder in name order (``loop`` starts again at the end).

    ``max_side``: the reader uses no more pixels than that on the longer side, so a picture at
    least twice as large is decoded at 1/2, 1/4 or 1/8 of its size, as long as that keeps
    ``max_side``: JPEG's decoder scales while it decodes, three times faster than decoding it all
    and with a quarter of the memory (an 8000×6000 photo is 144 MB decoded).  ``picture_size`` is
    the last picture's own size."""

    def __init__(self, folder: str | Path, loop: bool = False, max_side: int | None = None):
        self.folder = Path(folder)
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise SourceError(Text(N_("no images (%(kinds)s) in %(folder)s"), kinds=", ".join(IMAGE_SUFFIXES),
                                   folder=str(self.folder)))
        self.loop = loop
        self.index = 0
        self.max_side = max_side
        self.picture_size: tuple[int, int] | None = None

    def read(self) -> np.ndarray | None:
        import cv2
        if self.index >= len(self.files):
            if not self.loop:
                return None
            self.index = 0
        path = self.files[self.index]
        self.index += 1
        self.picture_size = _picture_size(path)
        flag = cv2.IMREAD_COLOR
        if self.max_side and self.picture_size:
            flag = next((reduced for k, reduced in ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
                                                    (2, cv2.IMREAD_REDUCED_COLOR_2))
                         if max(self.picture_size) // k >= self.max_side), flag)
        return cv2.imread(str(path), flag)   # None for an unreadable file

    def close(self) -> None:
        pass


def _picture_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from the file's header alone (Pillow reads no pixels for it), or None."""
    from PIL import Image, UnidentifiedImageError
    try:
        with Image.open(path) as image:
            return image.size
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None


class PicameraSource:
    """The Raspberry Pi camera through Picamera2 (imported only here: the ``pi`` extra)."""

    def __init__(self, width: int = 1920, height: int = 1080, camera=None, exposure: Exposure | None = None):
        if camera is None:
            try:
                from picamera2 import Picamera2
            except ImportError as exc:
                raise SourceError(Text(N_("the Raspberry Pi camera needs picamera2: "
                                          "pip install 'finstere-flure-companion[pi]'"))) from exc
            camera = Picamera2()
            # "RGB888" in libcamera's naming is B, G, R byte order: OpenCV's BGR.
            camera.configure(camera.create_video_configuration(main={"size": (width, height),
                                                                     "format": "RGB888"}))
            camera.start()
        self._cam = camera
        self.exposure_honoured = False      # every exposure setting asked for was taken (set by _lock)
        self.exposure_note = self._lock(exposure) if exposure else ""

    def _lock(self, exposure: Exposure) -> str:
        """Picamera2 controls: automatic exposure and white balance off, the given values fixed."""
        controls: dict = {}
        us, gain, gains = exposure.get("exposure_us", 0), exposure.get("analogue_gain", 0.0), exposure.get("colour_gains")
        if us or gain:
            controls["AeEnable"] = False
        if us:
            controls["ExposureTime"] = int(us)
        if gain:
            controls["AnalogueGain"] = float(gain)
        if gains:
            controls["AwbEnable"] = False
            controls["ColourGains"] = (float(gains[0]), float(gains[1]))
        try:
            self._cam.set_controls(controls)
        except Exception as exc:  # noqa: BLE001 - a camera without a control still gives pictures
            return _exposure_note([], [f"{', '.join(controls)} ({exc})"])
        self.exposure_honoured = bool(controls)
        return _exposure_note([f"{k}={v}" for k, v in controls.items()], [])

    def read(self) -> np.ndarray | None:
        try:
            frame = self._cam.capture_array()
        except Exception:  # noqa: BLE001 — the camera went away; report no frame
            return None
        if frame is None:
            return None
        return np.ascontiguousarray(frame[:, :, :3]) if frame.ndim == 3 else frame

    def close(self) -> None:
        try:
            self._cam.stop()
            self._cam.close()
        except Exception:  # noqa: BLE001
            pass


class SyntheticSource:
    """The digital twin: renders the game's current position as the camera would see it.

    ``get_state()`` returns ``(Position, tile)``; consecutive frames of an unchanged
    state differ only by sensor noise, like a real camera's on a still table.
    """

    def __init__(self, get_state: Callable[[], tuple], seed: int = 0, **perturbations):
        self.get_state = get_state
        self.seed = seed
        self.perturbations = perturbations
        self.frames = 0
        self.last_truth = None

    def read(self) -> np.ndarray | None:
        from vision.twin.scene import render
        position, tile = self.get_state()
        image, truth = render(position, tile, seed=self.seed, frame=self.frames, **self.perturbations)
        self.frames += 1
        self.last_truth = truth
        return image

    def close(self) -> None:
        pass


def load_image_file(path: str | Path) -> tuple[np.ndarray | None, Text | None]:
    """(image, None) or (None, why) for a photo on disk; any format OpenCV reads.  ``why`` is wording
    data (engine.wording: ``str()`` is the English sentence; ``flure`` says it in its language)."""
    import cv2
    p = Path(path)
    if p.is_dir():
        return None, Text(N_("%(path)s: is a folder, not an image file"), path=str(path))
    if not p.is_file():
        return None, Text(N_("%(path)s: no such file"), path=str(path))
    try:
        data = np.fromfile(str(p), dtype=np.uint8)
    except OSError as exc:
        return None, Text(N_("%(path)s: cannot read the file (%(why)s)"), path=str(path), why=os_reason(exc))
    image = None
    if data.size:
        from cv2.utils import logging as cv_log
        level = cv_log.getLogLevel()
        cv_log.setLogLevel(cv_log.LOG_LEVEL_ERROR)   # a broken file gets our message, not OpenCV's warning
        try:
            image = cv2.imdecode(data, cv2.IMREAD_UNCHANGED)
        except cv2.error:
            image = None
        finally:
            cv_log.setLogLevel(level)
    if image is None:
        return None, Text(N_("%(path)s: not an image file OpenCV can read"), path=str(path))
    return image, None


def open_source(spec: str, **options) -> FrameSource:
    """Open a source from its configuration string (see the module docstring).

    ``"synthetic"`` needs ``get_state=`` in ``options``; without it the basic-game
    setup is shown.
    """
    spec = str(spec).strip()
    exposure = options.pop("exposure", None)
    max_side = options.pop("max_side", None)       # what the reader can use (a folder decodes no more)
    if spec.isdigit():
        return VideoCaptureSource(int(spec), options.get("width"), options.get("height"), exposure)
    if spec == "picamera":
        return PicameraSource(options.get("width", 1920), options.get("height", 1080), exposure=exposure)
    if spec == "simulated":
        from engine.position import basic_position
        from vision.twin.table import DEMO_SIZE, PhysicalTable, SimulatedCamera
        return SimulatedCamera(PhysicalTable(basic_position()), width=options.get("width", DEMO_SIZE[0]),
                               height=options.get("height", DEMO_SIZE[1]))
    if spec == "synthetic":
        get_state = options.pop("get_state", None) or _basic_state
        return SyntheticSource(get_state, **options)
    if spec == "phone":
        raise SourceError(Text(N_("the phone camera sends its frames to flure play (--camera phone): open "
                                  "https://…/camera on the phone while the session runs")))
    from .stream_source import LatestFrameSource, is_stream_url
    if "://" in spec and is_stream_url(spec):
        return LatestFrameSource(spec)       # an IP camera: the newest frame, never a buffered one
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, loop=bool(options.get("loop", False)), max_side=max_side)
    if "://" in spec or path.is_file():
        return VideoCaptureSource(spec, exposure=exposure)
    raise UnknownSourceError(Text(N_("unknown camera source %(spec)s: use a camera index like 0, a video file, a stream "
                                     "URL, a folder of images, 'picamera', 'simulated' or 'synthetic'"), spec=repr(spec)))


def _basic_state():
    from engine.position import basic_position
    return basic_position(), None
