"""``LedGrid``: the LED grid under the board, as the rest of the product sees it.

This is the composition root of ``hardware``: configuration → layout, power cap,
encoder, serial link (or the built-in emulator when ``url = "emulator"``), and a player
thread that turns the current *show* (a plan animation, the idle pattern, the error
blink) into frames on time.  Every public method returns at once; problems (a bad plan,
an unplugged device) end up in ``status()`` for the referee view, never in an exception
that could stop the table session.
"""
from __future__ import annotations

import copy
import logging
import threading
import time
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from engine.geometry import SQUARES, square_name
from engine.wording import N_, Said, Text
from hardware.animation import ErrorShow, FollowShow, IdleShow, MarkShow, PlanError, PlanShow, Show, SquaresShow
from hardware.config import HardwareConfig, load_config
from hardware.layout import LedLayout
from hardware.link import SerialLink
from hardware.power import cap_current, estimate_ma
from hardware.protocol import make_encoder, wled_misreads_tpm2

log = logging.getLogger(__name__)


def _hex_squares(canvas) -> dict[str, str]:
    """Each board square's colour in ``canvas`` as "rrggbb"."""
    return {square_name(sq): "%02x%02x%02x" % tuple(int(v) for v in canvas[sq]) for sq in SQUARES}


class LedGrid:
    def __init__(self, config: HardwareConfig | Mapping | str | Path | None = None, *,
                 url: str | None = None) -> None:
        self.config = load_config(config)
        self.layout = LedLayout.from_config(self.config.layout)
        serial = self.config.serial
        self.emulator = None
        target = url or serial.url
        if target == "emulator":
            from hardware.emulator import LedEmulator
            self.emulator = LedEmulator(self.layout).start()
            target = self.emulator.url
        try:
            self.link = SerialLink(target, make_encoder(serial.protocol, self.layout.led_count), baud=serial.baud,
                                   switch_from=serial.switch_from, keepalive_s=serial.keepalive_s,
                                   reconnect_s=serial.reconnect_s).start()
        except BaseException:
            if self.emulator is not None:   # the simulated device we started goes with the failed grid
                self.emulator.stop()
            raise
        count = self.layout.led_count
        # Not an error (a plain TPM2 controller reads it right), but a WLED would not: say so.
        self.warning: str | None = None
        if serial.protocol == "tpm2" and wled_misreads_tpm2(count):
            self.warning = (f"TPM2 with {count} LEDs: a WLED controller reads only {count - 1} of them and takes "
                            f"the last LED's colour for commands; with WLED use protocol = \"adalight\"")
        self.last_error: str | None = None
        self.frames_rendered = 0
        self.last_ma = 0.0
        self.peak_ma = 0.0
        self._show: Show | None = None
        self._next: tuple[Show, str] | None = None   # shown once the playing plan has finished
        self._sent = None                            # the last canvas sent, after the power cap
        self._sent_show: tuple | None = None         # (generation, name, show, its start, canvas before the cap)
        self.sent_count = 0
        self._show_name = "none"
        self._plan_json: Any = None   # the plan being shown, to recognise it when it comes again
        self._mark: Any = None        # the last pawn mark started, to recognise it when it comes again
        self._generation = 0
        self._finished_generation = -1
        self._closed = False
        self._cond = threading.Condition()
        self._player = threading.Thread(target=self._play, name="led-player", daemon=True)
        self._player.start()

    @classmethod
    def from_config(cls, path_or_dict: str | Path | Mapping | None = None, **kw) -> "LedGrid":
        return cls(path_or_dict, **kw)

    # -- what to show (all return at once) -----------------------------------------------------
    def show_plan(self, plan_json: Mapping[str, Any], *, restart: bool = False) -> bool:
        """Animate a monster plan; on an unusable plan blink the error and return False.

        The plan that is already showing (playing or settled) is left alone unless
        ``restart``: the session hands the current plan over again on every state change,
        and the monster must not set off a second time because a reading was fixed.
        """
        with self._cond:
            if not restart and self._show_name == "plan" and self._plan_json == plan_json:
                return True
        try:
            show = PlanShow(plan_json, self.config.animation)
        except PlanError as exc:
            self.last_error = Said(Text(N_("cannot show the monster's move: %(error)s"), error=exc))
            self._start(ErrorShow(), "error")
            return False
        self.last_error = None
        self._start(show, "plan", copy.deepcopy(plan_json))
        return True

    def show_idle(self, first_player: str | None = None, position_json: Mapping[str, Any] | None = None) -> None:
        self._start(IdleShow(first_player, position_json), "idle")

    def show_error(self) -> None:
        self._start(ErrorShow(), "error")

    def show_mark(self, first_player: str | None, position_json: Mapping[str, Any] | None, square: str,
                  colour: str | None = None) -> None:
        """Briefly mark ``square`` (a pawn move the camera applied) in ``colour``, then the idle picture.

        The session hands the same mark over again on every state change: a mark already shown (or
        showing) is not started again, only the idle picture it ends in is kept up."""
        key = (square, colour, copy.deepcopy(position_json))
        idle = (IdleShow(first_player, position_json), "idle")
        with self._cond:     # a Condition's lock is re-entrant: _start takes it again
            if key == self._mark:
                if self._show_name != "mark":
                    self._start(*idle)
                return
            self._mark = key
            self._start(MarkShow(first_player, position_json, square, colour), "mark")
            self._next = idle

    def show_follow(self, position_json: Mapping[str, Any] | None, empty=(), fill=()) -> None:
        """The follow-up: squares to empty and to fill; a monster move still playing finishes first."""
        show = FollowShow(position_json, tuple(empty), tuple(fill))
        with self._cond:
            if self._show_name == "plan" and self._finished_generation != self._generation and not self._closed:
                self._next = (show, "follow")
                return
        self._start(show, "follow")

    def sent_frame(self) -> dict | None:
        """The last frame sent to the grid (after the power cap): square name → "rrggbb", and what it shows."""
        canvas = self._sent
        if canvas is None:
            return None
        return {"count": self.sent_count, "showing": self._show_name, "squares": _hex_squares(canvas)}

    def wire_frame(self) -> dict | None:
        """The last frame as the web pages draw it (static/board.js ``LedPanel``): each square's colour
        before the power cap and the cap's figures (the page caps the frame as ``render`` does), which
        show it is of (a new show, a new number) and the squares that show changes by a rule of time
        (``Show.wire``; ``t``: seconds into the show now), so a page is sent a frame only when the show changes."""
        sent = self._sent_show
        if sent is None:
            return None
        gen, name, show, start, raw = sent
        power = self.config.power
        counts = {sq: len(self.layout.leds.get(sq, ())) for sq in SQUARES}
        out = {"count": self.sent_count, "showing": name, "show": gen, "squares": _hex_squares(raw),
               "power": {"brightness": power.brightness, "ma_per_channel": power.ma_per_channel,
                         "allowed_ma": power.budget_ma - self.layout.led_count * power.idle_ma_per_led,
                         "leds": {square_name(sq): n for sq, n in counts.items() if n != 1}}}
        parts = show.wire()
        if parts:
            out["anim"] = {"t": round(time.monotonic() - start, 3), "parts": parts}   # the show's time now
        return out

    def show_squares(self, seconds_each: float = 0.15) -> None:
        """Light each square in turn (``flure leds test``).  A square is lit for at least twice the
        time a frame takes on the line: a shorter time would make the link drop frames, and so squares."""
        self._start(SquaresShow(seconds_each=max(seconds_each, 2 * self.link.frame_wire_s)), "test")

    def wait_done(self, timeout: float = 60.0) -> bool:
        """Wait until the current finite show (plan, test) has played to its last frame and
        been written; False on timeout (an endless show — idle, error — never finishes)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            if self._show is None:
                return True
            while self._finished_generation != self._generation and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return self.link.wait_sent(max(0.1, deadline - time.monotonic()))

    def status(self) -> dict:
        s = self.link.status()
        s.update(showing=self._show_name, frames_rendered=self.frames_rendered,
                 estimated_ma=round(self.last_ma, 1), peak_ma=round(self.peak_ma, 1),
                 budget_ma=self.config.power.budget_ma, warning=self.warning,
                 emulated=self.emulator is not None)
        if self.last_error:
            s["last_error"] = self.last_error if not s["last_error"] else f"{self.last_error}; {s['last_error']}"
        return s

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._player.join(timeout=3)
        self.link.close()
        if self.emulator is not None:
            self.emulator.stop()

    def __enter__(self) -> "LedGrid":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- player thread -------------------------------------------------------------------------
    def _start(self, show: Show, name: str, plan_json: Any = None) -> None:
        with self._cond:
            self._show, self._show_name, self._plan_json = show, name, plan_json
            self._next = None
            self._generation += 1
            self._cond.notify_all()

    def render(self, canvas: np.ndarray) -> bytes:
        """Canvas → capped strip bytes (what goes into the encoder)."""
        strip = cap_current(self.layout.to_strip(canvas), self.config.power)
        self.last_ma = estimate_ma(strip, self.config.power)
        self.peak_ma = max(self.peak_ma, self.last_ma)
        self._sent = self.layout.to_canvas(strip)
        self.sent_count += 1
        return strip.tobytes()

    def _play(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (self._show is None or self._finished_generation == self._generation):
                    self._cond.wait()
                if self._closed:
                    return
                show, gen, name = self._show, self._generation, self._show_name
            count = show.frame_count()
            start = time.monotonic()
            i = 0
            while count is None or i < count:
                try:
                    canvas = show.frame(i)
                    data = self.render(canvas)
                    self._sent_show = (gen, name, show, start, canvas)
                    self.link.submit(data)
                except Exception as exc:  # noqa: BLE001 - a drawing bug must not stop the LEDs for good
                    log.exception("LED show %s failed", self._show_name)
                    self.last_error = Said(Text(N_("the LED picture could not be drawn (%(error)s); showing the "
                                                   "error blink"), error=exc))
                    with self._cond:
                        if gen == self._generation and isinstance(show, ErrorShow):
                            self._finished_generation = gen  # nothing simpler left to show
                        elif gen == self._generation:
                            self._show, self._show_name, self._plan_json = ErrorShow(), "error", None
                            self._generation += 1
                    break
                self.frames_rendered += 1
                i += 1
                deadline = start + i / show.fps
                with self._cond:
                    while not self._closed and gen == self._generation:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            break
                        self._cond.wait(left)
                    if self._closed or gen != self._generation:
                        break
            else:
                with self._cond:  # played out: the link keeps resending the last frame
                    if gen == self._generation:
                        self._finished_generation = gen
                        if self._next is not None:   # the follow-up waiting for the monster's move
                            (self._show, self._show_name), self._plan_json = self._next, None
                            self._next = None
                            self._generation += 1
                        self._cond.notify_all()
