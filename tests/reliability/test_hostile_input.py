"""Hostile input, fuzzed with hypothesis: the chunker, the settings loader and the local API's request parsing
(the JSON parser and raw bytes on the socket). Bad input gets a clear error or a safe default, never a crash.
Examples per test: ``UNIDESK_FUZZ_EXAMPLES`` (default 150). File parsers are fuzzed through the reader
process in test_parser_fuzz.py."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.config import SETTINGS, Settings, validate_value
from app.core.config.reading import parse_settings_bytes, parse_settings_document
from app.core.kb.chunker import chunk_document
from app.core.kb.documents import PageText, ParsedDocument, Section
from app.core.services.api import openai_format as fmt
from app.core.services.api.auth import api_token
from app.core.services.api.errors import ApiError
from app.core.services.api.limits import ApiLimits
from app.core.services.api.server import ApiServer
from tests.reliability.conftest import env_int

EXAMPLES = env_int("UNIDESK_FUZZ_EXAMPLES", 150)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                               HealthCheck.function_scoped_fixture])
HANG_LIMIT_S = 120.0  # not a speed check: a bound that only an endless loop or a blow-up reaches

texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=3000)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=30,
)


def count_tokens(text: str) -> int:
    """A stand-in tokenizer: about four characters a token, at least one per word."""
    return max(len(text.split()), (len(text.encode("utf-8")) + 3) // 4)


def document_of(text: str) -> ParsedDocument:
    parts = [part for part in text.split("\n\n") if part.strip()]
    sections = tuple(Section(part, kind) for part, kind in zip(parts, ("text", "code", "table", "heading") * 999,
                                                                strict=False))
    return ParsedDocument(Path("fuzz.txt"), "txt", "fuzz", (PageText(None, "\n\n".join(parts), sections),))


@FUZZ
@given(text=texts, chunk_tokens=st.integers(4, 80), overlap_share=st.floats(0.0, 0.9))
def test_the_chunker_covers_any_text_with_chunks_that_point_into_it(
    text: str, chunk_tokens: int, overlap_share: float
) -> None:
    document = document_of(text)
    page = document.pages[0]
    chunks = chunk_document(document, count_tokens, chunk_tokens, int(chunk_tokens * overlap_share))
    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks)))
    for chunk in chunks:
        assert 0 <= chunk.char_start < chunk.char_end <= len(page.text)
        assert chunk.text.strip()
        assert chunk.text.strip() in page.text[chunk.char_start:chunk.char_end] or chunk.text in page.text
    if page.text.strip():
        assert chunks, "text with words must give at least one chunk"


@pytest.mark.parametrize("text", [
    "x" * 400_000,  # one huge line without spaces
    ("word " * 80_000),  # one huge line of words
    "\n".join("#" * 200 for _ in range(5000)),  # thousands of heading-like lines
    "```\n" + "code\n" * 50_000,  # a code block that never closes
    "，".join("汉字" * 50 for _ in range(3000)),  # CJK without spaces
])
def test_pathological_texts_are_chunked_in_bounded_time(text: str) -> None:
    started = time.monotonic()
    chunks = chunk_document(document_of(text), count_tokens, 256, 32)
    assert chunks and time.monotonic() - started < HANG_LIMIT_S


@FUZZ
@given(data=st.binary(max_size=2000) | texts.map(lambda text: text.encode("utf-8", "surrogatepass")))
def test_any_bytes_as_a_settings_file_load_as_valid_settings(data: bytes) -> None:
    parsed = parse_settings_bytes(data)
    assert isinstance(parsed.settings, Settings)
    for spec in SETTINGS:
        validate_value(spec, parsed.settings[spec.key])  # every value in force is a valid one


known_keys = st.sampled_from([spec.key for spec in SETTINGS])


@FUZZ
@given(document=st.dictionaries(known_keys, json_values, max_size=12), version=json_values)
def test_any_values_for_known_settings_fall_back_one_by_one(document: dict[str, Any], version: Any) -> None:
    nested: dict[str, Any] = {"version": version}
    for key, value in document.items():
        section, _, name = key.partition(".")
        nested.setdefault(section, {})
        if isinstance(nested[section], dict):
            nested[section][name] = value
    parsed = parse_settings_document(nested)
    for spec in SETTINGS:
        validate_value(spec, parsed.settings[spec.key])
    assert all(problem.message for problem in parsed.problems)  # each fallback says why


@FUZZ
@given(body=json_values | st.fixed_dictionaries(
    {"model": st.text(max_size=10), "messages": json_values},
    optional={"max_tokens": json_values, "stream": json_values, "stop": json_values, "temperature": json_values,
              "top_p": json_values, "seed": json_values, "n": json_values, "stream_options": json_values},
))
def test_the_chat_request_parser_accepts_or_names_the_problem(body: Any) -> None:
    try:
        call = fmt.parse_chat_completion(body)
    except ApiError as error:
        assert error.status == 400 and error.message
        return
    assert call.model and call.messages
    assert call.max_tokens is None or call.max_tokens >= 1


@FUZZ
@given(body=json_values | st.fixed_dictionaries({"model": st.text(max_size=10), "input": json_values}))
def test_the_embeddings_parser_accepts_or_names_the_problem(body: Any) -> None:
    try:
        call = fmt.parse_embeddings(body)
    except ApiError as error:
        assert error.status == 400 and error.message
        return
    assert call.inputs and all(isinstance(text, str) and text for text in call.inputs)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    from app.core.engines.manager import EngineManager
    from tests.core.planner.fake_hardware import cpu_only

    manager = EngineManager(cpu_only, Settings)  # no model loaded: requests that get that far are answered 503
    limits = ApiLimits(header_timeout_s=2.0, body_timeout_s=2.0)
    with ApiServer(manager, api_token(tmp_path_factory.mktemp("api")), port=0, limits=limits) as running:
        yield running


request_lines = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda method, path, version: f"{method} {path} {version}".encode("utf-8", "surrogatepass"),
              st.sampled_from(["GET", "POST", "PUT", "DELETE", "BREW", "", "G\x00T"]), texts.map(lambda t: t[:200]),
              st.sampled_from(["HTTP/1.1", "HTTP/1.0", "HTTP/9.9", "", "HTTP/1.1 extra"])),
)
headers = st.lists(st.binary(max_size=120) | st.builds(
    lambda name, value: f"{name}: {value}".encode("utf-8", "surrogatepass"),
    st.sampled_from(["Host", "Content-Length", "Authorization", "Transfer-Encoding", "Origin", "X"]),
    texts.map(lambda t: t[:100])), max_size=8)


@FUZZ
@given(line=request_lines, header_lines=headers, body=st.binary(max_size=500))
def test_raw_bytes_on_the_socket_get_an_answer_or_a_close_and_the_server_lives(
    server: ApiServer, line: bytes, header_lines: list[bytes], body: bytes
) -> None:
    raw = b"\r\n".join([line, *header_lines]) + b"\r\n\r\n" + body
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as client:
        client.sendall(raw)
        client.shutdown(socket.SHUT_WR)
        answer = b""
        while piece := client.recv(65536):
            answer += piece
    assert answer == b"" or answer.startswith(b"HTTP/1.1 ")
    if answer:  # the first answer (a kept-alive connection may answer more) is OpenAI-shaped, whatever came in
        head, _, rest = answer.partition(b"\r\n\r\n")
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.startswith(b"Content-Length")))
        assert json.loads(rest[:length])["error"]["message"]
    if answer.startswith(b"HTTP/1.1 2"):
        pytest.fail(f"a fuzzed request was accepted: {raw[:200]!r} -> {answer[:200]!r}")


def test_the_server_still_answers_after_the_fuzzing(server: ApiServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as client:
        client.sendall(f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {server.token}\r\n"
                       "Connection: close\r\n\r\n".encode())
        answer = b""
        while piece := client.recv(65536):
            answer += piece
    assert answer.startswith(b"HTTP/1.1 200")
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1]) == {"object": "list", "data": []}


@FUZZ
@given(data=st.binary(min_size=1, max_size=1500))
def test_a_garbled_settings_file_loads_defaults_and_keeps_the_original(tmp_path_factory: pytest.TempPathFactory,
                                                                      data: bytes) -> None:
    from app.core.config import SettingsStore
    from app.core.config.paths import AppPaths

    paths = AppPaths.under_home(tmp_path_factory.mktemp("home")).ensure()
    paths.settings_file.write_bytes(data)
    result = SettingsStore(paths).load()
    for spec in SETTINGS:
        validate_value(spec, result.settings[spec.key])
    if result.problems and not result.newer_file:  # what the user wrote is never lost: a copy is kept
        assert result.backup_path is not None and result.backup_path.read_bytes() == data
    assert paths.settings_file.read_bytes() == data  # loading never rewrites the file
