"""The camera's problems as wording data, so each screen reads them in its own language.

``vision`` reports a problem as ``{"code", "message", "square", "params"?}`` with an English
message for logs and the CLI; the session's screens render the known codes from here (the same
sentence, as a catalog msgid) and fall back to the English message for any other code.
"""
from __future__ import annotations

from engine.wording import N_, Text

PROBLEM_WORDS = {
    "occluded": N_("something covers the board over %(count)s squares (%(squares)s); waiting for a clear view"),
    "no-monster": N_("the monster's sticker is not seen on the board"),
    "card-zone-hidden": N_("the card zone beside the board is not fully in view, so the tombstone tile cannot be "
                           "read: turn the camera to show it"),
    "two-tiles": N_("more than one tombstone tile lies in the card zone: %(tiles)s"),
    "hidden-square": N_("%(square)s is hidden behind a piece from this camera angle, so what stands there cannot "
                        "be read (a camera more overhead avoids this)"),
    "card-zone-unclear": N_("something lies in the card zone but no tombstone tile sticker was read there "
                            "(a hand, or a tile with a hidden sticker?)"),
}


def problem_words(problem: dict):
    """``problem``'s sentence as wording data when its code is known, else its English message."""
    template = PROBLEM_WORDS.get(problem.get("code"))
    if template is None:
        return problem.get("message", "")
    params = problem.get("params") or {}
    if "%(" in template and not params:     # a reading from before the values were sent
        return problem.get("message", "")
    return Text(template, **params)
