"""What the spawned children of tests/core/util/test_child_logs.py run (imported by the child)."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import warnings

from app.core.util.child_logs import LogChannel, send_logs_to_parent

log = logging.getLogger("tests.child")


def log_a_little_of_everything(channel: LogChannel) -> None:
    """Records at several levels (the parent asks for INFO), an exception, a warning, a library's records."""
    send_logs_to_parent(channel)
    log.debug("below the parent's level")
    log.info("hello %s", "parent")
    try:
        raise ValueError("a broken part")
    except ValueError:
        log.exception("it failed with %d%% certainty", 100)
    warnings.warn("mind the gap", UserWarning, stacklevel=1)
    logging.getLogger().error("from the root logger")
    library = logging.getLogger("transformers")  # transformers keeps its records from the root logger...
    library.propagate = False
    logging.getLogger("transformers.models").warning("a library record")
    library.propagate = True  # ...unless CI is set in the environment: then the record must not come twice
    logging.getLogger("transformers.models").warning("a library record, propagated")
    log.info("the last record")


def log_then_get_killed(channel: LogChannel) -> None:
    send_logs_to_parent(channel)
    log.warning("before the kill")
    os.kill(os.getpid(), signal.SIGKILL)


def leave_a_process_holding_the_pipe(channel: LogChannel) -> None:
    """Start a process that inherits this one's end of the log pipe and outlives it; log its pid; exit."""
    send_logs_to_parent(channel)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                              pass_fds=(channel.connection.fileno(),))
    log.warning("holder %d", holder.pid)
