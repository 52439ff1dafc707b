"""The serial link to the LED controller.

Why a thread: a USB device can stall or vanish at any moment, and the caller (the game
session, a web request) must never wait for it.  ``submit`` only swaps a slot — the
newest frame wins, an unsent older one is simply replaced — and a sender thread owns the
port: it writes, resends the last frame every ``keepalive_s`` (WLED leaves realtime mode
after 2.5 s of silence and would blank the board), and reopens the device by its URL when
it comes back after an unplug.  Frames wait in a queue as long as the line can send them
within ``QUEUE_SECONDS`` (0.25 s: 48 frames of 156 LEDs at 921600 baud, 6 at 115200), so a
sender that the machine leaves unscheduled for a moment, or a port still being opened, loses
no frame, while a line slower than the animation never runs more than 0.25 s behind; past
that the oldest waiting frame goes, and whenever the device is known to be away (an open or
a write failed) only the newest frame is kept.  pyserial picks
the transport from the URL, so a real device, a pseudo-terminal, ``socket://`` and
``loop://`` all go through the same code; whatever the device sends back is read and dropped
after each write (``loop://`` hands every written byte back and stops taking more once 4 KB
wait unread; a WLED answers some requests).

What a WLED makes of the bytes is allowed for (``hardware.protocol`` says why): on every open
the link first writes the encoder's ``flush`` (a frame cut by a failed write, an unplug or a
killed program is completed and ended, so its rest never reaches WLED's command bytes), then
the baud-switch byte if any; each frame goes out in one write, and one that fails, times out or
is written short closes the port, so the reopen flushes before anything else.  The first frame
after an open, and any frame after ``REPEAT_AFTER_S`` without a write, is written twice: WLED
shows the frame that enters realtime mode black, so the second copy is the first one seen.

Status tells the truth: ``connected`` is true only while the port is open and no write has
failed since the last one that got through (a device that opens but reads nothing, a "hung"
controller, is not "connected" after its first timed-out write, though the port reopens).  The
sender never dies of a device's failure: anything a write or an open raises is a plain
``last_error``; should the sender thread end all the same, ``status()`` says so and starts it
again (``sender_restarts``).
"""
from __future__ import annotations

import errno
import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass

from engine.wording import N_, Said, Text
from hardware.protocol import Encoder, baud_switch_byte

QUEUE_SECONDS = 0.25  # the most the LEDs may run behind the animation on a slow line
# WLED leaves realtime mode after 2.5 s without a frame and shows the frame that brings it back
# black; 0.5 s less allows for bytes still waiting in the OS and UART buffers.
WLED_REALTIME_TIMEOUT_S = 2.5
REPEAT_AFTER_S = WLED_REALTIME_TIMEOUT_S - 0.5
log = logging.getLogger(__name__)


@dataclass
class LinkCounters:
    submitted: int = 0
    sent: int = 0            # frames written, keepalive resends and repeats included
    repeats: int = 0         # frames written twice (after an open or a silence: WLED blanks the first)
    flushes: int = 0         # flush bytes written on opening the port (see the module's docstring)
    replaced: int = 0        # frames overwritten by a newer one before they were sent
    keepalives: int = 0
    reconnects: int = 0
    write_errors: int = 0
    sender_restarts: int = 0   # the sender thread ended unexpectedly and was started again


def os_errno(exc: BaseException) -> int | None:
    """The operating system's error number behind ``exc``: its own, or that of the error pyserial
    turned into a ``SerialException`` with the number only in its text (pyserial raises it while
    handling the ``OSError``, or the ``termios.error`` of a port that is no terminal: its context)."""
    seen: BaseException | None = exc
    while seen is not None:
        code = getattr(seen, "errno", None)
        if code is None and type(seen).__name__ == "error" and type(seen).__module__ == "termios" and seen.args:
            code = seen.args[0]       # termios.error is (errno, text), not an OSError
        if isinstance(code, int):
            return code
        seen = seen.__cause__ or seen.__context__
    return None


