"""``flure play``: the table session — camera, LED grid, buttons and the web app in one process.

Cheap to import (the ``flure`` command imports it for --help): Flask, waitress
and the device libraries are imported inside ``play``.
"""
from __future__ import annotations

import signal
import socket
from pathlib import Path

from .config import add_table_options, load_from_args

DEMO_SEED = 28   # as companion_app.table.demo.DEMO_SEED (not imported here: --help stays cheap)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "play", help="run the table session: web app for phones and referee, camera, LED grid",
        description="Runs the table session. Phones follow the monster at the printed address; the referee "
                    "opens /referee with the PIN. By default the camera films a simulated table where "
                    "simulated players play a demo game, and the LEDs go to a simulated device. "
                    "The last game is resumed from the database.")
    add_table_options(p)
    p.add_argument("--no-leds", action="store_true", help="run without the LED grid")
    p.add_argument("--hardware-config", metavar="TOML", default=None,
                   help="a separate LED and button configuration file (instead of --config's sections)")
    p.add_argument("--new", action="store_true", help="do not resume the last game")
    demo = p.add_argument_group("the simulated table (camera source 'simulated', the default)")
    demo.add_argument("--demo", action="store_true",
                      help="start a new demo game on the simulated table, in auto mode")
    demo.add_argument("--seed", type=int, default=None, metavar="N",
                      help=f"the demo game's seed: its deck and the players' choices (default {DEMO_SEED})")
    demo.add_argument("--speed", type=float, default=1.0, metavar="X",
                      help="multiply the simulated players' pace (default 1: watchable)")
    demo.add_argument("--mistakes", type=float, default=None, metavar="P",
                      help="chance that a simulated player moves illegally or does a follow-up wrong, then "
                           "puts it right once the session complains (default 0.05; 0 with --until-end)")
    demo.add_argument("--until-end", action="store_true",
                      help="with --demo: play the game to its end, print 'demo finished: …' and exit")
    p.set_defaults(func=play)


