"""Button scripts on gpiozero's MockFactory: press, long press, bounce.

Press durations are measured on a hand-wound clock, so "held 50 ms" is exact whatever the
machine's load; long presses use gpiozero's own hold timer on real time.
"""
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import TableButtons

CFG = {"buttons": {"debounce_ms": 20, "long_press_ms": 150}}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def table():
    factory, clock, hits = MockFactory(), Clock(), []
    buttons = TableButtons(CFG, pin_factory=factory, clock=clock,
                           on_monster=lambda: hits.append("monster"),
                           on_confirm=lambda: hits.append("confirm"), on_undo=lambda: hits.append("undo"))
    yield factory, clock, buttons, hits
    buttons.close()


def press(pin, clock, seconds):
    pin.drive_low()  # buttons pull the pin to ground
    clock.advance(seconds)
    pin.drive_high()


def wait_for(hits, n, timeout=3.0):
    deadline = time.monotonic() + timeout
    while len(hits) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def test_short_press_acts_on_release(table):
    factory, clock, buttons, hits = table
    press(factory.pin(17), clock, 0.05)
    press(factory.pin(27), clock, 0.05)
    assert hits == ["monster", "confirm"]
    assert [e.kind for e in buttons.events] == ["short", "short"]
    assert buttons.events[0].duration_s == pytest.approx(0.05)


def test_bounce_is_ignored_and_chatter_counts_once(table):
    factory, clock, buttons, hits = table
    pin = factory.pin(17)
    press(pin, clock, 0.002)                       # a 2 ms blip: bounce
    assert hits == []
    for _ in range(3):                              # contact chatter, then a real press
        press(pin, clock, 0.001)
        clock.advance(0.001)
    press(pin, clock, 0.05)
    assert hits == ["monster"]
    assert [e.kind for e in buttons.events] == ["bounce"] * 4 + ["short"]


def test_chatter_after_a_release_is_not_a_second_press(table):
    factory, clock, buttons, hits = table
    pin = factory.pin(17)
    press(pin, clock, 0.05)                          # a real press
    clock.advance(0.005)
    press(pin, clock, 0.03)                          # the contact closes again 5 ms later, 30 ms long
    clock.advance(0.01)
    press(pin, clock, 0.002)                         # and once more, 10 ms after that
    assert hits == ["monster"]
    assert [e.kind for e in buttons.events] == ["short", "bounce", "bounce"]
    clock.advance(0.5)
    press(pin, clock, 0.05)                          # the next real press, half a second on
    assert hits == ["monster", "monster"]


def test_chatter_held_down_does_not_become_a_long_press(table):
    factory, clock, buttons, hits = table
    pin = factory.pin(27)
    press(pin, clock, 0.05)
    clock.advance(0.002)
    pin.drive_low()                                  # closes again 2 ms after the release...
    time.sleep(0.4)                                  # ...and stays closed past the 150 ms hold time
    clock.advance(0.4)
    pin.drive_high()
    assert hits == ["confirm"] and [e.kind for e in buttons.events] == ["short", "bounce"]


def test_press_just_at_the_debounce_time_counts(table):
    factory, clock, buttons, hits = table
    press(factory.pin(27), clock, 0.019)
    press(factory.pin(27), clock, 0.020)
    assert hits == ["confirm"] and [e.kind for e in buttons.events] == ["bounce", "short"]


def test_long_press_acts_while_held_and_not_again_on_release(table):
    factory, clock, buttons, hits = table
    pin = factory.pin(27)
    pin.drive_low()
    wait_for(hits, 1)                               # gpiozero's hold timer fires after 150 ms
    assert hits == ["confirm"]                      # acted before release
    clock.advance(0.3)
    pin.drive_high()
    assert hits == ["confirm"] and buttons.events[-1].kind == "long"


def test_undo_needs_a_long_press(table):
    factory, clock, buttons, hits = table
    pin = factory.pin(22)
    press(pin, clock, 0.05)
    assert hits == [] and buttons.events[-1].kind == "ignored"
    clock.advance(0.5)
    pin.drive_low()
    wait_for(hits, 1)
    pin.drive_high()
    assert hits == ["undo"]


def test_pins_come_from_the_config_and_a_failing_action_is_reported():
    factory, clock = MockFactory(), Clock()

    def broken():
        raise RuntimeError("no game running")

    buttons = TableButtons({"buttons": {"pins": {"monster": 5, "confirm": 6, "undo": 13}, "debounce_ms": 10}},
                           pin_factory=factory, on_monster=broken, clock=clock)
    try:
        press(factory.pin(5), clock, 0.03)
        assert buttons.last_error == "the monster button's action failed: no game running"
        press(factory.pin(17), clock, 0.03)           # not a configured pin any more: nothing happens
        assert len(buttons.events) == 1
        assert buttons.status()["buttons"] == {"monster": "GPIO5", "confirm": "GPIO6", "undo": "GPIO13"}
    finally:
        buttons.close()


@pytest.mark.parametrize("buttons, message", [
    ({"pins": {"monster": 27}}, "confirm and monster are both on GPIO27 .*keeps its default pin"),
    ({"pull_up": "no"}, "pull_up must be true or false, not 'no'"),
    ({"long_press_only": "undo"}, r"long_press_only must be a list like \["),
    ({"pins": {"undo": 40}}, r"undo = 40 is not a BCM GPIO number"),
])
def test_bad_button_settings_name_the_key(buttons, message):
    from hardware.config import HardwareConfigError
    with pytest.raises(HardwareConfigError, match=message):
        TableButtons({"buttons": buttons}, pin_factory=MockFactory())


def test_a_named_backend_missing_here_is_a_plain_error():
    import importlib.util
    missing = [b for b, mod in (("lgpio", "lgpio"), ("rpigpio", "RPi")) if importlib.util.find_spec(mod) is None]
    if not missing:
        pytest.skip("both GPIO libraries (lgpio, RPi.GPIO) are installed: this is a Pi, nothing is missing")
    with pytest.raises(RuntimeError, match=f"the {missing[0]} GPIO backend is not available here") as caught:
        TableButtons({"buttons": {"backend": missing[0]}})
    from companion_app.i18n.text import error_text
    assert error_text(caught.value, "de").startswith(f"das GPIO-Backend {missing[0]} ist hier nicht verfügbar (")
    assert "not available" not in error_text(caught.value, "es")
    from hardware.config import HardwareConfigError
    with pytest.raises(HardwareConfigError, match="backend 'pigpio' is not known"):
        TableButtons({"buttons": {"backend": "pigpio"}})
