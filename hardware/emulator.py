"""A simulated WLED device: the no-hardware default and the tests' LED strip.

It sits on a real pseudo-terminal (or a TCP socket), so the link opens it exactly as it
would open ``/dev/ttyUSB0`` — same pyserial code path, same bytes.  It decodes them with
the WLED state machine from ``hardware.protocol`` (TPM2 lengths read WLED's way unless
``tpm2="strict"``), keeps the LED state, and draws it as a PNG of the board or as coloured
text in a terminal.

It shows what WLED (``wled00/wled_serial.cpp``, ``realtimeLock``/``exitRealtime`` in
``udp.cpp``) shows: the first frame after entering realtime mode is black, realtime mode ends
after ``idle_timeout_s`` without a frame, and the parser has no inter-byte timeout, so what
follows a cut frame is read as WLED reads it (baud-switch and command bytes included).

Unplugging is real too: ``unplug()`` closes the pty master (the link's next write fails
like a pulled USB cable) and removes the stable path; ``replug()`` creates a new pty and
points the same path at it, like udev's ``/dev/serial/by-id/…`` link.  The board stays
powered meanwhile (its own 5 V supply): the parser keeps its state, a frame cut by the
unplug is still pending when the cable is back, and realtime mode times out as usual.
"""
from __future__ import annotations

import json
import os
import select
import socket
import tempfile
import threading
import time
import tty
from pathlib import Path

import numpy as np

from engine.geometry import COLS, ROWS, on_board, parse_square, square, square_name
from hardware.layout import LedLayout
from hardware.protocol import TPM2_PONG, WledDecoder

LINK_NAME = "ttyFLURE"
VERSION = "0.15.0"
VERSION_REPLY = f"WLED {VERSION} (flure emulator)\r\n".encode()


def _lift(rgb: np.ndarray) -> np.ndarray:
    """Dim LED values made visible on a screen (an LED at 3/255 is plainly visible in a room)."""
    return np.rint(255.0 * (rgb.astype(np.float32) / 255.0) ** 0.45).astype(np.uint8)


