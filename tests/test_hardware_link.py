"""The serial link against the emulator on a real pseudo-terminal (and a socket):
frames written = frames decoded, newest frame wins, keepalive, baud switch, unplug/replug."""
import json
import os
import time

import pytest

from companion_app.i18n.text import render
from hardware.layout import LedLayout
from hardware.leds import LedGrid
from hardware.link import SerialLink
from hardware.protocol import make_encoder
from tests.hardware_helpers import FAST, emulator_and_link, harmful_rgb, plan, running_emulator, wait_until

LAYOUT = LedLayout.from_config(None)


def frame(n: int) -> bytes:
    return bytes((n * 7 + i) % 256 for i in range(3 * LAYOUT.led_count))


@pytest.mark.parametrize("protocol", ["adalight", "tpm2"])
@pytest.mark.parametrize("transport", ["pty", "socket"])
def test_round_trip_every_frame_written_is_decoded(protocol, transport):
    # TPM2 to a plain TPM2 receiver: a WLED reads 156-LED TPM2 frames one LED short (protocol tests)
    # (every wait is short, so no frame comes after a silence WLED would time out on)
    with emulator_and_link(protocol, transport, emulator={"tpm2": "strict"}, keepalive_s=60) as (emu, link):
        for n in range(25):
            link.submit(frame(n))
            assert link.wait_sent(2)
        assert emu.wait_for_frames(26, 3)
        # the first frame twice: WLED shows the one that enters realtime mode black
        assert link.counters.sent == emu.frames_decoded == 26 and link.counters.repeats == 1 == emu.blanked
        assert emu.frames_by_protocol[protocol] == 26
        assert emu.state_array().tobytes() == frame(24)


def test_frames_waiting_for_a_stalled_sender_are_kept_up_to_a_quarter_second_of_line_time():
    """Frames submitted while the sender is not running (a port still being opened, a thread
    the machine did not schedule) are all sent, as many as the line carries in 0.25 s;
    beyond that the oldest go, so a slow line never runs more than 0.25 s behind."""
    wire_s = (6 + 3 * LAYOUT.led_count) * 10 / 921600
    with running_emulator(layout=LAYOUT, keep_frames=True) as emu:
        link = SerialLink(emu.path, make_encoder("adalight", LAYOUT.led_count), keepalive_s=60)
        assert link.queue_frames == int(0.25 / wire_s) == 48
        try:
            for n in range(60):
                link.submit(frame(n))      # the sender thread has not even started
            link.start()
            assert emu.wait_for_frames(49, 5) and link.wait_sent(2)
            assert link.counters.replaced == 12 and emu.frames_decoded == 49   # the first one twice
            assert emu.history == [frame(12)] + [frame(n) for n in range(12, 60)]   # in order, the newest last
            assert emu.shown == [bytes(len(frame(0)))] + [frame(n) for n in range(12, 60)]   # each one seen
        finally:
            link.close()
    slow = SerialLink("loop://", make_encoder("adalight", LAYOUT.led_count), baud=115200)
    assert slow.queue_frames == 6 and slow.queue_frames * wire_s * 8 <= 0.25


def test_the_emulator_path_is_a_real_tty():
    with running_emulator(layout=LAYOUT) as emu:
        fd = os.open(emu.path, os.O_RDWR | os.O_NOCTTY)
        try:
            assert os.path.islink(emu.path) and os.isatty(fd)
        finally:
            os.close(fd)


def test_newest_frame_wins_while_the_device_is_away_and_is_shown_on_return():
    with emulator_and_link(keepalive_s=0.2, reconnect_s=0.05) as (emu, link):
        link.submit(frame(1))
        assert emu.wait_for_frames(1, 3)
        emu.unplug()
        assert wait_until(lambda: not link.connected, 3)  # the keepalive write notices
        assert "LED device" in link.status()["last_error"]
        for n in range(2, 7):
            link.submit(frame(n))                          # returns at once, device or not
        assert link.counters.replaced >= 4
        before = emu.frames_decoded
        emu.replug()
        assert wait_until(lambda: emu.frames_decoded > before and emu.state_array().tobytes() == frame(6), 3)
        status = link.status()
        assert status["connected"] and status["reconnects"] == 1 and status["last_error"] is None
        json.dumps(status)


