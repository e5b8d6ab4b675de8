"""A PyTorch model served by a child process: started with 'spawn', restarted once when it dies, never orphaned.

The parent names a *server* (``"module:Class"``) and its arguments. The child builds it (loading the model
with the same code the app's own process would use), answers ``ready()`` once, then serves requests one at a
time: each request's answer comes back as parts (numpy arrays, numbers) followed by an end marker, so a
long batch streams. A load error comes back as the same user-facing error the model would raise in
process. If the child dies (a crash, a kill), the request is sent again to a fresh child, once; a second
death in a row is an :class:`~app.core.kb.errors.EmbeddingModelError`. The child exits when its parent
does, even on ``kill -9`` (it watches its parent), and is stopped by :meth:`ModelProcess.close`, when the
owner is garbage-collected, or at interpreter exit (it is a daemon process).

The child's log records and warnings reach the app's log under ``app.kb.model_child.<its logger's name>``
(:mod:`app.core.util.child_logs`); an unexpected error in the child is logged there with its traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Final, Protocol

from app.core.kb.errors import EmbeddingModelError
from app.core.util.child_logs import ChildLogs, LogChannel, send_logs_to_parent
from app.core.util.errors import UserFacingError
from app.core.util.process_names import name_this_process
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

log = logging.getLogger(__name__)

CONTEXT: Final = "KnowledgeBaseErrors"
CHILD_LOGGER: Final = "app.kb.model_child"
"""The logger the child's records are written under, followed by the child's own logger name."""
_POLL_S: Final = 0.2
_PARENT_POLL_S: Final = 0.5
_STOP_WAIT_S: Final = 10.0


class ModelServer(Protocol):
    """What a child process serves: built from picklable arguments, in the child."""

    def ready(self) -> Any:
        """What the parent learns once the model is loaded (picklable)."""

    def handle(self, operation: str, *arguments: Any) -> Iterator[Any]:
        """The parts of one answer (each picklable), in order."""


class _Died(Exception):
    """The child stopped without answering (crash, kill, or it exited)."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


@dataclass
class _Child:
    process: Any
    connection: Connection
    logs: ChildLogs

    def stop(self) -> None:
        """Ask it to stop, then kill it if it has not within a few seconds (idempotent); its last records are
        in the log when this returns."""
        with contextlib.suppress(OSError, ValueError):
            self.connection.send(("stop",))
        self.process.join(timeout=_STOP_WAIT_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=_STOP_WAIT_S)
        self.connection.close()
        self.logs.wait(_STOP_WAIT_S)

    def how_it_ended(self) -> str:
        self.process.join(timeout=_STOP_WAIT_S)
        code = self.process.exitcode
        if code is None:
            return "it stopped answering"
        if code < 0:
            try:
                return f"signal {signal.Signals(-code).name}"
            except ValueError:
                return f"signal {-code}"
        return f"exit status {code}"


