"""Answering 429 to connections beyond the API's cap, on one thread, without holding any for long."""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import threading
import time

from app.core.services.api.errors import too_many_requests

log = logging.getLogger(__name__)

REFUSAL_QUEUE = 64
READ_GRACE_S = 1.0
_MAX_HEADER_BYTES = 64 * 1024


def busy_response() -> bytes:
    body = json.dumps(too_many_requests().body()).encode("utf-8")
    head = (
        "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


class BusyRefuser:
    """A thread that reads a refused connection's request briefly (so closing it does not reset the
    answer away), answers 429 and closes it. Beyond ``REFUSAL_QUEUE`` waiting, connections are closed."""

    def __init__(self) -> None:
        self._queue: queue.Queue[socket.socket | None] = queue.Queue(REFUSAL_QUEUE)
        self._thread: threading.Thread | None = None
        self.refused = 0

    def start(self) -> None:
        self._thread = threading.Thread(target=self._work, name="api-busy", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        with contextlib.suppress(queue.Full):
            self._queue.put(None, timeout=1.0)
        if self._thread is not None:
            self._thread.join(5.0)
        self._thread = None

    def refuse(self, connection: socket.socket) -> None:
        self.refused += 1
        try:
            self._queue.put_nowait(connection)
        except queue.Full:
            _close(connection)

    def _work(self) -> None:
        while (connection := self._queue.get()) is not None:
            try:
                _read_headers(connection, time.monotonic() + READ_GRACE_S)
                connection.sendall(busy_response())
            except OSError:
                pass
            _close(connection)


def _read_headers(connection: socket.socket, deadline: float) -> None:
    received = b""
    while b"\r\n\r\n" not in received and len(received) < _MAX_HEADER_BYTES:
        left = deadline - time.monotonic()
        if left <= 0:
            return
        connection.settimeout(left)
        try:
            piece = connection.recv(4096)
        except TimeoutError:
            return
        if not piece:
            return
        received += piece


def _close(connection: socket.socket) -> None:
    with contextlib.suppress(OSError):
        connection.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        connection.close()