def test_keepalive_keeps_wled_in_realtime_mode():
    """Resends every 0.1 s keep the emulator, with WLED's own 2.5 s timeout, in realtime mode; once the
    link closes, the silence ends it.  Every wait is for the event itself (frames decoded, the link's
    count, the mode), bounded only for a loaded machine."""
    with emulator_and_link(keepalive_s=0.1) as (emu, link):
        assert emu.idle_timeout_s == 2.5
        link.submit(frame(3))
        assert emu.wait_for_frames(9, 60)  # the first frame twice, then seven resends without a single submit
        # the link counts a write once it returned, which may be after the emulator decoded it
        assert wait_until(lambda: link.counters.keepalives >= 7, 30), link.counters
        assert emu.timeouts == 0 and emu.realtime
        assert link.counters.submitted == 1
        link.close()
        assert wait_until(lambda: not emu.realtime, 60) and emu.timeouts == 1  # silence: WLED would time out


def test_frames_on_the_line_while_the_emulator_did_not_run_are_no_silence(monkeypatch):
    """A loaded machine may not run the emulator's reading thread for longer than the timeout while
    the link goes on writing: those frames came in time (a real WLED hears bytes as they come), so
    they are read before the silence is judged.  The thread's wait on the line is made to last 1.5 s
    (against a 1 s timeout) and to end only once the link has written more frames."""
    import select
    import threading

    import hardware.emulator

    real_select = select.select
    stall, resumed = threading.Event(), []

    with emulator_and_link(emulator={"idle_timeout_s": 1.0}, keepalive_s=0.05) as (emu, link):
        def not_scheduled(*args):
            if stall.is_set() and threading.current_thread() is emu._thread:
                stall.clear()
                sent = link.counters.sent
                time.sleep(1.5)
                assert wait_until(lambda: link.counters.sent >= sent + 2, 30)   # frames wait on the line
                resumed.append(emu.frames_decoded)
            return real_select(*args)

        monkeypatch.setattr(hardware.emulator.select, "select", not_scheduled)
        link.submit(frame(3))
        assert emu.wait_for_frames(1, 30)
        timeouts = emu.timeouts
        stall.set()
        assert wait_until(lambda: resumed, 60)
        assert emu.wait_for_frames(resumed[0] + 1, 30)
        assert emu.timeouts == timeouts and emu.realtime


def test_baud_switch_byte_is_sent_on_connect():
    with emulator_and_link(baud=921600, switch_from=115200) as (emu, link):
        link.submit(frame(0))
        assert emu.wait_for_frames(1, 3)
        assert emu.baud_requests == [921600]


def test_loop_url_and_a_missing_device():
    link = SerialLink("loop://", make_encoder("tpm2", 4)).start()
    link.submit(bytes(12))
    assert link.wait_sent(2) and link.status()["frames_sent"] == 2 and link.status()["repeats"] == 1
    link.close()
    link = SerialLink("/dev/serial/by-id/usb-no-such-device", make_encoder("adalight", 4), reconnect_s=0.05).start()
    link.submit(bytes(12))
    assert wait_until(lambda: link.last_error is not None, 2)
    assert "is not there: is it plugged in?" in link.status()["last_error"]
    assert not link.status()["connected"]
    link.close()


