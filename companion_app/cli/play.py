"""``flure play``: the table session — camera, LED grid, buttons and the web app in one process.

Cheap to import (the ``flure`` command imports it for --help): Flask, waitress
and the device libraries are imported inside ``play``.

The start-up lines are in the command's language (``lang.py``); the ``demo finished: …``
line (table/demo.py) is TABLE.md's contract, which scripts parse: it stays English verbatim.
"""
from __future__ import annotations

import signal
import socket

from .config import add_table_options, load_from_args
from .lang import N_, _, language, why
from .render import number_in

DEMO_SEED = 28   # as companion_app.table.simulated.demo.DEMO_SEED (not imported here: --help stays cheap)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "play", help=_("run the table session: web app for phones and referee, camera, LED grid"),
        description=_("Runs the table session. Phones follow the monster at the printed address; the referee "
                      "opens /referee with the PIN. By default the camera films a simulated table where "
                      "simulated players play a demo game, and the LEDs go to a simulated device. "
                      "The last game is resumed from the database."))
    add_table_options(p)
    p.add_argument("--no-leds", action="store_true", help=_("run without the LED grid"))
    p.add_argument("--hardware-config", metavar="TOML", default=None,
                   help=_("a separate LED and button configuration file (instead of --config's sections)"))
    p.add_argument("--new", action="store_true", help=_("do not resume the last game"))
    demo = p.add_argument_group(_("the simulated table (camera source 'simulated', the default)"))
    demo.add_argument("--demo", action="store_true",
                      help=_("start a new demo game on the simulated table, in auto mode"))
    demo.add_argument("--advanced", action="store_true",
                      help=_("with --demo: the advanced setup; the simulated players first place the 17 board "
                             "pieces one by one (A1, A2), each read by the camera, then play the game"))
    demo.add_argument("--seed", type=int, default=None, metavar="N",
                      help=_("the demo game's seed: its deck and the players' choices (default %(seed)s)",
                             seed=DEMO_SEED))
    demo.add_argument("--speed", type=number_in(0.1, 100), default=1.0, metavar="X",
                      help=_("multiply the simulated players' pace (default 1: watchable)"))
    demo.add_argument("--mistakes", type=number_in(0, 1), default=None, metavar="P",
                      help=_("chance that a simulated player moves illegally or does a follow-up wrong, then "
                             "puts it right once the session complains (default 0.05; 0 with --until-end)"))
    demo.add_argument("--no-stickers", action="store_true",
                      help=_("the simulated table's pieces without stickers: it first teaches the camera this box "
                             "through the teaching layout's steps, then plays by reading the pieces as they are"))
    demo.add_argument("--until-end", action="store_true",
                      help=_("with --demo: play the game to its end, print 'demo finished: …' and exit"))
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

    from ..config import TableConfigError
    from ..i18n.text import error_text
    from ..table.session.session import TableSession
    from ..table.session.store import Store
    from ..web.security import new_pin
    from ..web.server import Server
    from . import fail
    from .logs import configure

    configure()     # warnings and errors to stderr (the journal under systemd), with their level
    # Input it cannot use is status 2 (systemd does not restart it: deploy/flure.service); a busy port or
    # database, which may free itself, is status 1.  Nothing is opened or written before both are known.
    config, error = load_from_args(args)
    if config is None:
        return fail(error)
    try:
        pin = config.web.read_pin() or new_pin()
    except TableConfigError as exc:
        return fail(error_text(exc, language()))
    camera = config.camera
    if args.demo and camera.source not in ("simulated", "none"):
        return fail(_("--demo plays on the simulated table, which is its camera: leave out --camera %(source)s "
                      "(or set [camera] source = \"simulated\").", source=camera.source))
    simulated = args.demo or camera.source == "simulated"
    if args.no_stickers and not simulated:
        return fail(_("--no-stickers is the simulated table's; a camera reads the pieces without stickers with "
                      "--pieces FILE (what flure teach wrote)."))
    pieces = None
    if camera.pieces is not None and camera.enabled:
        if simulated:
            return fail(_("--pieces is what flure teach learned of your own box, for a camera filming it; the "
                          "simulated table teaches itself with --no-stickers."))
        from vision.nostickers import Pieces, PiecesError
        try:
            pieces = Pieces.load(camera.pieces)
        except PiecesError as exc:
            return fail(error_text(exc, language()))
    hardware = args.hardware_config or config.hardware
    db = config.web.database_path()
    web = config.web
    held = _hold_database(db)
    if isinstance(held, str):
        return fail(held, 1)
    try:
        server = Server(None, web.host, web.port)  # app set below, once the URL is known
    except OSError as exc:
        held.close()
        return fail(_("Cannot listen on %(host)s:%(port)s: %(why)s. Try another --port or [web] port.", host=web.host,
                      port=web.port, why=why(exc)), 1)
    try:
        session = TableSession(Store(db), keep_games=config.web.keep_games, keep_days=config.web.keep_days)
    except (sqlite3.Error, OSError) as exc:
        server.close()
        held.close()
        return fail(_("Cannot use %(path)s as the session database (%(why)s). Give another file with --db "
                      "or [web] database.", path=db, why=exc))
    try:
        return _run(args, config, session, server, pin, db, hardware, pieces)
    finally:
        held.close()


