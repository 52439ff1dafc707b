"""The Setup page's teaching of the box without stickers (NOSTICKERS.md): the teaching layout's steps
one at a time, the LED grid lighting each step's squares, a photo from the table's camera checked at
once, and the taught ``pieces.json`` saved beside the table's configuration; then what was learned,
with the faces that look too alike under this light.

A step's photo is checked by teaching every step so far (``vision.nostickers.teach`` over the
layout's first steps and their photos): a photo that does not match its step is refused with
teaching's own reason and the step is taken again; nothing is saved before the last step passes.
On the simulated table the simulated players lay each step's pieces out (and are held meanwhile);
when the teaching ends or is abandoned, the table goes back to the game's position.
"""
from __future__ import annotations

import base64
import dataclasses
import threading
import time
from pathlib import Path

from engine.geometry import DIRECTION_NAMES, square_name
from engine.names import piece_name
from engine.wording import N_, Direction, Term, Text

from .setup import SetupError

FRESH_FRAME_S = 5.0      # how long a photo waits for the camera's next frame (taken after the tap)
PICTURE_PX = 56          # side of a taught face's picture

# What the Setup page says of the advanced setup's taught tiles (``describe_placed``): code → sentence.
TILE_WARNINGS = {
    "pools-not-taught": N_("No pool was taught (the teaching layout lays none out, or its pools looked like the bare "
                           "board): the camera does not read the pools put down at the advanced setup; the referee "
                           "enters them."),
    "teleporters-not-taught": N_("No teleporter was taught (the teaching layout lays none out): the camera does not "
                                 "read the teleporters put down at the advanced setup; the referee enters them."),
    "pair-not-taught": N_("Teleporter pair %(pair)s was not taught: the camera does not read the teleporters put "
                          "down at the advanced setup (it could take one pair for the other); the referee enters "
                          "them."),
    "teleporters-alike": N_("The two teleporter pairs look too alike under this light: the camera may ask the "
                            "referee which pair a teleporter put down is rather than guess (more light helps)."),
}


