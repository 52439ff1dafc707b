"""Files named on a ``flure`` command line, loaded at the edge: the image, the marker scheme,
the camera calibration and the position before a change; and the one check of a file a
command is told to write (``output_path``).

Loading the calibration file here (not in the reader) is what lets ``vision`` stay free of
``calibration`` (the import contracts in pyproject.toml): the reader and ``TableCamera`` take
the loaded object.  Shared by ``flure vision`` and ``flure calibrate check``.
"""
from __future__ import annotations

import functools

from ..i18n.text import error_text, render
from . import fail
from .lang import _, language, why

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")   # what the image-writing commands are asked for


class InputError(Exception):
    """A file named on the command line that cannot be used (exit status 2)."""


def exits_2_on_input_error(command):
    """Decorator for a command function: an InputError becomes the CLI's one way to fail
    (its sentence, status 2)."""
    @functools.wraps(command)
    def run(args) -> int:
        try:
            return command(args)
        except InputError as exc:
            return fail(str(exc))
    return run


def load_calibration_file(path: str | None):
    """The calibration at ``path`` (None: none); InputError names the file and the field."""
    if not path:
        return None
    from calibration.store import CalibrationError, load_calibration
    try:
        return load_calibration(path)
    except CalibrationError as exc:
        raise InputError(error_text(exc, language())) from None


def load_inputs(image_path: str | None, scheme_path: str | None, calibration_path: str | None):
    """(image, scheme, calibration) named on a command line; InputError says what is wrong."""
    from vision.scheme import SchemeError, load_scheme
    from vision.sources import load_image_file
    try:
        scheme = load_scheme(scheme_path)
    except SchemeError as exc:
        raise InputError(error_text(exc, language())) from None
    cal = load_calibration_file(calibration_path)
    image = None
    if image_path is not None:
        image, err = load_image_file(image_path)
        if err:
            raise InputError(render(err, language()))
    return image, scheme, cal


def load_before(path: str):
    """The position before the change (``BEFORE.json``: a scenario setup object); InputError names the field."""
    from pathlib import Path

    from engine import jsontext
    from engine.errors import InvalidSetupError
    from engine.position import Position
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(_("%(path)s: cannot read the file (%(why)s)", path=path,
                           why=why(exc))) from None
    try:
        data = jsontext.loads(text)
    except jsontext.JsonTextError as exc:
        raise InputError(_("%(where)s: %(error)s", where=path, error=error_text(exc, language()))) from None
    try:
        before = Position.from_setup(data, where="BEFORE")
    except InvalidSetupError as exc:
        raise InputError(_("%(where)s: %(error)s", where=path, error=error_text(exc, language()))) from None
    for pawn in before.pawns:   # the camera tells pawns apart only by their stickers' colour and pair
        for key, value in (("color", pawn.colour), ("pawn", pawn.kind)):
            if value is None:
                raise InputError(_("%(path)s: %(field)s: required, the camera tells pawns apart by colour and pair "
                                   "(like \"red-6/1\": {\"color\": \"red\", \"pawn\": \"6/1\"})", path=path,
                                   field=f"BEFORE.pawns.{pawn.label}.{key}"))
    return before


def output_path(path: str, suffixes: tuple[str, ...] | None, what: str = "file"):
    """The file a command is told to write, checked before any work is done: its folder must
    exist (never created: a mistyped folder stays visible), it must not be a folder, and its
    extension must be one the command writes (``suffixes``, e.g. (".png",)).  ``suffixes`` None:
    a folder to write into, which the command may create, but only inside a folder that exists.
    InputError says which, in one sentence.  Every ``flure`` command that writes checks here;
    the ``leds``, ``stickers`` and ``vision render`` commands (in packages that may not import
    this one) get it as ``args.check_output``."""
    from pathlib import Path

    p = Path(path)
    if suffixes is None:
        if p.exists() and not p.is_dir():
            raise InputError(_("%(path)s is a file; give a folder for the %(what)s", path=path, what=_(what)))
        if not p.is_dir() and not p.parent.is_dir():
            raise InputError(_("%(path)s: the folder %(folder)s for the %(what)s does not exist (create it, or give "
                               "another path)", path=path, folder=p.parent, what=_(what)))
        return p
    if p.is_dir():
        raise InputError(_("%(path)s is a folder; name the %(what)s file in it (like %(example)s)", path=path,
                           what=_(what), example=p / (what + suffixes[0])))
    if p.suffix.lower() not in suffixes:
        ends = _(" or ").join(suffixes)
        raise InputError(_("%(path)s: the %(what)s must end in %(ends)s, not %(suffix)s", path=path, what=_(what),
                           ends=ends, suffix=p.suffix) if p.suffix else
                         _("%(path)s: the %(what)s must end in %(ends)s", path=path, what=_(what), ends=ends))
    if not p.parent.is_dir():
        raise InputError(_("%(path)s: the folder %(folder)s for the %(what)s does not exist (create it, or give "
                           "another path)", path=path, folder=p.parent, what=_(what)))
    return p


N_ = lambda s: s   # noqa: E731 - marks a msgid for extraction; translated where it is used
# what the commands write, as output_path names it (``output_path(path, (".png",), "image")``)
OUTPUT_WORDS = (N_("image"), N_("calibration"), N_("report"), N_("images"), N_("sticker sheets"),
                N_("ground truth"), N_("file"))


def check_output(path: str, suffixes: tuple[str, ...] | None, what: str = "file"):
    """``output_path`` as a pair: (Path, None) or (None, the sentence) for ``fail``."""
    try:
        return output_path(path, suffixes, what), None
    except InputError as exc:
        return None, str(exc)
