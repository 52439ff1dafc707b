"""Wire formats a stock WLED (or an Adalight-FastLED sketch, or anything Hyperion drives)
understands, and the matching decoder.

Encoder and decoder live together so they are tested as a pair: every byte the link
writes is fed back through the same state machine the emulator uses, which follows
WLED's ``wled_serial.cpp``:

* Adalight: ``'A' 'd' 'a'``, count-1 high, count-1 low, checksum ``high ^ low ^ 0x55``,
  then R G B per LED.
* TPM2 data packet: ``0xC9 0xDA``, payload length high, low (3 x LEDs), R G B…, ``0x36``.
* Baud switch: a single byte 0xB0–0xB7 between frames makes WLED change its baud rate
  (0xB0 115200, 0xB1 230400, 0xB2 460800, 0xB3 500000, 0xB4 576000, 0xB5 921600,
  0xB6 1000000, 0xB7 1500000).

WLED reads a TPM2 length its own way: it divides the high and the low byte by 3 one at a
time (``count = hi*256/3 + lo/3``) and never looks for the end byte.  Whenever the high
byte is not a multiple of 3 (86 LEDs or more, e.g. the board's 156: 468 = 0x01D4 is read
as 85 + 70 = 155) it takes one pixel too few, and the last LED's three bytes reach its
command parser, where 0xB0–0xB7 would switch its baud rate and ``{`` would start a JSON
read.  The decoder does the same by default (``tpm2="wled"``), so the emulator shows what a
WLED shows; ``tpm2="strict"`` is a plain TPM2 receiver (length read whole, end byte required).
``wled_misreads_tpm2`` tells the link to warn.

Two more things WLED does that the decoder models, because a sender must allow for them:

* **The first frame after entering realtime mode is shown black.**  WLED writes a frame's
  pixels, then ``realtimeLock()`` (``udp.cpp``) clears the whole strip when it was not yet in
  realtime mode, then shows it.  ``WledDecoder.realtime`` is that mode; a frame that enters it
  is reported in ``Decoded.blanked``; ``exit_realtime()`` is WLED's timeout (2.5 s without a
  frame, checked by the caller, who has the clock).  A sender writes its first frame twice.
* **No inter-byte timeout.**  The parser's state lasts as long as the board is powered: a
  frame cut short is completed by whatever bytes come next, and what is left of them is read
  between frames, where 0xB0–0xB7 switch the baud rate and ``v l L o O { I`` are commands.
  ``Encoder.flush`` is what a sender writes after a possible cut (a failed or timed-out
  write, a reconnect): bytes that complete any pending frame and mean nothing between frames.
"""
from __future__ import annotations

from dataclasses import dataclass, field

ADA_MAGIC = b"Ada"
TPM2_START, TPM2_DATA, TPM2_END = 0xC9, 0xDA, 0x36
TPM2_PING, TPM2_PONG = 0xAA, 0xAC

# WLED: a lone byte 0xB0–0xB7 at a frame boundary switches the serial baud rate.
BAUD_SWITCH: dict[int, int] = {
    115200: 0xB0, 230400: 0xB1, 460800: 0xB2, 500000: 0xB3,
    576000: 0xB4, 921600: 0xB5, 1000000: 0xB6, 1500000: 0xB7,
}
BAUD_OF_SWITCH = {byte: baud for baud, byte in BAUD_SWITCH.items()}


# Bytes WLED acts on between frames besides the above: l / L (send the LED state back),
# { (a JSON command, read for up to 100 ms), I (Improv Wi-Fi set-up), o / O (stream the
# LED state continuously).  The decoder counts them: a frame's bytes must never get there.
WLED_COMMANDS = frozenset(b"lL{IoO")


def wled_tpm2_count(size: int) -> int:
    """How many LEDs WLED reads from a TPM2 payload length (each length byte divided by 3)."""
    return (size >> 8) * 256 // 3 + (size & 0xFF) // 3


def wled_misreads_tpm2(count: int) -> bool:
    """True when WLED would read a TPM2 frame of ``count`` LEDs one LED short (see above)."""
    return wled_tpm2_count(3 * count) != count


