"""``flure vision render``: a position drawn by the synthetic camera, to feed ``flure vision read``.

``flure vision render --setup scenario.json -o table.png --tilt 20 --hand`` writes the image and
its ground truth (``table.json``: the setup on the board, the tile, the camera, every sticker's
pixels).  ``add_arguments``/``run`` are what ``companion_app/cli/vision.py`` registers, the same
shape as ``vision.evaluate``; the renderer itself is ``vision.twin``.  Cheap to import: the renderer
is imported when it runs.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..i18n.text import error_text
from . import fail
from .inputs import check_output
from .lang import N_, _, language, why

DESCRIPTION = N_("""\
Draw the table as an overhead camera sees it (the synthetic camera: the board to scale, the
pieces with their stickers from the marker scheme, a posed lens, the room's light and the
sensor's noise) and write the image and its ground truth JSON.  The position is a scenario's
setup (--setup), a seeded random one (--random) or the basic start.  The same arguments and
--seed give the same image.""")   # worded where the parser is built (vision.py)

EXAMPLES = """\
examples:
  flure vision render --setup my-position.json --tile 8 -o table.png
  flure vision read table.png                 # gives back the setup in table.json
  flure vision render --random 7 --tilt 20 --hand --noise 4 --seed 3 -o hand.png
  flure vision render --setup scenario.json --name-pawns --frames 3 -o still.png"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    what = p.add_mutually_exclusive_group()
    what.add_argument("--setup", metavar="FILE",
                      help=_("scenario JSON (a file with a \"setup\" object, or the setup itself)"))
    what.add_argument("--random", type=int, metavar="SEED", help=_("a random plausible position"))
    p.add_argument("--name-pawns", action="store_true",
                   help=_("give pawns without colour and kind (scenario pawns like \"A\") free stickers"))
    p.add_argument("--tile", help=_("tombstone tile in the card zone (5, 7, 8, 10, prey-1, prey-2)"))
    p.add_argument("-o", "--output", default="synthetic.png", help=_("image file (default synthetic.png)"))
    p.add_argument("--truth", metavar="FILE", help=_("ground-truth JSON (default: beside the image)"))
    p.add_argument("--frames", type=int, default=1, help=_("consecutive frames: OUT-0.png, OUT-1.png, …"))
    p.add_argument("--seed", type=int, default=0, help=_("seed of the light, glare, hand and noise (default 0)"))
    p.add_argument("--width", type=int, default=1920)
    p.add_argument("--height", type=int, default=1080)
    p.add_argument("--height-mm", type=float, default=900.0, help=_("camera height above the board"))
    p.add_argument("--tilt", type=number_in(0, 80, below=True), default=0.0,
                   help=_("degrees from vertical, 0 to less than 80 (up to 30 is realistic)"))
    p.add_argument("--azimuth", type=float, default=180.0, help=_("where the tilted camera stands, deg from N"))
    p.add_argument("--rotation", type=float, default=0.0, help=_("camera turn about its axis, degrees"))
    p.add_argument("--offset", default="0,0", metavar="X,Y", help=_("aim point shift in mm"))
    p.add_argument("--distortion", type=float, default=0.0, help=_("radial k1 (negative = barrel)"))
    p.add_argument("--light", type=number_in(0, 1), default=0.0, help=_("uneven light 0..1"))
    p.add_argument("--colour-temp", type=float, default=5500.0, help=_("kelvin (camera balanced for 5500)"))
    p.add_argument("--glare", type=number_in(0, 1), default=0.0, help=_("glare spot 0..1"))
    p.add_argument("--noise", type=float, default=0.0, help=_("sensor noise sigma, 8-bit levels"))
    p.add_argument("--blur", type=float, default=0.0, help=_("defocus sigma in pixels"))
    p.add_argument("--jpeg", type=int, metavar="QUALITY", help=_("JPEG-compress the frame"))
    p.add_argument("--hand", action="store_true", help=_("a hand and forearm over the board"))
    p.add_argument("--scheme", metavar="FILE", help=_("marker scheme file (default: the packaged one)"))
    p.add_argument("--no-stickers", action="store_true",
                   help=_("the box without stickers: the pieces' own pictures and the board's printed art"))
    p.add_argument("--look-seed", type=int, default=0, metavar="S",
                   help=_("which look of the box without stickers (colours, pictures, board art; default 0)"))
    what.add_argument("--teach", metavar="OUTDIR",
                      help=_("one photo per step of the teaching layout, without stickers, into OUTDIR "
                             "(step-01.png, …, each with its ground truth JSON)"))
    p.add_argument("--layout", metavar="FILE", help=_("teaching layout file for --teach (default: the packaged one)"))


def number_in(least: float, most: float, below: bool = False):
    """An argparse type: a number from ``least`` to ``most`` (``below``: less than ``most``); anything
    else is the option's usage error (status 2) saying the range the help gives."""
    import argparse

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("%(value)s is not a number", value=repr(text))) from None
        if not (least <= value < most if below else least <= value <= most):
            raise argparse.ArgumentTypeError(
                _("%(value)s is not from %(least)s to less than %(most)s", value=text, least=f"{least:g}", most=f"{most:g}")
                if below else _("%(value)s is not from %(least)s to %(most)s", value=text, least=f"{least:g}",
                                most=f"{most:g}"))
        return value
    return number


