"""The API's 400 answers for malformed requests in the request's language: a real request to
the test app; English is the schema's own sentence, fields, squares and values stay as they were sent."""
import pytest

from companion_app.web import schemas
from tests.web_helpers import AUTH, each_language, make_app


def answers(tmp_path, path: str, body, status: int = 400) -> dict[str, str]:
    """The ``status`` answer's error text for ``body`` posted to ``path``, in each language (``?lang=``)."""
    app, _ = make_app(tmp_path)
    client = app.test_client()
    texts = {}
    for lang in ("en", "fr", "de", "es"):
        response = client.post(f"{path}?lang={lang}", json=body, headers=AUTH)
        assert response.status_code == status, response.get_json()
        texts[lang] = response.get_json()["error"]
    return texts


def differ(texts: dict[str, str], *kept: str) -> None:
    for lang in ("fr", "de", "es"):
        assert texts[lang] != texts["en"] and "%(" not in texts[lang], (lang, texts[lang])
        for part in kept:
            assert part in texts[lang], (lang, part, texts[lang])


def test_an_unknown_square_in_each_language(tmp_path):
    texts = answers(tmp_path, "/api/camera/fix", {"square": "z9", "piece": "stone"})
    assert texts["en"] == "square: 'z9' is not a square name such as g7 (BOARD.md)"
    differ(texts, "'z9'", "g7", "square")
    assert texts["de"] == "square: 'z9' passt nicht (erwartet: Feldname wie g7 (BOARD.md))"
    assert "case" in texts["fr"] and "casilla" in texts["es"]


def test_a_missing_field_and_a_wrong_type_in_each_language(tmp_path):
    texts = answers(tmp_path, "/api/camera/fix", {"square": "g7"})
    assert texts["en"] == "body: piece is required"
    differ(texts, "piece")
    texts = answers(tmp_path, "/api/game", {"players": "red"})
    assert texts["en"] == "players must be a list, not 'red'"
    differ(texts, "players", "'red'")
    assert texts["fr"] == "players doit être une liste, pas 'red'"


def test_an_unknown_field_and_an_action_missing_its_moves_in_each_language(tmp_path):
    texts = answers(tmp_path, "/api/camera/mode", {"mode": "auto", "speed": 2})
    assert texts["en"] == "body: unknown field 'speed' (expected mode)"
    differ(texts, "'speed'", "mode")
    texts = answers(tmp_path, "/api/action", {"type": "move", "pawn": "red-3/4"})
    assert texts["en"].startswith("a move action needs moves, e.g. {")
    differ(texts, "moves", '"red-')
    texts = answers(tmp_path, "/api/game", {"players": ["red", "blue"], "seed": -1})
    assert texts["en"] == "seed must be between 0 and 2147483647"
    differ(texts, "2147483647")


@pytest.mark.parametrize("body, schema", [
    ({"players": ["red"]}, schemas.NEW_GAME), ({"players": ["red", "pink"]}, schemas.NEW_GAME),
    ({"pin": "x" * 65}, schemas.LOGIN), ({"expect": {str(i): i for i in range(9)}}, schemas.CONFIRM),
    ({"paused": 1}, schemas.SIMULATED), ({"type": "move", "pawn": "red-3/4", "moves": "NQ"}, schemas.ACTION),
    ({"type": "draw", "tile": "prey-1"}, schemas.ACTION)])
def test_every_kind_of_refusal_has_words_in_each_language(body, schema):
    with pytest.raises(schemas.SchemaError) as caught:
        schemas.validate_action(body) if schema is schemas.ACTION else schemas.validate(body, schema)
    every = each_language(caught.value.words)
    assert every["en"] == str(caught.value)
    differ(every)
