"""Which LED lights which square.

The animation thinks in squares; the strip only knows LED indices.  ``LedLayout`` is the
one place that maps between them, so a re-wired strip is a configuration change.
A layout is refused with a message naming the square or index at fault, because a
wrong map would light the monster one square off — the worst kind of silent bug at a table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from engine.geometry import COLS, ROWS, SQUARE_SET, BadName, on_board, parse_square, square, square_name
from engine.wording import N_, Plural, Text, Worded

CANVAS_SIZE = COLS * ROWS  # a canvas has one RGB row per (col, row) cell, indexed by square int
STARTS = ("top-left", "top-right", "bottom-left", "bottom-right")


class LayoutError(Worded, ValueError):
    """The LED layout is inconsistent; the message names the square or LED index (as wording data,
    engine.wording.Worded: the table configuration's checks give it in the reader's language)."""


@dataclass(frozen=True)
class LedLayout:
    """``leds[sq]`` are the LED indices under square ``sq``; ``led_count`` is the strip length."""

    leds: dict[int, tuple[int, ...]]
    led_count: int

    def __post_init__(self) -> None:
        # source[i] = the canvas cell LED i shows, or CANVAS_SIZE (an always-black cell).
        source = np.full(self.led_count, CANVAS_SIZE, dtype=np.intp)
        for sq, idx in self.leds.items():
            source[list(idx)] = sq
        object.__setattr__(self, "_source", source)

    @property
    def squares(self) -> tuple[int, ...]:
        return tuple(sorted(self.leds))

    def to_strip(self, canvas: np.ndarray) -> np.ndarray:
        """Canvas (CANVAS_SIZE, 3) uint8 → strip (led_count, 3) uint8."""
        padded = np.concatenate((canvas, np.zeros((1, 3), dtype=canvas.dtype)))
        return padded[self._source]

    def to_canvas(self, strip: np.ndarray) -> np.ndarray:
        """Strip → canvas (first LED of each square wins); used to draw a device's state."""
        canvas = np.zeros((CANVAS_SIZE, 3), dtype=np.uint8)
        for sq, idx in self.leds.items():
            if idx[0] < len(strip):
                canvas[sq] = strip[idx[0]]
        return canvas

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any] | None = None) -> "LedLayout":
        cfg = dict(cfg or {})
        kind = cfg.get("kind", "chain")
        if kind == "chain":
            layout = _chain(cfg)
        elif kind == "explicit":
            layout = _explicit(cfg)
        else:
            raise LayoutError(Text(N_("[layout] kind %(value)s is not known (use 'chain' or 'explicit')"), value=repr(kind)))
        count = cfg.get("led_count")
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 65536:
                raise LayoutError(Text(N_("[layout] led_count = %(value)s must be a whole number from 1 to 65536"),
                                       value=repr(count)))
            for sq, idx in layout.leds.items():
                if max(idx) >= count:
                    raise LayoutError(Text(N_("square %(square)s needs LED %(led)s but the strip has only %(count)s LEDs "
                                              "(0–%(last)s)"), square=square_name(sq), led=max(idx), count=count,
                                           last=count - 1))
            layout = cls(layout.leds, count)
        return layout


def _squares(cfg: Mapping, key: str) -> set[int]:
    names = cfg.get(key, [])
    if not isinstance(names, (list, tuple)):
        raise LayoutError(Text(N_("[layout] %(key)s must be a list of square names like ['a1', 'p11']"), key=key))
    out = set()
    for name in names:
        try:
            out.add(parse_square(name))
        except BadName as exc:
            raise LayoutError(Text(N_("[layout] %(key)s: %(error)s"), key=key, error=exc.text)) from None
    return out


def _per_square(cfg: Mapping) -> int:
    n = cfg.get("leds_per_square", 1)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 16:
        raise LayoutError(Text(N_("[layout] leds_per_square = %(value)s must be a whole number from 1 to 16"),
                               value=repr(n)))
    return n


