"""Print-ready sticker sheets at exact physical size (``flure stickers``).

Every marker of the scheme file — the four board-corner markers and one sticker per piece
face — is drawn at its ``size_mm`` with a one-module white quiet zone and a thin cut line,
labelled with its id and what it identifies.  Stickers whose rotation carries a heading
(monster, teleporter arrow, 1x4 pool) get an arrow beside them showing which way the
sticker's top edge (first to second corner) points: the heading in the board frame.

Pages are A4 at 300 dpi; each carries a 100 mm ruler so the table owner can check the
printer did not scale the page.  PNG pages carry their dpi; the PDF's page size is exact.
Pillow draws the pages, cv2.aruco the markers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

DPI = 300
PAGE_MM = (210.0, 297.0)  # A4 portrait
MARGIN_MM = 12.0
RULER_MM = 100
PAWN_DISC_MM = 27.0  # the disc the pawn sticker must fit on (corners included)


def mm_px(mm: float) -> int:
    return int(round(mm * DPI / 25.4))


def paper_mm(sticker, dictionary: str) -> float:
    """Side of the white sticker paper around a marker: one module of quiet zone, trimmed
    on pawns so the square's corners stay on the round disc, but never below half a module
    (a bigger pawn sticker than the disc takes then overhangs it)."""
    side = _with_margin(sticker.size_mm, dictionary)
    if sticker.piece == "pawn":
        half_module = (side - sticker.size_mm) / 4
        side = max(min(side, PAWN_DISC_MM / math.sqrt(2) - 0.2), sticker.size_mm + 2 * half_module)
    return side


def _with_margin(size_mm: float, dictionary: str) -> float:
    bits = int(dictionary.split("_")[1].split("X")[0]) + 2   # DICT_4X4_100: 4 + 2 border
    return size_mm * (bits + 2) / bits


@dataclass(frozen=True)
class SheetItem:
    marker_id: int
    size_mm: float
    paper_mm: float
    label: str
    section: str
    arrow: str | None = None  # what the arrow beside the sticker means


SECTIONS = ("Board corners", "Monster", "Tombstone tiles", "Teleporters", "Blood pools", "Stone tiles", "Pawns")
NOTES = {
    "Board corners": "on the table beside the sheet's corners, centres where marker_scheme.json says",
    "Monster": "on top of the figure; the arrow points where the monster looks",
    "Tombstone tiles": "one per tile; lay the drawn tile in the card zone beside the board",
    "Teleporters": "the arrow points the way the monster faces after teleporting (T2)",
    "Blood pools": "the 1x4 pool's arrow points across the pool",
    "Stone tiles": "one sticker per face: a crystal lying plain side up reads as a stone",
    "Pawns": "one sticker per face, centred on the disc",
}


def sheet_items(scheme) -> list[SheetItem]:
    """Every marker of ``scheme`` with its label, grouped for printing."""
    items = []
    for m in scheme.board_markers:
        items.append(SheetItem(m.id, m.size_mm, _with_margin(m.size_mm, scheme.dictionary),
                               f"#{m.id} board corner {m.corner}",
                               "Board corners"))
    section = {"monster": "Monster", "tile": "Tombstone tiles", "teleporter": "Teleporters",
               "pool": "Blood pools", "stone": "Stone tiles", "pawn": "Pawns"}
    for st in sorted(scheme.stickers.values(), key=lambda s: s.id):
        arrow = None
        if st.piece == "monster":
            label, arrow = "#%d monster" % st.id, "monster looks this way"
        elif st.piece == "teleporter":
            label, arrow = f"#{st.id} teleporter pair {st.pair}", "arrow"
        elif st.piece == "pool":
            label = f"#{st.id} {st.shape} pool, on its " + ("top-left square" if st.shape == "2x2" else "first square")
            if st.shape == "1x4":
                arrow = "across the pool"
        elif st.piece == "stone":
            side = "plain side" if st.side == "plain" else f"front: {st.kind}"
            label = f"#{st.id} stone tile {st.tile}, {side}"
        elif st.piece == "pawn":
            label = f"#{st.id} {st.colour} {st.pawn}, {st.face} face"
        else:
            label = f"#{st.id} tombstone {st.tile}"
        items.append(SheetItem(st.id, st.size_mm, paper_mm(st, scheme.dictionary), label, section[st.piece], arrow))
    order = {s: i for i, s in enumerate(SECTIONS)}
    return sorted(items, key=lambda it: (order[it.section], it.marker_id))


def render_pages(scheme) -> list:
    """The sticker sheets as Pillow images (A4, 300 dpi, RGB)."""
    from PIL import Image, ImageDraw

    width, height = mm_px(PAGE_MM[0]), mm_px(PAGE_MM[1])
    fonts = _fonts()
    pages: list = []
    state = {"page": None, "draw": None, "x": 0.0, "y": 0.0, "row_h": 0.0}
    left, right = MARGIN_MM, PAGE_MM[0] - MARGIN_MM
    bottom = PAGE_MM[1] - MARGIN_MM - 22.0  # room for the ruler

    def new_page():
        page = Image.new("RGB", (width, height), "white")
        draw = ImageDraw.Draw(page)
        draw.text((mm_px(left), mm_px(MARGIN_MM - 6)),
                  f"Finstere Flure Companion stickers - {scheme.dictionary} - page {len(pages) + 1}. "
                  "Print at 100 % (no 'fit to page'), then check the ruler.", fill="black", font=fonts["small"])
        _ruler(draw, left, PAGE_MM[1] - MARGIN_MM - 14.0, fonts)
        pages.append(page)
        state.update(page=page, draw=draw, x=left, y=MARGIN_MM, row_h=0.0)

    def newline(extra=0.0):
        state["x"] = left
        state["y"] += state["row_h"] + extra
        state["row_h"] = 0.0

    new_page()
    current = None
    for it in sheet_items(scheme):
        cell_w = max(it.paper_mm + (9.0 if it.arrow else 0.0), _text_mm(it.label, fonts["label"]) + 1.0) + 5.0
        cell_h = it.paper_mm + 9.0
        if it.section != current:
            newline(3.0 if current else 0.0)
            if state["y"] + 8 + cell_h > bottom:
                new_page()
            state["draw"].text((mm_px(left), mm_px(state["y"])), it.section, fill="black", font=fonts["head"])
            state["draw"].text((mm_px(left + _text_mm(it.section, fonts["head"]) + 3), mm_px(state["y"] + 1.5)),
                               NOTES[it.section], fill=(60, 60, 60), font=fonts["small"])
            state["y"] += 7.0
            current = it.section
        if state["x"] + cell_w > right:
            newline()
        if state["y"] + cell_h > bottom:
            new_page()
            state["draw"].text((mm_px(left), mm_px(state["y"])), it.section + " (continued)", fill="black",
                               font=fonts["head"])
            state["y"] += 7.0
        _sticker(state["page"], state["draw"], it, scheme.dictionary, state["x"], state["y"], fonts)
        state["x"] += cell_w
        state["row_h"] = max(state["row_h"], cell_h)
    return pages


def write_sheets(scheme, out_dir: Path, fmt: str = "pdf") -> list[Path]:
    """Write ``stickers.pdf`` or ``stickers-N.png`` into ``out_dir``; returns the files."""
    out_dir = Path(out_dir)
    out_dir.mkdir(exist_ok=True)   # inside a folder that exists: a mistyped parent stays visible
    pages = render_pages(scheme)
    if fmt == "pdf":
        path = out_dir / "stickers.pdf"
        pages[0].save(path, "PDF", resolution=float(DPI), save_all=True, append_images=pages[1:])
        return [path]
    if fmt == "png":
        paths = []
        for i, page in enumerate(pages, 1):
            path = out_dir / f"stickers-{i}.png"
            page.save(path, "PNG", dpi=(DPI, DPI))
            paths.append(path)
        return paths
    raise ValueError(f"unknown format {fmt!r} (pdf or png)")


# -- drawing -------------------------------------------------------------------

def _fonts() -> dict:
    from PIL import ImageFont

    def font(mm):
        size = mm_px(mm)
        try:
            return ImageFont.load_default(size=size)
        except TypeError:  # Pillow < 10.1: a fixed bitmap font
            return ImageFont.load_default()
    return {"small": font(3.0), "label": font(2.4), "head": font(4.5), "ruler": font(2.6)}


def _text_mm(text: str, font) -> float:
    try:
        return font.getlength(text) * 25.4 / DPI
    except AttributeError:
        return len(text) * 1.5


def _sticker(page, draw, it: SheetItem, dictionary: str, x_mm: float, y_mm: float, fonts) -> None:
    import cv2
    from PIL import Image

    x0, y0 = mm_px(x_mm), mm_px(y_mm)
    paper = mm_px(it.paper_mm)
    # Cut line: a thin grey square just outside the white paper.
    draw.rectangle([x0 - 1, y0 - 1, x0 + paper, y0 + paper], outline=(150, 150, 150), width=1)
    side = mm_px(it.size_mm)
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    marker = cv2.aruco.generateImageMarker(d, it.marker_id, side)
    off = (paper - side) // 2
    page.paste(Image.fromarray(marker).convert("RGB"), (x0 + off, y0 + off))
    draw.text((x0, y0 + paper + mm_px(1.2)), it.label, fill="black", font=fonts["label"])
    if it.arrow:
        # The sticker's top edge runs from its first to its second corner: left to right here.
        ax = x0 + paper + mm_px(2.0)
        ay = y0 + paper // 2
        length = mm_px(6.0)
        draw.line([ax, ay, ax + length, ay], fill="black", width=mm_px(0.5))
        head = mm_px(1.6)
        draw.polygon([(ax + length + head, ay), (ax + length, ay - head), (ax + length, ay + head)], fill="black")


def _ruler(draw, x_mm: float, y_mm: float, fonts) -> None:
    """A 100 mm ruler with millimetre ticks: measure it to check the print scale."""
    x0, y = mm_px(x_mm), mm_px(y_mm)
    draw.line([x0, y, mm_px(x_mm + RULER_MM), y], fill="black", width=2)
    for mm in range(RULER_MM + 1):
        x = mm_px(x_mm + mm)
        tall = 4.0 if mm % 10 == 0 else (2.5 if mm % 5 == 0 else 1.5)
        draw.line([x, y, x, y + mm_px(tall)], fill="black", width=2 if mm % 10 == 0 else 1)
        if mm % 10 == 0:
            draw.text((x - mm_px(1.0), y + mm_px(4.5)), str(mm // 10), fill="black", font=fonts["ruler"])
    draw.text((mm_px(x_mm + RULER_MM + 4), y - mm_px(1.0)),
              "this ruler is 100 mm (10 cm) long:\nif it measures otherwise, the printer scaled the page",
              fill="black", font=fonts["ruler"])
