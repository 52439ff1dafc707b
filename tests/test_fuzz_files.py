"""Fuzzing every file the program reads: position, scenario, plan, calibration, table and
hardware configuration, marker scheme and the position before a change, each through its ``flure``
command in-process (``companion_app.cli.main``).  A file the command cannot use ends as exit status 2
with one plain line on stderr and never a traceback; a mutated file that is still valid may succeed.
"""
from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from calibration.store import Calibration
from companion_app.cli import main
from tests.hardware_helpers import plan

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = json.loads((ROOT / "tests" / "scenarios" / "p2-enter-and-walk.json").read_text())
FAST_LEDS = "[animation]\nhold_s = 0\nbeat_ms = 10\nfps = 240\n"


def seeds(folder: Path) -> dict:
    """name -> (seed text, argv with {file}, success codes a still-valid mutation may give)."""
    tiny = folder / "tiny.png"
    import cv2
    cv2.imwrite(str(tiny), np.zeros((48, 64, 3), np.uint8))
    fast = folder / "fast.toml"
    fast.write_text(FAST_LEDS)
    cal = Calibration(np.array([[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]]), np.zeros(5), (1280, 720))
    return {
        "position": (json.dumps(SCENARIO["setup"]), ["resolve", "{file}", "--tile", "8"], (0,)),
        "scenario": (json.dumps(SCENARIO), ["scenario", "run", "{file}"], (0,)),
        "plan": (json.dumps(plan(steps=1)), ["leds", "show", "{file}", "--url", "loop://", "--config", str(fast)],
                 (0,)),
        "calibration": (json.dumps(cal.to_json()), ["calibrate", "show", "{file}"], (0,)),
        "marker scheme": ((ROOT / "vision" / "marker_scheme.json").read_text(),
                          ["vision", "read", str(tiny), "--scheme", "{file}"], (0, 1)),
        "before": (json.dumps(SCENARIO["setup"]), ["vision", "explain", "{file}", str(tiny)], (0, 1, 2)),
        "table config": ((ROOT / "companion_app" / "default_table.toml").read_text(),
                         ["config", "show", "--config", "{file}"], (0,)),
        "hardware config": ((ROOT / "hardware" / "default.toml").read_text(),
                            ["leds", "layout", "--config", "{file}"], (0,)),
    }


class Kinds(dict):
    def __repr__(self) -> str:   # hypothesis prints its arguments: not the whole marker scheme
        return f"Kinds({', '.join(self)})"


@pytest.fixture(scope="module")
def kinds(tmp_path_factory):
    return Kinds(seeds(tmp_path_factory.mktemp("fuzz-files")))


def run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


def assert_refused_plainly(code: int, err: str, what) -> None:
    lines = [line for line in err.splitlines() if line.strip() and ": note: " not in line]
    assert code == 2, (what, code, err)
    assert len(lines) == 1 and lines[0].startswith("flure: "), (what, err)
    assert "Traceback" not in err, (what, err)


# -- how a file goes wrong ------------------------------------------------------------------
json_scalars = (st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=False)
                | st.text(max_size=8) | st.sampled_from(["g7", "a1", "red", "3/4", "N", "white", "p11"]))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=10)
toml_values = st.sampled_from(["nan", "inf", "-inf", "1e300", "-1", "0", "5", '"x"', "[1]", "{ a = 1 }", "true",
                               '""', "9" * 30, "1.5", '"/dev/null"', "[[1]]", "[]"])


def broken_texts(seed: str) -> st.SearchStrategy[bytes]:
    """Bytes that are certainly not a usable file of that kind."""
    is_toml = not seed.lstrip().startswith(("{", "["))
    deep = st.integers(100, 3000).map(lambda n: ("x = " if is_toml else "") + "[" * n + "]" * n)
    parts = [st.binary(min_size=1, max_size=100).filter(lambda b: b"\x00" in b or b"\xff" in b),
             deep.map(str.encode)]
    if not is_toml:
        parts.append(json_values.filter(lambda v: not isinstance(v, dict)).map(lambda v: json.dumps(v).encode()))
        parts.append(st.integers(4400, 6000).map(lambda n: seed.replace("}", ', "x": ' + "9" * n + "}", 1).encode()))
    return st.one_of(parts)


def mutated(seed: str) -> st.SearchStrategy[bytes]:
    """The valid seed file with one value somewhere replaced (it may stay valid)."""
    if seed.lstrip().startswith(("{", "[")):
        def replace(value, rnd: random.Random):
            data = json.loads(seed)
            parent, key = None, None
            node = data
            for _ in range(rnd.randint(1, 4)):
                keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
                if not keys:
                    break
                parent, key = node, rnd.choice(keys)
                node = node[key]
            if parent is not None:
                parent[key] = value
            return json.dumps(data).encode()
        return st.builds(replace, json_values, st.randoms(use_true_random=False))

    lines = seed.splitlines()
    assignments = [i for i, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
    headers = [i for i, line in enumerate(lines) if line.startswith("[")]

    def edit(i, value, header_instead, j):
        new = list(lines)
        if header_instead and headers:
            h = headers[j % len(headers)]
            new[h] = f"{lines[h].strip('[]')} = {value}"
        else:
            key = lines[i].split("=")[0].strip()
            new[i] = f"{key} = {value}"
        return "\n".join(new).encode()
    return st.builds(edit, st.sampled_from(assignments), toml_values, st.booleans(), st.integers(0, 50))


NAMES = ["position", "scenario", "plan", "calibration", "marker scheme", "before", "table config",
         "hardware config"]
SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def run_kind(kinds, folder: Path, kind: str, content: bytes) -> tuple[int, str]:
    """Write ``content`` as a file of ``kind`` and run its command on it."""
    _seed, argv, _ok = kinds[kind]
    path = folder / ("input.toml" if "config" in kind else "input.json")
    path.write_bytes(content)
    return run([a.format(file=path) for a in argv])


@pytest.mark.parametrize("kind", NAMES)
@SETTINGS
@given(data=st.data())
def test_a_broken_file_is_one_plain_line_and_status_2(kinds, tmp_path, kind, data):
    content = data.draw(broken_texts(kinds[kind][0]))
    code, err = run_kind(kinds, tmp_path, kind, content)
    assert_refused_plainly(code, err, (kind, content[:120]))


@pytest.mark.parametrize("kind", NAMES)
@SETTINGS
@given(data=st.data())
def test_a_file_with_one_value_changed_is_used_or_refused_plainly(kinds, tmp_path, kind, data):
    content = data.draw(mutated(kinds[kind][0]))
    code, err = run_kind(kinds, tmp_path, kind, content)
    assert "Traceback" not in err, (kind, content[:300], err)
    if code not in kinds[kind][2]:
        assert_refused_plainly(code, err, (kind, content[:300]))


def test_the_seeds_themselves_are_accepted(kinds, tmp_path):
    """Otherwise the mutation test would only ever see refusals."""
    for kind, (seed, _argv, ok) in kinds.items():
        code, err = run_kind(kinds, tmp_path, kind, seed.encode())
        assert code in ok and "Traceback" not in err, (kind, code, err)
