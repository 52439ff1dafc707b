"""Keep the table session's resident memory flat while the camera renders and reads frames.

Why: every frame allocates and frees a few images of several megabytes (the rendered scene,
its float32 copies, the reader's grey and threshold images).  glibc serves blocks above its
mmap threshold with ``mmap`` and returns them on ``free`` — but the threshold is *dynamic*:
each freed mmapped block raises it to that block's size (up to 32 MB), so from the second
frame on those images come from the heap arenas instead, where holes are kept rather than
given back, and every thread that ever touched a frame has its own arena.  Measured on this
machine with the digital twin at 1280x720: 216 MB resident after 40 s, 129 MB with a fixed
1 MB threshold (the images still come and go, but through mmap, so they are returned).
Without it the twin at 1920x1080, polled by the web server's request threads, takes the
process from 72 MB to 669 MB after ten polls.

``keep_heap_small()`` fixes the threshold and caps the arenas; it is a no-op where the C
library is not glibc (macOS, musl).
"""
from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD = 1 << 20      # blocks of 1 MB and more go straight to mmap and back on free
TRIM_THRESHOLD = 4 << 20      # give the heap's free top back once 4 MB are unused
ARENAS = 2


def keep_heap_small() -> bool:
    """Set glibc's malloc so freed frame buffers go back to the system; True when it applied."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    ok = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    ok = mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and ok
    ok = mallopt(M_ARENA_MAX, ARENAS) == 1 and ok
    return ok