def _run(args, config, session, server, pin, db, hardware, pieces=None) -> int:
    import sqlite3

    from engine.errors import FlureError
    from engine.position import basic_position
    from engine.wording import NP_, Text

    from ..table.devices.devices import Device, open_buttons, open_camera, open_leds, open_speaker
    from ..web import systemd
    from ..web.app import create_app
    from ..web.qr import qr_terminal

    camera, web = config.camera, config.web
    try:
        resumed = False if args.new else session.resume()
    except (FlureError, ValueError, KeyError, sqlite3.Error) as exc:
        print(_("Could not resume the last game from %(path)s (%(why)s); starting without a game.", path=db, why=exc))
        resumed = False

    def twin_state():
        game = session.game
        return (game.position if game is not None else basic_position()), None

    rig = None
    if args.demo or camera.source == "simulated":
        from vision.twin.table import DEMO_SIZE

        from ..table.memory import keep_heap_small
        from ..table.simulated.demo import DEMO_PLAYERS, SimulatedRig

        keep_heap_small()
        if args.demo or session.game is None or session.game.phase == "over":
            session.new_game(list(DEMO_PLAYERS), seed=DEMO_SEED if args.seed is None else args.seed,
                             setup="advanced" if args.advanced else "basic")
            resumed = False
        mistakes = args.mistakes if args.mistakes is not None else (0.0 if args.until_end else 0.05)
        # rendered at a modest size unless [camera] resolution is set: a laptop keeps up
        size = tuple(camera.resolution) if config.origins.get("camera.resolution", "default") != "default" \
            else DEMO_SIZE
        rig = SimulatedRig(session, seed=session.game.seed, speed=args.speed, err_rate=mistakes, size=size,
                           stickers=not args.no_stickers, look_seed=session.game.seed)   # a box of its own per seed
    off = "--no-camera" if args.no_camera else '[camera] source = "none"'
    phone = None
    if camera.source == "phone":          # a phone's camera page sends the frames (web/camera_page.py)
        from vision.phone_source import PhoneFrames
        phone = PhoneFrames()
    prior = None
    if pieces is not None or args.no_stickers:      # read without stickers, against the game (NOSTICKERS.md)
        from ..table.camera.nostickers import table_prior
        prior = table_prior(session.prior)
    session.camera = Device("camera", why=Text.in_context("camera", NP_("camera", "switched off (%(how)s)"), how=off),
                            off=True) \
        if not camera.enabled else open_camera(camera.source, twin_state, camera, config.table.stable_frames,
                                               on_update=session.on_camera,
                                               open_frames=rig.open_source if rig is not None else phone,
                                               pieces=pieces, prior=prior)
    session.loop.mode = "auto" if rig is not None else config.table.mode
    session.simulated = rig
    session.leds = Device("LED grid", why=Text.in_context("LED grid", NP_("LED grid", "switched off (%(how)s)"),
                                                          how="--no-leds"), off=True) if args.no_leds \
        else open_leds(args.leds, hardware)
    session.buttons = open_buttons(session, hardware)
    session.language = config.table.language
    session.speaker = open_speaker(config.speaker, config.table.language)
    session.beat_ms = _beat_ms(hardware)

    host = web.public_host or (lan_address() if web.host in ("0.0.0.0", "", "::") else web.host)
    phone_url = f"http://{host}:{server.port}/"
    secure, tls, tls_why = _open_https(web, host, db)
    try:   # cheroot's worker threads keep the process alive until the HTTPS server stops, wherever Ctrl+C lands
        https_url = f"https://{host}:{secure.port}/" if secure is not None else None
        app = create_app(session, token=pin, public_url=phone_url, hosts=[web.host, web.public_host],
                         table_config=config)
        from ..web.camera_page import attach
        attach(app, phone, https_url, tls.ca_cert if tls is not None else None)
        server.set_app(app)
        if secure is not None:
            secure.set_app(app)
            secure.start()

        _print_startup(session, phone_url, pin, resumed, db)
        print(qr_terminal(phone_url))
        _print_https(phone_url, https_url, tls, tls_why, phone is not None)
        if rig is not None:
            print("  " + _("Table:   simulated players at %(speed)sx their pace, camera mode auto; the referee "
                           "pauses them and moves their pieces on the referee page (Simulated table)",
                           speed=f"{args.speed:g}"))
        # tests/play_process.py waits for this line; it passes --lang en, so the wording may change with the language
        arm = _held_stop()   # a Ctrl+C from the next line on waits for the try below, which stops cleanly
        print(_("Press Ctrl+C to stop."), flush=True)
        teacher = _teacher(session, rig, args) if args.no_stickers and camera.enabled else None
        if rig is not None and teacher is None:
            rig.start()
        if args.demo and (args.until_end or not camera.enabled):
            return _demo_until_end(session, server, rig, args, camera=camera.enabled, arm=arm, teacher=teacher)
        if teacher is not None:      # taught in the background while the views show it, then the players start
            import threading
            threading.Thread(target=teacher, name="teaching", daemon=True).start()
        cycle = None
        if args.demo:    # game after game, each with the next seed, for as long as the table runs
            from ..table.simulated.demo import DemoCycle

            cycle = DemoCycle(session, seed=session.game.seed, setup=session.game.setup, speed=args.speed).start()
        watchdog = None
        try:
            arm()
            watchdog = systemd.announce(server, f"serving {phone_url}")   # Type=notify: ready now, then fed
            server.run()
        except KeyboardInterrupt:
            pass
        finally:
            systemd.stopping()
            if watchdog is not None:
                watchdog.stop()
            if cycle is not None:
                cycle.stop()
            if phone is not None:
                phone.close()
            server.close()
            if rig is not None:
                rig.close()
            session.close()
            print(_("Stopped; the game is saved and resumes with the next flure play."))
        return 0
    finally:
        if secure is not None:
            secure.close()


