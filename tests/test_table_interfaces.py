"""The table's device interfaces: the real devices and the shipped fakes match the same Protocols.

A rename or a changed parameter in ``LedGrid``, ``TableCamera``, ``TableButtons`` or in a fake
fails here, instead of turning into a device error the session swallows at the table.
"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

from companion_app.table.camera.frames import jpeg, last_frame
from companion_app.table.camera.watcher import CameraWorker
from companion_app.table.devices import interfaces
from companion_app.table.devices.devices import Device
from companion_app.table.devices.fakes import FakeCamera, FakeLeds, FakeReading, StillFrames
from hardware.buttons import TableButtons
from hardware.leds import LedGrid
from hardware.speaker import Speaker
from tests.hardware_helpers import FAST
from vision.pipeline import TableCamera
from vision.reading import Reading, not_located

IMPLEMENTATIONS = {
    interfaces.Camera: [CameraWorker, FakeCamera],
    interfaces.Leds: [LedGrid, FakeLeds],
    interfaces.Buttons: [TableButtons],
    interfaces.Speaker: [Speaker],
    interfaces.CameraReading: [Reading, FakeReading],
}
POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def protocol_methods(proto) -> list[str]:
    return [name for name, value in vars(proto).items() if callable(value) and not name.startswith("_")]


def mismatches(proto, cls) -> list[str]:
    """Each way ``cls`` cannot stand where ``proto`` is expected: a missing method, or parameters
    that a call written against the Protocol would not fit (names, order, keyword-only, defaults)."""
    problems = []
    for name in protocol_methods(proto):
        method = getattr(cls, name, None)
        if not callable(method):
            problems.append(f"{cls.__name__} has no method {name}")
            continue
        want = list(inspect.signature(getattr(proto, name)).parameters.values())[1:]
        have = list(inspect.signature(method).parameters.values())[1:]
        matched = set()
        for i, p in enumerate(want):
            if p.kind in POSITIONAL:
                q = have[i] if i < len(have) else None
                if q is None or q.name != p.name or q.kind not in POSITIONAL:
                    problems.append(f"{cls.__name__}.{name}: parameter {i + 1} should be {p.name!r}")
                    continue
            else:
                q = next((q for q in have if q.name == p.name), None)
                if q is None or q.kind == inspect.Parameter.POSITIONAL_ONLY:
                    problems.append(f"{cls.__name__}.{name}: no keyword parameter {p.name!r}")
                    continue
            if p.default is not inspect.Parameter.empty and q.default is inspect.Parameter.empty:
                problems.append(f"{cls.__name__}.{name}: {p.name!r} may be left out but has no default")
            matched.add(q.name)
        for q in have:
            if q.name not in matched and q.default is inspect.Parameter.empty and q.kind in (
                    *POSITIONAL, inspect.Parameter.KEYWORD_ONLY):
                problems.append(f"{cls.__name__}.{name}: extra parameter {q.name!r} needs a default")
    return problems


@pytest.mark.parametrize("proto,cls", [(p, c) for p, cs in IMPLEMENTATIONS.items() for c in cs],
                         ids=lambda x: x.__name__)
def test_real_devices_and_fakes_have_the_interface_methods(proto, cls):
    assert mismatches(proto, cls) == []


def test_the_check_catches_a_renamed_method_and_a_renamed_parameter():
    class Renamed:
        def show_plans(self, plan_json): ...

        def show_idle(self, first, position_json=None): ...

        def show_error(self, loud): ...

        def status(self): ...

        def close(self): ...

    assert mismatches(interfaces.Leds, Renamed) == [
        "Renamed has no method show_plan",
        "Renamed.show_idle: parameter 1 should be 'first_player'",
        "Renamed.show_idle: extra parameter 'first' needs a default",
        "Renamed.show_error: extra parameter 'loud' needs a default",
        "Renamed has no method show_mark",
        "Renamed has no method show_follow",
        "Renamed has no method sent_frame",
        "Renamed has no method wire_frame",
    ]


@pytest.fixture
def real_devices():
    from gpiozero.pins.mock import MockFactory

    camera = CameraWorker(lambda: StillFrames(np.zeros((120, 160, 3), np.uint8)), TableCamera(None).feed,
                          lambda update: None).start()
    leds = LedGrid.from_config(FAST)
    buttons = TableButtons(None, MockFactory())
    yield camera, leds, buttons
    for device in (camera, leds, buttons):
        device.close()


def test_real_devices_and_fakes_are_instances_of_the_protocols(real_devices):
    camera, leds, buttons = real_devices
    reading = TableCamera(None).feed(np.zeros((120, 160, 3), np.uint8))
    assert isinstance(reading, Reading) and isinstance(reading, interfaces.CameraReading)
    assert isinstance(not_located("no board"), interfaces.CameraReading)
    for obj, proto in [(camera, interfaces.Camera), (FakeCamera(), interfaces.Camera),
                       (leds, interfaces.Leds), (FakeLeds(), interfaces.Leds),
                       (buttons, interfaces.Buttons), (FakeReading(True), interfaces.CameraReading)]:
        assert isinstance(obj, proto), f"{type(obj).__name__} is not a {proto.__name__}"
    assert not isinstance(FakeLeds(), interfaces.Camera)          # the check is not vacuous


def test_a_device_call_runs_typed_and_records_a_failure_for_the_referee():
    leds = FakeLeds()
    device: Device[interfaces.Leds] = Device("LED grid", leds)
    assert device.call(lambda grid: grid.show_plan({"steps": []})) is True
    leds.fail = OSError("serial port vanished")
    assert device.call(lambda grid: grid.show_error()) is None
    assert device.status()["error"] == "LED grid failed: serial port vanished"
    assert Device("LED grid", None, why="switched off").call(lambda grid: grid.show_error()) is None


def test_the_last_frame_is_kept_by_the_worker_and_sent_as_a_small_jpeg():
    import cv2

    from table_helpers import wait_for

    camera = CameraWorker(lambda: StillFrames(np.full((1080, 1920, 3), 200, np.uint8)), TableCamera(None).feed,
                          lambda update: None, fps=20)
    assert last_frame(camera) is None and jpeg(last_frame(camera)) is None   # nothing read yet
    camera.start()
    try:
        wait_for(lambda: last_frame(camera) is not None, what="a frame")
        data = jpeg(last_frame(camera))
        assert cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR).shape == (540, 960, 3)
    finally:
        camera.close()
    assert last_frame(None) is None
