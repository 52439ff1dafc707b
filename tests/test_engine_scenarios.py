"""The scenario contract (SCENARIOS.md) through the real `flure` command."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.scenario import compare, parse_scenario, run_scenario

HERE = Path(__file__).resolve().parent
OWN = sorted((HERE / "scenarios").glob("*.json"))


def flure(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "companion_app.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd or HERE.parent)


def test_shared_scenarios_pass(shared_dir):
    files = sorted((shared_dir / "scenarios").glob("*.json"))
    assert files
    r = flure("scenario", "check", *files)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(files)} passed, 0 failed" in r.stdout


@pytest.mark.parametrize("path", OWN, ids=[p.stem for p in OWN])
def test_rule_scenarios(path):
    scenario = parse_scenario(json.loads(path.read_text()))
    assert scenario.expect, "every rule scenario states what it expects"
    assert compare(scenario.expect, run_scenario(scenario)) == []


def write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


GOOD = {"format": "flure-scenario/1", "name": "one step", "setup": {"monster": {"at": "a5", "facing": "E"},
        "pawns": {"A": {"at": "c5"}}}, "action": {"steps": 1}, "expect": {"path": ["b5"], "eaten": []}}


@pytest.mark.parametrize("mutate,field", [
    (lambda d: d["setup"]["pawns"]["A"].update(at="q5"), "setup.pawns.A.at"),
    (lambda d: d["setup"].update(stones={"c5": "stone"}), "setup.pawns.A.at"),
    (lambda d: d.update(action={"card": "9"}), "action.card"),
    (lambda d: d.update(action={"pawn": "Z", "moves": "N", "points": 1}), "action.pawn"),
    (lambda d: d.update(action={"pawn": "A", "moves": "NQ", "points": 2}), "action.moves"),
    (lambda d: d["setup"].update(teleporters={"b5": {"pair": 1, "arrow": "N"}}), "setup.teleporters"),
    (lambda d: d["setup"]["monster"].update(facing="up"), "setup.monster.facing"),
    (lambda d: d.pop("action"), "action"),
    (lambda d: d["setup"]["monster"].update(colour="green"), "setup.monster"),
    (lambda d: d["setup"]["monster"].update(at="A5"), "setup.monster.at"),
    (lambda d: d["setup"]["monster"].update(facing="e"), "setup.monster.facing"),
    (lambda d: d["setup"].update(stones={"C5 ": "stone"}), "setup.stones.C5 "),
    (lambda d: d["setup"].update(teleporters={"b5": {"pair": 3, "arrow": "N"}, "b7": {"pair": 3, "arrow": "N"}}),
     "setup.teleporters.b5.pair"),
    (lambda d: d["setup"].update(teleporters={"b5": {"pair": 1, "arrow": "N", "colour": "red"},
                                              "b7": {"pair": 1, "arrow": "N"}}), "setup.teleporters.b5"),
    (lambda d: d["setup"].update(pawns={"red three": {"at": "c5"}}), "setup.pawns.red three"),
    (lambda d: d["expect"].update(path="b5"), "expect.path"),
    (lambda d: d["expect"].update(eaten=[{"A": 1}]), "expect.eaten"),
])
def test_invalid_files_exit_2_naming_the_field(tmp_path, mutate, field):
    data = json.loads(json.dumps(GOOD))
    mutate(data)
    r = flure("scenario", "check", write(tmp_path, "bad.json", data))
    assert r.returncode == 2
    assert field in r.stdout + r.stderr


def test_malformed_json_exits_2_with_line(tmp_path):
    r = flure("scenario", "run", write(tmp_path, "broken.json", '{"setup": '))
    assert r.returncode == 2 and "line 1" in r.stderr and "Traceback" not in r.stderr


def test_mismatch_exits_1_with_a_readable_difference(tmp_path):
    data = json.loads(json.dumps(GOOD))
    data["expect"] = {"path": ["b6"], "monster": {"at": "b5", "facing": "E"}}
    r = flure("scenario", "check", write(tmp_path, "wrong.json", data))
    assert r.returncode == 1
    assert "expected ['b6'], got ['b5']" in r.stdout


def test_run_prints_the_outcome(tmp_path):
    r = flure("scenario", "run", write(tmp_path, "good.json", GOOD))
    out = json.loads(r.stdout)
    assert r.returncode == 0 and out["path"] == ["b5"] and out["monster"] == {"at": "b5", "facing": "E"}
    assert out["steps"][0]["look"]["rule"] == "M4 nearest"


def test_reachable_lists_out_last(tmp_path):
    data = {"setup": {"monster": {"at": "p11", "facing": "N"}, "pawns": {"A": {"at": "b1"}}},
            "action": {"pawn": "A", "reachable": True, "points": 2}}
    out = json.loads(flure("scenario", "run", write(tmp_path, "r.json", data)).stdout)
    assert out["reachable"][-1] == "out" and out["reachable"][:-1] == sorted(out["reachable"][:-1])
    assert set(out["reachable"]) == {"a1", "a2", "b1", "b2", "b3", "c1", "c2", "d1", "out"}


def test_resolve_and_demo_commands(tmp_path, shared_dir):
    pos = shared_dir / "scenarios" / "official-monster-basic.json"
    r = flure("resolve", pos, "--tile", "8")
    assert r.returncode == 0 and "Step 8:" in r.stdout and "Final look" in r.stdout
    plan = json.loads(flure("resolve", pos, "--tile", "8", "--json").stdout)
    assert plan["path"][-1] == "p8" and plan["format"] == "flure-plan/1"
    r = flure("resolve", pos, "--tile", "11")
    assert r.returncode == 2 and "unknown tombstone tile" in r.stderr and "Traceback" not in r.stderr
    demo = flure("demo")
    assert demo.returncode == 0 and "T2" in demo.stdout and "M9" in demo.stdout


@pytest.mark.parametrize("text,words", [
    (b"\xff\xfe{}", "not a text file in UTF-8"),
    (b"[" * 100000 + b"]" * 100000, "nested too deeply"),
    (b'{"setup": {"monster": {"at": "a5", "facing": "E"}, "stones": {"c5": "stone", "c5": "crystal"}}, '
     b'"action": {"steps": 1}}', "'c5' appears twice"),
], ids=["not-utf8", "nested-200k-deep", "duplicate-key"])   # short ids: a test id lands in PYTEST_CURRENT_TEST
def test_unreadable_files_exit_2_without_a_traceback(tmp_path, text, words):
    p = tmp_path / "bad.json"
    p.write_bytes(text)
    for command in ("check", "run"):
        r = flure("scenario", command, p)
        assert r.returncode == 2 and words in r.stdout + r.stderr and "Traceback" not in r.stdout + r.stderr


def test_notes_for_readers_are_allowed(tmp_path):
    data = dict(GOOD, description="free text", comment="why")
    r = flure("scenario", "check", write(tmp_path, "notes.json", data))
    assert r.returncode == 0, r.stdout + r.stderr


def test_an_unknown_top_level_key_is_a_warning_not_an_invalid_file(tmp_path):
    # SCENARIOS.md lists what makes a file invalid; an extra key is not on that list.  A typo such
    # as "expected" is still pointed out, and the file without "expect" is skipped, not passed.
    r = flure("scenario", "check", write(tmp_path, "extra.json", dict(GOOD, tags=["M4"])))
    assert r.returncode == 0 and "1 passed" in r.stdout and "unknown key 'tags' ignored" in r.stderr
    typo = {k: v for k, v in GOOD.items() if k != "expect"} | {"expected": GOOD["expect"]}
    r = flure("scenario", "check", write(tmp_path, "typo.json", typo))
    assert "unknown key 'expected' ignored" in r.stderr and "SKIP" in r.stdout and "0 passed" in r.stdout


def test_expect_monster_may_give_only_its_square(tmp_path):
    good = dict(GOOD, expect={"monster": {"at": "b5"}})
    assert flure("scenario", "check", write(tmp_path, "m.json", good)).returncode == 0
    bad = dict(GOOD, expect={"monster": {"at": "c5"}})
    r = flure("scenario", "check", write(tmp_path, "m2.json", bad))
    assert r.returncode == 1 and "monster" in r.stdout


def test_a_byte_order_mark_is_accepted(tmp_path):
    p = tmp_path / "bom.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    r = flure("scenario", "check", p)
    assert r.returncode == 0, r.stdout + r.stderr


def test_expect_may_hold_every_key_run_prints(tmp_path):
    out = json.loads(flure("scenario", "run", write(tmp_path, "good.json", GOOD)).stdout)
    data = dict(GOOD, expect=out)
    r = flure("scenario", "check", write(tmp_path, "all.json", data))
    assert r.returncode == 0, r.stdout + r.stderr