def _held_stop():
    """Hold Ctrl+C and SIGTERM (systemd's, ``kill``'s) until the returned ``arm()``: from then on both raise
    KeyboardInterrupt, and one that came while held is raised by ``arm()`` itself.  Signals reach Python's
    main thread whichever thread the system gives them to, so a signal mask cannot do this in a threaded process."""
    came: list[int] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda signum, frame: came.append(signum))

    def arm() -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, _stop)
        if came:
            raise KeyboardInterrupt
    return arm


def _hold_database(db):
    """An open lock file beside the database, held while this session runs (the system lets it go when the
    process ends, however it ends), or why not: another ``flure play`` on the same database would write the
    same journal."""
    import fcntl
    from pathlib import Path

    path = Path(f"{db}.lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        held = path.open("a+")
    except OSError:
        return _NoLock()          # a folder we cannot write: the database's own error says so next
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        held.close()
        return _("%(path)s is in use by another flure play: stop it first, or give another --db.", path=db)
    return held


class _NoLock:
    def close(self) -> None:
        pass


def _open_https(web, host: str, db):
    """(the HTTPS server, its certificate files, None) or (None, None, why): the camera page needs HTTPS;
    without it the session still runs over HTTP."""
    from ..tls import TlsError, default_folder, ensure_certificate, table_addresses, table_names
    from ..web.https import HttpsServer

    try:
        tls = ensure_certificate(default_folder(db), table_names(web.public_host) + [host], table_addresses(host))
    except TlsError as exc:
        from ..i18n.text import render
        return None, None, render(getattr(exc, "text", None) or str(exc), language())
    try:
        return HttpsServer(None, web.host, web.https_port, tls.cert, tls.key), tls, None
    except (OSError, ImportError) as exc:
        return None, tls, _("cannot listen on %(host)s:%(port)s: %(why)s (set another [web] https_port or "
                            "--https-port)", host=web.host, port=web.https_port, why=why(exc))


def _print_https(phone_url: str, https_url: str | None, tls, tls_why, phone: bool) -> None:
    """Where the camera page is, and how a phone trusts the table's certificate the first time."""
    if https_url is None:
        print("  " + _("HTTPS:   off (%(why)s); a phone's camera page needs it.", why=tls_why))
        return
    camera_url = https_url + "camera"
    print("  " + _("HTTPS:   %(url)s (the same app; the table's own certificate, kept in %(folder)s)",
                   url=https_url, folder=tls.folder))
    if phone:
        print("  " + _("Camera:  on the phone that films the board, open %(url)s (scan the code below) and enter "
                       "the PIN.", url=camera_url))
    else:
        print("  " + _("Camera:  a phone can be the camera (flure play --camera phone): its page is %(url)s",
                       url=camera_url))
    print("           " + _("The first time, the phone's browser warns that the certificate is not known: tap "
                            "Advanced, then Proceed (Android), or Show Details, then visit this website (iPhone). "
                            "Or install the table's authority from %(ca)s (SHA-256 %(fingerprint)s).",
                            ca=phone_url + "flure-ca.crt", fingerprint=tls.fingerprint))
    if phone:
        from ..web.qr import qr_terminal
        print(qr_terminal(camera_url))


DEVICE_WORDS = {"camera": N_("Camera"), "LED grid": N_("LED grid"), "buttons": N_("Buttons"),
                "speaker": N_("Speaker")}


def _print_startup(session, phone_url: str, pin: str, resumed: bool, db) -> None:
    """Where the phones and the referee go, the game, the journal and each device, in the command's language."""
    print(_("Finstere Flure table session"))
    print("  " + _("Players: open %(url)s on your phones (or scan the code below).", url=phone_url))
    print("  " + _("Referee: open %(url)s on the tablet and enter the PIN %(pin)s", url=phone_url + "referee", pin=pin))
    print("           " + _("(API clients send the header Authorization: Bearer %(pin)s).", pin=pin))
    if session.game is not None:
        from ..i18n.text import render
        summary = render(session.game.summary(), language())
        game_line = (_("resumed: %(summary)s", summary=summary) if resumed
                     else _("demo game: %(summary)s", summary=summary))
    else:
        game_line = _("none yet; start one from the referee view.")
    print("  " + _("Game:    %(game)s", game=game_line))
    print("  " + _("Saved in %(path)s", path=db))
    from ..i18n.text import render
    for note in session.journal.notes:   # a note keeps its wording data (engine.wording.Said)
        print("  " + _("Journal: %(note)s", note=render(getattr(note, "text", note), language())))
    for device in _devices(session):
        what = render(device.startup or device.note or (_("ready") if device.obj is not None else device.why),
                      language())
        name = _(DEVICE_WORDS[device.name]) if device.name in DEVICE_WORDS else device.name
        print("  " + _("%(device)s: %(status)s", device=name, status=what))   # fr: a no-break space before the colon


def _devices(session) -> list:
    return [session.camera, session.leds, session.buttons, session.speaker]


def _beat_ms(hardware) -> float:
    """The LED animation's beat (the speaker keeps to it); the default when the file cannot say."""
    from hardware.config import AnimationConfig, HardwareConfigError, load_config
    try:
        return load_config(hardware).animation.beat_ms
    except (HardwareConfigError, ValueError, OSError):
        return AnimationConfig().beat_ms


def _teacher(session, rig, args):
    """``--no-stickers``: a callable that teaches the simulated table (``demo.teach_the_table``) where the views
    show it, gives the camera what it learned and starts the players; it returns None, or why teaching failed
    (wording data, also in the game log)."""
    import logging

    from vision.nostickers import TeachError

    from ..table.simulated.demo import teach_the_table

    def teach():
        try:
            teach_the_table(session, rig, session.camera.obj.reader.taught, speed=args.speed)
        except TeachError as exc:
            why = getattr(exc, "text", None) or str(exc)
            logging.getLogger(__name__).error("the simulated table could not teach itself: %s", exc)
            session.add_log_line(why)
            session.publish_state()
            return why
        rig.start()
        return None
    return teach


def _demo_until_end(session, server, rig, args, camera: bool, arm, teacher=None) -> int:
    """Serve in the background while the demo game plays itself (``teacher``: the simulated table teaches
    itself first); the last line says how it went."""
    import time

    from ..table.simulated.demo import END_GRACE_S, STALL_S, run_until_end

    try:
        arm()
        server.start()
        why = teacher() if teacher is not None else None
        if why is not None:
            from engine.wording import N_, Text
            status, line = 1, Text(N_("demo stopped: the simulated table could not teach itself: %(why)s"), why=why)
        else:
            # without stickers a move the reader refuses waits for the player to take it back (frames, not time)
            status, line = run_until_end(session, rig, speed=args.speed, camera=camera,
                                         stall_s=STALL_S if args.no_stickers and camera else None)
        time.sleep(END_GRACE_S)      # the phones and the LEDs show the end before the table closes
    except KeyboardInterrupt:
        status, line = 130, _("demo stopped (Ctrl+C); the game is saved.")
    finally:
        rig.close()
        server.close()
        session.close()
    from ..i18n.text import render
    # 'demo finished: …' is TABLE.md's contract: a plain str, English verbatim; a stall's line is wording data
    print(render(line, language()), flush=True)
    return status
