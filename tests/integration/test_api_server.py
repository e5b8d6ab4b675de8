"""The local OpenAI-compatible API, called with the official `openai` client against the real server.

The server runs a real llama.cpp engine with a tiny model and the bundled MiniLM embedder. Tests that
act while an answer runs use a second server over a model that decodes slowly, so the answer is still
running when they act, however fast or busy the machine.
"""

from __future__ import annotations

import base64
import http.client
import itertools
import json
import math
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.services.api.auth import api_token, token_path
from app.core.services.api.limits import ApiLimits
from app.core.services.api.server import ApiRequestRecord, ApiServer
from app.core.util.errors import UserFacingError
from tests.fixtures.gguf_models import SLOW_DECODE_SHAPE
from tests.fixtures.knowledge_base import shared_embedder_pool
from tests.fixtures.models import GgufFactory
from tests.integration.answering_support import greedy, load_manager, wait_until

pytestmark = pytest.mark.integration
EMBEDDING_MODEL = "all-MiniLM-L6-v2"
MAX_BODY = 256 * 1024
CONTEXT = 1024
SLOW_CONTEXT = 4096
"""The slow server's context: an answer left open-ended runs for ~4000 tokens, many seconds on that model."""


@pytest.fixture(scope="module")
def manager(tiny_gguf: Path) -> Iterator[EngineManager]:
    # one thread: llama.cpp's worker threads spin-wait, which crawls on a busy 2-core machine
    loaded = load_manager(tiny_gguf, CONTEXT, parallel_chats=2, threads=1)
    yield loaded
    loaded.unload()


