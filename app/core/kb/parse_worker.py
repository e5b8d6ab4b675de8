"""Reading untrusted files in a separate process with time and memory limits.

:meth:`ParseWorker.parts` streams a document in parts (see :mod:`~app.core.kb.parsers.parts`): the worker
sends each part as soon as it is read, and the time limit applies to each part, and to each scanned page
recognised by OCR, not to the whole file (a scanned book takes as long as its pages need). A page that
runs out of time or kills the worker is skipped with a note, and reading goes on after it in a fresh worker.

A file that makes a parser run away (a zip bomb, a PDF that loops, a crash in a C library) kills
or stalls only the worker process, never the app: :meth:`ParseWorker.parse` then raises a
:class:`~app.core.kb.parsers.errors.DocumentError` of kind ``crashed``, ``timeout`` or
``too-large`` and starts a fresh worker for the next file. The worker stays warm between files
(starting a Python process costs more than reading a small file).

Memory is bounded twice: ``RLIMIT_AS`` inside the worker where the platform has it (an allocation
beyond it raises MemoryError there), and the parent's watch of the worker's resident memory
(everywhere psutil works), which kills it.

The worker's log records and warnings (a parser bug's traceback, pypdf's complaints about a damaged file)
reach the app's log under ``app.kb.reader_child.<its logger's name>`` (:mod:`app.core.util.child_logs`).
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final

from app.core.kb.documents import DocumentPart, ParsedDocument
from app.core.kb.parsers.errors import DocumentError
from app.core.util.child_logs import ChildLogs, LogChannel, send_logs_to_parent
from app.core.util.process_names import name_this_process

log = logging.getLogger(__name__)

DEFAULT_PARSER: Final = "app.core.kb.parsers:parse_document"
_PART_READERS: Final = {
    DEFAULT_PARSER: "app.core.kb.parsers.parts:read_parts",
    "app.core.kb.ocr:parse_with_ocr": "app.core.kb.ocr:read_parts_with_ocr",
}
"""The streaming reader of each whole-document parser; any other parser's document is sent as one part."""
PARTS_PREFIX: Final = "parts:"
"""A parser named ``"parts:module:function"`` is a streaming reader itself (see PartsReader)."""
MIB: Final = 1024 * 1024
_POLL_SECONDS: Final = 0.05
_STOP: Final = None
CHILD_LOGGER: Final = "app.kb.reader_child"
"""The logger the worker's records are written under, followed by the worker's own logger name."""
_LOGS_WAIT_SECONDS: Final = 10.0


@dataclass(frozen=True)
class ParseLimits:
    """Bounds for reading one file: its size on disk, the time and the memory its parser may take."""

    max_file_bytes: int = 256 * MIB
    timeout_seconds: float = 300.0
    """For a file read in parts, for each part, and for each page recognised by OCR."""
    memory_bytes: int = 3072 * MIB
    part_bytes: int = 256 * 1024
    """A big text file is read (and committed) in parts of about this many bytes."""

    @classmethod
    def from_settings(cls, settings: Any) -> ParseLimits:
        return cls(
            max_file_bytes=settings.int_value("kb.max_file_mb") * MIB,
            timeout_seconds=float(settings.int_value("kb.read_timeout_seconds")),
            memory_bytes=settings.int_value("kb.read_memory_mb") * MIB,
        )


def too_large(path: Path, size: int, limits: ParseLimits) -> DocumentError | None:
    """The error for a file over the size limit (None when it is within it)."""
    if size <= limits.max_file_bytes:
        return None
    return DocumentError.for_file(
        path, "too-large",
        f"the file is {_megabytes(size)} MB, more than the {_megabytes(limits.max_file_bytes)} MB limit for one file",
        "Split it into smaller files, or raise 'Largest file' (kb.max_file_mb) in the settings.",
    )


def _megabytes(size: int) -> str:
    return f"{size / MIB:.1f}".removesuffix(".0")


@dataclass(frozen=True)
class _PageInProgress:
    """A slow page (OCR) the worker announced: which, and where reading resumes if it is given up."""

    number: int
    resume_after: str | None


