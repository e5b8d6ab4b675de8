"""Workarounds for bugs of the installed PySide6, each detected at run time and applied only where it exists."""

from __future__ import annotations

import ctypes
import logging
import sys

log = logging.getLogger(__name__)

NONE_REFERENCE_HEADROOM = 1 << 40
"""References given to None: more than a process can ever drop at one per Qt call."""
PROBE_CALLS = 200


def void_calls_drop_none_references() -> bool:
    """True when PySide6 methods that return nothing take a reference from None without giving one.

    PySide6 6.12.0's wheels do this (they rely on None being immortal, which it is only from
    CPython 3.12 on). On 3.11 every such call (``setText``, ``update``, ...) lowers None's count,
    and the process aborts with "none_dealloc" after a few thousand calls.
    """
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(PROBE_CALLS):
        probe.setObjectName("probe")
    lost = before - sys.getrefcount(None)
    return lost >= PROBE_CALLS // 2


def protect_none_from_pyside() -> bool:
    """If this PySide6 drops None references, give None enough that it never reaches zero
    (what CPython 3.12's immortal None does). Returns True when the workaround was applied.
    """
    if not void_calls_drop_none_references():
        return False
    reference_count = ctypes.c_ssize_t.from_address(id(None))
    reference_count.value += NONE_REFERENCE_HEADROOM
    log.warning("this PySide6 build drops references to None on Python %s.%s; None was made effectively "
                "immortal to keep the app alive (install a PySide6 without the bug, e.g. 6.11)",
                *sys.version_info[:2])
    return True
