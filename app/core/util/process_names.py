"""Names for the app's own helper processes, so code that looks for other programs' processes can skip them.

A child started with multiprocessing's 'spawn' has the same command line whoever started it (the
app's document reader, the embedding model's process, or vLLM's engine core), so the command line
cannot tell them apart. The app's children call :func:`name_this_process` first thing; on Linux this
sets the kernel's short name (``/proc/PID/comm``), which :func:`is_app_helper` reads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from pathlib import Path

APP_HELPER_PREFIX = "unidesk-"
PR_SET_NAME = 15
COMM_MAX_BYTES = 15  # the kernel keeps 16 bytes, the last one a NUL


def name_this_process(role: str) -> bool:
    """Give this process the short name ``unidesk-<role>`` (Linux); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    name = (APP_HELPER_PREFIX + role).encode("ascii", "replace")[:COMM_MAX_BYTES]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(PR_SET_NAME, ctypes.c_char_p(name), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def is_app_helper(pid: int, proc: Path = Path("/proc")) -> bool:
    """True when process ``pid`` named itself as one of the app's helpers."""
    try:
        comm = (proc / str(pid) / "comm").read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return False
    return comm.startswith(APP_HELPER_PREFIX)