def run(args) -> int:
    from engine.errors import InvalidSetupError
    from engine.jsontext import JsonTextError
    from engine.position import basic_position
    from vision.scheme import SchemeError

    if args.teach:
        return _teach(args)
    # flure's one output-path check, before rendering
    for path, suffixes, what in ((args.output, (".png", ".jpg", ".jpeg"), "image"),
                                 (args.truth, (".json",), "ground truth")):
        problem = path and check_output(path, suffixes, what)[1]
        if problem:
            return fail(problem)
    offset = _offset(args)
    if offset is None:
        return fail(_("--offset must be two numbers in mm like 20,-10, not %(given)s", given=repr(args.offset)))
    try:
        if args.setup:
            position = _read_setup(Path(args.setup))
            tile = args.tile
        elif args.random is not None:
            from vision.twin.positions import random_position
            position, tile = random_position(args.random)
            tile = args.tile or tile
        else:
            position, tile = basic_position(), args.tile
    except (OSError, JsonTextError, InvalidSetupError) as exc:
        return fail(_("cannot read the setup %(path)s: %(why)s", path=args.setup,
                      why=why(exc) if isinstance(exc, OSError) else error_text(exc, language())))
    if args.name_pawns:
        position, named = name_pawns(position)
        for old, new in named:
            print(_("pawn %(old)s is drawn as %(new)s", old=old, new=new))

    import cv2

    from vision.twin.scene import render_burst
    try:
        frames = render_burst(position, tile, frames=max(1, args.frames), **_scene(args, offset))
    except (ValueError, SchemeError) as exc:   # LayoutError and bad camera values are ValueErrors
        unnamed = any(p.on_board and (p.colour is None or p.kind is None) for p in position.pawns)
        hint = _("; --name-pawns draws such pawns with free stickers") if unnamed else ""
        return fail(error_text(exc, language()) + hint)
    out = Path(args.output)
    paths = [out] if len(frames) == 1 else [out.with_name(f"{out.stem}-{i}{out.suffix}") for i in range(len(frames))]
    for path, (img, _truth) in zip(paths, frames):
        if not cv2.imwrite(str(path), img):
            return fail(_("cannot write the image %(path)s", path=path))
        print(path)
    truth_path = Path(args.truth) if args.truth else out.with_suffix(".json")
    try:
        truth_path.write_text(json.dumps(frames[0][1].to_json(), indent=1) + "\n")
    except OSError as exc:
        return fail(_("cannot write the ground truth %(path)s: %(why)s", path=truth_path, why=why(exc)))
    print(truth_path)
    return 0


def _offset(args) -> tuple[float, float] | None:
    try:
        offset = tuple(float(v) for v in args.offset.split(","))
    except ValueError:
        return None
    return offset if len(offset) == 2 else None


def _scene(args, offset, stickers: bool | None = None) -> dict:
    """The camera, room and look options as ``render``'s keywords."""
    return dict(seed=args.seed, width=args.width, height=args.height, height_mm=args.height_mm, tilt_deg=args.tilt,
                tilt_azimuth_deg=args.azimuth, rotation_deg=args.rotation, offset_mm=offset,
                distortion=args.distortion, light=args.light, colour_temp=args.colour_temp, glare=args.glare,
                noise=args.noise, blur=args.blur, jpeg_quality=args.jpeg, occluder="hand" if args.hand else None,
                scheme=args.scheme, stickers=not args.no_stickers if stickers is None else stickers,
                look_seed=args.look_seed)


def _teach(args) -> int:
    """``--teach OUTDIR``: the teaching layout's photos of the box without stickers, named in step order."""
    import cv2

    from vision.scheme import SchemeError
    from vision.teaching_layout import TeachingLayoutError, load_layout
    from vision.twin.scene import render
    offset = _offset(args)
    if offset is None:
        return fail(_("--offset must be two numbers in mm like 20,-10, not %(given)s", given=repr(args.offset)))
    try:
        layout = load_layout(args.layout)
    except TeachingLayoutError as exc:
        return fail(error_text(exc, language()))
    out = Path(args.teach)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return fail(_("cannot write into %(path)s: %(why)s", path=out, why=why(exc)))
    for n, step in enumerate(layout.steps, 1):
        try:
            img, truth = render(step.pieces(), step.tile, **_scene(args, offset, stickers=False))
        except (ValueError, SchemeError) as exc:
            return fail(error_text(exc, language()))
        path = out / f"step-{n:02d}.png"
        if not cv2.imwrite(str(path), img):
            return fail(_("cannot write the image %(path)s", path=path))
        try:
            path.with_suffix(".json").write_text(json.dumps({"step": n, **truth.to_json()}, indent=1) + "\n")
        except OSError as exc:
            return fail(_("cannot write the ground truth %(path)s: %(why)s", path=path.with_suffix(".json"),
                          why=why(exc)))
        print(path)
    return 0


def name_pawns(position):
    """Give each pawn without colour or kind the next unused real pawn (blue-6/1, …), so a
    rules scenario with pawns ``A``, ``B`` can be photographed.  Returns the new position and
    the (old label, new label) pairs."""
    from dataclasses import replace

    from engine.position import pawn_label
    from vision.twin.positions import all_pawns
    used = {(p.colour, p.kind) for p in position.pawns if p.colour and p.kind}
    free = [ck for ck in all_pawns() if ck not in used]
    pawns, named = [], []
    for p in position.pawns:
        if (p.colour is None or p.kind is None) and free:
            colour, kind = free.pop(0)
            new = replace(p, label=pawn_label(colour, kind), colour=colour, kind=kind)
            named.append((p.label, new.label))
            p = new
        pawns.append(p)
    return replace(position, pawns=tuple(pawns)), named


def _read_setup(path: Path):
    from engine.jsontext import loads
    from engine.position import Position
    data = loads(path.read_bytes())   # JsonTextError: not UTF-8, not JSON, too deep, huge numbers
    setup = data.get("setup", data) if isinstance(data, dict) else data
    return Position.from_setup(setup, strict=False, where="setup")