def chain_cells(order: str, run: str, start: str) -> list[tuple[int, int]]:
    """The (col, row) cells of the full 16 x 11 grid in the order the strip passes them."""
    if order not in ("serpentine", "row-major"):
        raise LayoutError(Text(N_("[layout] order %(value)s is not known (use 'serpentine' or 'row-major')"),
                               value=repr(order)))
    if run not in ("rows", "columns"):
        raise LayoutError(Text(N_("[layout] run %(value)s is not known (use 'rows' or 'columns')"), value=repr(run)))
    if start not in STARTS:
        raise LayoutError(Text(N_("[layout] start %(value)s is not a corner (use %(corners)s)"), value=repr(start),
                               corners=", ".join(STARTS)))
    cols = list(range(COLS)) if start.endswith("left") else list(range(COLS - 1, -1, -1))
    rows = list(range(ROWS)) if start.startswith("top") else list(range(ROWS - 1, -1, -1))
    outer, inner = (rows, cols) if run == "rows" else (cols, rows)
    cells = []
    for i, o in enumerate(outer):
        line = inner if order == "row-major" or i % 2 == 0 else inner[::-1]
        for x in line:
            cells.append((x, o) if run == "rows" else (o, x))
    return cells


def _chain(cfg: Mapping) -> LedLayout:
    known = {"kind", "order", "run", "start", "cut_corners", "no_led", "leds_per_square", "led_count"}
    unknown = sorted(set(cfg) - known)
    if unknown:
        error = Plural("[layout] unknown key for a chain layout: %(keys)s",
                       "[layout] unknown keys for a chain layout: %(keys)s", len(unknown), keys=", ".join(unknown))
        if "squares" in unknown:
            error = Text(N_("%(error)s; to list each square's LEDs set kind = \"explicit\""), error=error)
        raise LayoutError(error)
    corners = cfg.get("cut_corners", "skip")
    if corners not in ("skip", "dark"):
        raise LayoutError(Text(N_("[layout] cut_corners %(value)s is not known (use 'skip' or 'dark')"),
                               value=repr(corners)))
    per = _per_square(cfg)
    skip = _squares(cfg, "no_led")
    leds: dict[int, tuple[int, ...]] = {}
    nxt = 0
    for col, row in chain_cells(cfg.get("order", "serpentine"), cfg.get("run", "rows"),
                                cfg.get("start", "top-left")):
        if not on_board(col, row):
            if corners == "dark":
                nxt += per
            continue
        sq = square(col, row)
        if sq in skip:
            continue
        leds[sq] = tuple(range(nxt, nxt + per))
        nxt += per
    return LedLayout(leds, nxt)


def _explicit(cfg: Mapping) -> LedLayout:
    table = cfg.get("squares")
    if not isinstance(table, Mapping) or not table:
        raise LayoutError(Text(N_("[layout] kind = 'explicit' needs a [layout.squares] table like a1 = 0, b1 = [1, 2]")))
    owner: dict[int, int] = {}
    leds: dict[int, tuple[int, ...]] = {}
    for name, value in table.items():
        try:
            sq = parse_square(name)
        except BadName as exc:
            raise LayoutError(Text(N_("[layout.squares] %(error)s"), error=exc.text)) from None
        if sq in leds:
            raise LayoutError(Text(N_("[layout.squares] square %(square)s is listed twice"), square=square_name(sq)))
        values = value if isinstance(value, (list, tuple)) else [value]
        if not values:
            raise LayoutError(Text(N_("[layout.squares] square %(square)s has an empty LED list "
                                      "(leave it out to give it no LED)"), square=square_name(sq)))
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 65536:
                raise LayoutError(Text(N_("[layout.squares] square %(square)s: LED index %(value)s must be a whole "
                                          "number from 0 to 65535"), square=square_name(sq), value=repr(v)))
            if v in owner:
                raise LayoutError(Text(N_("[layout.squares] LED %(led)s is given to both %(first)s and %(second)s"), led=v,
                                       first=square_name(owner[v]), second=square_name(sq)))
            owner[v] = sq
        leds[sq] = tuple(values)
    return LedLayout(leds, max(owner) + 1)


assert len(SQUARE_SET) == 156
