"""Remote backend protocol handling against a scripted HTTP server on 127.0.0.1: retries, SSE, lost connections.

The happy paths run against a real `vllm serve` in tests/integration/test_remote_engine.py;
here a stdlib server plays the failures a real one cannot be made to produce on demand.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from app.core.engines.backends.remote import MIN_WORKERS, RemoteEngine, approximate_token_count
from app.core.engines.backends.remote_http import RemoteError, parse_endpoint
from app.core.engines.base import EngineConfig, EngineDeadError, ModelLoadError, RemoteTarget
from app.core.engines.requests import GREEDY, ChatRequest

Script = Callable[[BaseHTTPRequestHandler, int], None]


def chunk(text: str | None = None, finish: str | None = None, usage: dict[str, int] | None = None) -> bytes:
    choices = [] if usage else [{"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}]
    event: dict[str, object] = {"choices": choices}
    if usage:
        event["usage"] = usage
    return b"data: " + json.dumps(event).encode() + b"\n\n"


class ScriptedServer:
    """An HTTP server whose chat answers follow ``script(handler, attempt)``; /v1/models lists "tiny"."""

    def __init__(self, script: Script) -> None:
        self.chat_attempts = 0
        self.bodies: list[dict[str, object]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return None

            def do_GET(self) -> None:
                body = json.dumps({"data": [{"id": "tiny", "owned_by": "someone"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                if self.path.endswith("/tokenize"):
                    self.send_error(404)
                    return
                server.chat_attempts += 1
                server.bodies.append(payload)
                script(self, server.chat_attempts)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def start_stream(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()


def good_answer(handler: BaseHTTPRequestHandler, attempt: int) -> None:
    start_stream(handler)
    for word in ("Hello", " there", " friend"):
        handler.wfile.write(chunk(word))
    handler.wfile.write(chunk(finish="stop"))
    handler.wfile.write(chunk(usage={"prompt_tokens": 7, "completion_tokens": 3}))
    handler.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture()
def serve() -> Iterator[Callable[[Script], ScriptedServer]]:
    servers: list[ScriptedServer] = []

    def start(script: Script) -> ScriptedServer:
        servers.append(ScriptedServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def connect(url: str, model: str = "tiny", **options: object) -> RemoteEngine:
    engine = RemoteEngine()
    target = RemoteTarget(url, **{"retries": 3, "backoff_s": 0.01, **options})  # type: ignore[arg-type]
    engine.load(EngineConfig(Path(model), 1024, remote=target))
    return engine


def test_retries_server_errors_before_the_first_token(serve: Callable[[Script], ScriptedServer]) -> None:
    def flaky(handler: BaseHTTPRequestHandler, attempt: int) -> None:
        if attempt <= 2:
            handler.send_error(503, "warming up")
            return
        good_answer(handler, attempt)

    server = serve(flaky)
    engine = connect(server.url)
    stream = engine.submit(ChatRequest.single_prompt("hi", GREEDY))
    assert "".join(stream) == "Hello there friend"
    assert server.chat_attempts == 3
    assert stream.metrics.generated_tokens == 3 and stream.metrics.prompt_tokens == 7
    assert stream.finish_reason == "stop"
    engine.unload()


def test_gives_up_after_the_retries_with_the_servers_reason(serve: Callable[[Script], ScriptedServer]) -> None:
    server = serve(lambda handler, attempt: handler.send_error(500, "model crashed"))
    engine = connect(server.url)
    stream = engine.submit(ChatRequest.single_prompt("hi", GREEDY))
    assert stream.wait(10) and stream.finish_reason == "error"
    assert isinstance(stream.error, RemoteError) and "HTTP 500" in str(stream.error)
    assert server.chat_attempts == 4  # the first try and 3 retries
    engine.unload()


def test_a_connection_lost_mid_answer_keeps_the_text_and_says_the_engine_is_gone(
    serve: Callable[[Script], ScriptedServer],
) -> None:
    def dies(handler: BaseHTTPRequestHandler, attempt: int) -> None:
        start_stream(handler)
        handler.wfile.write(chunk("partial"))
        handler.wfile.flush()
        handler.close_connection = True

    server = serve(dies)
    engine = connect(server.url)
    stream = engine.submit(ChatRequest.single_prompt("hi", GREEDY))
    assert stream.wait(10)
    assert stream.text == "partial" and isinstance(stream.error, EngineDeadError)
    assert server.chat_attempts == 1  # never retried once text was shown
    engine.unload()


def test_cancel_closes_a_slow_stream_at_once_and_keeps_its_text(serve: Callable[[Script], ScriptedServer]) -> None:
    def slow(handler: BaseHTTPRequestHandler, attempt: int) -> None:
        start_stream(handler)  # "Connection: close": http.client hands the socket to the response
        try:
            for _ in range(200):
                handler.wfile.write(chunk("word "))
                handler.wfile.flush()
                time.sleep(0.05)
        except OSError:  # the client hung up
            return

    server = serve(slow)
    engine = connect(server.url)
    stream = engine.submit(ChatRequest.single_prompt("hi", GREEDY))
    deadline = time.monotonic() + 5
    while "word word" not in stream.text and time.monotonic() < deadline:
        time.sleep(0.01)
    cancelled_at = time.monotonic()
    stream.cancel()
    assert stream.wait(10) and time.monotonic() - cancelled_at < 3  # the server alone would stream for ~10 s more
    assert stream.finish_reason == "cancelled" and stream.error is None
    assert stream.text.startswith("word word") and stream.metrics.generated_tokens < 100
    deadline = time.monotonic() + 10
    while engine.metrics().running_requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert engine.metrics().running_requests == 0
    engine.unload()


def test_unload_ends_requests_still_queued_for_a_worker(serve: Callable[[Script], ScriptedServer]) -> None:
    release = threading.Event()

    def held(handler: BaseHTTPRequestHandler, attempt: int) -> None:
        start_stream(handler)
        try:
            handler.wfile.write(chunk("word "))
            handler.wfile.flush()
            release.wait(30)
        except OSError:
            return

    server = serve(held)
    engine = connect(server.url)  # MIN_WORKERS workers
    streams = [engine.submit(ChatRequest.single_prompt(f"hi {index}", GREEDY)) for index in range(MIN_WORKERS + 2)]
    deadline = time.monotonic() + 10
    while len(server.bodies) < MIN_WORKERS and time.monotonic() < deadline:  # every worker is busy
        time.sleep(0.01)
    engine.unload()
    release.set()
    assert all(stream.finished for stream in streams)  # the two never started are ended too, not left waiting
    assert {stream.finish_reason for stream in streams} == {"cancelled"}


def test_plain_openai_servers_get_no_vllm_only_fields(serve: Callable[[Script], ScriptedServer]) -> None:
    server = serve(good_answer)
    engine = connect(server.url)
    assert engine.submit(ChatRequest.single_prompt("hi", GREEDY)).wait(10)
    body = server.bodies[-1]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert "top_k" not in body and "min_p" not in body  # "owned_by" is not vllm
    text = "hello world, 你好"  # 13 ASCII characters (4 tokens) and 2 CJK ones (2 tokens)
    assert engine.count_tokens(text) == approximate_token_count(text) == 4 + 2
    engine.unload()


def test_wrong_model_name_lists_what_the_server_has(serve: Callable[[Script], ScriptedServer]) -> None:
    server = serve(good_answer)
    with pytest.raises(ModelLoadError, match="does not serve the model 'llama'") as raised:
        connect(server.url, model="llama")
    assert raised.value.cause == "not_a_model" and raised.value.hint is not None and "tiny" in raised.value.hint


def test_nothing_listening_is_a_clear_error_after_retries() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ModelLoadError, match="connection refused") as raised:
        connect(f"http://127.0.0.1:{port}/v1")
    assert raised.value.hint is not None and "address" in raised.value.hint


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://192.0.2.1:8000/v1", ("http", "192.0.2.1", 8000, "/v1")),
        ("http://server:8000", ("http", "server", 8000, "/v1")),
        ("https://api.example.org/openai/v1/", ("https", "api.example.org", 443, "/openai/v1")),
        ("localhost:9000/v1", ("http", "localhost", 9000, "/v1")),
    ],
)
def test_endpoint_addresses(url: str, expected: tuple[str, str, int, str]) -> None:
    endpoint = parse_endpoint(url)
    assert (endpoint.scheme, endpoint.host, endpoint.port, endpoint.api_base) == expected


@pytest.mark.parametrize("url", ["", "ftp://server/v1", "http://:80/v1", "http://server:99999/v1"])
def test_bad_addresses_are_refused(url: str) -> None:
    with pytest.raises(RemoteError):
        parse_endpoint(url)


def test_the_manager_loads_a_remote_model_by_name_and_reports_a_failure(
    serve: Callable[[Script], ScriptedServer],
) -> None:
    from app.core.config import Settings
    from app.core.engines.manager import EngineManager, ManagerState
    from tests.core.planner.fake_hardware import cpu_only

    server = serve(good_answer)
    settings = Settings.defaults().with_changes({"engine.backend": "remote", "engine.remote_url": server.url})
    manager = EngineManager(lambda: cpu_only(), lambda: settings)
    loaded = manager.load(Path("tiny"))  # no file, no plan: the model's name on the server
    assert loaded.backend == "remote" and loaded.model_name == "tiny"
    assert server.chat_attempts == 1  # the warm-up request
    assert "".join(manager.submit(ChatRequest.single_prompt("hi", GREEDY))) == "Hello there friend"
    with pytest.raises(ModelLoadError, match="does not serve the model 'other'"):
        manager.load(Path("other"))
    assert manager.status().state is ManagerState.FAILED and manager.engine is None