def test_a_device_that_takes_no_data_is_reported_until_it_does():
    """A real pty nobody reads: the kernel buffer fills, writes time out.  Reopening the
    port does not clear the message; only a frame that gets through does."""
    import select
    import threading
    import tty
    master, slave = os.openpty()
    tty.setraw(slave)
    link = SerialLink(os.ttyname(slave), make_encoder("adalight", LAYOUT.led_count), keepalive_s=0.01,
                      write_timeout_s=0.1, reconnect_s=0.05).start()
    stop = threading.Event()
    drainer = None
    try:
        link.submit(frame(1))
        assert wait_until(lambda: link.counters.write_errors >= 2, 10)   # failed, reopened, failed again
        assert link.counters.reconnects >= 1
        assert link.status()["last_error"] == (f"LED device {os.ttyname(slave)} takes no data (the write timed "
                                               f"out): is it running WLED, set to serial at 921600 baud?")

        def drain():
            while not stop.is_set():
                if select.select([master], [], [], 0.05)[0]:
                    os.read(master, 65536)
        drainer = threading.Thread(target=drain, daemon=True)
        drainer.start()
        assert wait_until(lambda: link.last_error is None and link.connected, 5)
    finally:
        stop.set()
        link.close()
        if drainer is not None:
            drainer.join(2)
        os.close(master)
        os.close(slave)


def pyserial_error(args: tuple, wrapped: BaseException | None = None):
    """A ``SerialException`` as pyserial raises it: with ``args``, while handling ``wrapped``."""
    import serial

    error = serial.SerialException(*args)
    error.__context__ = wrapped
    return error


@pytest.mark.parametrize("url, exc, message", [
    ("/dev/ttyUSB0", None, "LED device /dev/ttyUSB0 is not there: is it plugged in?"),
    ("foo://x", None, "'foo://x' is not a device path or a pyserial URL (use /dev/ttyUSB0"),
    ("/dev/null", None, "/dev/null is not a serial device"),
    ("socket://127.0.0.1:9", None, "connection refused; is the emulator or serial bridge running?"),
    ("/dev/ttyUSB0", ((13, "could not open port /dev/ttyUSB0: [Errno 13] Permission denied: '/dev/ttyUSB0'"), None),
     "permission denied; add this user to the 'dialout' group"),
    ("/dev/ttyACM0", ((16, "could not open port /dev/ttyACM0: [Errno 16] Device or resource busy: '/dev/ttyACM0'"), None),
     "LED device /dev/ttyACM0 is in use by another program"),
    ("/dev/ttyACM0", (("write failed: [Errno 5] Input/output error",), OSError(5, "Input/output error")),
     "stopped answering (unplugged?)"),
])
def test_link_errors_are_plain_sentences(url, exc, message):
    """Real pyserial failures where this machine can make them; pyserial's own exception
    (same arguments as it raises, while handling the OS error it wraps) for a locked or forbidden
    port and a failed write."""
    from hardware.link import plain_error
    if exc is not None:
        text = plain_error(url, pyserial_error(*exc))
    else:
        link = SerialLink(url, make_encoder("adalight", 4), reconnect_s=0.05).start()
        try:
            link.submit(bytes(12))
            assert wait_until(lambda: link.last_error is not None, 5)
            text = link.status()["last_error"]
        finally:
            link.close()
    assert message in text and "Errno" not in text and "Traceback" not in text


def test_unplug_and_replug_during_an_animation():
    """The real thing: a 20-step plan streams through a pty, the cable is pulled mid-move,
    the device comes back at the same path; the grid reconnects and ends on the final frame."""
    with running_emulator(layout=LAYOUT) as emu:
        cfg = {**FAST, "animation": {"beat_ms": 25, "hold_s": 1.5, "fps": 60},
               "serial": {"reconnect_s": 0.05, "keepalive_s": 0.3}}
        grid = LedGrid(cfg, url=emu.path)
        try:
            p = plan(steps=20)
            from hardware.animation import PlanShow
            show = PlanShow(p, grid.config.animation)
            assert grid.show_plan(p)
            assert emu.wait_for_frames(20, 3)
            emu.unplug()
            assert wait_until(lambda: not grid.status()["connected"], 3)
            error = grid.status()["last_error"]  # the failed write, then the failed reopen
            assert "stopped answering (unplugged?)" in error or "is not there: is it plugged in?" in error
            time.sleep(0.3)
            assert grid.status()["frames_rendered"] < show.frame_count() - 30   # the move is still playing
            back = emu.frames_decoded
            emu.replug()
            assert grid.wait_done(10)
            assert emu.frames_decoded - back > 30        # and went on playing on the device that came back
            status = grid.status()
            assert status["connected"] and status["reconnects"] == 1 and status["last_error"] is None
            final = grid.render(show.frame_at(show.duration))
            assert wait_until(lambda: emu.state_array().tobytes() == final, 2)
            r, g, b = emu.square_colour(p["end"]["at"])  # the monster (capped) is where the plan ends
            assert r > 100 and r > 4 * g and b == 0
        finally:
            grid.close()


