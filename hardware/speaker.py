"""The Pi's speaker: each monster step read aloud through ``espeak-ng`` (Debian package ``espeak-ng``).

Why a worker thread: speaking a step takes seconds, and the table session hands the speaker a
move from the thread that applied it (a button, a request, the camera).  ``announce`` only
queues the lines and returns; one worker runs ``espeak-ng`` for each line in turn, never
earlier than the moment the LEDs start that step (the offsets the caller gives), so the
voice follows the animation instead of running ahead of it.  A newer move drops what is left
of the older one.  Problems never leave this object as exceptions: a missing ``espeak-ng``
is refused when the speaker is made (``SpeakerMissing``, a sentence for the device status),
and a call that fails or hangs is recorded in ``status()`` and the next line is tried.

The command line is one place (``command_line``) so tests can check it for each language by
putting a recording ``espeak-ng`` on ``PATH``: the process boundary, nothing mocked inside.
"""
from __future__ import annotations

import logging
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence

from engine.wording import N_, Said, Text, os_reason

log = logging.getLogger(__name__)

COMMAND = "espeak-ng"
# espeak-ng's own voice for each of the table's languages (``espeak-ng --voices`` lists them)
VOICES = {"en": "en", "fr": "fr", "de": "de", "es": "es"}
DEFAULT_RATE = 150            # words a minute (espeak-ng's default, 175, is quick for rule ids and squares)
CALL_TIMEOUT_S = 60.0         # one step spoken takes a few seconds; a hung call is ended after this


class SpeakerMissing(RuntimeError):
    """``espeak-ng`` is not installed here (the sentence says how to install it)."""


def voice_for(language: str, voice: str = "") -> str:
    """The configured voice, else espeak-ng's voice for the table's language."""
    return voice or VOICES.get(language, VOICES["en"])


def command_line(executable: str, text: str, voice: str, rate: int) -> list[str]:
    """``espeak-ng -v VOICE -s RATE -b 1 -- TEXT``: ``-b 1`` reads the text as UTF-8 (é, ü, ñ), ``--``
    keeps a line that starts with a dash from being read as an option."""
    return [executable, "-v", voice, "-s", str(int(rate)), "-b", "1", "--", text]


class Speaker:
    """Speaks queued lines through espeak-ng in its own thread; every method returns at once."""

    def __init__(self, voice: str = VOICES["en"], rate: int = DEFAULT_RATE, *, command: str = COMMAND,
                 timeout_s: float = CALL_TIMEOUT_S) -> None:
        executable = shutil.which(command)
        if executable is None:
            raise SpeakerMissing(f"{command} is not installed: sudo apt install espeak-ng "
                                 "(deploy/install.sh does), or set [speaker] enabled = false")
        self.executable = executable
        self.voice = voice
        self.rate = rate
        self.timeout_s = timeout_s
        self.spoken = 0
        self.failed = 0
        self.last_error: str | None = None
        self.speaking: str | None = None
        self._lines: list[tuple[float, str]] = []   # (monotonic time to start at, text)
        self._process: subprocess.Popen | None = None
        self._closed = False
        self._cond = threading.Condition()
        self._worker = threading.Thread(target=self._run, name="speaker", daemon=True)
        self._worker.start()

    # -- what the session calls ------------------------------------------------------------------
    def announce(self, lines: Sequence[tuple[float, str]]) -> None:
        """Speak ``lines`` — (seconds from now, text) in order — replacing whatever is still waiting."""
        now = time.monotonic()
        with self._cond:
            self._lines = [(now + max(0.0, float(offset)), text) for offset, text in lines if text]
            self._cond.notify_all()

    def status(self) -> dict:
        with self._cond:
            return {"command": self.executable, "voice": self.voice, "rate": self.rate, "spoken": self.spoken,
                    "failed": self.failed, "waiting": len(self._lines), "speaking": self.speaking is not None,
                    "last_error": self.last_error}

    def wait_idle(self, timeout: float) -> bool:
        """True once nothing is waiting or being spoken (for tests and ``flure`` commands that exit)."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._lines or self.speaking is not None:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._lines = []
            process = self._process
            self._cond.notify_all()
        if process is not None and process.poll() is None:
            process.terminate()
        self._worker.join(timeout=5)

    # -- the worker ----------------------------------------------------------------------------------
    def _next(self) -> str | None:
        """The next line once its time has come (None: closed)."""
        with self._cond:
            while not self._closed:
                if not self._lines:
                    self._cond.wait()
                    continue
                at, text = self._lines[0]
                wait = at - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)      # woken early by a newer move or close
                    continue
                self._lines.pop(0)
                self.speaking = text
                return text
            return None

    def _run(self) -> None:
        while True:
            text = self._next()
            if text is None:
                return
            error = self._say(text)
            with self._cond:
                self.speaking = None
                if error is None:
                    self.spoken += 1
                    self.last_error = None
                else:
                    self.failed += 1
                    self.last_error = error
                    log.warning("speaker: %s", error)
                self._cond.notify_all()

    def _say(self, text: str) -> str | None:
        """Run espeak-ng for one line; the problem in words, or None when it spoke (or was closed)."""
        argv = command_line(self.executable, text, self.voice, self.rate)
        with self._cond:
            if self._closed:
                return None
            try:
                process = self._process = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            except OSError as exc:        # removed or made unusable since the speaker was made
                return Said(Text(N_("%(command)s could not be run (%(error)s)"), command=COMMAND, error=os_reason(exc)))
        try:
            _out, err = process.communicate(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return Said(Text(N_("%(command)s did not finish a line within %(seconds)s s and was stopped"), command=COMMAND,
                             seconds=f"{self.timeout_s:g}"))
        finally:
            with self._cond:
                self._process = None
        if self._closed:
            return None
        said = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
        if process.returncode != 0:
            if said:
                return Said(Text(N_("%(command)s failed (exit status %(status)s): %(error)s"), command=COMMAND,
                                 status=process.returncode, error=said[0][:200]))
            return Said(Text(N_("%(command)s failed (exit status %(status)s)"), command=COMMAND, status=process.returncode))
        if said:   # espeak-ng exits 0 when it finds no sound card, and says so only on stderr
            return Said(Text(N_("%(command)s reported a problem: %(error)s (is a speaker connected, and may this "
                                "user use the sound card?)"), command=COMMAND, error=said[0][:200]))
        return None
