"""Every problem a camera reading can report: its stable code and its sentence, in one place.

A reading's problem is ``{code, message, square}`` (VISION.md): ``message`` is a ``Said``, the English
sentence that logs, ``flure vision read`` and other programs see, which keeps its one wording (engine.wording
data), so that the table says it in each player's language.
Each sentence below is the one home of its wording: the reader builds problems only from these
(``vision.reading.problem``), pybabel extracts the msgids from here, and the tests go through
``SENTENCES`` to check that every one is said in French, German and Spanish.

The pieces in a sentence are wording data too (``piece_words``): a pawn is a ``Pawn`` name
(``le pion rouge 3/4``), a stone tile names its face in the game's words; squares, marker ids,
tile ids and millimetres stay as they are in every language.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.names import piece_name
from engine.position import BOTH_ON, STATUS_CODES
from engine.wording import N_, PawnName, Plural, Said, Text, n_


@dataclass(frozen=True)
class Sentence:
    """One wording of a problem: ``code`` (stable, what programs test) and its English template (the
    msgid); ``plural`` when the sentence has a singular and a plural (its count is the ``num`` field)."""

    code: str
    template: str
    plural: str | None = None

    def __call__(self, **params) -> Text:
        """The sentence with its fields filled, as wording data (``str()`` is the English)."""
        if self.plural is not None:
            num = params.pop("num")
            return Plural(self.template, self.plural, num, **params)
        return Text(self.template, **params)


SENTENCES: list[Sentence] = []


def _say(code: str, template: str, plural: str | None = None) -> Sentence:
    sentence = Sentence(code, template, plural)
    SENTENCES.append(sentence)
    return sentence


# -- the board is not found (code ``not-located``): the frame, the camera, the corner markers --------
NOT_LOCATED = _say("not-located", N_("board not located: %(why)s"))
NOT_LOCATED_BARE = _say("not-located", N_("board not located"))
NO_IMAGE = _say("not-located", N_("no image (the frame is empty)"))
NOT_AN_ARRAY = _say("not-located", N_("not an image array (got %(type)s)"))
EMPTY_FRAME = _say("not-located", N_("the frame is empty (0 pixels)"))
BAD_SHAPE = _say("not-located", N_("unsupported image shape %(shape)s (need gray, BGR or BGRA)"))
TOO_SMALL = _say("not-located", N_("the frame is too small (%(width)s×%(height)s px; at least %(least)s px a side)"))
BAD_PIXELS = _say("not-located", N_("unsupported pixel type %(type)s"))
CAMERA_FAILED = _say("not-located", N_("the camera failed (%(error)s)"))
NO_FRAME = _say("not-located", N_("the camera gave no frame"))
READER_FAULT = _say("not-located", N_("the frame could not be processed (%(error)s); this is a fault in the reader, "
                                      "please report it"))
NO_CORNERS = _say("not-located", N_("no corner markers seen (ids %(ids)s); is the board in view and lit?"))
CORNERS_HIDDEN = _say("not-located", N_("%(hidden)s of %(total)s corner markers hidden (id %(ids)s)"))
MOVED = _say("not-located", N_("the camera or board moved (%(shift)s px) and %(hidden)s"))
CORNERS_MISFIT = _say("not-located", N_("the corner markers do not fit the board's layout in the marker scheme "
                                        "(moved markers or a wrong scheme file?)"))
NO_FIT = _say("not-located", N_("the corner markers give no usable fit"))
BAD_FIT = _say("not-located", N_("the corner markers fit the scheme badly (%(error)s px off on average)"))
# (without stickers, NOSTICKERS.md: the board located by its own printed picture, vision.nostickers)
NO_OUTLINE = _say("not-located", N_("the board's outline was not found in the empty board's photo (is the whole "
                                    "board in view, against a table of another colour?)"))
WEAK_MATCH = _say("not-located", N_("the picture matches the taught board too weakly (%(count)s matching points, "
                                    "at least %(least)s needed): is it this board, in view and lit?"))
BAD_MATCH = _say("not-located", N_("the picture matches the taught board badly (%(error)s px off on average)"))
PIECES_NOT_FOUND = _say("not-located", N_("only %(count)s of the %(total)s pieces of the teaching step were found where "
                                          "they should lie: are they on their lit squares, the camera still?"))

# -- something hides part of the board or of the card zone -----------------------------------------
# (what to do is the reader's: the table says "waiting for a clear view: …" around it, once)
OCCLUDED = _say("occluded", N_("something covers the board over %(count)s squares (%(squares)s)"))
CARD_ZONE_UNCLEAR = _say("card-zone-unclear", N_(
    "something lies in the card zone but no tombstone tile sticker was read there (a hand, or a tile with a "
    "hidden sticker?)"))
# (the reader without stickers, NOSTICKERS.md: it recognises a tile by its taught picture)
CARD_ZONE_NOT_KNOWN = _say("card-zone-unclear", N_(
    "something lies in the card zone but it is none of the tombstone tiles the camera was taught (a hand, or a "
    "tile not lying flat and whole in the zone?): lay the drawn tile flat in the middle of the card zone, or "
    "press the monster button"))
HIDDEN_SQUARE = _say("hidden-square", N_("%(square)s is hidden behind a piece from this camera angle, so what "
                                         "stands there cannot be read (a camera more overhead avoids this)"))
UNREAD_LONE = _say("unread-square", N_("%(square)s does not look empty but no sticker was read there (a piece with "
                                       "a hidden, dirty or glaring sticker?)"))
UNREAD_STRAY = _say("unread-square", N_("%(square)s looks covered but no sticker was read there (a pool tile or a "
                                        "piece whose sticker is hidden?)"))
UNREAD_SHADED = _say("unread-square", N_("%(square)s lies in a shadow and no piece was read there; a shadow is no "
                                          "hand, but what stands there is not known (more even light avoids this)"))
OUT_OF_VIEW = _say("out-of-view", *n_(
    "%(num)s square of the board is outside the picture (%(squares)s): turn the camera to show the whole board",
    "%(num)s squares of the board are outside the picture (%(squares)s): turn the camera to show the whole board"))
CARD_ZONE_HIDDEN = _say("card-zone-hidden", N_("the card zone beside the board is not fully in view, so the "
                                               "tombstone tile cannot be read: turn the camera to show it"))

# -- a sticker that cannot be what it says ---------------------------------------------------------
MARKER_TWICE = _say("marker-twice", N_("marker %(id)s is seen %(count)s times; each sticker exists once (a copied "
                                       "sticker?)"))
CORNER_TWICE = _say("marker-twice", N_("corner marker %(id)s is seen %(count)s times"))
UNKNOWN_MARKER_ON = _say("unknown-marker", N_("marker %(id)s is not in the marker scheme (on %(square)s)"))
UNKNOWN_MARKER = _say("unknown-marker", N_("marker %(id)s is not in the marker scheme"))
MARKER_SIZE = _say("marker-size", N_("marker %(id)s (%(what)s) looks %(seen)s mm wide, not %(size)s mm: misread or "
                                     "on the wrong piece"))
OVERLAPPING = _say("overlapping-markers", N_("markers %(first)s and %(second)s overlap on %(square)s: one of them "
                                             "is misread"))

# -- a piece that is not where a piece can be ------------------------------------------------------
MISPLACED_TILE = _say("misplaced-tile", N_("%(what)s lies on the board, not in the card zone"))
OFF_GRID = _say("off-grid", N_("%(what)s is on the board sheet but on no square (at %(x)s, %(y)s mm)"))
POOL_OFF_BOARD = _say("off-grid", N_("the %(shape)s blood pool anchored on %(square)s would reach off the board"))
BETWEEN_SQUARES = _say("between-squares", N_("%(what)s lies on the line between %(square)s and a neighbour"))
UNSURE_SQUARE = _say("unsure-square", N_(
    "%(what)s (%(height)s mm above the board) could stand on %(square)s or %(other)s: from this camera its height "
    "shift cannot be judged exactly (calibrate the camera with flure calibrate camera, or mount it more overhead)"))
UNCLEAR_HEADING = _say("unclear-heading", N_("%(what)s on %(square)s is turned %(degrees)s° off a clear heading"))
TWO_TILES = _say("two-tiles", N_("more than one tombstone tile lies in the card zone: %(tiles)s"))
SAME_PIECE_TWICE = _say("same-piece-twice", N_("%(what)s is seen twice (on %(first)s and %(second)s)"))
TWO_PIECES = _say("two-pieces", BOTH_ON)   # the engine's one wording of P4 (engine.position.both_on)
NO_MONSTER = _say("no-monster", N_("the monster's sticker is not seen on the board"))


def board_not_located(why: Text | None = None) -> Text:
    """``board not located: <why>`` (or just ``board not located``), as wording data."""
    return NOT_LOCATED(why=why) if why is not None else NOT_LOCATED_BARE()


def not_located_why(words):
    """The reason inside ``board not located: <why>`` (None for the bare sentence), for a caller
    whose own sentence already says the board is not located: it says so once, not twice (told by the
    sentence's template, never by its English).  Other words come back as they are."""
    if isinstance(words, Text) and words.template == NOT_LOCATED.template:
        return words.params.get("why")
    if isinstance(words, Text) and words.template == NOT_LOCATED_BARE.template:
        return None
    return words


def problem_words(problem: dict):
    """A reading problem's sentence as wording data (its ``message`` keeps it); a problem read back from
    JSON (a saved reading) has its English ``message`` only."""
    message = problem.get("message", "")
    return message.text if isinstance(message, Said) else message


CODES = frozenset(s.code for s in SENTENCES) | frozenset(STATUS_CODES)   # (a read position's own status too)
OFF_THE_BOARD = N_("off the board")   # where a tall piece might stand instead (UNSURE_SQUARE's ``other``)

# -- the pieces a sentence names (a sticker's face; ``physical``: the object that carries it) ------
PAWN_FACE = {"white": N_("pawn %(pawn)s (white face)"), "black": N_("pawn %(pawn)s (black face)")}
STONE_FACE = N_("stone tile %(tile)s (%(face)s)")   # the face: the piece's name (engine.names)
PIECE = {"teleporter": N_("teleporter of pair %(pair)s"), "pool": N_("%(shape)s blood pool"),
         "tile": N_("tombstone tile %(tile)s")}
A_PAWN, A_STONE_TILE = N_("pawn %(pawn)s"), N_("stone tile %(tile)s")


def piece_words(sticker) -> Text:
    """The piece a sticker shows, as a problem names it (``pawn red 3/4 (white face)``, ``stone tile 2
    (crystal)``, ``the monster``), as wording data."""
    if sticker.piece == "pawn":
        return Text(PAWN_FACE[sticker.face], pawn=PawnName(f"{sticker.colour} {sticker.pawn}"))
    if sticker.piece == "stone":
        return Text(STONE_FACE, tile=sticker.tile, face=piece_name(sticker.kind))
    if sticker.piece == "monster":
        return piece_name("monster", "the")
    fields = {"pair": sticker.pair, "shape": sticker.shape, "tile": sticker.tile}
    return Text(PIECE[sticker.piece], **{k: v for k, v in fields.items() if f"%({k})s" in PIECE[sticker.piece]})


def object_words(sticker) -> Text:
    """The physical object that carries a sticker (both faces of a pawn or a stone tile are one), as
    wording data: ``pawn red 3/4``, ``stone tile 2``; any other piece is its one sticker."""
    if sticker.piece == "pawn":
        return Text(A_PAWN, pawn=PawnName(f"{sticker.colour} {sticker.pawn}"))
    if sticker.piece == "stone":
        return Text(A_STONE_TILE, tile=sticker.tile)
    return piece_words(sticker)