def plain_error(url: str, exc: BaseException, baud: int | None = None) -> Said:
    """A sentence a referee can act on, not a traceback: what is wrong with which device and
    what to try (wording data, said in each player's language), decided by the error's number
    and type.  Unknown failures keep pyserial's own text, in parentheses inside a sentence
    naming the device."""
    text = str(exc) or exc.__class__.__name__
    code = os_errno(exc)
    if code == errno.ENOENT:
        return Said(Text(N_("LED device %(url)s is not there: is it plugged in?"), url=url))
    if code in (errno.EACCES, errno.EPERM):
        return Said(Text(N_("LED device %(url)s: permission denied; add this user to the 'dialout' group "
                            "(sudo usermod -aG dialout $USER, then log in again)"), url=url))
    if code == errno.EBUSY:
        return Said(Text(N_("LED device %(url)s is in use by another program (a serial monitor?); close it"), url=url))
    if code == errno.ECONNREFUSED:
        return Said(Text(N_("LED device %(url)s: connection refused; is the emulator or serial bridge running?"),
                         url=url))
    if type(exc).__name__ == "SerialTimeoutException" or isinstance(exc, queue.Full):
        if baud:
            return Said(Text(N_("LED device %(url)s takes no data (the write timed out): is it running WLED, set to "
                                "serial at %(baud)s baud?"), url=url, baud=baud))
        return Said(Text(N_("LED device %(url)s takes no data (the write timed out): is it running WLED, set to "
                            "serial?"), url=url))
    # pyserial says a port that reads as ready but gives nothing (unplugged) only in words: the one
    # failure known by its text, pyserial's own and not a sentence of ours.
    if code in (errno.EIO, errno.ENODEV, errno.ENXIO) or "returned no data" in text:
        return Said(Text(N_("LED device %(url)s stopped answering (unplugged?); waiting for it to come back"), url=url))
    if code == errno.ENOTTY:
        return Said(Text(N_("%(url)s is not a serial device (expected something like /dev/ttyUSB0 or "
                            "/dev/serial/by-id/…)"), url=url))
    if isinstance(exc, ValueError) and "://" in url:     # serial_for_url: a protocol it does not know
        return Said(Text(N_("%(url)s is not a device path or a pyserial URL (use /dev/ttyUSB0, /dev/serial/by-id/…, "
                            "socket://host:port or loop://)"), url=repr(url)))
    # pyserial's own text goes inside a sentence of ours: without its closing full stop
    return Said(Text(N_("LED device %(url)s: %(error)s"), url=url, error=text.rstrip(".")))


