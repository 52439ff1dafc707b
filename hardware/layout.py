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

from engine.geometry import COLS, ROWS, SQUARE_SET, on_board, parse_square, square, square_name

CANVAS_SIZE = COLS * ROWS  # a canvas has one RGB row per (col, row) cell, indexed by square int
STARTS = ("top-left", "top-right", "bottom-left", "bottom-right")


class LayoutError(ValueError):
    """The LED layout is inconsistent; the message names the square or LED index."""


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
            raise LayoutError(f"[layout] kind {kind!r} is not known (use 'chain' or 'explicit')")
        count = cfg.get("led_count")
        if count is not None:
            if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 65536:
                raise LayoutError(f"[layout] led_count = {count!r} must be a whole number from 1 to 65536")
            for sq, idx in layout.leds.items():
                if max(idx) >= count:
                    raise LayoutError(f"square {square_name(sq)} needs LED {max(idx)} but the strip has only "
                                      f"{count} LEDs (0–{count - 1})")
            layout = cls(layout.leds, count)
        return layout


def _squares(cfg: Mapping, key: str) -> set[int]:
    names = cfg.get(key, [])
    if not isinstance(names, (list, tuple)):
        raise LayoutError(f"[layout] {key} must be a list of square names like ['a1', 'p11']")
    out = set()
    for name in names:
        try:
            out.add(parse_square(name))
        except ValueError as exc:
            raise LayoutError(f"[layout] {key}: {exc}") from None
    return out


def _per_square(cfg: Mapping) -> int:
    n = cfg.get("leds_per_square", 1)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 16:
        raise LayoutError(f"[layout] leds_per_square = {n!r} must be a whole number from 1 to 16")
    return n


def chain_cells(order: str, run: str, start: str) -> list[tuple[int, int]]:
    """The (col, row) cells of the full 16 x 11 grid in the order the strip passes them."""
    if order not in ("serpentine", "row-major"):
        raise LayoutError(f"[layout] order {order!r} is not known (use 'serpentine' or 'row-major')")
    if run not in ("rows", "columns"):
        raise LayoutError(f"[layout] run {run!r} is not known (use 'rows' or 'columns')")
    if start not in STARTS:
        raise LayoutError(f"[layout] start {start!r} is not a corner (use {', '.join(STARTS)})")
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
        hint = "; to list each square's LEDs set kind = \"explicit\"" if "squares" in unknown else ""
        raise LayoutError(f"[layout] unknown key(s) for a chain layout: {', '.join(unknown)}{hint}")
    corners = cfg.get("cut_corners", "skip")
    if corners not in ("skip", "dark"):
        raise LayoutError(f"[layout] cut_corners {corners!r} is not known (use 'skip' or 'dark')")
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
        raise LayoutError("[layout] kind = 'explicit' needs a [layout.squares] table like a1 = 0, b1 = [1, 2]")
    owner: dict[int, int] = {}
    leds: dict[int, tuple[int, ...]] = {}
    for name, value in table.items():
        try:
            sq = parse_square(name)
        except ValueError as exc:
            raise LayoutError(f"[layout.squares] {exc}") from None
        if sq in leds:
            raise LayoutError(f"[layout.squares] square {square_name(sq)} is listed twice")
        values = value if isinstance(value, (list, tuple)) else [value]
        if not values:
            raise LayoutError(f"[layout.squares] square {square_name(sq)} has an empty LED list "
                              f"(leave it out to give it no LED)")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 65536:
                raise LayoutError(f"[layout.squares] square {square_name(sq)}: LED index {v!r} must be a whole "
                                  f"number from 0 to 65535")
            if v in owner:
                raise LayoutError(f"[layout.squares] LED {v} is given to both {square_name(owner[v])} "
                                  f"and {square_name(sq)}")
            owner[v] = sq
        leds[sq] = tuple(values)
    return LedLayout(leds, max(owner) + 1)


assert len(SQUARE_SET) == 156