MOST_LEDS = {"adalight": 65536, "tpm2": 0xFFFF // 3}   # a header's count field: how many LEDs a frame can carry


def adalight_header(count: int) -> bytes:
    if not 1 <= count <= MOST_LEDS["adalight"]:
        raise ValueError(f"Adalight carries 1 to {MOST_LEDS['adalight']} LEDs, not {count}")
    hi, lo = (count - 1) >> 8, (count - 1) & 0xFF
    return ADA_MAGIC + bytes((hi, lo, hi ^ lo ^ 0x55))


def tpm2_header(count: int) -> bytes:
    size = 3 * count
    if not 1 <= count <= MOST_LEDS["tpm2"]:
        raise ValueError(f"a TPM2 packet carries 1 to {MOST_LEDS['tpm2']} LEDs, not {count}")
    return bytes((TPM2_START, TPM2_DATA, size >> 8, size & 0xFF))


class Encoder:
    """Turns an RGB strip (bytes, 3 per LED) into one frame on the wire.

    Header and trailer depend only on the LED count, so they are built once: encoding a
    frame is one concatenation, well under the 2 % of wire time the issue allows.
    ``flush`` puts a receiver left anywhere inside one of these frames back between frames.
    """

    def __init__(self, name: str, count: int, header: bytes, trailer: bytes = b"", flush: bytes = b"") -> None:
        self.name, self.count, self.header, self.trailer, self.flush = name, count, header, trailer, flush

    @property
    def frame_size(self) -> int:
        return len(self.header) + 3 * self.count + len(self.trailer)

    def encode(self, rgb: bytes) -> bytes:
        if len(rgb) != 3 * self.count:
            raise ValueError(f"{self.name}: a frame for {self.count} LEDs has {3 * self.count} bytes, not {len(rgb)}")
        return self.header + rgb + self.trailer


def adalight_encoder(count: int) -> Encoder:
    # A frame's worth of 0x00: a cut header fails its checksum on them (WLED drops it), a cut
    # pixel run is filled with black and ends; 0x00 between frames is no command.
    header = adalight_header(count)
    return Encoder("adalight", count, header, flush=bytes(len(header) + 3 * count))


TPM2_FLUSH_BYTE = 0x03   # never 0x00: WLED reads 'C9 DA 00 00' as 0 LEDs, wrapped round to 65536 (196608 bytes)


def tpm2_encoder(count: int) -> Encoder:
    # 0x03 ends a cut type byte; where a length was cut it makes one of at least 1 LED (WLED reads
    # 'C9 DA 03 03' as 256 + 1, a plain receiver as 257), which more 0x03 fill, their end byte
    # refused; it fills a cut pixel run and is no command between frames.
    longest = 4 + 3 * wled_tpm2_count(TPM2_FLUSH_BYTE * 0x101) + 1
    return Encoder("tpm2", count, tpm2_header(count), bytes((TPM2_END,)),
                   flush=bytes((TPM2_FLUSH_BYTE,)) * max(4 + 3 * count + 1, longest))


ENCODERS = {"adalight": adalight_encoder, "tpm2": tpm2_encoder}


def make_encoder(protocol: str, count: int) -> Encoder:
    try:
        return ENCODERS[protocol](count)
    except KeyError:
        raise ValueError(f"protocol {protocol!r} is not supported (use adalight or tpm2)") from None


def baud_switch_byte(baud: int) -> bytes:
    try:
        return bytes((BAUD_SWITCH[baud],))
    except KeyError:
        raise ValueError(f"WLED has no baud-switch byte for {baud}; use one of "
                         + ", ".join(map(str, sorted(BAUD_SWITCH)))) from None


@dataclass
class Decoded:
    """What the decoder saw: complete frames and the side requests between them."""

    frames: list[tuple[str, bytes]] = field(default_factory=list)  # (protocol, rgb bytes)
    blanked: bool = False   # the first of these frames entered realtime mode: WLED showed it black
    bauds: list[int] = field(default_factory=list)
    pings: int = 0
    version_requests: int = 0  # 'v' between frames: WLED answers "WLED <version>"
    json: list[bytes] = field(default_factory=list)  # '{…}' JSON API requests, e.g. b'{"v":true}'
    commands: list[int] = field(default_factory=list)  # other command bytes (WLED_COMMANDS) WLED acted on


JSON_MAX = 4096   # bytes of one JSON request (WLED's serial JSON buffer is of this order)


class WledDecoder:
    """Byte-at-a-time state machine with WLED's behaviour: bad headers resynchronise,
    baud-switch and command bytes act between frames, TPM2 lengths are read as WLED reads
    them (``tpm2="wled"``) or as the TPM2 format says (``tpm2="strict"``: the whole length,
    and a frame counts only with its end byte)."""

    def __init__(self, tpm2: str = "wled") -> None:
        if tpm2 not in ("wled", "strict"):
            raise ValueError(f"tpm2 must be 'wled' or 'strict', not {tpm2!r}")
        self.tpm2 = tpm2
        self.realtime = False   # WLED's realtime mode: entered by a frame, left by exit_realtime()
        self._state = "idle"
        self._need = 0
        self._hi = 0
        self._buf = bytearray()
        self._proto = ""
        self.errors = 0

    def exit_realtime(self) -> None:
        """WLED's realtime timeout ran out (``exitRealtime()``): the next frame is shown black.
        The parser's state is not touched: a frame cut before the silence is still pending."""
        self.realtime = False

    def _frame(self, out: Decoded, proto: str, rgb: bytes) -> None:
        if not self.realtime:   # realtimeLock(): the strip is cleared after the pixels were set
            out.blanked = True   # (always the first frame of a feed: the mode lasts until exit_realtime)
            self.realtime = True
        out.frames.append((proto, rgb))

    def feed(self, data: bytes) -> Decoded:
        out = Decoded()
        i, n = 0, len(data)
        while i < n:
            state = self._state
            if state == "data":
                take = min(self._need - len(self._buf), n - i)
                self._buf += data[i:i + take]
                i += take
                if len(self._buf) == self._need:
                    if self._proto == "adalight" or self.tpm2 == "wled":  # WLED never checks 0x36
                        self._frame(out, self._proto, bytes(self._buf))
                        self._state = "idle"
                    else:
                        self._state = "tpm2_end"
                continue
            b = data[i]
            i += 1
            if state == "idle":
                if b == 0x41:  # 'A'
                    self._state = "A"
                elif b == TPM2_START:
                    self._state = "tpm2_type"
                elif b in BAUD_OF_SWITCH:
                    out.bauds.append(BAUD_OF_SWITCH[b])
                elif b == 0x76:  # 'v'
                    out.version_requests += 1
                elif b in WLED_COMMANDS:
                    out.commands.append(b)
                    if b == 0x7B:  # '{': WLED reads a JSON document (its serial JSON API)
                        self._json, self._depth, self._in_string, self._escaped = bytearray(b"{"), 1, False, False
                        self._state = "json"
            elif state == "json":
                self._json_byte(b, out)
            elif state == "A":
                # a broken header: like WLED, the byte that broke it is dropped, not re-read
                self._state = "Ad" if b == 0x64 else "idle"
            elif state == "Ad":
                self._state = "hi" if b == 0x61 else "idle"
            elif state == "hi":
                self._hi, self._state = b, "lo"
            elif state == "lo":
                self._lo, self._state = b, "check"
            elif state == "check":
                if b == self._hi ^ self._lo ^ 0x55:
                    self._begin("adalight", ((self._hi << 8) | self._lo) + 1)
                else:
                    self.errors += 1
                    self._state = "idle"
            elif state == "tpm2_type":
                if b == TPM2_DATA:
                    self._state = "tpm2_hi"
                else:
                    if b == TPM2_PING:
                        out.pings += 1
                    self._state = "idle"
            elif state == "tpm2_hi":
                self._hi, self._state = b, "tpm2_lo"
            elif state == "tpm2_lo":
                size = (self._hi << 8) | b
                count = wled_tpm2_count(size) if self.tpm2 == "wled" else size // 3
                if self.tpm2 == "wled" and count == 0:
                    self._begin("tpm2", 0x10000)   # WLED's 16-bit count wraps round: 65536 pixels are read
                elif self.tpm2 == "strict" and (count == 0 or size % 3):
                    self.errors += 1
                    self._state = "idle"
                else:
                    self._begin("tpm2", count)
            elif state == "tpm2_end":
                if b == TPM2_END:
                    self._frame(out, "tpm2", bytes(self._buf))
                else:
                    self.errors += 1
                self._state = "idle"
        return out

    def _json_byte(self, b: int, out: Decoded) -> None:
        """One byte of a JSON request; the document ends where its braces balance.  A byte no
        JSON text holds (a control byte, as when frame data is misread as '{') or a document
        too long ends it as an error, as WLED's parser gives up on it."""
        if (b < 0x20 and b not in (0x09, 0x0A, 0x0D)) or len(self._json) >= JSON_MAX:
            self.errors += 1
            self._state = "idle"
            return
        self._json.append(b)
        if self._in_string:
            if self._escaped:
                self._escaped = False
            elif b == 0x5C:   # backslash
                self._escaped = True
            elif b == 0x22:
                self._in_string = False
        elif b == 0x22:
            self._in_string = True
        elif b == 0x7B:
            self._depth += 1
        elif b == 0x7D:
            self._depth -= 1
            if self._depth == 0:
                out.json.append(bytes(self._json))
                self._state = "idle"

    def _begin(self, proto: str, count: int) -> None:
        self._proto, self._need, self._buf = proto, 3 * count, bytearray()
        self._state = "data"