class LedEmulator:
    def __init__(self, layout: LedLayout | None = None, *, transport: str = "pty",
                 link_dir: str | Path | None = None, idle_timeout_s: float = 2.5,
                 keep_frames: bool = False, wire_baud: int | None = None, tpm2: str = "wled") -> None:
        if transport not in ("pty", "socket"):
            raise ValueError(f"transport {transport!r} is not known (use 'pty' or 'socket')")
        # "wled": TPM2 read as WLED reads it (see hardware.protocol); "strict": a plain TPM2 receiver
        self.tpm2 = tpm2
        self.layout = layout or LedLayout.from_config(None)
        self.transport = transport
        self.idle_timeout_s = idle_timeout_s
        # Our own /tmp/flure-leds-* folder (pty only) is removed by stop(), and otherwise when the
        # emulator is garbage-collected or the interpreter exits (an exception, a forgotten stop()).
        self._own_dir = tempfile.TemporaryDirectory(prefix="flure-leds-") \
            if link_dir is None and transport == "pty" else None
        self._dir = Path(link_dir) if link_dir else Path(self._own_dir.name) if self._own_dir else None
        self.path = str(self._dir / LINK_NAME) if transport == "pty" else None
        self.url: str | None = self.path
        self._leds = np.zeros((self.layout.led_count, 3), dtype=np.uint8)
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self.frames_decoded = 0
        self.history: list[bytes] | None = [] if keep_frames else None  # every frame's RGB as received, for tests
        self.shown: list[bytes] | None = [] if keep_frames else None    # the strip as shown after each frame
        # A pty moves bytes as fast as the CPU allows; a UART does not.  With ``wire_baud``
        # the emulator reads no faster than that line (10 bits a byte), so the kernel buffer
        # fills and the link feels the same back-pressure as on a real device.
        self.wire_baud = wire_baud
        self.frames_by_protocol: dict[str, int] = {"adalight": 0, "tpm2": 0}
        self.bytes_received = 0
        self.baud_requests: list[int] = []
        self.commands: list[int] = []   # other WLED command bytes seen between frames (l, L, {, I, o, O)
        self.json_requests: list[bytes] = []   # JSON API documents received ({"v":true} is answered)
        self.baud: int | None = None
        self.timeouts = 0           # times the stream went silent longer than idle_timeout_s
        self.blanked = 0            # frames shown black because they entered realtime mode
        self.plugged = False
        self._last_frame_at = 0.0
        self.first_frame_at: float | None = None  # monotonic arrival times, for rate measurements
        self._decoder = WledDecoder(tpm2)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = self._slave = None
        self._server: socket.socket | None = None
        self._port: int = 0

    # -- life cycle ---------------------------------------------------------------------------
    def start(self) -> "LedEmulator":
        self.replug()
        return self

    def replug(self) -> None:
        """Connect the device (again): a new pty behind the same path, or listen again."""
        if self.plugged:
            return
        self._stop.clear()
        self._check_timeout()   # no reading thread ran while unplugged: the silence was real
        if self.transport == "pty":
            master, slave = os.openpty()
            tty.setraw(slave)
            self._master, self._slave = master, slave
            tmp = self._dir / f".{LINK_NAME}.new"
            if tmp.is_symlink() or tmp.exists():
                tmp.unlink()
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.path)
            target = self._read_pty
        else:
            srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            srv.bind(("127.0.0.1", self._port))
            srv.listen(1)
            self._port = srv.getsockname()[1]
            self._server = srv
            self.url = f"socket://127.0.0.1:{self._port}"
            target = self._read_socket
        self.plugged = True
        self._thread = threading.Thread(target=target, name="led-emulator", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        """Pull the cable: the link's writes fail and the path disappears until ``replug``."""
        if not self.plugged:
            return
        self.plugged = False
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self.transport == "pty":
            for fd in (self._master, self._slave):
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._master = self._slave = None
            if os.path.islink(self.path):
                os.unlink(self.path)
        elif self._server is not None:
            self._server.close()
            self._server = None

    def stop(self) -> None:
        self.unplug()
        if self._own_dir is not None:
            self._own_dir.cleanup()

    def __enter__(self) -> "LedEmulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- reading ------------------------------------------------------------------------------
    def _read_pty(self) -> None:
        master = self._master
        while not self._stop.is_set():
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(master, 256 if self.wire_baud else 65536)  # a UART drains in small pieces
                except OSError:
                    continue  # EIO while no client holds the slave open: wait for one
                if data and self.wire_baud:
                    self._pace(len(data))
                if data:
                    reply = self._take(data)
                    if reply:
                        os.write(master, reply)
            self._check_timeout()   # after reading: a frame that waited while this thread did not run came in time

    def _pace(self, nbytes: int) -> None:
        now = time.monotonic()
        self._wire_free = max(getattr(self, "_wire_free", now), now) + nbytes * 10 / self.wire_baud
        delay = self._wire_free - now
        if delay > 0.001:
            time.sleep(delay)

    def _read_socket(self) -> None:
        srv = self._server
        srv.settimeout(0.05)
        while not self._stop.is_set():
            try:
                conn, _ = srv.accept()
            except (socket.timeout, OSError):
                self._check_timeout()
                continue
            conn.settimeout(0.05)
            with conn:
                while not self._stop.is_set():
                    try:
                        data = conn.recv(65536)
                    except socket.timeout:
                        data = None
                    except OSError:
                        break
                    if data == b"":
                        break
                    if data:
                        reply = self._take(data)
                        if reply:
                            conn.sendall(reply)
                    self._check_timeout()   # after reading, as for the pty

    def _take(self, data: bytes) -> bytes:
        out = self._decoder.feed(data)
        with self._changed:
            self.bytes_received += len(data)
            for k, (proto, rgb) in enumerate(out.frames):
                n = min(len(rgb) // 3, len(self._leds))
                self._leds[:n] = np.frombuffer(rgb, dtype=np.uint8, count=3 * n).reshape(n, 3)
                if k == 0 and out.blanked:   # WLED's realtimeLock(): the whole strip cleared, then shown
                    self._leds[:] = 0
                    self.blanked += 1
                self.frames_decoded += 1
                self.frames_by_protocol[proto] += 1
                if self.history is not None:
                    self.history.append(rgb)
                    self.shown.append(self._leds.tobytes())
            if out.frames:
                self._last_frame_at = time.monotonic()
                if self.first_frame_at is None:
                    self.first_frame_at = self._last_frame_at
            for baud in out.bauds:
                self.baud_requests.append(baud)
                self.baud = baud
            self.commands += out.commands
            if out.frames or out.bauds:
                self._changed.notify_all()
            self.json_requests += out.json
        replies = [self._json_reply(doc) for doc in out.json]
        return (bytes((TPM2_PONG,)) * out.pings + VERSION_REPLY * out.version_requests
                + b"".join(r for r in replies if r))

    def _json_reply(self, document: bytes) -> bytes:
        """WLED's serial JSON API: ``{"v":true}`` is answered with the state and info objects
        (kno.wled.ge/interfaces/serial); other documents change the state and get no answer."""
        try:
            request = json.loads(document)
        except ValueError:
            return b""
        if not isinstance(request, dict) or request.get("v") is not True:
            return b""
        reply = {"state": {"on": True, "bri": 255, "live": self.realtime},
                 "info": {"ver": VERSION, "name": "flure emulator", "brand": "WLED",
                          "leds": {"count": int(self.layout.led_count), "rgbw": False}}}
        return json.dumps(reply, separators=(",", ":")).encode()

    def _check_timeout(self) -> None:
        """WLED leaves realtime mode after ``idle_timeout_s`` without a frame (``exitRealtime()``), and
        shows the next frame black.  Called only once what waited on the line was read: a real device
        hears bytes as they come, while this thread may not have run for a while on a loaded machine,
        and that must not look like silence.  The LEDs keep the last picture (a real WLED goes back
        to its own light, dark if it is set up as this folder's README says)."""
        with self._changed:
            if self._decoder.realtime and time.monotonic() - self._last_frame_at > self.idle_timeout_s:
                self._decoder.exit_realtime()
                self.timeouts += 1

    @property
    def realtime(self) -> bool:
        """WLED's realtime mode: it shows serial frames only while they keep coming."""
        if not self.plugged:
            self._check_timeout()   # no reading thread checks while unplugged
        return self._decoder.realtime

    # -- what the device shows ---------------------------------------------------------------
    @property
    def last_frame_at(self) -> float:
        return self._last_frame_at

    @property
    def state(self) -> list[tuple[int, int, int]]:
        with self._lock:
            return [tuple(int(v) for v in px) for px in self._leds]

    def state_array(self) -> np.ndarray:
        with self._lock:
            return self._leds.copy()

    def square_colour(self, name_or_sq: str | int) -> tuple[int, int, int]:
        sq = parse_square(name_or_sq) if isinstance(name_or_sq, str) else name_or_sq
        idx = self.layout.leds.get(sq)
        if not idx:
            return (0, 0, 0)
        with self._lock:
            return tuple(int(v) for v in self._leds[idx[0]])

    def wait_for_frames(self, count: int, timeout: float = 5.0) -> bool:
        """Wait until ``frames_decoded`` reaches ``count``."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.frames_decoded < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def save_png(self, path: str | Path, pitch: int = 30) -> Path:
        """Draw the state as the board: 156 squares with their LED colour and name."""
        from PIL import Image, ImageDraw
        canvas = _lift(self.layout.to_canvas(self.state_array()))
        margin = pitch // 2
        img = Image.new("RGB", (COLS * pitch + 2 * margin, ROWS * pitch + 2 * margin), (24, 20, 18))
        draw = ImageDraw.Draw(img)
        for row in range(ROWS):
            for col in range(COLS):
                x, y = margin + col * pitch, margin + row * pitch
                if not on_board(col, row):
                    draw.rectangle((x, y, x + pitch - 1, y + pitch - 1), fill=(60, 52, 46))
                    continue
                sq = square(col, row)
                rgb = tuple(int(v) for v in canvas[sq]) if sq in self.layout.leds else (0, 0, 0)
                draw.rectangle((x + 1, y + 1, x + pitch - 2, y + pitch - 2), fill=rgb, outline=(90, 80, 70))
                ink = (0, 0, 0) if sum(rgb) > 380 else (150, 140, 130)
                draw.text((x + 3, y + 2), square_name(sq), fill=ink)
        out = Path(path)   # its folder is not created: `flure leds --png` checked the path first
        img.save(out)
        return out

    def terminal(self, colour: bool = True) -> str:
        """The board as ANSI 24-bit colour text: two characters per square.  ``colour`` False (a file,
        a pipe, ``NO_COLOR``): plain text, each lit square the letter of its colour (``PLAIN_KEY``)."""
        canvas = _lift(self.layout.to_canvas(self.state_array()))
        lines = ["    " + "".join(f"{c:<2}" for c in "abcdefghijklmnop")]
        for row in range(ROWS):
            cells = []
            for col in range(COLS):
                if not on_board(col, row):
                    cells.append("##")
                    continue
                r, g, b = (int(v) for v in canvas[square(col, row)])
                cells.append(f"\x1b[48;2;{r};{g};{b}m  \x1b[0m" if colour else f"{colour_letter(r, g, b)} ")
            lines.append(f"{row + 1:>3} " + "".join(cells))
        if not colour:
            lines.append("    " + PLAIN_KEY)
        status = "receiving" if self.realtime else "idle"
        lines.append(f"    {self.frames_decoded} frames, {status}")
        return "\n".join(lines)


PLAIN_KEY = ". off  R red  G green  B blue  Y yellow  M magenta  C cyan  W white"


def colour_letter(r: int, g: int, b: int) -> str:
    """A lit square's colour as one letter for plain text (``PLAIN_KEY``): the channels at least half
    as bright as the brightest one; ``.`` for a square that is (nearly) off."""
    top = max(r, g, b)
    if top < 40:
        return "."
    lit = tuple(v >= top / 2 for v in (r, g, b))
    return {(1, 0, 0): "R", (0, 1, 0): "G", (0, 0, 1): "B", (1, 1, 0): "Y", (1, 0, 1): "M",
            (0, 1, 1): "C", (1, 1, 1): "W"}[tuple(int(x) for x in lit)]