@pytest.fixture(scope="module")
def server(manager: EngineManager, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    token = api_token(tmp_path_factory.mktemp("api-data"))
    embedder = shared_embedder_pool().get(EMBEDDING_MODEL)
    embedder.embed_documents(["warm up"])  # load MiniLM here, not inside a client's 60-second timeout
    with ApiServer(manager, token, embedder=lambda: embedder, port=0,
                   max_body_bytes=MAX_BODY) as running:
        yield running


@pytest.fixture(scope="module")
def client(server: ApiServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key=server.token, max_retries=0, timeout=60)


@pytest.fixture(scope="module")
def slow_manager(tiny_gguf_factory: GgufFactory) -> Iterator[EngineManager]:
    """llama.cpp on one thread with a model that decodes a few hundred tokens a second."""
    loaded = load_manager(tiny_gguf_factory(SLOW_DECODE_SHAPE), SLOW_CONTEXT, parallel_chats=2, threads=1)
    yield loaded
    loaded.unload()


@pytest.fixture(scope="module")
def slow_server(slow_manager: EngineManager, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    token = api_token(tmp_path_factory.mktemp("slow-api-data"))
    # answers without max_tokens run to the end of the context (not the API's default length)
    with ApiServer(slow_manager, token, port=0, max_body_bytes=MAX_BODY,
                   limits=ApiLimits(default_max_tokens=SLOW_CONTEXT)) as running:
        yield running


def model_name(manager: EngineManager) -> str:
    loaded = manager.status().loaded
    assert loaded is not None
    return loaded.model_name


def raw_request(
    server: ApiServer, method: str, path: str, body: bytes | None = None, *, token: str | None = "server",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent_headers = {"Content-Type": "application/json", **(headers or {})}
    if token is not None:
        sent_headers["Authorization"] = f"Bearer {server.token if token == 'server' else token}"
    try:
        connection.request(method, path, body=body, headers=sent_headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def wait_for_record(server: ApiServer, predicate: Callable[[ApiRequestRecord], bool]) -> ApiRequestRecord:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = [record for record in server.recent_requests() if predicate(record)]
        if found:
            return found[-1]
        time.sleep(0.05)
    raise AssertionError(f"no such request among {server.recent_requests()}")


def running_requests(manager: EngineManager) -> int:
    metrics = manager.metrics()
    assert metrics is not None
    return metrics.running_requests


def wait_until_idle(manager: EngineManager) -> None:
    wait_until(lambda: running_requests(manager) == 0, "the engine to have no running request", timeout_s=10)


def direct_answer(manager: EngineManager, content: str, max_tokens: int) -> str:
    stream = manager.submit(ChatRequest((ChatMessage("user", content),), greedy(max_tokens)))
    assert stream.wait(60)
    return stream.text


def test_it_listens_on_loopback_only(server: ApiServer) -> None:
    assert server.url.startswith("http://127.0.0.1:") and server.host == "127.0.0.1"
    hosts = {info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)} - {"127.0.0.1"}
    for host in hosts:
        with pytest.raises(OSError), socket.create_connection((host, server.port), timeout=2):
            pass


def test_models_list_and_retrieve(client: openai.OpenAI, manager: EngineManager) -> None:
    ids = [model.id for model in client.models.list()]
    assert ids == [model_name(manager), EMBEDDING_MODEL]
    assert client.models.retrieve(model_name(manager)).id == model_name(manager)
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("gpt-9")


def test_chat_completion_matches_the_engine(client: openai.OpenAI, manager: EngineManager) -> None:
    completion = client.chat.completions.create(
        model=model_name(manager), messages=[{"role": "user", "content": "Hello there"}], temperature=0,
        max_tokens=12,
    )
    choice = completion.choices[0]
    assert choice.message.role == "assistant" and choice.finish_reason == "length"
    assert choice.message.content == direct_answer(manager, "Hello there", 12)
    assert completion.usage is not None and completion.usage.completion_tokens == 12
    assert completion.usage.prompt_tokens > 0
    assert completion.usage.total_tokens == completion.usage.prompt_tokens + 12
    # the model file's name works as the model name too
    loaded = manager.status().loaded
    assert loaded is not None
    by_file = client.chat.completions.create(
        model=loaded.config.model_path.name, messages=[{"role": "user", "content": "Hello there"}], temperature=0,
        max_tokens=12,
    )
    assert by_file.choices[0].message.content == choice.message.content


def test_streaming_chat_completion(
    client: openai.OpenAI, manager: EngineManager, pushed_pieces: dict[str, list[str]]
) -> None:
    stream = client.chat.completions.create(
        model=model_name(manager), messages=[{"role": "system", "content": "Be brief."},
                                             {"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        temperature=0, max_tokens=200, stream=True, stream_options={"include_usage": True},
    )
    chunks = list(stream)
    deltas = [chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices]
    reasons = [chunk.choices[0].finish_reason for chunk in chunks if chunk.choices]
    assert chunks[0].choices[0].delta.role == "assistant"
    assert reasons[-1] == "length" and all(reason is None for reason in reasons[:-1])
    expected = manager.submit(ChatRequest(
        (ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")), greedy(200)))
    assert expected.wait(60)
    assert "".join(deltas) == expected.text
    # The engine delivered the answer in pieces (how many deltas a client gets depends on how fast the
    # server reads), and every delta is a run of whole pieces: the server forwards them, never re-cuts them.
    pieces = pushed_pieces[chunks[0].id.removeprefix("chatcmpl-")]
    assert len(pieces) >= 2 and "".join(pieces) == "".join(deltas)
    piece_ends = set(itertools.accumulate(len(piece) for piece in pieces))
    assert set(itertools.accumulate(len(delta) for delta in deltas if delta)) <= piece_ends
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.completion_tokens == 200


def test_embeddings_match_the_knowledge_base_embedder(client: openai.OpenAI) -> None:
    texts = ["Bees dance to share where flowers are.", "大熊猫吃竹子。"]
    response = client.embeddings.create(model=EMBEDDING_MODEL, input=texts)  # the client asks for base64
    vectors = [item.embedding for item in response.data]
    expected = shared_embedder_pool().get(EMBEDDING_MODEL).embed_documents(texts)
    assert [item.index for item in response.data] == [0, 1] and len(vectors[0]) == 384
    for vector, reference in zip(vectors, expected, strict=True):
        assert math.isclose(sum(value * value for value in vector), 1.0, rel_tol=1e-3)
        assert max(abs(a - float(b)) for a, b in zip(vector, reference, strict=True)) < 1e-4
    assert response.usage.prompt_tokens > 0
    single = client.embeddings.create(model=EMBEDDING_MODEL, input="hello", encoding_format="float")
    assert len(single.data) == 1 and len(single.data[0].embedding) == 384


def test_embeddings_base64_wire_format(server: ApiServer) -> None:
    body = json.dumps({"model": EMBEDDING_MODEL, "input": "hello", "encoding_format": "base64"}).encode()
    status, document = raw_request(server, "POST", "/v1/embeddings", body)
    assert status == 200
    raw = base64.b64decode(document["data"][0]["embedding"])
    values = struct.unpack(f"<{len(raw) // 4}f", raw)
    assert len(values) == 384 and math.isclose(sum(v * v for v in values), 1.0, rel_tol=1e-3)


def test_authentication_errors(server: ApiServer, manager: EngineManager) -> None:
    status, document = raw_request(server, "GET", "/v1/models", token=None)
    assert status == 401 and document["error"]["code"] == "missing_api_key"
    assert set(document["error"]) == {"message", "type", "param", "code"}
    wrong = openai.OpenAI(base_url=server.url, api_key="not-the-token", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        wrong.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": "x"}])
    assert caught.value.status_code == 401 and caught.value.code == "invalid_api_key"


def test_request_errors_are_openai_shaped_and_the_server_survives(
    server: ApiServer, client: openai.OpenAI, manager: EngineManager
) -> None:
    status, document = raw_request(server, "POST", "/v1/chat/completions", b'{"model": "x", "messages": [')
    assert status == 400 and document["error"]["code"] == "invalid_json"
    assert document["error"]["type"] == "invalid_request_error"

    with pytest.raises(openai.NotFoundError) as not_found:
        client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "x"}])
    assert not_found.value.code == "model_not_found"

    with pytest.raises(openai.BadRequestError) as too_many:
        client.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": "x"}],
                                       max_tokens=CONTEXT * 4)
    assert too_many.value.code == "context_length_exceeded" and f"{CONTEXT} tokens" in too_many.value.message

    with pytest.raises(openai.BadRequestError) as too_long:
        client.chat.completions.create(model=model_name(manager),
                                       messages=[{"role": "user", "content": "word " * (CONTEXT * 2)}])
    assert too_long.value.code == "context_length_exceeded" and too_long.value.param == "messages"

    with pytest.raises(openai.BadRequestError) as bad_value:
        client.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": "x"}],
                                       temperature=5)
    assert bad_value.value.param == "temperature"

    with pytest.raises(openai.BadRequestError) as bad_role:
        client.chat.completions.create(model=model_name(manager), messages=[{"role": "tool", "content": "x"}])
    assert bad_role.value.param == "messages[0].role"

    with pytest.raises(openai.BadRequestError) as two_answers:
        client.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": "x"}], n=2)
    assert two_answers.value.param == "n"
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    with pytest.raises(openai.BadRequestError, match="only text content"):
        client.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": [image]}])

    with pytest.raises(openai.NotFoundError):
        client.embeddings.create(model=model_name(manager), input="x")
    with pytest.raises(openai.BadRequestError, match="reads at most"):
        client.embeddings.create(model=EMBEDDING_MODEL, input="word " * 2000)

    status, document = raw_request(server, "GET", "/v1/nothing-here")
    assert status == 404 and document["error"]["code"] == "unknown_url"
    status, document = raw_request(server, "GET", "/v1/chat/completions")
    assert status == 405

    status, document = raw_request(server, "POST", "/v1/chat/completions", None,
                                   headers={"Content-Length": str(MAX_BODY + 1)})
    assert status == 413 and document["error"]["code"] == "request_too_large"

    after = client.chat.completions.create(model=model_name(manager), messages=[{"role": "user", "content": "ok"}],
                                           temperature=0, max_tokens=4)
    assert after.choices[0].finish_reason == "length"
    codes = [record.error_code for record in server.recent_requests()]
    assert {"invalid_json", "model_not_found", "context_length_exceeded", "request_too_large"} <= set(codes)


def _start_stream(server: ApiServer, manager: EngineManager, stream: bool) -> socket.socket:
    body = json.dumps({"model": model_name(manager), "messages": [{"role": "user", "content": f"go {stream}"}],
                       "temperature": 0, "stream": stream}).encode()
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    connection.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Authorization: Bearer {server.token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body
    )
    return connection


def test_client_disconnect_mid_stream_cancels_the_request(slow_server: ApiServer, slow_manager: EngineManager) -> None:
    wait_until_idle(slow_manager)
    connection = _start_stream(slow_server, slow_manager, True)
    received = b""
    while received.count(b"data: ") < 3:  # the role, then two pieces of text
        data = connection.recv(4096)
        assert data, f"the server ended the stream early: {received[-300:]!r}"
        received += data
    assert b"[DONE]" not in received and running_requests(slow_manager) == 1, "the answer should still be running"
    connection.close()
    record = wait_for_record(slow_server, lambda r: r.client_disconnected and r.path == "/v1/chat/completions"
                             and r.finish_reason is not None)
    # left alone the answer would fill the context (~4000 tokens, many seconds): it stopped soon after the close
    assert record.finish_reason == "cancelled" and record.completion_tokens < SLOW_CONTEXT // 2
    wait_until_idle(slow_manager)


def test_client_disconnect_while_waiting_for_a_whole_answer_cancels_it(
    slow_server: ApiServer, slow_manager: EngineManager
) -> None:
    wait_until_idle(slow_manager)
    before = len(slow_server.recent_requests())
    connection = _start_stream(slow_server, slow_manager, False)
    wait_until(lambda: running_requests(slow_manager) == 1, "the request to start running")
    connection.close()
    record = wait_for_record(slow_server, lambda r: r.client_disconnected and r.finish_reason is not None
                             and slow_server.recent_requests().index(r) >= before)
    assert record.finish_reason == "cancelled" and record.completion_tokens < SLOW_CONTEXT // 2
    wait_until_idle(slow_manager)


def test_api_and_app_requests_run_side_by_side(slow_server: ApiServer, slow_manager: EngineManager) -> None:
    wait_until_idle(slow_manager)
    # The window's answer is open-ended (it would fill the context: many seconds); the API's takes 40 tokens.
    app_stream = slow_manager.submit(ChatRequest((ChatMessage("user", "from the window"),),
                                                 greedy(SLOW_CONTEXT - 100, ignore_eos=True)))
    client = openai.OpenAI(base_url=slow_server.url, api_key=slow_server.token, max_retries=0, timeout=60)
    results: dict[str, str] = {}

    def call_api() -> None:
        completion = client.chat.completions.create(
            model=model_name(slow_manager), messages=[{"role": "user", "content": "from a script"}], temperature=0,
            max_tokens=40)
        results["api"] = completion.choices[0].message.content or ""

    thread = threading.Thread(target=call_api)
    thread.start()
    thread.join(60)
    assert "api" in results, "the API answer did not come back"
    assert not app_stream.finished, "the API answer should not have waited for the window's answer"
    app_stream.cancel()
    assert app_stream.wait(30) and app_stream.finish_reason == "cancelled"
    assert app_stream.metrics.generated_tokens >= 40, "the window's answer decoded beside the API's all along"
    assert results["api"] == direct_answer(slow_manager, "from a script", 40)


def test_token_file_is_private_and_stable(tmp_path: Path) -> None:
    token = api_token(tmp_path)
    path = token_path(tmp_path)
    assert len(token) >= 40 and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert api_token(tmp_path) == token
    path.chmod(0o644)
    assert api_token(tmp_path) == token and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert api_token(tmp_path / "other") != token


def test_a_port_in_use_is_a_clear_error(server: ApiServer, manager: EngineManager) -> None:
    with pytest.raises(UserFacingError, match=f"Port {server.port} on 127.0.0.1 is already in use"):
        ApiServer(manager, "token", port=server.port).start()