DEVICE = os.environ.get("FLURE_LED_DEVICE")


@pytest.mark.parametrize("target", ["emulator", "device"])
def test_controller_answers_like_wled_and_takes_a_plan(target):
    """Runs on the emulator always, and on a real WLED controller when FLURE_LED_DEVICE
    names its serial URL (e.g. /dev/serial/by-id/usb-…): the same bytes, the same checks."""
    import serial
    if target == "device" and not DEVICE:
        pytest.skip("no real LED controller: set FLURE_LED_DEVICE=/dev/serial/by-id/… (a WLED board)")
    with running_emulator(layout=LAYOUT) as emu:
        url = emu.path if target == "emulator" else DEVICE
        port = serial.serial_for_url(url, baudrate=921600, timeout=1)
        try:
            port.reset_input_buffer()
            port.write(b"v")
            assert port.readline().startswith(b"WLED")
        finally:
            port.close()
        grid = LedGrid({**FAST, "serial": {"keepalive_s": 0.5}}, url=url)
        try:
            assert grid.show_plan(plan())
            assert grid.wait_done(20)
            status = grid.status()
            assert status["connected"] and status["frames_sent"] > 10 and status["last_error"] is None
        finally:
            grid.close()


def test_a_missing_device_is_said_in_each_language_on_the_referee_view():
    """The link's real error (a device path that is not there) in every language, via the session's Device."""
    from companion_app.table.devices.devices import Device

    url = "/dev/serial/by-id/usb-no-such-device"
    link = SerialLink(url, make_encoder("adalight", 4), reconnect_s=0.05).start()
    try:
        link.submit(bytes(12))
        assert wait_until(lambda: link.last_error is not None, 2)
        detail = Device("LED grid", link, why="").status()["detail"]
    finally:
        link.close()
    assert detail["last_error"] == f"LED device {url} is not there: is it plugged in?"
    assert render(detail["last_error"], "fr") == f"le périphérique LED {url} est absent\u00a0: est-il branché\u00a0?"
    assert render(detail["last_error"], "de") == f"LED-Gerät {url} ist nicht da: ist es eingesteckt?"
    assert render(detail["last_error"], "es") == f"el dispositivo LED {url} no está: ¿está conectado?"


def test_a_device_failure_names_the_device_in_each_language():
    from companion_app.table.devices.devices import Device

    class Broken:
        def status(self):
            return {}

        def show(self):
            raise OSError("write failed")

    device = Device("LED grid", Broken(), why="")
    assert device.call(lambda d: d.show()) is None
    status = device.status()
    assert status["error"] == "LED grid failed: write failed"
    assert render(status["error"], "de") == "LED-Raster ist fehlgeschlagen: write failed"
    assert render(status["error"], "fr") == "Grille de LED\u00a0: échec (write failed)"


