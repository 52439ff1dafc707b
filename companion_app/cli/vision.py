"""``flure vision read|explain|show|watch|render|eval``: the camera reader and the synthetic camera
from the command line.

The commands load the files named on the line (``--calibration``, ``--scheme``) and hand the
loaded objects to ``vision``.  Cheap to import: OpenCV and the reader are imported inside the
command functions.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import Parser, fail, needs_action
from .inputs import (
    IMAGE_SUFFIXES,
    InputError,
    exits_2_on_input_error,
    load_before,
    load_calibration_file,
    load_inputs,
    output_path,
)
from .lang import _, language


def register(subparsers) -> None:
    p = subparsers.add_parser("vision", help=_("read the board from a camera image, or render one"),
                              description=_("Read the physical board from camera images (VISION.md); "
                                            "render test images with the synthetic camera."))
    sub = p.add_subparsers(dest="vision_command", metavar=_("ACTION"), parser_class=_LazyParser)

    r = sub.add_parser("read", help=_("print the reading of an image as JSON (scenario setup format)"))
    r.add_argument("image", help=_("photo or frame of the table (PNG, JPEG, …)"))
    _common(r)
    r.set_defaults(func=cmd_read)

    s = sub.add_parser("show", help=_("write the image with the detected grid and pieces drawn over it"))
    s.add_argument("image")
    s.add_argument("-o", "--output", help=_("output image (default: IMAGE-shown.png beside it)"))
    _common(s)
    s.set_defaults(func=cmd_show)

    x = sub.add_parser("explain", help=_("which legal change a picture shows, given the position before"),
                       description=_("Read one or more consecutive frames of one camera and say which legal "
                                     "change of the game they show (VISION.md, 'Reading a change')."))
    x.add_argument("before", metavar="BEFORE.json",
                   help=_("the position before the change (a scenario setup object)"))
    x.add_argument("images", metavar="IMAGE", nargs="+", help=_("consecutive frames of one camera"))
    x.add_argument("--player", metavar="COLOUR", help=_("the player to move (pawn phase); without it a move of any "
                                                        "one pawn is allowed"))
    x.add_argument("--pieces", metavar=_("FILE"), help=_("read the pieces without stickers, as taught by flure teach "
                                                         "(NOSTICKERS.md)"))
    _common(x)
    x.set_defaults(func=cmd_explain)

    w = sub.add_parser("watch", help=_("read a camera source until a stable position is accepted"))
    w.add_argument("source", help=_("camera index (0), video file, stream URL, image folder, "
                                    "'picamera', 'simulated' or 'synthetic'"))
    w.add_argument("--frames", type=int, default=30, help=_("give up after this many frames (default 30)"))
    w.add_argument("--stable", type=int, default=3, help=_("identical frames needed (default 3)"))
    _common(w)
    w.set_defaults(func=cmd_watch)

    from . import render as twin_cli  # argparse only: cheap
    m = sub.add_parser("render", help=_("make a camera image of a position with the synthetic camera"),
                       description=_(twin_cli.DESCRIPTION), epilog=twin_cli.EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    twin_cli.add_arguments(m)
    m.set_defaults(func=twin_cli.run)

    e = sub.add_parser("eval", help=_("accuracy on a fixed-seed set of synthetic images"))
    _common(e)
    e.lazy_arguments = _eval_arguments   # vision.evaluate is only imported when eval runs
    e.set_defaults(func=cmd_eval)
    needs_action(p, sub)


class _LazyParser(Parser):
    """A sub-command parser that adds its arguments only when it is used, so that
    building the ``flure`` parser never imports the heavy modules behind them."""

    lazy_arguments = None

    def parse_known_args(self, args=None, namespace=None):
        hook, self.lazy_arguments = self.lazy_arguments, None
        if hook is not None:
            hook(self)
        return super().parse_known_args(args, namespace)


def _eval_arguments(parser) -> None:
    from vision import evaluate
    evaluate.add_arguments(parser)


def _common(p) -> None:
    p.add_argument("--calibration", metavar=_("FILE"), help=_("camera calibration (flure calibrate camera)"))
    p.add_argument("--scheme", metavar=_("FILE"), help=_("marker scheme file (default: the packaged one)"))


@exits_2_on_input_error
def cmd_read(args) -> int:
    from vision.reader import read_image
    image, scheme, cal = load_inputs(args.image, args.scheme, args.calibration)
    reading = read_image(image, scheme, cal)
    print(json.dumps(reading.to_json(), indent=1))
    return 0


@exits_2_on_input_error
def cmd_explain(args) -> int:
    from engine.observation import ANY_PAWN
    from engine.position import COLOURS
    from vision.change import explain_readings
    from vision.reader import read_image
    from vision.sources import load_image_file

    from ..i18n.text import render
    if args.player is not None and args.player not in COLOURS:
        raise InputError(_("--player: unknown colour %(given)s (one of %(colours)s)", given=repr(args.player),
                           colours=", ".join(COLOURS)))
    before = load_before(args.before)
    _none, scheme, cal = load_inputs(None, args.scheme, args.calibration)
    pieces = _load_pieces(args.pieces) if args.pieces else None
    readings, images = [], []
    for path in args.images:
        image, err = load_image_file(path)
        if err:
            raise InputError(render(err, language()))
        if pieces is None:
            readings.append(read_image(image, scheme, cal))
        images.append(image)
    if pieces is not None:
        from vision.nostickers import explain_change
        result = explain_change(before, images, pieces, calibration=cal, player=args.player)
    else:
        result = explain_readings(before, readings, args.player or ANY_PAWN, images, scheme)
    print(json.dumps(result.to_json(), indent=1))
    return 0


def _load_pieces(path: str):
    """The taught pieces file (``flure teach``); InputError names the file and why."""
    from vision.nostickers import Pieces, PiecesError

    from ..i18n.text import error_text
    try:
        return Pieces.load(path)
    except PiecesError as exc:
        raise InputError(error_text(exc, language())) from None


@exits_2_on_input_error
def cmd_show(args) -> int:
    import cv2

    from vision.draw import draw_reading
    from vision.problems import problem_words
    from vision.reader import read_image

    from ..i18n.text import render
    out = output_path(args.output or str(Path(args.image).with_name(Path(args.image).stem + "-shown.png")),
                      IMAGE_SUFFIXES, "image")
    image, scheme, cal = load_inputs(args.image, args.scheme, args.calibration)
    reading = read_image(image, scheme, cal)
    if not cv2.imwrite(str(out), draw_reading(image, reading, scheme)):
        return fail(_("%(path)s: cannot write the image", path=out))
    print(_("wrote %(path)s", path=out))
    for p in reading.problems:   # each in the command's language (vision words it: vision.problems)
        print("  " + _("problem: %(message)s") % {"message": render(problem_words(p), language())})
    return 0


@exits_2_on_input_error
def cmd_watch(args) -> int:
    from vision.pipeline import TableCamera
    from vision.sources import SourceError, open_source
    _none, scheme, cal = load_inputs(None, args.scheme, args.calibration)
    try:
        source = open_source(args.source)
    except SourceError as exc:
        from ..i18n.text import error_text
        raise InputError(error_text(exc, language())) from None
    cam = TableCamera(source, scheme, cal, stable_frames=args.stable)
    try:
        for _frame in range(args.frames):
            cam.poll()
            print(json.dumps(cam.status()), file=sys.stderr)
            if cam.accepted is not None:
                print(json.dumps(cam.accepted.to_json(), indent=1))
                return 0
    finally:
        cam.close()
    return fail(_("no stable reading in %(frames)s frames", frames=args.frames), 1)


@exits_2_on_input_error
def cmd_eval(args) -> int:
    from vision import evaluate
    if args.report not in (None, "-"):
        output_path(args.report, (".json",), "report")   # before the set runs (minutes)
    if args.save_images:
        output_path(args.save_images, None, "images")
    return int(evaluate.run(args, load_calibration_file(args.calibration)) or 0)