class Teaching:
    """One teaching at a time, for the Setup page (``SetupTool.teaching``)."""

    def __init__(self, tool):
        self.tool = tool
        self._lock = threading.Lock()
        self.layout = None
        self.photos: list = []
        self.refused = None         # why the last photo was refused (wording data)
        self.active = False
        self.saved: Path | None = None
        self._held = None            # the simulated players' pause before the teaching (None: not held)
        self._learned: tuple[float, dict] | None = None   # (pieces file's mtime, what it taught)

    # -- where --------------------------------------------------------------------------------
    def pieces_path(self) -> Path:
        return self.tool.folder() / "pieces.json"

    # -- the steps ----------------------------------------------------------------------------
    def start(self) -> dict:
        """Begin (or begin again) at the first step: the empty board."""
        from vision.teaching_layout import TeachingLayoutError, load_layout

        try:
            layout = load_layout()
        except TeachingLayoutError as exc:
            raise SetupError(Text(N_("The teaching layout cannot be used: %(why)s"), why=exc.text)) from None
        with self._lock:
            self.layout, self.photos, self.refused, self.active, self.saved = layout, [], None, True, None
            self.tool.session.lend_leds()           # the session's own LED view waits meanwhile
            rig = self._rig()
            if rig is not None and self._held is None:
                self._held = rig.players.paused
                rig.pause(True)
            self._show_step()
            return self._status()

    def photo(self, step: int | None = None) -> dict:
        """Take the current step's photo from the table's camera and check it at once; the last step's
        passing saves ``pieces.json``.  ``step``, when given, must be the step under way (a page that
        was behind, or a second tap, takes no photo for the wrong step)."""
        from vision.nostickers import TeachError, teach

        with self._lock:
            if not self.active:
                raise SetupError(Text(N_("No teaching under way: press Start teaching first.")))
            if step is not None and step != len(self.photos) + 1:
                raise SetupError(Text(N_("This photo was for step %(step)s, but the teaching is at step %(now)s: "
                                         "look at the step shown, then take the photo."),
                                      step=step, now=len(self.photos) + 1))
            frame = self._fresh_frame()
            n = len(self.photos) + 1
            steps = self.layout.steps[:n]
            started = time.monotonic()
            try:
                pieces = teach(dataclasses.replace(self.layout, steps=steps), [*self.photos, frame],
                               self.tool._reader()[1])
            except TeachError as exc:
                self.refused = exc.text if exc.text is not None else str(exc)   # wording data: the page's language
                return {**self._status(), "checked_s": round(time.monotonic() - started, 2)}
            self.photos.append(frame)
            self.refused = None
            if len(self.photos) == len(self.layout.steps):
                path = self.pieces_path()
                try:
                    pieces.save(path)
                except OSError as exc:
                    self.photos.pop()
                    raise SetupError(Text(N_("%(path)s cannot be written (%(why)s): nothing was saved; free the "
                                             "folder, then take the photo again"), path=str(path),
                                          why=exc.strerror or exc)) from None
                self.saved, self.active = path, False
                self._release()
            else:
                self._show_step()
            return {**self._status(), "checked_s": round(time.monotonic() - started, 2)}

    def cancel(self) -> dict:
        """Abandon the teaching: nothing is saved, the table goes back to the game."""
        with self._lock:
            if self.active:
                self.active, self.photos, self.refused = False, [], None
                self._release()
            return self._status()

    def status(self) -> dict:
        with self._lock:
            return self._status()

    def _status(self) -> dict:
        out = {"active": self.active, "steps": len(self.layout.steps) if self.layout is not None else None,
               "done": len(self.photos), "refused": self.refused, "step": None,
               "saved": str(self.saved) if self.saved is not None else None, "file": str(self.pieces_path())}
        if self.active:
            step = self.layout.steps[len(self.photos)]
            out["step"] = {"number": len(self.photos) + 1, "say": step.words, "squares": step_squares(step),
                           "tile": step.tile, "setup": step.setup}     # the page draws it on the board
        return out

    def _show_step(self) -> None:
        """Light the step's squares; on the simulated table its players lay the step out."""
        step = self.layout.steps[len(self.photos)]
        squares = tuple(step_squares(step))
        leds = self.tool.session.leds
        if leds.obj is not None:
            leds.call(lambda grid: grid.show_follow(None, fill=squares))
        rig = self._rig()
        if rig is not None:
            rig.table.hand_over(None)
            rig.table.arrange(step.pieces(), sloppy=True)
            rig.table.lay_tile(step.tile)

    def _release(self) -> None:
        """The table back to the game: the simulated pieces where the game has them, the players let go,
        the LEDs given back to the session (its view of the game)."""
        from engine.position import basic_position

        rig = self._rig()
        if rig is not None:
            game = self.tool.session.game
            rig.table.arrange(game.position if game is not None else basic_position(), sloppy=False)
            rig.table.lay_tile(None)
            if self._held is not None:
                rig.pause(self._held)
        self._held = None
        self.tool.session.take_back_leds()          # the game's own view again

    def _rig(self):
        return getattr(self.tool.session, "simulated", None)

    def _fresh_frame(self):
        """A frame the camera began to take after now: the second new one (the first may have been under
        way while the pieces were laid out); without one in ``FRESH_FRAME_S``, the step cannot be taken."""
        last, new = self.tool.frame(), 0
        deadline = time.monotonic() + FRESH_FRAME_S
        while new < 2 and time.monotonic() < deadline:
            time.sleep(0.03)
            frame = self.tool.frame()
            if frame is not None and frame is not last:
                last, new = frame, new + 1
        if new < 2:
            raise SetupError(Text(N_("The camera has given no new picture for %(seconds)s s: check it on the Camera "
                                     "card, then take the photo again."), seconds=f"{FRESH_FRAME_S:g}"))
        return last.copy()

    # -- what was learned -------------------------------------------------------------------------
    def learned(self) -> dict:
        """What the saved pieces file taught: each face (its name, a picture of its taught look, the
        faces it looks too alike to under this light); ``{"taught": False}`` without a file."""
        from vision.nostickers import Pieces, PiecesError

        path = self.pieces_path()
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return {"taught": False, "file": str(path)}
        with self._lock:
            if self._learned is not None and self._learned[0] == mtime:
                return self._learned[1]
        try:
            pieces = Pieces.load(path)
        except PiecesError as exc:
            return {"taught": False, "file": str(path), "error": exc.text}
        data = describe_pieces(pieces, path)
        with self._lock:
            self._learned = (mtime, data)
        return data


def step_squares(step) -> list[str]:
    """The squares a teaching step puts pieces on (the ones its LEDs light)."""
    from vision.change import setup_looks

    return sorted((square_name(sq) for sq in setup_looks(step.setup)), key=lambda s: (int(s[1:]), s[0]))


def face_words(key: str):
    """A taught face's name as wording data (``teach.face_key``)."""
    from vision.nostickers.teach import key_look

    if key == "pool":
        return Term(N_("pool"))
    if key == "teleporter":
        return piece_name("teleporter")
    if key.startswith("tile:"):
        return Text(N_("tombstone tile %(tile)s"), tile=key.split(":", 1)[1])
    return key_look(key).describe_words()


