"""The monster's move in four languages: the engine's one wording (Plan.sentences), rendered by
companion_app.i18n.text.

Every scenario's lines are pinned in all four languages (tests/data/plan_lines.json, the words the
players read before the sentences got their one home in engine/plan.py): English is Plan.lines(),
the other languages use the games' terms.
"""
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from companion_app.i18n import LANGUAGES
from companion_app.i18n.text import localize, pawn_name, render
from engine.monster import resolve
from engine.plan import Eat, Enter, Pivot, Push, Slide, Teleport
from engine.position import Position
from engine.scenario import parse_scenario
from tests.engine_strategies import positions
from tests.glossary import term

HERE = Path(__file__).resolve().parent
PINNED = HERE / "data" / "plan_lines.json"


def plan_lines(plan, lang: str) -> list[str]:
    """What the CLI, the phones and the referee log show of a move, in ``lang``."""
    return localize(plan.sentences(), lang)


def step_texts(plan, lang: str) -> list[str]:
    """What the speaker says as each step animates, in ``lang``."""
    return [render(step.words, lang) for step in plan.steps]


def scenario_plans(adjust=lambda position: position):
    """Our rule scenarios (and the shared ones when ../shared is beside the repository)."""
    files = sorted((HERE / "scenarios").glob("*.json")) + \
        sorted((HERE.parent.parent / "shared" / "scenarios").glob("*.json"))
    for path in files:
        s = parse_scenario(json.loads(path.read_text()))
        if s.kind == "monster":
            yield path.stem, resolve(adjust(s.position), s.action.get("card"), steps=s.action.get("steps"))


def test_every_scenario_says_its_move_as_before_in_every_language():
    pinned = json.loads(PINNED.read_text(encoding="utf-8"))
    assert len(pinned) > 80
    ours = {path.stem for path in (HERE / "scenarios").glob("*.json")}
    checked = 0
    for name, plan in scenario_plans():
        if name not in ours:
            continue
        assert plan.lines() == pinned[name]["en"], name
        for lang in LANGUAGES:
            assert plan_lines(plan, lang) == pinned[name][lang], (name, lang)
        checked += 1
    assert checked == len(pinned)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(positions())
def test_english_is_the_engine_wording_for_random_positions(position):
    """The English rendering of the wording data is the sentences' own ``str()``, and it reads as one."""
    for tile in ("5", "10", "prey-2"):
        plan = resolve(position, tile)
        lines = plan.lines()
        assert plan_lines(plan, "en") == lines
        assert all("%(" not in line and line.endswith(".") for line in lines)
        assert lines[-1].startswith("The move ends: ") and lines[-2].startswith("Final look: from ")


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


OTHERS = ("fr", "de", "es")


def board(setup: dict) -> Position:
    return Position.from_setup(setup)


def test_games_own_words_for_pools_and_pawns():
    """The issue's example, "rutscht über die Blutlache und frisst Rot 3/4", in each language's words."""
    # The monster slides over a pool on c5 onto d5 and eats red 3/4 there (M8, M5).
    pos = board({"monster": {"at": "a5", "facing": "E"}, "pools": ["c5"],
                 "pawns": {"R": {"at": "d5", "color": "red", "pawn": "3/4"}}})
    plan = resolve(pos, steps=2)
    assert [type(e) for e in plan.steps[1].events] == [Enter, Slide, Eat] and plan.eaten == ("R",)
    de, fr, es = (plan_lines(plan, x) for x in ("de", "fr", "es"))
    assert de[0].startswith("Schritt 1:") and fr[0].startswith("Pas 1\u00a0:") and es[0].startswith("Paso 1:")
    assert f"rutscht über die {term('pool', 'de')} auf d5; frisst Rot 3/4 auf d5 (M5)" in de[1]
    assert f"glisse sur la {term('pool', 'fr')} jusqu'en d5\u00a0; dévore le pion rouge 3/4 en d5 (M5)" in fr[1]
    assert f"se desliza por el {term('pool', 'es')} hasta d5; devora la ficha roja 3/4 en d5 (M5)" in es[1]
    assert de[-1].endswith("gefressen: Rot 3/4.") and fr[-1].endswith("dévorés\u00a0: le pion rouge 3/4.")
    assert es[-1].endswith("devoradas: la ficha roja 3/4.")


