"""``flure leds …``: the LED grid from the command line.

  flure leds emulate [--png FILE]     a simulated WLED device on a pseudo-terminal
  flure leds test URL                 light each square in turn (check the wiring)
  flure leds show PLAN.json [--url]   stream a monster plan (from ``flure resolve … --json``)
  flure leds layout                   the LED index under each square

Cheap to import: numpy, pyserial and Pillow are imported inside the commands.
"""
from __future__ import annotations

import functools
import signal
import sys
import time
from pathlib import Path

from . import fail, needs_action
from .inputs import check_output
from .lang import _, language, why


def _seconds(text: str) -> float:
    """A command-line duration: a number of seconds above 0."""
    import argparse
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(_("%(given)s is not a number of seconds above 0", given=repr(text)))
    return value


def register(sub) -> None:
    leds = sub.add_parser("leds", help=_("the LED grid under the board: emulate, test the wiring, show a plan"),
                          description=_("Drive the LED grid (WLED or Adalight over USB serial) or its emulator."))
    ls = leds.add_subparsers(dest="leds_command", metavar="emulate|test|show|layout")
    needs_action(leds, ls)

    em = ls.add_parser("emulate", help=_("run a simulated LED device and draw it in the terminal"),
                       description=_("Starts a simulated WLED device on a pseudo-terminal (or a TCP socket) "
                                     "and prints the path to give to --url."))
    em.add_argument("--png", help=_("save the LEDs drawn as the board to this PNG file on exit"))
    em.add_argument("--socket", action="store_true", help=_("listen on socket://127.0.0.1:PORT instead of a pty"))
    em.add_argument("--seconds", type=_seconds, default=None,
                    help=_("stop after this many seconds (default: Ctrl-C)"))
    em.add_argument("--config", help=_("hardware TOML file (for the LED layout)"))
    em.add_argument("--tpm2", choices=("wled", "strict"), default="wled",
                    help=_("read TPM2 frames as WLED does (default) or as a plain TPM2 controller"))
    em.set_defaults(func=cmd_emulate)

    te = ls.add_parser("test", help=_("light each square in turn, a1 … p11"),
                       description=_("Lights every square in turn so you can check the strip's wiring "
                                     "against the layout in the configuration."))
    te.add_argument("url", help=_("the device: /dev/ttyUSB0, /dev/serial/by-id/…, socket://host:port, or 'emulator'"))
    te.add_argument("--seconds-each", type=_seconds, default=0.15, help=_("how long each square stays lit"))
    te.add_argument("--config", help=_("hardware TOML file (layout, protocol, baud)"))
    te.set_defaults(func=cmd_test)

    sh = ls.add_parser("show", help=_("stream a monster plan JSON to the LEDs"),
                       description=_("Animates a plan, e.g. from `flure resolve POS.json --tile 8 --json > "
                                     "plan.json`."))
    sh.add_argument("plan", help=_("the plan JSON file ('-' reads standard input)"))
    sh.add_argument("--url", help=_("the device (default: from the configuration; 'emulator' if none)"))
    sh.add_argument("--config", help=_("hardware TOML file"))
    sh.add_argument("--png", help=_("with the emulator: save the final LED state as a PNG"))
    sh.set_defaults(func=cmd_show)

    lo = ls.add_parser("layout", help=_("print which LED index lights each square"),
                       description=_("Prints the board with each square's LED index from the [layout] "
                                     "configuration, to compare with the wiring."))
    lo.add_argument("--config", help=_("hardware TOML file"))
    lo.set_defaults(func=cmd_layout)


def _with_config(command):
    """Check ``--png`` and load ``--config`` first; a bad path or file is one plain line and exit
    status 2, before anything is started or animated."""
    @functools.wraps(command)
    def run(args) -> int:
        from hardware.config import HardwareConfigError, load_config
        from hardware.layout import LayoutError
        if getattr(args, "png", None):
            _path, problem = check_output(args.png, (".png",), "image")
            if problem:
                return fail(problem)
        try:
            cfg = load_config(args.config)
        except (HardwareConfigError, LayoutError) as exc:
            from ..i18n.text import error_text
            return fail(error_text(exc, language()))   # their wording data in the command's language
        return command(args, cfg)
    return run


