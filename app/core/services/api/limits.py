"""What keeps the local API from being held or misused: request caps, read deadlines, loopback-only callers."""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import threading
import time
from dataclasses import dataclass

from app.core.engines.stream import RequestStream

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WATCH_STEP_S = 0.1


@dataclass(frozen=True)
class ApiLimits:
    """Bounds of the local API.

    ``max_requests``: connections served at once (one thread each); more are answered 429 at once.
    ``header_timeout_s`` / ``body_timeout_s``: the whole time a client may take to send a request's
    headers (also the idle time between requests on a kept-alive connection) and its body; a slow
    client is cut off, it cannot hold a thread. ``default_max_tokens``: the answer's length when the
    request names none (capped by the room left in the context). ``stall_timeout_s``: an answer that
    produces nothing for this long is cancelled and reported as an error.
    """

    max_requests: int = 8
    header_timeout_s: float = 20.0
    body_timeout_s: float = 60.0
    default_max_tokens: int = 2048
    stall_timeout_s: float = 300.0

    def __post_init__(self) -> None:
        if self.max_requests < 1 or self.default_max_tokens < 1:
            raise ValueError("the API needs room for at least one request and one token")


def is_loopback_host(host_header: str | None) -> bool:
    """Whether a Host header names this machine's loopback (``localhost``, ``127.x``, ``[::1]``, any port).

    A page in a browser can make a name it controls resolve to 127.0.0.1 (DNS rebinding); its requests
    then carry that name, not a loopback one, and are refused.
    """
    if not host_header:
        return False
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class StallWatch:
    """Notices an answer that stopped producing: no new token (or text, or end) for ``timeout_s``."""

    def __init__(self, stream: RequestStream, timeout_s: float) -> None:
        self._stream = stream
        self._timeout_s = timeout_s
        self._seen = self._progress()
        self._since = time.monotonic()

    def _progress(self) -> tuple[int, int, int]:
        metrics = self._stream.metrics
        return metrics.prompt_tokens, metrics.generated_tokens, len(self._stream.text)

    def stalled(self) -> bool:
        progress = self._progress()
        now = time.monotonic()
        if progress != self._seen:
            self._seen, self._since = progress, now
        return now - self._since > self._timeout_s


class ReadDeadlines:
    """Cuts off connections whose client did not finish sending in time (a watchdog thread).

    :meth:`arm` gives a connection until a point in time; :meth:`disarm` ends the watch. An expired
    connection is shut down, so the thread blocked reading from it wakes and ends the request.
    """

    def __init__(self) -> None:
        self._deadlines: dict[socket.socket, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.expired = 0

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._watch, name="api-read-deadlines", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5.0)
        self._thread = None

    def arm(self, connection: socket.socket, seconds: float) -> None:
        with self._lock:
            self._deadlines[connection] = time.monotonic() + seconds

    def disarm(self, connection: socket.socket) -> None:
        with self._lock:
            self._deadlines.pop(connection, None)

    def _watch(self) -> None:
        while not self._stop.wait(_WATCH_STEP_S):
            now = time.monotonic()
            with self._lock:
                late = [connection for connection, deadline in self._deadlines.items() if deadline <= now]
                for connection in late:
                    del self._deadlines[connection]
            for connection in late:
                self.expired += 1
                log.info("api: a client took too long to send its request; connection closed")
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
