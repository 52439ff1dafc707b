"""Where ``flure play``'s warnings and errors go: Python logging to stderr, each line with its level.

Under systemd (``$JOURNAL_STREAM`` set: stderr is the journal) each line starts with its syslog
priority, ``<4>`` for a warning, which journald takes as the entry's priority (``SyslogLevelPrefix=``,
on by default), so ``journalctl -u flure -p warning`` lists them.  Elsewhere a line reads
``2026-11-27 09:00:00 WARNING companion_app.table.camera.watcher: …``.  Each part of the table logs a
problem once per cause, not at every retry (the camera worker, a device, the journal).
"""
from __future__ import annotations

import logging
import os
import sys

SYSLOG = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    """``<priority>logger: message`` (journald reads the priority and adds its own time)."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{SYSLOG.get(record.levelno, 6)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def configure(level: int = logging.WARNING, stream=None) -> logging.Handler:
    """Send records of ``level`` and above to ``stream`` (stderr); returns the handler (tests remove it)."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
    handler.setLevel(level)
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    return handler