class ParseWorker:
    """One warm worker process reading files one at a time (use from one thread; :meth:`close` at the end).

    ``parser``: ``"module:function"`` taking a path and returning a ParsedDocument (tests name their own).
    """

    def __init__(self, limits: ParseLimits, parser: str = DEFAULT_PARSER) -> None:
        self.limits = limits
        self.parser = parser
        self._process: Any = None
        self._connection: Connection | None = None
        self._logs: ChildLogs | None = None
        self._midway = False
        self.started = 0
        """Worker processes started so far (a crash or a timeout costs one more)."""

    def parse(self, path: Path, stopped: Callable[[], bool] | None = None) -> ParsedDocument | None:
        """Read ``path`` in the worker; None when ``stopped()`` turned true meanwhile (the worker is stopped).

        Raises DocumentError: the parser's own, or ``timeout`` / ``crashed`` / ``too-large`` when the
        worker ran out of time or memory or died.
        """
        connection = self._ensure_started()
        connection.send(str(path))
        deadline = time.monotonic() + self.limits.timeout_seconds
        while not connection.poll(_POLL_SECONDS):
            if stopped is not None and stopped():
                self._stop(kill=True)
                return None
            problem = self._watch(path, deadline)
            if problem is not None:
                self._stop(kill=True)
                raise problem
        try:
            reply = connection.recv()
        except (EOFError, OSError):
            raise self._died(path) from None
        if reply[0] == "ok":
            document: ParsedDocument = reply[1]
            return document
        _, kind, message, hint, restart = reply
        if restart:  # it ran out of memory: a fresh process for the next file
            self._stop(kill=False)
        raise DocumentError(message, hint, kind=kind, path=path)

    def parts(
        self, path: Path, resume: str | None = None, stopped: Callable[[], bool] | None = None,
        on_page: Callable[[int, int], None] | None = None,
    ) -> Iterator[DocumentPart]:
        """The parts of ``path`` read in the worker from ``resume`` (a part's ``resume_after``); ends early when
        ``stopped()`` turned true (the worker is stopped). ``on_page(page number, pages)``: a slow page (OCR)
        starts. Each part, and each such page, has ``limits.timeout_seconds``; a page that runs out of time or
        kills the worker is skipped (a part with a note and no pages) and reading resumes after it.

        Raises DocumentError as :meth:`parse` does.
        """
        self._midway = True
        try:
            yield from self._stream(path, resume, stopped, on_page)
        finally:
            if self._midway:  # the caller stopped asking, or the worker failed: it may be midway
                self._midway = False
                self._stop(kill=True)

    def _stream(
        self, path: Path, resume: str | None, stopped: Callable[[], bool] | None,
        on_page: Callable[[int, int], None] | None,
    ) -> Iterator[DocumentPart]:
        connection = self._ensure_started()
        connection.send(("parts", str(path), resume))
        deadline = time.monotonic() + self.limits.timeout_seconds
        page: _PageInProgress | None = None
        received = 0
        held: DocumentPart | None = None  # the last part, given out with the worker's "end": a caller that stops
        while True:                       # after the last part then leaves the worker warm for the next file
            if not connection.poll(_POLL_SECONDS):
                if stopped is not None and stopped():
                    return  # the worker is stopped on the way out (midway)
                problem = self._watch(path, deadline, received)
                if problem is None:
                    continue
                self._stop(kill=True)
                if held is not None:  # every part arrived; only the worker's "end" did not
                    yield held
                    return
                if page is None:
                    raise problem
                if problem.kind == "timeout":
                    problem = DocumentError.for_file(
                        path, "timeout", f"text recognition took longer than {self.limits.timeout_seconds:g} s")
                yield _skipped(page, problem)  # the page is given up; the rest is read in a fresh worker
                if page.resume_after is None:
                    return
                connection = self._ensure_started()
                connection.send(("parts", str(path), page.resume_after))
                page, deadline = None, time.monotonic() + self.limits.timeout_seconds
                continue
            try:
                reply = connection.recv()
            except (EOFError, OSError):
                problem = self._died(path)
                if held is not None:
                    yield held
                    return
                if page is None:
                    raise problem from None
                reply = ("died", problem)
            kind = reply[0]
            if held is not None and kind != "end":
                yield held  # it was not the last part after all
                held = None
            if kind == "part":
                page, received = None, received + 1
                if reply[1].resume_after is None:
                    held = reply[1]
                else:
                    yield reply[1]
            elif kind == "page":
                page = _PageInProgress(int(reply[1]), reply[3])
                if on_page is not None:
                    on_page(int(reply[1]), int(reply[2]))
            elif kind == "end":
                self._midway = False
                if held is not None:
                    yield held
                return
            elif kind == "died":
                assert page is not None
                yield _skipped(page, reply[1])
                if page.resume_after is None:
                    return
                connection = self._ensure_started()
                connection.send(("parts", str(path), page.resume_after))
                page = None
            else:
                _, error_kind, message, hint, restart = reply
                self._midway = False  # the worker is ready for the next file (unless it must restart)
                if restart:
                    self._stop(kill=False)
                raise DocumentError(message, hint, kind=error_kind, path=path)
            deadline = time.monotonic() + self.limits.timeout_seconds

    def _watch(self, path: Path, deadline: float, received: int = 0) -> DocumentError | None:
        """Why the worker must be stopped now (None while all is well); ``received``: parts read so far."""
        if not self._process.is_alive():
            return self._died(path)
        if time.monotonic() > deadline:
            seconds = f"{self.limits.timeout_seconds:g}"
            return DocumentError.for_file(
                path, "timeout",
                f"reading a part of it took longer than {seconds} s, so it was stopped" if received else
                f"reading it took longer than {seconds} s, so it was stopped",
                "The file may be damaged or unusually complex; it is not retried until it changes. Raise "
                "'Time to read one file' (kb.read_timeout_seconds) in the settings and add it again to retry.",
            )
        resident = _resident_bytes(self._process.pid)
        if resident is not None and resident > self.limits.memory_bytes:
            return out_of_memory(path, self.limits.memory_bytes)
        return None

    def _died(self, path: Path) -> DocumentError:
        process = self._process
        process.join(timeout=5)
        code = process.exitcode
        self._stop(kill=True)
        if code is not None and code < 0 and -code == signal.SIGKILL:
            how = "it was killed, probably for using too much memory"
        elif code is not None and code < 0:
            how = f"signal {-code}"
        else:
            how = f"exit status {code}"
        return DocumentError.for_file(
            path, "crashed", f"reading it crashed the reader process ({how})",
            "The file is not retried until it changes; if it opens in other programs, re-save it and add it "
            "again.",
        )

    def start(self) -> None:
        """Start the worker process now (else the first :meth:`parse` does): it starts while other work goes on."""
        self._ensure_started()

    def _ensure_started(self) -> Connection:
        if self._connection is not None and self._process is not None and self._process.is_alive():
            return self._connection
        self._stop(kill=True)
        context = multiprocessing.get_context("spawn")
        parent, child = context.Pipe(duplex=True)
        logs = ChildLogs(context, CHILD_LOGGER)
        process = context.Process(
            target=serve, args=(child, logs.channel, self.parser, self.limits.memory_bytes, self.limits.part_bytes),
            name="unidesk-kb-reader",
            daemon=True,
        )
        process.start()
        child.close()
        logs.listen(process)
        self._process, self._connection, self._logs = process, parent, logs
        self.started += 1
        return parent

    def _stop(self, *, kill: bool) -> None:
        process, connection, logs = self._process, self._connection, self._logs
        self._process = self._connection = self._logs = None
        if connection is not None:
            if not kill:
                try:
                    connection.send(_STOP)
                except OSError:
                    kill = True
            connection.close()
        if process is not None:
            if kill:
                process.kill()
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
                process.join(timeout=10)
        if logs is not None:
            logs.wait(_LOGS_WAIT_SECONDS)  # its last records are in the log

    def close(self) -> None:
        """Stop the worker (it is started again by the next :meth:`parse`)."""
        self._stop(kill=False)

    def __enter__(self) -> ParseWorker:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _skipped(page: _PageInProgress, problem: DocumentError) -> DocumentPart:
    """A part without pages that says why ``page`` was given up (the text of ``problem`` after its file)."""
    reason = str(problem.message)
    if problem.path is not None:
        reason = reason.removeprefix(f"{problem.path}: ")
    return DocumentPart("", "", (), page.resume_after, (f"page {page.number} skipped: {reason}",),
                        skipped_page=page.number)


