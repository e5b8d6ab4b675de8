"""A spawned child's log records reach the parent's logging (real child processes): level, logger name,
message, exceptions as text, warnings; each record once; the relay ends with the child however it ends."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import psutil

from app.core.util.child_logs import ChildLogs
from tests.core.util import child_log_targets
from tests.fixtures.log_records import WAIT_S, RecordsSeen, records_of

PARENT_LOGGER = "app.test.child"


def _start(target: Callable[..., None]) -> tuple[Any, ChildLogs]:
    context = multiprocessing.get_context("spawn")
    logs = ChildLogs(context, PARENT_LOGGER)
    process = context.Process(target=target, args=(logs.channel,), name="unidesk-test-child", daemon=True)
    process.start()
    logs.listen(process)
    return process, logs


def _relays() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "unidesk-test-child-logs"]


def _messages(seen: RecordsSeen) -> list[str]:
    return [record.getMessage() for record in seen.records]


def test_the_childs_records_arrive_with_their_level_name_message_and_traceback() -> None:
    with records_of(PARENT_LOGGER, logging.INFO) as seen:
        process, logs = _start(child_log_targets.log_a_little_of_everything)
        seen.wait_for(lambda record: record.getMessage() == "the last record")
        process.join(WAIT_S)
        logs.wait(WAIT_S)
    by_message = {record.getMessage(): record for record in seen.records}
    hello = by_message["hello parent"]
    assert (hello.name, hello.levelno, hello.process) == (f"{PARENT_LOGGER}.tests.child", logging.INFO, process.pid)
    assert hello.processName == "unidesk-test-child" and hello.funcName == "log_a_little_of_everything"
    failed = by_message["it failed with 100% certainty"]
    assert failed.levelno == logging.ERROR and failed.exc_info is None
    assert failed.exc_text is not None and "ValueError: a broken part" in failed.exc_text
    assert "ValueError: a broken part" in logging.Formatter().format(failed), "the log file shows the traceback"
    warning = next(record for record in seen.records if "mind the gap" in record.getMessage())
    assert (warning.name, warning.levelno) == (f"{PARENT_LOGGER}.py.warnings", logging.WARNING)
    root = by_message["from the root logger"]
    assert (root.name, root.levelno) == (PARENT_LOGGER, logging.ERROR)
    library = [record for record in seen.records if record.name == f"{PARENT_LOGGER}.transformers.models"]
    assert [record.getMessage() for record in library] == ["a library record", "a library record, propagated"]
    assert "below the parent's level" not in _messages(seen), "the child logs at the parent's level"
    assert not _relays()


def test_the_child_logs_at_debug_when_the_parent_does() -> None:
    with records_of(PARENT_LOGGER, logging.DEBUG) as seen:
        process, logs = _start(child_log_targets.log_a_little_of_everything)
        seen.wait_for(lambda record: record.getMessage() == "below the parent's level")
        process.join(WAIT_S)
        logs.wait(WAIT_S)


def test_a_killed_child_leaves_its_records_and_no_relay_behind() -> None:
    with records_of(PARENT_LOGGER, logging.INFO) as seen:
        process, logs = _start(child_log_targets.log_then_get_killed)
        process.join(WAIT_S)
        assert process.exitcode == -signal.SIGKILL
        logs.wait(WAIT_S)
    assert _messages(seen) == ["before the kill"]
    assert not _relays()


def test_the_relay_ends_with_the_child_even_when_another_process_holds_its_pipe() -> None:
    with records_of(PARENT_LOGGER, logging.INFO) as seen:
        process, logs = _start(child_log_targets.leave_a_process_holding_the_pipe)
        holder = psutil.Process(int(seen.wait_for(lambda r: r.getMessage().startswith("holder ")).getMessage()[7:]))
        try:
            process.join(WAIT_S)
            assert holder.is_running(), "the pipe is still open"
            logs.wait(WAIT_S)
            assert not _relays()
        finally:
            os.kill(holder.pid, signal.SIGKILL)
            holder.wait(WAIT_S)
