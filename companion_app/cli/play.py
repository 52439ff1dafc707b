"""``flure play``: the table session — camera, LED grid, buttons and the web app in one process.

Cheap to import (the ``flure`` command imports it for --help): Flask, waitress
and the device libraries are imported inside ``play``.
"""
from __future__ import annotations

import signal
import socket
from pathlib import Path


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "play", help="run the table session: web app for phones and referee, camera, LED grid",
        description="Runs the table session. Phones follow the monster at the printed address; the referee "
                    "opens /referee with the PIN. By default the camera is the digital twin (a synthetic "
                    "camera showing the game's own position) and the LEDs go to a simulated device. "
                    "The last game is resumed from the database.")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--pin", help="the referee's PIN or token (default: a new random 6-digit PIN)")
    p.add_argument("--db", default=None,
                   help="session database (default: $XDG_DATA_HOME/flure/session.sqlite3, "
                        "i.e. ~/.local/share/flure/session.sqlite3)")
    p.add_argument("--camera", metavar="SPEC", default="synthetic",
                   help="camera: a USB index like 0, 'picamera', a video file or URL, a folder, or 'synthetic'")
    p.add_argument("--no-camera", action="store_true", help="run without a camera")
    p.add_argument("--leds", metavar="URL", default=None,
                   help="LED device: a pyserial URL like /dev/ttyUSB0 or socket://host:port "
                        "(default: the hardware config's, i.e. the simulated device)")
    p.add_argument("--no-leds", action="store_true", help="run without the LED grid")
    p.add_argument("--hardware-config", metavar="TOML", default=None, help="LED and button configuration file")
    p.add_argument("--new", action="store_true", help="do not resume the last game")
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
    from ..table.store import Store, default_path
    from ..web.app import create_app
    from ..web.qr import qr_terminal
    from ..web.security import new_pin
    from ..web.server import Server

    db = Path(args.db) if args.db else default_path()
    try:
        session = TableSession(Store(db))
    except (sqlite3.Error, OSError) as exc:
        print(f"Cannot use {db} as the session database ({exc}). Give another file with --db.")
        return 1
    try:
        resumed = False if args.new else session.resume()
    except (FlureError, ValueError, KeyError, sqlite3.Error) as exc:
        print(f"Could not resume the last game from {db} ({exc}); starting without a game.")
        resumed = False

    def twin_state():
        game = session.game
        return (game.position if game is not None else basic_position()), None

    session.camera = Device("camera", why="switched off (--no-camera)") if args.no_camera \
        else open_camera(args.camera, twin_state)
    session.leds = Device("LED grid", why="switched off (--no-leds)") if args.no_leds \
        else open_leds(args.leds, args.hardware_config)
    session.buttons = open_buttons(session, args.hardware_config)

    pin = args.pin or new_pin()
    host = lan_address() if args.host in ("0.0.0.0", "") else args.host
    try:
        server = Server(None, args.host, args.port)  # app set below, once the URL is known
    except OSError as exc:
        print(f"Cannot listen on {args.host}:{args.port}: {exc.strerror}. Try another --port.")
        session.close()
        return 1
    phone_url = f"http://{host}:{server.port}/"
    app = create_app(session, token=pin, public_url=phone_url)
    server.set_app(app)

    print("Finstere Flure table session")
    print(f"  Players: open {phone_url} on your phones (or scan the code below).")
    print(f"  Referee: open {phone_url}referee on the tablet and enter the PIN {pin}")
    print(f"           (API clients send the header  Authorization: Bearer {pin}).")
    print(f"  Game:    {'resumed: ' + session.state()['summary'] if resumed else 'none yet; start one from the referee view.'}")
    print(f"  Saved in {db}")
    for device in (session.camera, session.leds, session.buttons):
        print(f"  {device.name[0].upper() + device.name[1:]}: {device.note or ('ready' if device.obj is not None else device.why)}")
    print(qr_terminal(phone_url))
    print("Press Ctrl+C to stop.", flush=True)
    signal.signal(signal.SIGTERM, _stop)   # systemd and `kill` stop it as cleanly as Ctrl+C
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        session.close()
        print("Stopped; the game is saved and resumes with the next flure play.")
    return 0