@_with_config
def cmd_emulate(args, cfg) -> int:
    from hardware.emulator import LedEmulator
    from hardware.layout import LedLayout
    emu = LedEmulator(LedLayout.from_config(cfg.layout), transport="socket" if args.socket else "pty",
                      tpm2=args.tpm2).start()
    # `kill` and systemd stop it as cleanly as Ctrl+C: the pty link and its /tmp folder go away
    previous = signal.signal(signal.SIGTERM, _interrupt)
    header = "\n".join([
        _("Simulated LED device (%(count)s LEDs, Adalight and TPM2, any baud) is listening on:",
          count=emu.layout.led_count),
        f"  {emu.url}",
        _("Send it a plan:  flure leds show PLAN.json --url %(url)s", url=emu.url),
    ])
    live = sys.stdout.isatty()
    shown = -1
    end = time.monotonic() + args.seconds if args.seconds is not None else None
    try:
        print(header, flush=True)
        while end is None or time.monotonic() < end:
            time.sleep(0.2)
            if emu.frames_decoded != shown:
                shown = emu.frames_decoded
                if live:  # the redraw keeps the path on screen: it is what the user came for
                    print("\x1b[H\x1b[2J" + header + "\n" + emu.terminal(colour=in_colour()) + "\n    "
                          + _("Ctrl-C to stop."), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        if not live:
            print(emu.terminal(colour=in_colour()))
        print(_("%(count)s frames decoded.", count=emu.frames_decoded))
        if args.png:
            print(_("Saved %(path)s", path=emu.save_png(args.png)))
        emu.stop()
        signal.signal(signal.SIGTERM, previous)
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def in_colour() -> bool:
    """Colour escapes only for a terminal, and not when ``NO_COLOR`` is set (https://no-color.org)."""
    import os

    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _grid(cfg, url: str | None):
    from hardware.leds import LedGrid
    grid = LedGrid(cfg, url=url)
    if grid.warning:
        print("flure: " + _("note: %(note)s", note=grid.warning), file=sys.stderr)
    return grid


def _finish(grid, what: str, timeout: float) -> int:
    deadline = time.monotonic() + 2.0  # a device that is not there after 2 s will not be there in 20
    while not grid.status()["connected"] and time.monotonic() < deadline:
        time.sleep(0.05)
    ok = grid.status()["connected"] and grid.wait_done(timeout)
    status = grid.status()
    if not ok or not status["connected"]:   # status 2: the address names no device; 1: the device failed the check
        return fail(_("%(what)s was not delivered: %(why)s", what=what,
                      why=status["last_error"] or _("the device did not take the frames")),
                    1 if status["connected"] or status["frames_sent"] else 2)
    print(_("%(what)s: %(frames)s frames sent to %(port)s (%(protocol)s, %(baud)s baud); estimated current at most "
            "%(ma)s mA of the %(budget)s mA budget.", what=what, frames=status["frames_sent"], port=status["port"],
            protocol=status["protocol"], baud=status["baud"], ma=status["peak_ma"], budget=status["budget_ma"]))
    return 0


@_with_config
def cmd_test(args, cfg) -> int:
    grid = _grid(cfg, args.url)
    try:
        grid.show_squares(args.seconds_each)
        return _finish(grid, _("square test"), timeout=args.seconds_each * 200 + 5)
    finally:
        grid.close()


@_with_config
def cmd_show(args, cfg) -> int:
    from engine.jsontext import JsonTextError, loads
    try:
        plan = loads(sys.stdin.buffer.read() if args.plan == "-" else Path(args.plan).read_bytes())
    except OSError as exc:
        return fail(_("%(path)s: cannot read the file (%(why)s)", path=args.plan, why=why(exc)))
    except JsonTextError as exc:
        from ..i18n.text import error_text
        return fail(_("%(where)s: %(error)s", where=args.plan, error=error_text(exc, language())))
    from hardware.animation import PlanError, read_plan
    try:
        steps = len(read_plan(plan).steps)   # the engine's own check of the plan, naming the path at fault
    except PlanError as exc:
        from ..i18n.text import error_text
        return fail(_("%(path)s: not a monster plan: %(why)s", path=args.plan, why=error_text(exc, language())))
    grid = _grid(cfg, args.url)
    try:
        if not grid.show_plan(plan):
            from ..i18n.text import render
            return fail(_("%(where)s: %(error)s", where=args.plan,
                          error=render(getattr(grid.last_error, "text", grid.last_error), language())))
        code = _finish(grid, _("monster move (%(steps)s steps)", steps=steps), timeout=120)
        if grid.emulator is not None:
            time.sleep(0.1)
            print(grid.emulator.terminal(colour=in_colour()))
            if args.png:
                print(_("Saved %(path)s", path=grid.emulator.save_png(args.png)))
        return code
    finally:
        grid.close()


@_with_config
def cmd_layout(args, cfg) -> int:
    from engine.geometry import COLS, ROWS, on_board, square
    from hardware.layout import LedLayout
    layout = LedLayout.from_config(cfg.layout)
    print("     " + "".join(f"{c:>5}" for c in "abcdefghijklmnop"))
    for row in range(ROWS):
        cells = []
        for col in range(COLS):
            idx = layout.leds.get(square(col, row)) if on_board(col, row) else None
            cells.append("    #" if not on_board(col, row) else "    -" if not idx else f"{idx[0]:>5}")
        print(f"{row + 1:>5}" + "".join(cells))
    per = {len(v) for v in layout.leds.values()}
    print(_("%(squares)s squares with LEDs, %(leds)s LEDs on the strip", squares=len(layout.leds),
            leds=layout.led_count)
          + (_(", %(per)s per square (first index shown)", per=max(per)) if per and max(per) > 1 else "")
          + _("; '-' no LED, '#' cut-away corner."))
    return 0