def test_a_pushed_stone_sliding_across_a_pool_names_both_in_the_games_words():
    # B2: the monster pushes the stone on d6; it slides across the pool e6-f6 onto g6.
    plan = resolve(board({"monster": {"at": "c6", "facing": "E"}, "stones": {"d6": "stone"}, "pools": ["e6", "f6"]}),
                   steps=1)
    push = next(e for e in plan.steps[0].events if isinstance(e, Push))
    assert push.result == "slid" and push.to is not None and "(B2)" in plan.lines()[0]
    for lang in OTHERS:
        text = step_texts(plan, lang)[0]
        for key in ("push", "stone", "pool"):
            assert term(key, lang) in text, (lang, key, text)
        assert "(B2)" in text and "g6" in text


def test_teleporter_and_direction_words():
    pos = board({"monster": {"at": "a5", "facing": "E"},
                 "teleporters": {"b5": {"pair": 1, "arrow": "N"}, "h9": {"pair": 1, "arrow": "N"}}})
    plan = resolve(pos, steps=1)
    assert any(isinstance(e, Teleport) for e in plan.steps[0].events)
    for lang in OTHERS:
        text = step_texts(plan, lang)[0]
        assert term("teleporter", lang) in text and term("north", lang) in text, (lang, text)   # arrives facing N


@pytest.mark.parametrize("stone, key", [("pivot-right", "pivot"), ("pivot-about", "pivot-about")])
def test_pivot_stone_words(stone, key):
    # M9: nothing seen, the pivot stone ahead turns the monster instead of being pushed.
    plan = resolve(board({"monster": {"at": "d5", "facing": "E"}, "stones": {"e5": stone}}), steps=1)
    assert any(isinstance(e, Pivot) for e in plan.steps[0].events)
    for lang in OTHERS:
        assert term(key, lang) in step_texts(plan, lang)[0], lang


def test_a_pushed_crystal_and_a_crushed_pawn():
    # M6: the monster pushes a crystal and the pawn behind it; the pawn goes through wall V: crushed.
    plan = resolve(board({"monster": {"at": "m6", "facing": "E"}, "stones": {"n6": "crystal"},
                          "pawns": {"B": {"at": "o6", "color": "blue", "pawn": "6/1"}}}), steps=2)
    assert "crushed" in " ".join(plan.lines())
    for lang in OTHERS:
        text = " ".join(plan_lines(plan, lang))
        for key in ("crystal", "crushed", "wall", "pawn"):
            assert term(key, lang) in text, (lang, key, text)


def coloured(position: Position) -> Position:
    """The position with a colour and kind on every pawn, so names read as at a real table."""
    colours, kinds = ("red", "blue", "green", "yellow", "purple", "black", "white"), ("3/4", "6/1", "2/5", "4/3")
    return replace(position, pawns=tuple(replace(p, colour=p.colour or colours[i % 7], kind=p.kind or kinds[i % 4])
                                         for i, p in enumerate(position.pawns)))


ENGLISH = re.compile(r"\b(the|sees|it|pawn|stone|pool|slides|pushes|eats|step|nearest|facing|turns|keeps|moves|ends|"
                     r"nobody|ahead|left|right|crushed|removed|destroyed|walks|wall|teleporter|jumps|red|blue|green)\b")


def test_no_english_word_in_any_scenario_step_log():
    for name, plan in scenario_plans(coloured):
        for lang in OTHERS:
            for line in plan_lines(plan, lang):
                assert not ENGLISH.search(line), (name, lang, line)
                assert " ;" not in line and " :" not in line, (name, lang, line)   # French: no-break spaces


def test_pawn_names_agree_with_each_languages_word_for_pawn():
    for colour in ("red", "blue", "green", "yellow", "purple", "black", "white"):
        fr, de, es = (pawn_name(x, f"{colour} 3/4") for x in ("fr", "de", "es"))
        assert fr.startswith(f"le {term('pawn', 'fr')} ") and fr.endswith(" 3/4")
        assert de[0].isupper() and de.endswith(" 3/4")
        assert es.startswith(f"la {term('pawn', 'es')} ") and not es.split()[2].endswith("o"), es   # la ficha roja
    assert pawn_name("es", "A") == "A"   # a bare label stays as it is


def test_step_texts_and_an_unknown_language():
    pos = board({"monster": {"at": "a5", "facing": "E"}, "pawns": {"A": {"at": "e5"}}})
    plan = resolve(pos, steps=3)
    assert step_texts(plan, "en") == plan.lines()[:3]
    assert plan_lines(plan, "xx") == plan.lines()   # an unknown language falls back to English
