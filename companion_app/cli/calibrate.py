"""``flure calibrate board|camera|check|show``: set up the camera for the table.

Cheap to import: OpenCV is imported inside the command functions.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import fail, needs_action
from .inputs import IMAGE_SUFFIXES, InputError, exits_2_on_input_error, load_calibration_file, load_inputs, output_path
from .lang import _, language


def register(subparsers) -> None:
    p = subparsers.add_parser("calibrate", help=_("set up the camera: lens calibration and board registration"),
                              description=_("Camera calibration (ChArUco) and board registration check."))
    sub = p.add_subparsers(dest="calibrate_command", metavar=_("ACTION"))

    b = sub.add_parser("board", help=_("write the ChArUco calibration board to print"))
    b.add_argument("-o", "--output", default="charuco-board.png",
                   help=_("PNG to write (default charuco-board.png)"))
    b.add_argument("--dpi", type=int, default=300)
    _board_args(b)
    b.set_defaults(func=cmd_board)

    c = sub.add_parser("camera", help=_("compute the lens calibration from views of the ChArUco board"))
    c.add_argument("source", help=_("folder of photos, video file, or camera (0, 'picamera')"))
    c.add_argument("-o", "--output", default="calibration.json", help=_("file to write (.json or .npz)"))
    c.add_argument("--frames", type=int, default=40, help=_("frames to read from a live source (default 40)"))
    _board_args(c)
    c.set_defaults(func=cmd_camera)

    k = sub.add_parser("check", help=_("check the board registration in one image of the table"))
    k.add_argument("image")
    k.add_argument("--calibration", metavar="FILE")
    k.add_argument("--scheme", metavar="FILE")
    k.add_argument("--save", action="store_true", help=_("store the result in the --calibration file"))
    k.set_defaults(func=cmd_check)

    s = sub.add_parser("show", help=_("print a calibration file"))
    s.add_argument("file")
    s.set_defaults(func=cmd_show)
    needs_action(p, sub)


def _board_args(p) -> None:
    p.add_argument("--squares", default="7x5", help=_("ChArUco squares, columns x rows (default 7x5)"))
    p.add_argument("--square-mm", type=float, default=30.0)
    p.add_argument("--marker-mm", type=float, default=22.0)


def _spec(args):
    from calibration.intrinsics import CharucoSpec
    try:
        cols, rows = (int(v) for v in args.squares.lower().split("x"))
    except ValueError:
        raise InputError(_("--squares must look like 7x5, not %(given)s", given=repr(args.squares))) from None
    return CharucoSpec((cols, rows), args.square_mm, args.marker_mm)


@exits_2_on_input_error
def cmd_board(args) -> int:
    import cv2
    output_path(args.output, IMAGE_SUFFIXES, "image")
    spec = _spec(args)
    if not cv2.imwrite(args.output, spec.image(args.dpi)):
        return fail(_("%(path)s: cannot write the image", path=args.output))
    print(_("wrote %(path)s: print at %(dpi)s dpi, full scale; check that one square measures %(mm)s mm",
            path=args.output, dpi=args.dpi, mm=f"{spec.square_mm:g}"))
    return 0


@exits_2_on_input_error
def cmd_camera(args) -> int:
    from calibration.intrinsics import NotEnoughViews, Views, calibrate, rms_advice
    from calibration.store import save_calibration
    from vision.sources import SourceError, open_source

    from ..i18n.text import render
    output_path(args.output, (".json", ".npz"), "calibration")   # before the frames are read
    views = Views(_spec(args))
    try:
        source = open_source(args.source)
    except SourceError as exc:
        from ..i18n.text import error_text
        raise InputError(error_text(exc, language())) from None
    try:
        for i in range(args.frames if not Path(args.source).is_dir() else 10_000):
            frame = source.read()
            if frame is None:
                break
            views.add(frame, f"frame {i + 1}")
    finally:
        source.close()
    try:
        cal = calibrate(views)
    except NotEnoughViews as exc:
        from ..i18n.text import error_text
        return fail(_("calibration failed: %(why)s", why=error_text(exc, language())), 1)
    save_calibration(cal, args.output)
    print(_("wrote %(path)s: %(views)s views, reprojection error %(rms)s px, focal length %(focal)s px (%(advice)s)",
            path=args.output, views=len(views), rms=f"{cal.rms_px:.2f}", focal=f"{cal.camera_matrix[0, 0]:.0f}",
            advice=render(rms_advice(cal.rms_px), language())))
    return 0


@exits_2_on_input_error
def cmd_check(args) -> int:
    from calibration.registration import check_registration
    from calibration.store import save_calibration
    image, scheme, cal = load_inputs(args.image, args.scheme, args.calibration)
    report = check_registration(image, scheme, cal)
    print(json.dumps(report.to_json(), indent=1))   # JSON for programs: English, whatever the language
    _say_report(report)
    if args.save:
        if cal is None:
            return fail(_("--save needs --calibration FILE"))
        cal.registration = report.to_json()
        save_calibration(cal, args.calibration)
    return 0 if report.ok else 1


def _say_report(report) -> None:
    """The report's findings and advice for the person at the table, in the command's language, on
    stderr (stdout stays the JSON another program reads)."""
    import sys

    from ..i18n.text import render
    for finding in report.problems:
        print(_("problem: %(message)s") % {"message": render(finding, language())}, file=sys.stderr)
    if report.advice is not None:
        print(_("advice: %(advice)s", advice=render(report.advice, language())), file=sys.stderr)


@exits_2_on_input_error
def cmd_show(args) -> int:
    cal = load_calibration_file(args.file)
    print(json.dumps(cal.to_json(), indent=1))
    return 0
