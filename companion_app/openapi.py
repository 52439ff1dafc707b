"""The OpenAPI 3.1 document, written from the routes and schemas the server really uses."""
from __future__ import annotations

import re

ERROR = {"type": "object", "properties": {"error": {"type": "string"}, "rule": {"type": ["string", "null"]},
                                          "field": {"type": ["string", "null"]}}}


def document(routes) -> dict:
    paths: dict = {}
    for r in routes:
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r.path)
        op: dict = {"summary": r.summary, "operationId": _op_id(r.method, path),
                    "responses": {"200": {"description": "OK", "content": {r.produces: {"schema": {}}}},
                                  "400": _err("bad input: the message names the field"),
                                  "413": _err("body larger than the limit")}}
        params = re.findall(r"{(\w+)}", path)
        if params:
            op["parameters"] = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                                for p in params]
        if r.body is not None:
            op["requestBody"] = {"required": False, "content": {"application/json": {"schema": r.body}}}
        if r.referee:
            op["security"] = [{"bearer": []}, {"refereeCookie": [], "csrf": []}]
            op["responses"]["401"] = _err("no referee token or session")
            op["responses"]["403"] = _err("wrong token, or missing CSRF header")
            op["responses"]["409"] = _err("the game refuses the action now (the rule id says why)")
        paths.setdefault(path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Finstere Flure Companion", "version": "1",
                 "description": "Live game state for phones and the referee's actions. Referee calls need the "
                                "token printed by `flure play` (Authorization: Bearer), or a PIN login cookie "
                                "plus the X-CSRF-Token header. POST bodies are JSON."},
        "paths": paths,
        "components": {"securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "refereeCookie": {"type": "apiKey", "in": "cookie", "name": "session"},
            "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token"}}},
    }


def _err(text: str) -> dict:
    return {"description": text, "content": {"application/json": {"schema": ERROR}}}


def _op_id(method: str, path: str) -> str:
    words = [w for w in re.split(r"[/{}._-]+", path) if w and w != "api"]
    return method.lower() + "".join(w.capitalize() for w in words)
