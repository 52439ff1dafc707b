"""The monster's move in four languages (issue 16): companion_app.i18n.plan_text renders the engine's plan.

English must be exactly the engine's own wording (Plan.lines()) for every scenario and random
position, so the English catalog is the engine's words; the other languages use the games' terms.
"""
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from companion_app.i18n import LANGUAGES
from companion_app.i18n.plan_text import all_plan_lines, plan_lines, step_texts
from engine.monster import resolve
from engine.position import Position
from engine.scenario import parse_scenario
from tests.engine_strategies import positions

HERE = Path(__file__).resolve().parent


def scenario_plans():
    """Our rule scenarios (and the shared ones when ../shared is beside the repository)."""
    files = sorted((HERE / "scenarios").glob("*.json")) + sorted((HERE.parent.parent / "shared" / "scenarios").glob("*.json"))
    for path in files:
        s = parse_scenario(json.loads(path.read_text()))
        if s.kind == "monster":
            yield path.stem, resolve(s.position, s.action.get("card"), steps=s.action.get("steps"))


def test_english_is_the_engine_wording_for_every_scenario():
    plans = list(scenario_plans())
    assert len(plans) > 80
    for name, plan in plans:
        assert plan_lines(plan, "en") == plan.lines(), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_english_is_the_engine_wording_for_random_positions(position):
    for tile in ("5", "10", "prey-2"):
        plan = resolve(position, tile)
        assert plan_lines(plan, "en") == plan.lines()


PLACEHOLDER = re.compile(r"\b[a-p](1[01]|[1-9])\b|\b[MTB]\d+\b")


def test_every_language_renders_every_scenario_with_the_same_squares_and_rules():
    """Squares and rule ids are names, never translated: each line keeps the English line's ones."""
    for name, plan in scenario_plans():
        english = plan.lines()
        for lang in ("fr", "de", "es"):
            lines = plan_lines(plan, lang)
            assert len(lines) == len(english), (name, lang)
            for en, other in zip(english, lines):
                assert other != en, (name, lang, other)
                assert sorted(m.group(0) for m in PLACEHOLDER.finditer(other)) == \
                    sorted(m.group(0) for m in PLACEHOLDER.finditer(en)), (name, lang, other)
                assert "%(" not in other


def board(setup: dict) -> Position:
    return Position.from_setup(setup)


def test_games_own_words_for_pools_teleporters_and_pawns():
    # The monster slides over a pool on c5 onto d5 and eats red 3/4 there (M8, M5).
    pos = board({"monster": {"at": "a5", "facing": "E"}, "pools": ["c5"],
                 "pawns": {"R": {"at": "d5", "color": "red", "pawn": "3/4"}}})
    plan = resolve(pos, steps=2)
    assert any("slides onto d5" in line for line in plan.lines())
    de, fr, es = (plan_lines(plan, x) for x in ("de", "fr", "es"))
    assert de[0].startswith("Schritt 1:") and "Blutlache" in " ".join(de) and "frisst Rot 3/4 auf d5 (M5)" in " ".join(de)
    assert "flaque de sang" in " ".join(fr) and "dévore rouge 3/4 en d5 (M5)" in " ".join(fr)
    assert "charco de sangre" in " ".join(es) and "devora a rojo 3/4 en d5 (M5)" in " ".join(es)
    assert de[-1] == "Der Zug endet: alle Schritte gemacht (M1); gefressen: Rot 3/4."


def test_teleporter_words():
    pos = board({"monster": {"at": "a5", "facing": "E"},
                 "teleporters": {"b5": {"pair": 1, "arrow": "N"}, "h9": {"pair": 1, "arrow": "N"}}})
    plan = resolve(pos, steps=1)
    assert any("teleporter" in line for line in plan.lines())
    assert "téléporteur" in plan_lines(plan, "fr")[0]
    assert "Teleporter" in plan_lines(plan, "de")[0]
    assert "teletransportador" in plan_lines(plan, "es")[0]


def test_step_texts_and_all_languages():
    pos = board({"monster": {"at": "a5", "facing": "E"}, "pawns": {"A": {"at": "e5"}}})
    plan = resolve(pos, steps=3)
    assert step_texts(plan, "en") == plan.lines()[:3]
    every = all_plan_lines(plan)
    assert set(every) == set(LANGUAGES) and every["en"] == plan.lines()
    assert all_plan_lines(None) == {}
    assert plan_lines(plan, "xx") == plan.lines()   # an unknown language falls back to English
