"""Button scripts on gpiozero's MockFactory: press, long press, bounce."""
import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import TableButtons

CFG = {"buttons": {"debounce_ms": 20, "long_press_ms": 150}}


@pytest.fixture
def table():
    factory = MockFactory()
    hits = []
    buttons = TableButtons(CFG, pin_factory=factory, on_monster=lambda: hits.append("monster"),
                           on_confirm=lambda: hits.append("confirm"), on_undo=lambda: hits.append("undo"))
    yield factory, buttons, hits
    buttons.close()


def press(pin, seconds):
    pin.drive_low()  # buttons pull the pin to ground
    time.sleep(seconds)
    pin.drive_high()


def wait_for(hits, n, timeout=2.0):
    deadline = time.monotonic() + timeout
    while len(hits) < n and time.monotonic() < deadline:
        time.sleep(0.01)


def test_short_press_acts_on_release(table):
    factory, buttons, hits = table
    press(factory.pin(17), 0.05)
    press(factory.pin(27), 0.05)
    assert hits == ["monster", "confirm"]
    assert [e.kind for e in buttons.events] == ["short", "short"]


def test_bounce_is_ignored_and_chatter_counts_once(table):
    factory, buttons, hits = table
    pin = factory.pin(17)
    pin.drive_low(); pin.drive_high()               # a 0 ms blip: bounce
    assert hits == []
    for _ in range(3):                               # contact chatter, then a real press
        pin.drive_low(); pin.drive_high()
    press(pin, 0.05)
    assert hits == ["monster"]
    assert [e.kind for e in buttons.events].count("bounce") == 4


def test_long_press_acts_while_held_and_not_again_on_release(table):
    factory, buttons, hits = table
    pin = factory.pin(27)
    pin.drive_low()
    wait_for(hits, 1)
    assert hits == ["confirm"]                      # acted before release
    pin.drive_high()
    time.sleep(0.05)
    assert hits == ["confirm"] and buttons.events[-1].kind == "long"


def test_undo_needs_a_long_press(table):
    factory, buttons, hits = table
    pin = factory.pin(22)
    press(pin, 0.05)
    assert hits == [] and buttons.events[-1].kind == "ignored"
    pin.drive_low()
    wait_for(hits, 1)
    pin.drive_high()
    assert hits == ["undo"]


def test_pins_come_from_the_config_and_a_failing_action_is_reported():
    factory = MockFactory()

    def broken():
        raise RuntimeError("no game running")

    buttons = TableButtons({"buttons": {"pins": {"monster": 5, "confirm": 6, "undo": 13}, "debounce_ms": 10}},
                           pin_factory=factory, on_monster=broken)
    try:
        press(factory.pin(5), 0.03)
        assert buttons.last_error == "the monster button's action failed: no game running"
        press(factory.pin(17), 0.03)                  # not a configured pin any more: nothing happens
        assert len(buttons.events) == 1
        assert buttons.status()["buttons"] == {"monster": "GPIO5", "confirm": "GPIO6", "undo": "GPIO13"}
    finally:
        buttons.close()