class SerialLink:
    def __init__(self, url: str, encoder: Encoder, *, baud: int = 921600, switch_from: int | None = None,
                 keepalive_s: float = 1.0, reconnect_s: float = 0.25, write_timeout_s: float = 1.0,
                 queue_frames: int | None = None) -> None:
        self.url = url
        self.encoder = encoder
        self.baud = baud
        self.switch_from = switch_from
        self.keepalive_s = keepalive_s
        self.reconnect_s = reconnect_s
        self.write_timeout_s = write_timeout_s
        self.counters = LinkCounters()
        self.last_error: str | None = None
        self.connected = False
        self._away = False                    # an open or a write failed: only the newest frame matters
        self._port = None
        self._queue: deque[bytes] = deque()  # encoded frames not yet written, oldest first
        self.frame_wire_s = encoder.frame_size * 10 / baud   # one frame's time on a UART (10 bits a byte)
        if queue_frames is None:  # what the line sends in QUEUE_SECONDS
            queue_frames = int(QUEUE_SECONDS / self.frame_wire_s)
        self.queue_frames = max(2, queue_frames)
        self._writing = False                 # a frame is taken from the queue and being written
        self._last: bytes | None = None      # last frame written, for keepalive and after a reconnect
        self._repeat = True                   # write the next frame twice (the port was just opened)
        self._last_write_at = 0.0             # monotonic start of the last write that got through
        self._ever_connected = False
        self._failing = False                 # a write failed and none got through since
        self._error_from_open = False         # last_error says the port could not be opened
        self._closed = False
        self._cond = threading.Condition()
        self._thread = self._new_thread()
        self._started = False

    def _new_thread(self) -> threading.Thread:
        return threading.Thread(target=self._run, name=f"led-link {self.url}", daemon=True)

    def start(self) -> "SerialLink":
        self._started = True
        self._thread.start()
        return self

    # -- caller side: never blocks on the device -------------------------------------------
    def submit(self, rgb: bytes) -> None:
        """Queue one strip frame (3 bytes per LED); never waits for the device."""
        frame = self.encoder.encode(rgb)
        with self._cond:
            limit = 1 if self._away else self.queue_frames  # (not yet opened is not away)
            while len(self._queue) >= limit:
                self._queue.popleft()
                self.counters.replaced += 1
            self._queue.append(frame)
            self.counters.submitted += 1
            self._cond.notify_all()

    def wait_sent(self, timeout: float = 2.0) -> bool:
        """Wait until every submitted frame is written (or dropped) — for tests and the CLI."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while (self._queue or self._writing) and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def status(self) -> dict:
        self._revive()
        c = self.counters
        return {"connected": self.connected and not self._failing, "port": self.url, "protocol": self.encoder.name,
                "baud": self.baud, "leds": self.encoder.count, "frames_sent": c.sent,
                "frames_replaced": c.replaced, "keepalives": c.keepalives, "reconnects": c.reconnects,
                "repeats": c.repeats, "flushes": c.flushes,
                "write_errors": c.write_errors, "sender_restarts": c.sender_restarts,
                "last_error": self.last_error}

    def _revive(self) -> None:
        """A sender thread that ended while the link is open is reported and started again."""
        with self._cond:
            if not self._started or self._closed or self._thread.is_alive():
                return
            self.counters.sender_restarts += 1
            self.last_error = (Said(Text(N_("LED device %(url)s: the sending thread had stopped; started it again"),
                                         url=self.url)) if self.last_error is None else self.last_error)
            self._failing = True
            self._thread = self._new_thread()
            self._thread.start()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout=3)
        self._close_port()

    # -- sender thread ---------------------------------------------------------------------
    def _run(self) -> None:
        """The send loop, started again after anything unexpected (never a silent dead thread)."""
        while True:
            try:
                self._send()
                return
            except Exception as exc:  # noqa: BLE001 - the LEDs must keep trying, and say why they do not work
                log.exception("LED sender for %s failed", self.url)
                with self._cond:
                    self.counters.sender_restarts += 1
                    self.last_error = Said(Text(N_("%(error)s (the sender started again)"),
                                                error=plain_error(self.url, exc, self.baud).text))
                    self._failing = True
                    self._writing = False
                    self._cond.notify_all()
                self._close_port()
                self._pause(self.reconnect_s)

    def _send(self) -> None:
        next_keepalive = time.monotonic() + self.keepalive_s
        while True:
            with self._cond:
                if self._closed:
                    return
            if self._port is None and not self._open():
                self._pause(self.reconnect_s)
                continue
            with self._cond:
                while not self._queue and not self._closed:
                    left = next_keepalive - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                if self._closed:
                    return
                frame, keepalive = (self._queue.popleft(), False) if self._queue else (self._last, True)
                self._writing = frame is not None
            next_keepalive = time.monotonic() + self.keepalive_s
            if frame is None:
                continue
            written = self._write(frame)
            with self._cond:
                if written:
                    self._last = frame
                    self.counters.sent += written
                    self.counters.repeats += written - 1
                    self.counters.keepalives += keepalive
                    self.last_error = None   # cleared by a frame delivered, not by an open alone
                    self._failing = False
                else:  # not written: only the newest frame is worth sending on reconnect
                    self._queue.appendleft(frame)
                    while len(self._queue) > 1:
                        self._queue.popleft()
                        self.counters.replaced += 1
                self._writing = False
                self._cond.notify_all()
            if not written:  # a device that fails every write is not reopened flat out
                self._pause(self.reconnect_s)

    def _pause(self, seconds: float) -> None:
        """Wait ``seconds`` or until closed; new frames do not cut it short."""
        until = time.monotonic() + seconds
        with self._cond:
            while not self._closed and (left := until - time.monotonic()) > 0:
                self._cond.wait(left)

    def _open(self) -> bool:
        import serial
        baud = self.switch_from or self.baud
        port = None
        try:
            port = serial.serial_for_url(self.url, baudrate=baud, timeout=0,
                                         write_timeout=self.write_timeout_s)
            self._port = port
            if self.switch_from and self.switch_from != self.baud:
                self._write_all(self.encoder.flush)   # a board at switch_from: the byte must land between frames
                self._write_all(baud_switch_byte(self.baud))
                port.flush()
                time.sleep(0.02)  # let WLED read the byte before the line changes speed
                port.baudrate = self.baud
        except (serial.SerialException, OSError, ValueError, queue.Full) as exc:   # (loop:// raises queue.Full)
            self._port = None
            if port is not None:
                try:
                    port.close()
                except Exception:  # noqa: BLE001 - a device that failed at once may fail to close too
                    pass
            self.last_error = plain_error(self.url, exc, self.baud)
            self._error_from_open = True
            self.connected = False
            self._away = True
            return False
        self._repeat = True
        self.connected = True
        self._away = False
        if self._error_from_open:   # "is not there" is answered by the open; a write error is not
            self.last_error, self._error_from_open = None, False
        if self._ever_connected:
            self.counters.reconnects += 1
        self._ever_connected = True
        with self._cond:  # show the current picture again at once: the device forgot it
            if not self._queue and self._last is not None:
                self._queue.append(self._last)
        try:   # whatever frame was cut last time (a failed write, an unplug, a killed program) ends now
            self._write_all(self.encoder.flush)
            self._drain()
        except Exception as exc:  # noqa: BLE001 - as for a frame: not delivered
            self._write_failed(exc)
            return False
        self.counters.flushes += 1
        return True

    def _write_all(self, data: bytes) -> None:
        """One write call; a short one is a failure like a timed-out one (the frame was cut)."""
        import serial
        written = self._port.write(data)
        if written is not None and written < len(data):
            raise serial.SerialTimeoutException(f"Write timeout: {written} of {len(data)} bytes written")

    def _write(self, frame: bytes) -> int:
        """Write one frame, twice after an open or a silence WLED has timed out on; how many
        copies were written (0: the write failed, the port is closed and will be flushed on reopening)."""
        started = time.monotonic()
        copies = 2 if self._repeat or started - self._last_write_at >= REPEAT_AFTER_S else 1
        try:
            self._write_all(frame * copies)   # whole frames in one write
            self._drain()
            self._repeat, self._last_write_at = False, started
            return copies
        except Exception as exc:  # noqa: BLE001 - pyserial, the OS, loop://'s queue.Full: all "not delivered"
            self._write_failed(exc)
            return 0

    def _write_failed(self, exc: BaseException) -> None:
        """A write did not get through (maybe part of it did): the port is closed, and reopening it flushes."""
        self.counters.write_errors += 1
        self._failing = True
        self._error_from_open = False
        self.last_error = plain_error(self.url, exc, self.baud)
        self._away = True
        self._close_port()

    def _drain(self) -> None:
        """Read and drop what the device sent back (loop:// returns every byte written)."""
        waiting = self._port.in_waiting
        if waiting:
            self._port.read(waiting)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        self.connected = False
        if port is not None:
            try:
                port.close()
            except Exception:  # a vanished device may fail even to close; it is gone either way
                pass
