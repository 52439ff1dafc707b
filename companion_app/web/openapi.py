"""The OpenAPI 3.1 document, written from the routes and schemas the server really uses."""
from __future__ import annotations

import re

STATE = {
    "type": "object",
    "description": "the public game state every phone receives (also the answer to each referee action); "
                   "every sentence in it is in the request's language (?lang=, the lang cookie, Accept-Language; "
                   "the live stream's: negotiated when it opens)",
    "properties": {
        "version": {"type": "integer", "description": "grows with every change; SSE message id"},
        "seq": {"type": "integer", "description": "actions applied in this game (undo lowers it)"},
        "game_id": {"type": ["integer", "null"]},
        "phase": {"type": "string", "enum": ["none", "placement", "pawns", "monster", "over"]},
        "summary": {"type": "string", "description": "one plain-language status line"},
        "note": {"type": "string", "description": "what the last action did, citing rules"},
        "round": {"type": "integer"}, "turn": {"type": "integer"},
        "players": {"type": "array", "items": {"type": "string"}},
        "first_player": {"type": "string"}, "to_move": {"type": ["string", "null"]},
        "unmoved": {"type": "array", "items": {"type": "string"}},
        "deck_left": {"type": "integer"}, "tiles_played": {"type": "array", "items": {"type": "string"}},
        "winner": {"type": ["string", "null"], "description": "a colour or \"monster\" once over"},
        "end_rule": {"type": ["string", "null"], "description": "G2 or G10 once over"},
        "out": {"type": "object", "description": "colour → pawns out"},
        "setup": {"type": "string", "enum": ["basic", "advanced"]}, "prey3_variant": {"type": "boolean"},
        "placer": {"type": ["string", "null"], "description": "who places the next piece (A2)"},
        "pieces_left": {"type": "object", "description": "advanced setup pieces still to place"},
        "position": {"type": "object", "description": "the scenario setup JSON (SCENARIOS.md)"},
        "names": {"type": "object", "description": "pawn label → display name"},
        "plan": {"type": ["object", "null"], "description": "the last monster move, flure-plan/1 without its English "
                                                              "text fields (plan_lines says it in the reader's language)"},
        "plan_seq": {"type": ["integer", "null"], "description": "seq of the action that made the plan"},
        "plan_round": {"type": ["integer", "null"], "description": "the round the shown monster move was played in"},
        "plan_turn": {"type": ["integer", "null"], "description": "the turn the shown monster move was played in"},
        "follow": {"type": "boolean", "description": "the table must still be brought into this position "
                                                     "(the camera's `camera` messages list what differs)"},
        "camera_mode": {"type": "string", "enum": ["auto", "confirm"],
                        "description": "auto: camera moves applied at once; confirm: by the referee or CONFIRM"},
        "plan_lines": {"type": "array", "items": {"type": "string"},
                       "description": "the last move in the engine's words (Plan.sentences): one line per step, "
                                      "the final look, how the move ended"},
        "tile_names": {"type": "object", "description": "tile → its name in this game (the 5 under G11 is three prey)"},
        "log": {"type": "array", "items": {"type": "object"},
                "description": "{seq, text}: the game's notes, newest last; the monster's move is plan_lines"},
    },
}
STATE_PATHS = {"/api/state", "/api/game", "/api/action", "/api/undo", "/api/camera/confirm"}

# Answers a route gives besides the common ones (the referee routes' 401/403/409/429 are added for all).
EXTRA_ERRORS = {
    "/api/login": {"403": "wrong PIN", "429": "too many wrong PINs from this address: wait the seconds it says"},
    "/api/rules/{rule_id}": {"404": "no rule with that id"},
    "/api/camera/frame.jpg": {"404": "the camera has not given a frame yet"},
    "/api/i18n/{lang}.json": {"404": "no catalog for that language"},
    "/api/move.gif": {"404": "the monster has not moved yet"},
    "/api/move.png": {"404": "the monster has not moved yet"},
}

ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "rule": {"type": ["string", "null"]},
                                          "field": {"type": ["string", "null"]},
                                          "stale": {"type": "boolean"}}}


def document(routes) -> dict:
    paths: dict = {}
    for r in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r.path)
        ok_schema = {"$ref": "#/components/schemas/State"} if r.path in STATE_PATHS else {}
        op: dict = {"summary": r.summary, "operationId": _op_id(r.method, path),
                    "responses": {"200": {"description": "OK", "content": {r.produces: {"schema": ok_schema}}},
                                  "400": _err("bad input: the message names the field"),
                                  "413": _err("body larger than the limit")}}
        if r.produces == "text/event-stream":
            op["responses"]["503"] = _err("too many live screens at once; retry after the Retry-After seconds")
        for code, text in EXTRA_ERRORS.get(path, {}).items():
            op["responses"][code] = _err(text)
        params = re.findall(r"{(\w+)}", path)
        if params:
            op["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                                for p in params]
        if r.body is not None:
            op["requestBody"] = {"required": bool(r.body.get("required")),
                                 "content": {"application/json": {"schema": r.body}}}
        if r.referee:
            op["security"] = [{"bearer": []}, {"refereeCookie": [], "csrf": []}]
            op["responses"]["401"] = _err("no referee token or session")
            op["responses"]["403"] = _err("wrong token, or missing CSRF header")
            op["responses"]["409"] = _err("the game refuses the action now (the rule id says why)")
            op["responses"]["429"] = _err("too many wrong tokens from this address: wait the seconds it says")
        paths.setdefault(path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Finstere Flure Companion", "version": "1",
                 "description": "Live game state for phones and the referee's actions. Referee calls need the "
                                "token printed by `flure play` (Authorization: Bearer), or a PIN login cookie "
                                "plus the X-CSRF-Token header. POST bodies are JSON."},
        "paths": paths,
        "components": {"schemas": {"State": STATE}, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "refereeCookie": {"type": "apiKey", "in": "cookie", "name": "session"},
            "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"}}},
    }


def _err(text: str) -> dict:
    return {"description": text, "content": {"application/json": {"schema": ERROR}}}


def _op_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[/{}._-]+", path) if w and w != "api"]
    return method.lower() + "".join(w.capitalize() for w in words)
