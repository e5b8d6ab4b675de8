"""The local API while the memory guardian pauses new requests: 503 with the reason, then answers again."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engines.manager import EngineManager
from app.core.hardware.live_memory import MemoryView
from app.core.hardware.memory_users import ProcessMemory
from app.core.services.api.auth import api_token
from app.core.services.api.server import ApiServer
from app.core.services.memory_guardian import GuardedEngine, GuardianThresholds, MemoryGuardian
from tests.integration.answering_support import load_manager
from tests.integration.test_api_server import model_name, raw_request

pytestmark = pytest.mark.integration
GIB = 1024**3


@pytest.fixture
def manager(tiny_gguf: Path) -> Iterator[EngineManager]:
    loaded = load_manager(tiny_gguf, 1024, parallel_chats=1, threads=1)
    yield loaded
    loaded.unload()


def test_paused_requests_get_503_with_the_reason_and_are_served_once_memory_is_back(
    manager: EngineManager, tmp_path: Path
) -> None:
    guardian = MemoryGuardian(
        lambda: MemoryView(32 * GIB, 16 * GIB),  # not sampled: the test feeds the guardian itself
        GuardedEngine(lambda: manager.engine is not None, manager.admission, manager.unload),
        lambda: GuardianThresholds.from_reserve(4 * GIB),
        top_processes=lambda: (ProcessMemory(99, "browser", 12 * GIB),),
    )
    body = json.dumps({"model": model_name(manager), "max_tokens": 4,
                       "messages": [{"role": "user", "content": "hello"}]}).encode()
    with ApiServer(manager, api_token(tmp_path), port=0) as server:
        assert guardian.observe(MemoryView(32 * GIB, int(1.5 * GIB))) is not None
        status, answer = raw_request(server, "POST", "/v1/chat/completions", body)
        assert status == 503
        assert "New requests are paused" in answer["error"]["message"]
        assert "browser (pid 99): 12.0 GiB" in answer["error"]["message"]
        assert guardian.observe(MemoryView(32 * GIB, 8 * GIB)) is not None  # memory is back
        status, answer = raw_request(server, "POST", "/v1/chat/completions", body)
        assert status == 200 and answer["choices"][0]["message"]["role"] == "assistant"
