"""Short plain-language lines for the phone log, built only from the plan JSON.

The engine's own step text is complete but long ("Step 3: from c1 facing E it
sees no pawn …").  On a phone the players want one short line per step that
names what happened and the rule behind it: "step 3: slides onto f9 (M8),
eats red 3/4 on g9 (M5)".  This module only rewords the plan; it decides nothing.
"""
from __future__ import annotations

import re

_RULE = re.compile(r"\(([MTBGPA]\d+)[^)]*\)")


def _with_rule(text: str, rule: str | None) -> str:
    if not rule or _RULE.search(text):
        return text
    return f"{text} ({rule})"


def step_line(step: dict, names: dict[str, str] | None = None) -> str:
    """One line for one plan step; ``names`` maps pawn labels to "red 3/4"."""
    parts: list[str] = []
    look = step.get("look") or {}
    if look.get("turn", "none") != "none":
        seen = [s for s in look.get("sightings", []) if s.get("pawn")]
        target = min(seen, key=lambda s: s["distance"]) if seen else None
        who = (names or {}).get(target["pawn"], target["pawn"]) if target else "a pawn"
        parts.append(f"turns {look['turn']} to face {look['new_facing']} towards {who}"
                     f" ({look.get('rule', 'M4')})")
    wrapped_to = None
    for event in step.get("events", []):
        if wrapped_to and event.get("kind") == "enter" and event.get("square") == wrapped_to:
            continue  # "walks through wall M from l1 to e11" already says where it arrives
        wrapped_to = event.get("to") if event.get("kind") == "wrap" else None
        text = event.get("text", event.get("kind", ""))
        rule = event.get("rule")
        if event.get("kind") == "enter" and not event.get("slide"):
            rule = None  # a plain step needs no citation
        parts.append(_with_rule(text, rule))
    if not parts:
        parts.append(f"moves to {step.get('to')}")
    return f"step {step.get('number')}: " + ", ".join(parts)


def plan_lines(plan: dict, names: dict[str, str] | None = None) -> list[str]:
    """Every step's line, then how the move ended and the final look."""
    lines = [step_line(s, names) for s in plan.get("steps", [])]
    stop = plan.get("stop") or {}
    if stop.get("reason"):
        lines.append(_with_rule(f"the move ends: {stop['reason']}", stop.get("rule")))
    final = plan.get("final_look") or {}
    end = plan.get("end") or {}
    if end:
        lines.append(f"it stops on {end.get('at')} facing {end.get('facing')}"
                     + (f" after its final look ({final.get('rule')})" if final.get("rule") else ""))
    return lines


def pawn_names(setup: dict) -> dict[str, str]:
    """Label → display name ("red-3/4" → "red 3/4") from a setup's pawns."""
    out = {}
    for label, pawn in (setup.get("pawns") or {}).items():
        colour, kind = pawn.get("color"), pawn.get("pawn")
        out[label] = f"{colour} {kind}" if colour and kind else label
    return out
