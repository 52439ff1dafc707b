"""``flure stickers``: print-ready sticker sheets from the marker scheme (cheap to import)."""
from __future__ import annotations

from . import fail
from .inputs import check_output
from .lang import _, why


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "stickers", help=_("write print-ready marker sticker sheets (PDF or 300-dpi PNG)"),
        description=_("Write every sticker of the marker scheme at exact physical size: the 4 board "
                      "corner markers and one sticker per piece face, on A4 pages with a 100 mm ruler "
                      "to check the printer's scale. Print at full scale (no \"fit to page\")."))
    p.add_argument("-o", "--output", default="stickers", metavar="DIR",
                   help=_("folder to write into (default: ./stickers)"))
    p.add_argument("--format", choices=("pdf", "png"), default="pdf",
                   help=_("one multi-page PDF, or one 300-dpi PNG per page (default: pdf)"))
    p.add_argument("--scheme", metavar=_("FILE"), help=_("marker scheme file (default: the packaged one)"))
    p.set_defaults(func=run)


def run(args) -> int:
    from vision.scheme import load_scheme
    from vision.stickers import write_sheets
    problem = check_output(args.output, None, "sticker sheets")[1]
    if problem:
        return fail(problem)
    scheme = load_scheme(args.scheme)   # a SchemeError is flure's plain sentence, status 2 (cli.main)
    try:
        paths = write_sheets(scheme, args.output, args.format)
    except OSError as exc:
        return fail(_("cannot write into %(path)s: %(why)s", path=args.output, why=why(exc)))
    for path in paths:
        print(path)
    print(_("%(count)s stickers; print at full scale and check the 100 mm ruler on each page.",
            count=len(scheme.stickers) + len(scheme.board_markers)))
    return 0
