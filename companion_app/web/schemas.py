"""Request body schemas: one definition used both to validate input and to write the OpenAPI document.

Keeping one source means the document cannot drift from what the server
accepts.  The validator covers the small JSON-Schema subset these bodies use
(type, enum, properties, required, additionalProperties, items, length and
range limits) and reports the first problem with its field path, in words a
referee can act on.
"""
from __future__ import annotations

import json

from engine.actions import ACTION_TYPES, EXAMPLES, MAX_MOVES
from engine.deck import TILES
from engine.placement import PIECES
from engine.pools import ORIENTATIONS
from engine.position import COLOURS, FACES, PAWN_KINDS
from engine.wording import N_, Term, Text, join_and, join_or, listing

from ..table.camera.readings import FIX_PIECES

SQUARE = {"type": "string", "pattern": "^[a-p](1[01]|[1-9])$", "maxLength": 3,
          "description": N_("a square name such as g7 (BOARD.md)")}
DIRECTION = {"type": "string", "enum": ["N", "E", "S", "W"]}
COLOUR = {"type": "string", "enum": list(COLOURS)}
PAWN_LABEL = {"type": "string", "maxLength": 20, "description": "a pawn label such as red-3/4"}

NEW_GAME = {
    "type": "object", "additionalProperties": False, "required": ["players"],
    "properties": {
        "players": {"type": "array", "items": COLOUR, "minItems": 2, "maxItems": 7,
                    "description": "colours in clockwise seating order (G1)"},
        "first_player": COLOUR,
        "setup": {"type": "string", "enum": ["basic", "advanced"]},
        "prey3_variant": {"type": "boolean", "description": "the 6–7 player variant: the 5 tile counts as three prey (G11)"},
        "seed": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1,
                 "description": "decides every shuffle; random when absent"},
    },
}

# The fields each action type takes come from the engine's action types (engine/actions.py);
# only what each field may hold, and its limits, is said here.
ACTION_PROPERTIES = {
    "pawn": PAWN_LABEL,
    "moves": {"type": "string", "pattern": "^[NESWIXnesix]*$", "maxLength": MAX_MOVES,
              "description": N_("unit moves N E S W, I to enter on p11, X to leave from a1 (P1–P3)")},
    "square": {"type": ["string", "null"], "maxLength": 3,
               "description": "where a pawn was put (a square, \"out\" or null), or where a piece is placed"},
    "stones": {"type": "object", "maxProperties": 20, "description": "stones as seen after the move"},
    "tile": {"type": "string", "enum": sorted(set(TILES))},
    "piece": {"type": "string", "enum": list(PIECES)},
    "arrow": DIRECTION,
    "pair": {"type": "integer", "enum": [1, 2]},
    "orientation": {"type": "string", "enum": list(ORIENTATIONS)},
    "position": {"type": "object", "maxProperties": 5,
                 "description": "the whole board as it should be, a setup object (SCENARIOS.md): the referee's "
                                "correction, logged and undoable"},
}
ACTION_FIELDS = {kind: set(cls.REQUIRED + cls.OPTIONAL) for kind, cls in ACTION_TYPES.items()}
# What each type cannot do without: a move with no "moves" would silently become "stays beside the board".
ACTION_REQUIRED = {kind: cls.REQUIRED for kind, cls in ACTION_TYPES.items()}
ACTION_EXAMPLES = {kind: json.dumps(example.to_json()) for kind, example in EXAMPLES.items()}
ACTION_EXAMPLES["move"] += ' ("moves": "" = stays beside the board)'
if set().union(*ACTION_FIELDS.values()) != set(ACTION_PROPERTIES):   # an engine action gained or lost a field
    raise ImportError(f"the action schema does not fit engine.actions: fields "
                      f"{sorted(set().union(*ACTION_FIELDS.values()) ^ set(ACTION_PROPERTIES))}")
ACTION = {
    "type": "object", "required": ["type"], "additionalProperties": False,
    "properties": {"type": {"type": "string", "enum": list(ACTION_TYPES)}, **ACTION_PROPERTIES},
    "description": "one engine action; by type: " + "; ".join(
        f"{kind} needs {' and '.join(ACTION_REQUIRED[kind]) or 'nothing else'}"
        + (f" (may add {', '.join(sorted(fields - set(ACTION_REQUIRED[kind])))})"
           if fields - set(ACTION_REQUIRED[kind]) else "")
        for kind, fields in ACTION_FIELDS.items()),
}

LOGIN = {"type": "object", "additionalProperties": False, "required": ["pin"],
         "properties": {"pin": {"type": "string", "maxLength": 64}}}

FIX = {
    "type": "object", "additionalProperties": False, "required": ["square", "piece"],
    "properties": {
        "square": SQUARE,
        "piece": {"type": "string", "enum": list(FIX_PIECES)},
        "facing": DIRECTION, "color": COLOUR,
        "pawn": {"type": "string", "enum": list(PAWN_KINDS)},
        "face": {"type": "string", "enum": list(FACES)},
    },
}

EMPTY = {"type": "object", "additionalProperties": False, "properties": {}}

