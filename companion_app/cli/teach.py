"""``flure teach PHOTO... -o pieces.json``: teach the camera this copy of the game, without stickers
(NOSTICKERS.md).  Cheap to import: OpenCV and the reader are imported inside the command."""
from __future__ import annotations

from . import fail
from .inputs import InputError, exits_2_on_input_error, load_calibration_file, output_path
from .lang import _, language


def register(subparsers) -> None:
    t = subparsers.add_parser(
        "teach", help=_("learn the pieces and the board of your own box from photos (no stickers)"),
        description=_("Learn what this copy of the game looks like from one photo per step of the teaching "
                      "layout, in its order (the empty board first), and write it to one file for "
                      "'flure vision explain --pieces' (NOSTICKERS.md)."))
    t.add_argument("photos", metavar=_("PHOTO"), nargs="+", help=_("one photo per teaching step, in order"))
    t.add_argument("-o", "--output", required=True, metavar="pieces.json", help=_("the file to write"))
    t.add_argument("--calibration", metavar=_("FILE"), help=_("camera calibration (flure calibrate camera)"))
    t.add_argument("--layout", metavar=_("FILE"), help=_("teaching layout (default: the packaged one)"))
    t.set_defaults(func=cmd_teach)


@exits_2_on_input_error
def cmd_teach(args) -> int:
    from vision.nostickers import TeachError, teach
    from vision.nostickers.words import COUNT
    from vision.sources import load_image_file
    from vision.teaching_layout import TeachingLayoutError, load_layout

    from ..i18n.text import error_text, render
    output_path(args.output, (".json",))
    try:
        layout = load_layout(args.layout)
    except TeachingLayoutError as exc:
        raise InputError(error_text(exc, language())) from None
    if len(args.photos) != len(layout.steps):
        raise InputError(render(COUNT(photos=len(args.photos), steps=len(layout.steps)), language()))
    cal = load_calibration_file(args.calibration)
    images = []
    for path in args.photos:
        image, err = load_image_file(path)
        if err:
            raise InputError(render(err, language()))
        images.append(image)
    try:
        pieces = teach(layout, images, cal)
    except TeachError as exc:
        return fail(error_text(exc, language()), 1)
    pieces.save(args.output)
    if pieces.warnings:
        shown = ", ".join(" / ".join(w["faces"]) for w in pieces.warnings[:5])
        print(_("%(count)s pairs of faces look alike under this light; where both can be, the square is read as "
                "unknown (%(pairs)s%(more)s)", count=len(pieces.warnings), pairs=shown,
                more=", …" if len(pieces.warnings) > 5 else ""))
    print(args.output)
    return 0