class ModelProcess:
    """One model in a child process. Thread-safe: requests are served one at a time.

    ``server`` is ``"module:Class"``, built in the child as ``Class(*arguments)``; ``name`` (the model's)
    goes into errors and the log.
    """

    def __init__(self, server: str, arguments: tuple[Any, ...], *, name: str) -> None:
        self.server = server
        self.arguments = arguments
        self.name = name
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._stop_child: weakref.finalize[Any, Any] | None = None
        self._ready: Any = None
        self.started = 0
        """Child processes started so far (a death costs one more)."""

    @property
    def pid(self) -> int | None:
        child = self._child
        return child.process.pid if child is not None else None

    def start(self) -> Any:
        """Start the child and load the model (unless running); the server's ``ready()`` answer."""
        with self._lock:
            return self._attempt_twice(lambda: self._ready)

    def request(self, operation: str, *arguments: Any) -> list[Any]:
        """Every part of the server's answer to ``operation(*arguments)``; sent again once if the child dies."""
        with self._lock:
            parts: list[Any] = self._attempt_twice(lambda: self._exchange(operation, arguments))
        return parts

    def close(self) -> None:
        """Stop the child (a later request starts a new one)."""
        with self._lock:
            self._stop()

    def _attempt_twice(self, attempt: Any) -> Any:
        for tries_left in (1, 0):
            try:
                self._ensure_started()
                return attempt()
            except _Died as death:
                self._stop()
                if not tries_left:
                    raise self._died_error(death.how) from None
                log.warning("the process of model %s stopped (%s); starting it again", self.name, death.how)
        raise AssertionError("unreachable")

    def _ensure_started(self) -> None:
        if self._child is not None:
            return
        context = multiprocessing.get_context("spawn")  # never fork a process that holds CUDA or Qt
        parent_end, child_end = context.Pipe(duplex=True)
        logs = ChildLogs(context, CHILD_LOGGER)
        process = context.Process(target=serve, args=(child_end, logs.channel, os.getpid(), self.server,
                                                      self.arguments),
                                  name=f"unidesk-model-{self.name}"[:60], daemon=True)
        process.start()
        child_end.close()
        logs.listen(process)
        child = _Child(process, parent_end, logs)
        self._child = child
        self._stop_child = weakref.finalize(self, child.stop)
        self.started += 1
        reply = self._receive()
        if reply[0] == "failed":
            self._stop()
            _, message, hint = reply
            raise EmbeddingModelError(message, hint)
        self._ready = reply[1]
        log.info("model %s serving in process %d", self.name, process.pid)

    def _exchange(self, operation: str, arguments: tuple[Any, ...]) -> list[Any]:
        assert self._child is not None
        try:
            self._child.connection.send(("request", operation, arguments))
        except (OSError, ValueError):
            raise _Died(self._child.how_it_ended()) from None
        parts: list[Any] = []
        while True:
            reply = self._receive()
            if reply[0] == "part":
                parts.append(reply[1])
            elif reply[0] == "done":
                return parts
            else:
                _, message, hint = reply
                raise EmbeddingModelError(message, hint)

    def _receive(self) -> tuple[Any, ...]:
        child = self._child
        assert child is not None
        while True:
            try:
                if child.connection.poll(_POLL_S):
                    reply: tuple[Any, ...] = child.connection.recv()
                    return reply
            except (EOFError, OSError):
                raise _Died(child.how_it_ended()) from None
            if not child.process.is_alive() and not child.connection.poll(0):
                raise _Died(child.how_it_ended())

    def _stop(self) -> None:
        stop, self._stop_child, self._child = self._stop_child, None, None
        if stop is not None:
            stop()

    def _died_error(self, how: str) -> EmbeddingModelError:
        return EmbeddingModelError(
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "The process running the model {0} stopped unexpectedly, twice in a row ({1})."),
                (self.name, how)),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "Try again; if it happens again, choose another model in kb.embedding_model "
                                       "or send the log (Help menu) with a report.")),
        )


# -- inside the child process ------------------------------------------------------------------


def serve(connection: Connection, logs: LogChannel, parent_pid: int, server: str, arguments: tuple[Any, ...]) -> None:
    """The child's loop: build the server, say ``ready``, then answer requests until ``stop`` or the parent goes."""
    name_this_process("model")  # not one of vLLM's engine processes, whose unload stops every child it finds
    send_logs_to_parent(logs)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal is the parent's to handle
    threading.Thread(target=_exit_with_parent, args=(parent_pid,), name="parent-watch", daemon=True).start()
    try:
        model: ModelServer = _resolve(server)(*arguments)
        ready = model.ready()
    except UserFacingError as error:
        connection.send(("failed", error.message, error.hint))
        return
    except Exception as error:  # an unexpected failure still reaches the user as one clear line
        log.exception("loading %s failed", server)
        connection.send(("failed", f"{type(error).__name__}: {error}", None))
        return
    connection.send(("ready", ready))
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request[0] == "stop":
            return
        _, operation, request_arguments = request
        try:
            for part in model.handle(operation, *request_arguments):
                connection.send(("part", part))
        except UserFacingError as error:
            connection.send(("error", error.message, error.hint))
            continue
        except Exception as error:
            log.exception("request %s to %s failed", operation, server)
            connection.send(("error", f"{type(error).__name__}: {error}", None))
            continue
        connection.send(("done",))


def _exit_with_parent(parent_pid: int) -> None:
    """End this process as soon as the parent is gone (killed included): it must never outlive it."""
    parent = multiprocessing.parent_process()
    sentinel = parent.sentinel if parent is not None else None
    while True:
        if sentinel is not None:
            from multiprocessing.connection import wait

            if wait([sentinel], timeout=_PARENT_POLL_S):
                os._exit(0)
        else:
            threading.Event().wait(_PARENT_POLL_S)
        if os.name == "posix" and os.getppid() != parent_pid:  # re-parented: the parent died
            os._exit(0)


def _resolve(reference: str) -> Any:
    module_name, _, name = reference.partition(":")
    return getattr(importlib.import_module(module_name), name)
