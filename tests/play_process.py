"""A real ``flure play`` process, started the way a user starts it, for the tests that need one."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
READY = "Press Ctrl+C"      # flure play prints it once its socket listens (companion_app/cli/play.py)
# How long start-up may take.  Idle it is about 2 s (imports); on a loaded 2-core CI machine it has
# taken over 15 s.  The wait ends as soon as the line comes, so a generous bound costs nothing when
# all is well; a process that dies fails the test at once.
START_TIMEOUT_S = 180
STOP_TIMEOUT_S = 60         # Ctrl+C or SIGTERM to exit: it saves and closes the devices first


def ctrl_c_as_at_a_terminal() -> None:
    """In the child before it runs: SIGINT back to its default, as a terminal's Ctrl+C finds it.  A test run
    started in the background of a script inherits SIGINT ignored (the shell does that to background jobs), and
    Python then never turns SIGINT into KeyboardInterrupt, so the tests' Ctrl+C would not stop flure play."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_play(*args: str, timeout: float = START_TIMEOUT_S, ready_line: str = READY) -> tuple[subprocess.Popen, str]:
    """Run ``flure play *args`` and return it with what it printed up to "Press Ctrl+C" (it is serving then);
    ``ready_line`` is that line's words in another ``--lang``.

    If it exits first, or does not get there within ``timeout`` seconds, it is killed and the test fails
    with its exit status and everything it printed (stderr goes to the same pipe)."""
    # --lang en first (a test's own --lang, later on the line, wins): the lines read here are English
    proc = subprocess.Popen([sys.executable, "-m", "companion_app.cli", "--lang", "en", "play", *args], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, preexec_fn=ctrl_c_as_at_a_terminal)
    lines: list[str] = []
    ready = threading.Event()

    def read():
        """Reads in a thread, so the timeout holds even while the process prints nothing; stops
        reading at the ready line (the caller owns the pipe from then on) or at the process's end."""
        for line in proc.stdout:
            lines.append(line)
            if ready_line in line:
                break
        ready.set()

    reader = threading.Thread(target=read, name="flure-play-start", daemon=True)
    reader.start()
    ready.wait(timeout)
    if lines and ready_line in lines[-1]:
        return proc, "".join(lines)
    if ready.is_set():
        try:
            why = f"it exited with status {proc.wait(timeout=STOP_TIMEOUT_S)}"
        except subprocess.TimeoutExpired:
            why = "it closed its output"
    else:
        why = f"no {ready_line!r} line within {timeout:g} s"
    proc.kill()
    reader.join(timeout=STOP_TIMEOUT_S)
    proc.wait(timeout=STOP_TIMEOUT_S)
    raise AssertionError(f"flure play did not start ({why}); it printed:\n" + "".join(lines))


def stop_play(proc: subprocess.Popen, signum) -> str:
    """Send ``signum`` (SIGINT is Ctrl+C) and return the rest of what it printed once it exited."""
    proc.send_signal(signum)
    try:
        out, _ = proc.communicate(timeout=STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError(f"flure play did not stop within {STOP_TIMEOUT_S} s of signal {signum}:\n{out}")
    return out
