"""ApiServer: the OpenAI-compatible HTTP server on 127.0.0.1, running on its own threads."""

from __future__ import annotations

import errno
import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from typing import Any, Protocol

from app.core.engines.manager import EngineManager
from app.core.services.api.busy import BusyRefuser
from app.core.services.api.limits import ApiLimits, ReadDeadlines
from app.core.util.errors import UserFacingError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
MAX_BODY_BYTES = 8 * 1024 * 1024
RECENT_REQUESTS = 200
STOP_TIMEOUT_S = 5.0


class TextEmbedder(Protocol):
    """What /v1/embeddings needs of the knowledge base's embedder."""

    @property
    def model_name(self) -> str: ...

    @property
    def max_seq_length(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> Any: ...


@dataclass(frozen=True)
class ApiRequestRecord:
    """How one API request went (kept for the status view and tests)."""

    method: str
    path: str
    status: int
    error_code: str | None = None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    client_disconnected: bool = False
    seconds: float = 0.0


class _HttpServer(ThreadingHTTPServer):
    """One thread per connection, at most ``api.limits.max_requests`` at once; the rest get a 429."""

    daemon_threads = True
    api: ApiServer

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.api.slots.acquire(blocking=False):
            self.api.refuser.refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.api.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.api.slots.release()


class ApiServer:
    """Serves /v1/models, /v1/chat/completions (streaming and not) and /v1/embeddings.

    Bound to 127.0.0.1 only, every request needs the bearer ``token`` and a loopback Host, and none may
    come from a browser page (an Origin header). ``limits`` bounds connections, read times and answers. Chat requests go
    through ``manager`` like the window's own, so both run side by side as separate sequences.
    ``embedder`` (optional) supplies the knowledge base's embedding model on first use.
    """

    def __init__(
        self,
        manager: EngineManager,
        token: str,
        *,
        embedder: Callable[[], TextEmbedder] | None = None,
        port: int = 8765,
        max_body_bytes: int = MAX_BODY_BYTES,
        limits: ApiLimits | None = None,
    ) -> None:
        if not token:
            raise ValueError("the API needs a token")
        self.manager = manager
        self.token = token
        self.embedder = embedder
        self.max_body_bytes = max_body_bytes
        self.limits = limits or ApiLimits()
        self.slots = threading.BoundedSemaphore(self.limits.max_requests)
        self.deadlines = ReadDeadlines()
        self.refuser = BusyRefuser()
        self._requested_port = port
        self._httpd: _HttpServer | None = None
        self._thread: threading.Thread | None = None
        self._records: deque[ApiRequestRecord] = deque(maxlen=RECENT_REQUESTS)
        self._records_lock = threading.Lock()

    def start(self) -> ApiServer:
        """Bind and serve on a background thread; raises UserFacingError if the port is taken."""
        from app.core.services.api.handler import ApiRequestHandler

        if self._httpd is not None:
            return self
        try:
            httpd = _HttpServer((LOOPBACK, self._requested_port), ApiRequestHandler)
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise UserFacingError(
                    Text("LocalApi", QT_TRANSLATE_NOOP("LocalApi", "Port {0} on {1} is already in use."),
                         (self._requested_port, LOOPBACK)),
                    Text("LocalApi", QT_TRANSLATE_NOOP(
                        "LocalApi", "Choose another port (unidesk serve --port N, or api.port in Settings).")),
                ) from error
            where = f"{LOOPBACK}:{self._requested_port}"
            raise UserFacingError(Text("LocalApi", QT_TRANSLATE_NOOP(
                "LocalApi", "The local API cannot listen on {0} ({1})."), (where, str(error)))) from error
        httpd.api = self
        self._httpd = httpd
        self.deadlines.start()
        self.refuser.start()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, name="api-server", daemon=True
        )
        self._thread.start()
        log.info("local API listening on %s", self.url)
        return self

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            return self._requested_port
        return int(self._httpd.server_address[1])

    @property
    def host(self) -> str:
        """The address the socket is bound to (always the loopback address)."""
        return str(self._httpd.server_address[0]) if self._httpd is not None else LOOPBACK

    @property
    def url(self) -> str:
        """The base URL clients use (``.../v1``)."""
        return f"http://{LOOPBACK}:{self.port}/v1"

    def stop(self) -> None:
        """Stop accepting requests and close the socket (running answers finish on their threads)."""
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(STOP_TIMEOUT_S)
            self.deadlines.stop()
            self.refuser.stop()

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def record(self, entry: ApiRequestRecord) -> None:
        with self._records_lock:
            self._records.append(entry)

    def recent_requests(self) -> list[ApiRequestRecord]:
        """The last requests, oldest first."""
        with self._records_lock:
            return list(self._records)

    def chat_model_names(self) -> tuple[str, ...]:
        """Names a client may use for the loaded model: its name, its file name and file stem."""
        loaded = self.manager.status().loaded
        if loaded is None:
            return ()
        path = loaded.config.model_path
        return tuple(dict.fromkeys((loaded.model_name, path.name, path.stem)))