def test_the_emulator_shows_what_wled_shows_around_realtime_mode():
    """WLED (wled_serial.cpp, realtimeLock/exitRealtime in udp.cpp) on a real pty: the frame that enters
    realtime mode is shown black, the next one is shown; after the timeout the next frame is black again;
    the parser has no inter-byte timeout and keeps its state while the cable is out (the board is powered)."""
    import serial
    a, b = frame(1), frame(2)
    enc = make_encoder("adalight", LAYOUT.led_count)
    with running_emulator(layout=LAYOUT, idle_timeout_s=0.3, keep_frames=True) as emu:
        black = bytes(len(a))
        port = serial.serial_for_url(emu.path, baudrate=921600, write_timeout=1)
        try:
            port.write(enc.encode(a))
            assert emu.wait_for_frames(1) and emu.realtime and emu.state_array().tobytes() == black
            port.write(enc.encode(b))
            assert emu.wait_for_frames(2) and emu.state_array().tobytes() == b
            assert wait_until(lambda: not emu.realtime) and emu.timeouts == 1
            assert emu.state_array().tobytes() == b      # the emulator keeps the last picture on screen
            wire = enc.encode(a)
            port.write(wire[:100])                       # half a frame, then a silence longer than the timeout
            time.sleep(0.5)
            port.write(wire[100:])
            assert emu.wait_for_frames(3) and emu.state_array().tobytes() == black   # completed, entered: black
            port.write(wire[:200])
        finally:
            port.close()
        emu.unplug()
        emu.replug()
        port = serial.serial_for_url(emu.path, baudrate=921600, write_timeout=1)
        try:
            port.write(wire[200:] + b"\xb5")             # the frame cut by the unplug ends; then a baud switch
            assert emu.wait_for_frames(4) and wait_until(lambda: emu.baud_requests == [921600])
        finally:
            port.close()
        assert emu.shown == [black, b, black, a] and emu.blanked == 2


def test_a_frame_cut_after_any_byte_never_reaches_wleds_commands():
    """A program killed (or a cable pulled) after each possible byte count of a frame whose colours are
    WLED commands (00 B4 FF is a blue square of the wiring test, and 576000 baud to WLED): the link
    that opens the device next flushes it first, so WLED never switches its baud rate or reads a
    command, and the next frame is shown right at once."""
    import serial
    enc = make_encoder("adalight", LAYOUT.led_count)
    cut = enc.encode(harmful_rgb(LAYOUT.led_count))
    pictures = [harmful_rgb(LAYOUT.led_count)[::-1], frame(5)]
    with running_emulator(layout=LAYOUT) as emu:
        for k in range(len(cut) + 1):
            raw = serial.serial_for_url(emu.path, baudrate=921600, write_timeout=1)
            raw.write(cut[:k])
            raw.close()
            link = SerialLink(emu.path, enc, keepalive_s=60).start()
            try:
                link.submit(pictures[k % 2])
                assert wait_until(lambda: emu.state_array().tobytes() == pictures[k % 2], 10), k
                assert emu.baud_requests == [] and emu.commands == [] and emu.json_requests == [], k
            finally:
                link.close()


def test_after_a_silence_and_after_a_reconnect_the_picture_is_back_at_once():
    """No keepalive (60 s): after WLED's 2.5 s timeout the next frame would be shown black and the board
    stay dark until the next one; the link writes it twice, so it shows at once.  The same after the
    cable was out longer than the timeout."""
    with emulator_and_link(emulator={"keep_frames": True}, keepalive_s=60, reconnect_s=0.05) as (emu, link):
        black = bytes(len(frame(0)))
        link.submit(frame(1))
        assert wait_until(lambda: emu.state_array().tobytes() == frame(1))
        assert wait_until(lambda: not emu.realtime, 10)           # 2.5 s without a frame
        link.submit(frame(2))
        assert wait_until(lambda: emu.state_array().tobytes() == frame(2), 1.5)   # well before any keepalive
        assert emu.shown[-2:] == [black, frame(2)]
        assert wait_until(lambda: link.counters.repeats == 2, 1.0)   # (counted by the sender after its write)
        emu.unplug()
        link.submit(frame(3))                                     # the write fails: the device is away
        assert wait_until(lambda: not link.connected, 3)
        assert wait_until(lambda: not emu.realtime, 10)
        emu.replug()
        assert wait_until(lambda: emu.state_array().tobytes() == frame(3), 3)
        assert emu.shown[-2:] == [black, frame(3)] and link.counters.reconnects == 1
        assert link.status()["flushes"] == 2 and link.status()["repeats"] == 3
