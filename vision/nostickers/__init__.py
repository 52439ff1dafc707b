"""Reading the unmodified box, without stickers (NOSTICKERS.md): the board located by its own printed
picture (``board``), teaching (``teach``: the teaching layout's photos → ``Pieces``, one file), and
reading a change with the game as prior (``read.explain_change``), fed to the sticker reader's own
reconciliation (``vision.change``)."""
from .read import Reader, explain_change
from .teach import Pieces, PiecesError, TeachError, teach

__all__ = ["teach", "Pieces", "PiecesError", "TeachError", "explain_change", "Reader"]