def lan_address() -> str:
    """This machine's address on the local network (what phones must type), without sending anything."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))   # TEST-NET: no packet leaves; only picks the outgoing interface
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def _stop(signum, frame):
    raise KeyboardInterrupt


def play(args) -> int:
    import sqlite3

    from engine.errors import FlureError
    from engine.position import basic_position

    from ..table.devices import Device, open_buttons, open_camera, open_leds
    from ..table.session import TableSession
    from ..table.store import Store
    from ..web.app import create_app
    from ..web.qr import qr_terminal
    from ..web.security import new_pin
    from ..web.server import Server
    from ..table.config import TableConfigError
    from ..web import systemd

    config, error = load_from_args(args)
    if config is None:
        print(error)
        return 1
    try:
        pin = config.web.read_pin() or new_pin()
    except TableConfigError as exc:
        print(exc)
        return 1
    hardware = args.hardware_config or config.hardware
    db = config.web.database_path()
    try:
        session = TableSession(Store(db))
    except (sqlite3.Error, OSError) as exc:
        print(f"Cannot use {db} as the session database ({exc}). Give another file with --db "
              "or [web] database.")
        return 1
    try:
        resumed = False if args.new else session.resume()
    except (FlureError, ValueError, KeyError, sqlite3.Error) as exc:
        print(f"Could not resume the last game from {db} ({exc}); starting without a game.")
        resumed = False

    def twin_state():
        game = session.game
        return (game.position if game is not None else basic_position()), None

    camera = config.camera
    rig = None
    if args.demo and camera.source not in ("simulated", "none"):
        print(f"--demo plays on the simulated table, which is its camera: leave out --camera {camera.source} "
              "(or set [camera] source = \"simulated\").")
        session.close()
        return 2
    if args.demo or camera.source == "simulated":
        from vision.twin.table import DEMO_SIZE

        from ..table.demo import DEMO_PLAYERS, SimulatedRig
        from ..table.memory import keep_heap_small

        keep_heap_small()
        if args.demo or session.game is None or session.game.phase == "over":
            session.new_game(list(DEMO_PLAYERS), seed=DEMO_SEED if args.seed is None else args.seed)
            resumed = False
        mistakes = args.mistakes if args.mistakes is not None else (0.0 if args.until_end else 0.05)
        # rendered at a modest size unless [camera] resolution is set: a laptop keeps up
        size = tuple(camera.resolution) if config.origins.get("camera.resolution", "default") != "default" \
            else DEMO_SIZE
        rig = SimulatedRig(session, seed=session.game.seed, speed=args.speed, err_rate=mistakes, size=size)
    off = "--no-camera" if args.no_camera else '[camera] source = "none"'
    session.camera = Device("camera", why=f"switched off ({off})") \
        if not camera.enabled else open_camera(camera.source, twin_state, camera, config.table.stable_frames,
                                               on_update=session.loop.on_camera,
                                               open_frames=rig.open_source if rig is not None else None)
    session.loop.mode = "auto" if rig is not None else config.table.mode
    session.simulated = rig
    session.leds = Device("LED grid", why="switched off (--no-leds)") if args.no_leds \
        else open_leds(args.leds, hardware)
    session.buttons = open_buttons(session, hardware)

    web = config.web
    host = web.public_host or (lan_address() if web.host in ("0.0.0.0", "", "::") else web.host)
    try:
        server = Server(None, web.host, web.port)  # app set below, once the URL is known
    except OSError as exc:
        print(f"Cannot listen on {web.host}:{web.port}: {exc.strerror}. Try another --port or [web] port.")
        session.close()
        return 1
    phone_url = f"http://{host}:{server.port}/"
    app = create_app(session, token=pin, public_url=phone_url, hosts=[web.host, web.public_host],
                     table_config=config)
    server.set_app(app)

    print("Finstere Flure table session")
    print(f"  Players: open {phone_url} on your phones (or scan the code below).")
    print(f"  Referee: open {phone_url}referee on the tablet and enter the PIN {pin}")
    print(f"           (API clients send the header  Authorization: Bearer {pin}).")
    game_line = ("resumed: " if resumed else "demo game: ") + session.state()["summary"] \
        if session.game is not None else "none yet; start one from the referee view."
    print(f"  Game:    {game_line}")
    print(f"  Saved in {db}")
    for note in session.journal_notes:
        print(f"  Journal: {note}")
    for device in (session.camera, session.leds, session.buttons):
        print(f"  {device.name[0].upper() + device.name[1:]}: {device.startup or device.note or ('ready' if device.obj is not None else device.why)}")
    print(qr_terminal(phone_url))
    if rig is not None:
        print(f"  Table:   simulated players at {args.speed:g}x their pace, camera mode auto; the referee "
              "pauses them and moves their pieces with POST /api/simulated")
    print("Press Ctrl+C to stop.", flush=True)
    signal.signal(signal.SIGTERM, _stop)   # systemd and `kill` stop it as cleanly as Ctrl+C
    if rig is not None:
        rig.start()
    if args.demo and (args.until_end or not camera.enabled):
        return _demo_until_end(session, server, rig, args, camera=camera.enabled)
    watchdog = None
    try:
        watchdog = systemd.announce(server, f"serving {phone_url}")   # Type=notify: ready now, then fed
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        systemd.stopping()
        if watchdog is not None:
            watchdog.stop()
        server.close()
        if rig is not None:
            rig.close()
        session.close()
        print("Stopped; the game is saved and resumes with the next flure play.")
    return 0


def _demo_until_end(session, server, rig, args, camera: bool) -> int:
    """Serve in the background while the demo game plays itself; the last line says how it went."""
    import time

    from ..table.demo import END_GRACE_S, run_until_end

    server.start()
    try:
        status, line = run_until_end(session, rig, speed=args.speed, camera=camera)
        time.sleep(END_GRACE_S)      # the phones and the LEDs show the end before the table closes
    except KeyboardInterrupt:
        status, line = 130, "demo stopped (Ctrl+C); the game is saved."
    finally:
        rig.close()
        server.close()
        session.close()
    print(line, flush=True)
    return status
