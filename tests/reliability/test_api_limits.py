"""The local API's limits, against the real server and a real llama.cpp engine on loopback: a cap on connections
(429 beyond), deadlines for headers and body, loopback Host only, no browser Origin, a default answer length,
and answers that stall or lose their client are cancelled."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatRequest
from app.core.engines.stream import RequestStream
from app.core.services.api.auth import api_token
from app.core.services.api.limits import ApiLimits, is_loopback_host
from app.core.services.api.server import ApiServer
from tests.integration.answering_support import load_manager, wait_until

TIMEOUT_S = 60.0
LIMITS = ApiLimits(max_requests=2, header_timeout_s=2.0, body_timeout_s=2.0, default_max_tokens=5,
                   stall_timeout_s=1.5)


class StallingManager(EngineManager):
    """The real manager, but chat requests go to a stream no engine ever writes to (an engine that hangs)."""

    def __init__(self, real: EngineManager) -> None:
        self.__dict__.update(real.__dict__)
        self.stalled: list[RequestStream] = []
        self.cancelled: list[str] = []

    def submit(self, request: ChatRequest) -> RequestStream:
        stream = RequestStream(request.request_id, cancel=self.cancelled.append)
        self.stalled.append(stream)
        return stream


@pytest.fixture(scope="module")
def manager(tiny_gguf: Path) -> Iterator[EngineManager]:
    loaded = load_manager(tiny_gguf, 1024, 2, threads=1)
    yield loaded
    loaded.unload()


@pytest.fixture
def server(manager: EngineManager, tmp_path: Path) -> Iterator[ApiServer]:
    with ApiServer(manager, api_token(tmp_path), port=0, limits=LIMITS) as running:
        yield running


def request(server: ApiServer, method: str, path: str, body: Any = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT_S)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=payload,
                           headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json",
                                    **(headers or {})})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


def chat_body(server: ApiServer, **extra: Any) -> dict[str, Any]:
    return {"model": server.chat_model_names()[0], "messages": [{"role": "user", "content": "Hi"}],
            "temperature": 0, **extra}


def closed_by_server(client: socket.socket, keep_sending: bytes | None = None) -> bool:
    """Whether the server closed ``client`` within the test timeout (while it trickles ``keep_sending``)."""
    client.settimeout(0.5)
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if keep_sending:
                client.sendall(keep_sending)
            if client.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_beyond_the_cap_a_client_gets_429_at_once_and_slow_clients_are_cut_off(server: ApiServer) -> None:
    slow = [socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S) for _ in range(2)]
    try:
        for client in slow:
            client.sendall(b"GET /v1/models HTTP/1.1\r\n")  # headers that never finish
        wait_until(lambda: server.slots._value == 0, "both slots taken", timeout_s=TIMEOUT_S)  # type: ignore[attr-defined]
        status, body = request(server, "GET", "/v1/models")
        assert status == 429 and body["error"]["code"] == "too_many_requests"
        # Each slow client keeps trickling bytes (a per-read timeout would never fire) and is still cut off.
        assert all(closed_by_server(client, keep_sending=b"X") for client in slow)
    finally:
        for client in slow:
            client.close()
    assert server.deadlines.expired >= 2
    wait_until(lambda: request(server, "GET", "/v1/models")[0] == 200, "the freed slots to serve again",
               timeout_s=TIMEOUT_S)


def test_a_body_that_never_arrives_is_cut_off(server: ApiServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S) as client:
        client.sendall(f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                       f"{server.token}\r\nContent-Length: 1000\r\n\r\n{{".encode())
        assert closed_by_server(client, keep_sending=b" ")
    assert server.deadlines.expired >= 1


@pytest.mark.parametrize("headers", [{"Host": "evil.example"}, {"Host": "127.0.0.1.evil.example:80"},
                                     {"Origin": "https://evil.example"}, {"Origin": "null"}])
def test_requests_from_web_pages_or_foreign_hosts_are_refused(server: ApiServer, headers: dict[str, str]) -> None:
    status, body = request(server, "POST", "/v1/chat/completions", chat_body(server, max_tokens=2), headers)
    assert status == 403 and body["error"]["code"] == "forbidden"
    assert request(server, "GET", "/v1/models", headers={"Host": f"localhost:{server.port}"})[0] == 200


def test_loopback_host_names() -> None:
    for host in ("127.0.0.1", "127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765", "::1", "127.1.2.3"):
        assert is_loopback_host(host), host
    for host in (None, "", "evil.example", "localhost.evil.example", "192.168.1.2", "[::2]", "0.0.0.0"):
        assert not is_loopback_host(host), host


def test_an_answer_without_max_tokens_gets_the_default_length(server: ApiServer) -> None:
    status, body = request(server, "POST", "/v1/chat/completions", chat_body(server))
    assert status == 200, body
    assert body["usage"]["completion_tokens"] == LIMITS.default_max_tokens
    assert body["choices"][0]["finish_reason"] == "length"


def test_an_engine_that_never_answers_is_given_up_on(manager: EngineManager, tmp_path: Path) -> None:
    stalling = StallingManager(manager)
    with ApiServer(stalling, api_token(tmp_path), port=0, limits=LIMITS) as server:
        status, body = request(server, "POST", "/v1/chat/completions", chat_body(server, max_tokens=5))
        assert status == 504 and body["error"]["code"] == "engine_stalled"
        assert stalling.cancelled == [stalling.stalled[0].request_id]

        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=TIMEOUT_S)
        connection.request("POST", "/v1/chat/completions", json.dumps(chat_body(server, max_tokens=5, stream=True)),
                           {"Authorization": f"Bearer {server.token}"})
        events = connection.getresponse().read().decode()
        connection.close()
        assert '"code": "engine_stalled"' in events and events.rstrip().endswith("data: [DONE]")
        assert stalling.cancelled[-1] == stalling.stalled[1].request_id


def test_a_client_that_leaves_a_stalled_stream_cancels_it(manager: EngineManager, tmp_path: Path) -> None:
    stalling = StallingManager(manager)
    patient = ApiLimits(stall_timeout_s=600.0)  # only the client's departure can end it
    with ApiServer(stalling, api_token(tmp_path), port=0, limits=patient) as server:
        client = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT_S)
        body = json.dumps(chat_body(server, max_tokens=5, stream=True)).encode()
        client.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                       + server.token.encode() + f"\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        assert client.recv(15).startswith(b"HTTP/1.1 200")
        wait_until(lambda: bool(stalling.stalled), "the request to reach the engine", timeout_s=TIMEOUT_S)
        client.close()
        wait_until(lambda: stalling.cancelled == [stalling.stalled[0].request_id], "the stream to be cancelled",
                   timeout_s=TIMEOUT_S)
        wait_until(lambda: any(record.client_disconnected for record in server.recent_requests()),
                   "the request to be recorded", timeout_s=TIMEOUT_S)


def test_parallel_clients_beyond_the_cap_each_complete_or_are_refused(server: ApiServer) -> None:
    results: list[int] = []
    lock = threading.Lock()

    def call() -> None:
        status, _ = request(server, "POST", "/v1/chat/completions", chat_body(server, max_tokens=3))
        with lock:
            results.append(status)

    threads = [threading.Thread(target=call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT_S * 2)
    assert len(results) == 12 and set(results) <= {200, 429} and 200 in results