MODE = {
    "type": "object", "additionalProperties": False, "required": ["mode"],
    "properties": {"mode": {"type": "string", "enum": ["auto", "confirm"],
                            "description": "auto: camera moves are applied at once; confirm: by the referee or CONFIRM"}},
}

SIMULATED = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "paused": {"type": "boolean", "description": "hold the simulated players (true) or let them go on"},
        "move": {"type": "object", "additionalProperties": False, "required": ["from"],
                 "description": "move the piece lying on one square of the simulated table to another "
                                "(to null: beside the board); the game learns of it only through the camera",
                 "properties": {"from": SQUARE, "to": {"anyOf": [SQUARE, {"type": "null"}]}}},
    },
}

CONFIRM = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "expect": {"type": ["object", "null"], "maxProperties": 8,
                   "description": "the action the referee's screen proposed (the camera view's proposal.action); "
                                  "if the table has changed since, the confirmation is refused"},
    },
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


class SchemaError(ValueError):
    """Input that does not fit a schema; the message names the field.  ``words`` is the message as
    wording data (engine.wording), which the API renders in the request's language; ``str()`` is English."""

    def __init__(self, words: Text):
        self.words = words
        super().__init__(str(words))


def validate(value, schema: dict, where: str = "body") -> None:
    """Raise SchemaError naming the first field of ``value`` that ``schema`` refuses."""
    import re

    types = schema.get("type")
    if types is not None:
        types = [types] if isinstance(types, str) else types
        if not any(_is(value, t) for t in types):
            raise SchemaError(Text(N_("%(where)s must be %(kinds)s, not %(value)s"), where=where,
                                     kinds=join_or(_a(t) for t in types), value=_show(value)))
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(Text(N_("%(where)s must be one of %(choices)s, not %(value)s"), where=where,
                                 choices=", ".join(map(str, schema["enum"])), value=_show(value)))
    if isinstance(value, str):
        if len(value) > schema.get("maxLength", 10_000):
            raise SchemaError(Text(N_("%(where)s is too long (at most %(most)s characters)"), where=where,
                                     most=schema["maxLength"]))
        if "pattern" in schema and not re.fullmatch(schema["pattern"], value):
            raise SchemaError(Text(N_("%(where)s: %(value)s is not %(what)s"), where=where, value=_show(value),
                                     what=Term(schema.get("description", N_("valid")))))
    if isinstance(value, int) and not isinstance(value, bool):
        least, most = schema.get("minimum"), schema.get("maximum")
        if (least is not None and value < least) or (most is not None and value > most):
            if most is None:
                raise SchemaError(Text(N_("%(where)s must be at least %(least)s"), where=where, least=least))
            if least is None:
                raise SchemaError(Text(N_("%(where)s must be at most %(most)s"), where=where, most=most))
            raise SchemaError(Text(N_("%(where)s must be between %(least)s and %(most)s"), where=where,
                                 least=least, most=most))
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", 10_000):
            raise SchemaError(Text(N_("%(where)s must have %(least)s to %(most)s items, not %(count)s"), where=where,
                                 least=schema.get("minItems", 0), most=schema.get("maxItems", 10_000), count=len(value)))
        for i, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{where}[{i}]")
    if isinstance(value, dict):
        if len(value) > schema.get("maxProperties", 10_000):
            raise SchemaError(Text(N_("%(where)s has too many entries (at most %(most)s)"), where=where,
                                 most=schema["maxProperties"]))
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                raise SchemaError(Text(N_("%(where)s: %(key)s is required"), where=where, key=key))
        for key, item in value.items():
            if key in props:
                validate(item, props[key], key if where == "body" else f"{where}.{key}")
            elif schema.get("additionalProperties", True) is False:
                raise SchemaError(Text(N_("%(where)s: unknown field %(key)s (expected %(fields)s)"), where=where,
                                      key=repr(key), fields=listing(props) if props else Term(N_("none"))))


def validate_action(value) -> dict:
    """An action body: the schema, then the fields that belong to its type."""
    if isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"] in ACTION_FIELDS:
        allowed = ACTION_FIELDS[value["type"]]
    else:
        validate(value, ACTION)
        allowed = set()
    extra = sorted(set(value) - allowed - {"type"})
    if extra:
        raise SchemaError(Text(N_("a %(type)s action takes %(fields)s, not %(extra)s"), type=value["type"],
                                 fields=listing(sorted(allowed)) if allowed else Term(N_("no other fields")),
                                 extra=", ".join(extra)))
    missing = [key for key in ACTION_REQUIRED[value["type"]] if key not in value]
    if missing:
        raise SchemaError(Text(N_("a %(type)s action needs %(fields)s, e.g. %(example)s"), type=value["type"],
                                 fields=join_and(missing), example=ACTION_EXAMPLES[value["type"]]))
    validate(value, ACTION)
    return value


def _is(value, t: str) -> bool:
    if t == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[t])


def _a(t: str) -> Term:
    return Term({"object": N_("a JSON object"), "array": N_("a list"), "string": N_("text"),
                 "boolean": N_("true or false"), "null": "null", "integer": N_("a whole number"),
                 "number": N_("a number")}[t])


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