def describe_pieces(pieces, path) -> dict:
    """The Setup page's "what was learned": one entry per taught face (the first sample's picture, the
    faces it looks too alike to), the pairs of faces the reader cannot tell apart under this light
    (``teach.alike``, recomputed from the samples) and those pairs joined into groups (a colour's
    pawns that all look alike are one group, said once)."""
    from vision.nostickers.teach import alike

    warnings = alike(pieces.faces)
    near: dict[str, set[str]] = {}
    for pair in warnings:
        a, b = pair["faces"]
        near.setdefault(a, set()).add(b)
        near.setdefault(b, set()).add(a)
    faces, seen = [], set()
    for face in [*pieces.faces, *pieces.tiles]:
        if face.key in seen:
            continue
        seen.add(face.key)
        faces.append({"face": face.key, "name": face_words(face.key), "step": face.step, "square": face.square,
                      "picture": picture(face.polar), "alike": [face_words(k) for k in sorted(near.get(face.key, ()))],
                      "faint": face.key in pieces.faint})
    return {"taught": True, "file": str(path), "faces": faces, "placed": describe_placed(pieces.placed),
            "warnings": [{"faces": [face_words(k) for k in w["faces"]], "keys": w["faces"], "distance": w["distance"]}
                         for w in warnings],
            "groups": [{"keys": group, "faces": [face_words(k) for k in group]} for group in alike_groups(near)]}


def describe_placed(tiles) -> dict:
    """The Setup page's "what was learned" of the advanced setup's tiles (``tiles.TileLooks``, None: none
    taught): the pools' colours (``#rrggbb``, lightest first), each taught teleporter (its pair, arrow, name
    and a picture of its taught look), how far apart the pairs look (``tiles.pairs_distance``) and the
    warnings (``TILE_WARNINGS``: a code, its data and its sentence)."""
    from vision.nostickers.tiles import pairs_alike, pairs_apart, pairs_distance, pairs_missing

    palette = tiles.palette if tiles is not None else None
    taught = tiles.teleporters if tiles is not None else []
    teleporters = [{"pair": pair, "arrow": DIRECTION_NAMES[arrow], "picture": picture(polar),
                    "name": Text(N_("teleporter %(pair)s arrow %(direction)s"), pair=pair,
                                 direction=Direction(DIRECTION_NAMES[arrow]))}
                   for pair, arrow, polar in sorted(taught, key=lambda t: t[:2])]
    distance = pairs_distance(taught)
    warnings = []

    def warn(code, data=(), **fields):      # its data, the sentence's fields among them
        warnings.append({"code": code, **dict(data), **fields, "text": Text(TILE_WARNINGS[code], **fields)})
    if palette is None:
        warn("pools-not-taught")
    if not taught:
        warn("teleporters-not-taught")
    for pair in pairs_missing(taught) if taught else ():
        warn("pair-not-taught", pair=pair)
    if pairs_alike(taught):
        warn("teleporters-alike", {"distance": round(distance, 2), "needed": round(pairs_apart(), 2)})
    return {"pools": swatches(palette) if palette is not None else [], "teleporters": teleporters,
            "pairs_distance": None if distance is None else round(distance, 2), "warnings": warnings}


def swatches(palette) -> list[str]:
    """The pools' taught colours (Lab, as OpenCV's 8-bit) as ``#rrggbb``, the lightest first."""
    import cv2
    import numpy as np

    lab = np.clip(np.round(np.asarray(palette, dtype=np.float32)), 0, 255).astype(np.uint8)
    lab = lab[np.argsort(-lab[:, 0], kind="stable")]
    rgb = cv2.cvtColor(lab.reshape(1, -1, 3), cv2.COLOR_LAB2RGB)[0]
    return ["#{:02x}{:02x}{:02x}".format(*map(int, c)) for c in rgb]


def alike_groups(near: dict[str, set[str]]) -> list[list[str]]:
    """The faces joined by look-alike pairs (``near``: face → the faces it looks too alike to), each group
    sorted, the groups in the order of their first face."""
    groups, done = [], set()
    for start in sorted(near):
        if start in done:
            continue
        group, todo = set(), [start]
        while todo:
            key = todo.pop()
            if key not in group:
                group.add(key)
                todo.extend(near[key] - group)
        done |= group
        groups.append(sorted(group))
    return groups


def picture(polar) -> str:
    """A taught face's look (its polar sample turned back into a disc) as a PNG data URL."""
    import cv2
    import numpy as np

    size = PICTURE_PX
    lab = np.clip(np.asarray(polar, dtype=np.float32), 0, 255).astype(np.uint8)
    disc = cv2.warpPolar(lab, (size, size), (size / 2, size / 2), size / 2,
                         cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR | cv2.WARP_INVERSE_MAP)
    bgr = cv2.cvtColor(disc, cv2.COLOR_LAB2BGR)
    yy, xx = np.mgrid[:size, :size]
    outside = (xx - size / 2 + 0.5) ** 2 + (yy - size / 2 + 0.5) ** 2 > (size / 2) ** 2
    bgra = cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA)
    bgra[outside] = 0
    ok, data = cv2.imencode(".png", bgra)
    return "data:image/png;base64," + base64.b64encode(data.tobytes()).decode("ascii")
