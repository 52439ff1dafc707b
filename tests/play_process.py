"""A real ``flure play`` process, started the way a user starts it, for the tests that need one."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def start_play(*args: str, timeout: float = 30) -> tuple[subprocess.Popen, str]:
    """Run ``flure play *args`` and return it with what it printed up to "Press Ctrl+C" (it is serving then).

    If it exits or does not get there within ``timeout`` seconds it is killed and the test fails with its output."""
    # --lang en first (a test's own --lang, later on the line, wins): the lines read here are English
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "--lang", "en", "play", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "Press Ctrl+C" in line:
            return proc, "".join(lines)
    proc.kill()
    proc.communicate(timeout=15)
    raise AssertionError("flure play did not start:\n" + "".join(lines))
