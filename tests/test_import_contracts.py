"""The packages' import contracts (pyproject.toml ``[tool.importlinter]``), checked by
``lint-imports`` so that the README's test command enforces them as CI does.

engine imports nothing of ours; vision and hardware import only engine; calibration imports
engine and vision; nothing imports companion_app, which alone wires the others together.
Inside companion_app, the command line sits over the web, which sits over the table: the
table imports neither (its session publishes to a broker of its own, the web serves it).
Function-local imports count.
"""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OURS = {"engine", "vision", "hardware", "calibration", "companion_app"}


def test_lint_imports_keeps_every_contract():
    lint = Path(sys.executable).with_name("lint-imports")   # installed by the dev extra
    r = subprocess.run([str(lint), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


def test_the_contracts_say_what_the_layout_promises():
    """Each package may import only what its contract allows: read back from pyproject.toml, so a
    contract cannot be loosened (or dropped) without this test saying so."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert set(config["root_packages"]) == OURS
    forbidden: dict[str, set[str]] = {p: set() for p in OURS}
    layers = [c for c in config["contracts"] if c["type"] == "layers"]
    assert [c["layers"] for c in layers] == [["companion_app.cli", "companion_app.web", "companion_app.table"]]
    assert not any(c.get("ignore_imports") for c in layers)
    inside = [c for c in config["contracts"] if c["type"] == "forbidden" and not set(c["source_modules"]) & OURS]
    # Inside the app: the camera path knows the session only through its port (direct imports only: the
    # phone camera reaches the store through setup and the configuration).
    assert [(c["source_modules"], c["forbidden_modules"]) for c in inside] == [
        (["companion_app.table.camera"], ["companion_app.table.session"])]
    for contract in config["contracts"]:
        if contract["type"] == "layers" or contract in inside:
            continue
        assert contract["type"] == "forbidden" and not contract.get("allow_indirect_imports")
        for source in contract["source_modules"]:
            forbidden[source] |= set(contract["forbidden_modules"])
    allowed = {p: OURS - {p} - forbidden[p] for p in OURS}
    assert allowed == {"engine": set(), "vision": {"engine"}, "hardware": {"engine"},
                       "calibration": {"engine", "vision"},
                       "companion_app": {"engine", "vision", "hardware", "calibration"}}