def out_of_memory(path: Path, memory_bytes: int) -> DocumentError:
    """The error for a file whose reading needed more than ``memory_bytes``."""
    return DocumentError.for_file(
        path, "too-large", f"reading it needed more than the {_megabytes(memory_bytes)} MB of memory allowed",
        "Split the file, or raise 'Memory to read one file' (kb.read_memory_mb) in the settings and add it again.",
    )


def _resident_bytes(pid: int) -> int | None:
    try:
        import psutil

        return int(psutil.Process(pid).memory_info().rss)
    except Exception:  # gone meanwhile, or psutil cannot tell here: the other checks still apply
        return None


# -- inside the worker process ---------------------------------------------------------------


def serve(
    connection: Connection, logs: LogChannel, parser: str, memory_bytes: int, part_bytes: int = 256 * 1024
) -> None:
    """The worker's loop: a path in, ("ok", document) or ("error", kind, message, hint, restart) out."""
    name_this_process("reader")  # not one of vLLM's engine processes, whose unload stops every child it finds
    send_logs_to_parent(logs)
    _limit_memory(memory_bytes)
    parse = None if parser.startswith(PARTS_PREFIX) else _resolve(parser)
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            return
        if request is _STOP:
            return
        if isinstance(request, tuple):  # ("parts", path, resume)
            reader = _resolve_parts(parser)
            if _send_parts(connection, parse, reader, Path(request[1]), request[2], memory_bytes, part_bytes):
                return
            continue
        if parse is None:
            reply, restart = _failure_reply(TypeError(f"{parser} reads documents in parts only"), Path(request),
                                            memory_bytes)
        else:
            reply, restart = _parse_one(parse, Path(request), memory_bytes)
        try:
            connection.send(reply)
        except MemoryError:
            connection.send(_memory_reply(Path(request), memory_bytes))
            restart = True
        if restart:
            return


PartsReader = Callable[[Path, "str | None", Callable[[int, int, "str | None"], None], int], Iterator[DocumentPart]]
"""(path, resume, page_started, part_bytes) -> the parts (app.core.kb.parsers.parts.read_parts)."""


def _send_parts(
    connection: Connection, parse: Callable[[Path], ParsedDocument] | None, reader: PartsReader | None, path: Path,
    resume: str | None, memory_bytes: int, part_bytes: int,
) -> bool:
    """Send ("part", part)... then ("end",), or an error reply; ("page", number, pages, resume_after) before a
    slow page. True when the worker must restart (it ran out of memory)."""
    from app.core.kb.parsers.parts import whole_part

    def page_started(number: int, pages: int, resume_after: str | None) -> None:
        connection.send(("page", number, pages, resume_after))

    try:
        if reader is not None:
            parts = reader(path, resume, page_started, part_bytes)
        else:
            assert parse is not None
            parts = iter((whole_part(parse(path)),))
        for part in parts:
            connection.send(("part", part))
        connection.send(("end",))
        return False
    except BaseException as error:  # every failure of reading becomes a reply, as in _parse_one
        reply, restart = _failure_reply(error, path, memory_bytes)
    try:
        connection.send(reply)
    except MemoryError:
        connection.send(_memory_reply(path, memory_bytes))
        restart = True
    return restart


def _resolve_parts(parser: str) -> PartsReader | None:
    reference = parser.removeprefix(PARTS_PREFIX) if parser.startswith(PARTS_PREFIX) else _PART_READERS.get(parser)
    if reference is None:
        return None
    module_name, _, name = reference.partition(":")
    reader: PartsReader = getattr(importlib.import_module(module_name), name)
    return reader


def _parse_one(
    parse: Callable[[Path], ParsedDocument], path: Path, memory_bytes: int
) -> tuple[tuple[Any, ...], bool]:
    try:
        return ("ok", parse(path)), False
    except BaseException as error:
        return _failure_reply(error, path, memory_bytes)


def _failure_reply(error: BaseException, path: Path, memory_bytes: int) -> tuple[tuple[Any, ...], bool]:
    """The reply for a failure of reading ``path``, and whether the worker must restart (it ran out of memory)."""
    if isinstance(error, DocumentError):
        return ("error", error.kind, error.message, error.hint, False), False
    if isinstance(error, MemoryError):
        return _memory_reply(path, memory_bytes), True
    if isinstance(error, RecursionError):
        return ("error", "corrupt", f"{path}: its structure is nested too deeply to read", None, False), False
    if not isinstance(error, Exception):  # KeyboardInterrupt, SystemExit: the worker stops
        raise error
    log.exception("reading %s failed", path, exc_info=error)  # a parser bug must not stop the other files
    return ("error", "unreadable", f"{path}: cannot be read ({type(error).__name__}: {error})", None, False), False


def _memory_reply(path: Path, memory_bytes: int) -> tuple[Any, ...]:
    error = out_of_memory(path, memory_bytes)
    return "error", error.kind, error.message, error.hint, True


def _limit_memory(memory_bytes: int) -> None:
    """Cap the address space (Linux, BSD); elsewhere the parent's watch of resident memory applies."""
    try:
        import resource
    except ImportError:
        return
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):
        log.warning("cannot limit the reader's memory here (pid %d)", os.getpid())


def _resolve(reference: str) -> Callable[[Path], ParsedDocument]:
    module_name, _, name = reference.partition(":")
    function: Callable[[Path], ParsedDocument] = getattr(importlib.import_module(module_name), name)
    return function
