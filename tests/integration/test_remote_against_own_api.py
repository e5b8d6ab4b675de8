"""The remote backend against UniDesk's own local API (``unidesk serve``): one app can use another's model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engines.backends.remote import RemoteEngine
from app.core.engines.base import EngineConfig, ModelLoadError, RemoteTarget
from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.services.api.server import ApiServer
from tests.integration.answering_support import greedy, load_manager

pytestmark = pytest.mark.integration
TOKEN = "own-api-test-token"


@pytest.fixture(scope="module")
def served(tiny_gguf: Path) -> Iterator[tuple[EngineManager, ApiServer]]:
    manager = load_manager(tiny_gguf, 1024, parallel_chats=2)
    server = ApiServer(manager, TOKEN, port=0).start()
    try:
        yield manager, server
    finally:
        server.stop()
        manager.unload()


def remote_config(server: ApiServer, model: str, token: str = TOKEN) -> EngineConfig:
    return EngineConfig(
        model_path=Path(model), context_length=1024, warm_up=False,
        remote=RemoteTarget(server.url, token),
    )


def test_remote_engine_streams_what_the_local_engine_would_answer(
    served: tuple[EngineManager, ApiServer],
) -> None:
    manager, server = served
    status = manager.status()
    assert status.loaded is not None
    model_name = status.loaded.model_name
    request = ChatRequest((ChatMessage("user", "Say something."),), sampling=greedy(12))
    local = manager.submit(request)
    local.wait(60)

    remote = RemoteEngine()
    loaded = remote.load(remote_config(server, model_name))
    try:
        assert loaded.backend == "remote"
        stream = remote.submit(ChatRequest((ChatMessage("user", "Say something."),), sampling=greedy(12)))
        pieces = list(stream)
        assert stream.finish_reason in ("stop", "length")
        assert "".join(pieces) == local.text  # same model, greedy: same answer through HTTP
        assert stream.metrics.time_to_first_token_s is not None
    finally:
        remote.unload()


def test_wrong_token_and_unknown_model_are_clear_errors(served: tuple[EngineManager, ApiServer]) -> None:
    manager, server = served
    status = manager.status()
    assert status.loaded is not None
    with pytest.raises(ModelLoadError) as wrong_token:
        RemoteEngine().load(remote_config(server, status.loaded.model_name, token="not-the-token"))
    assert "key" in str(wrong_token.value).lower() or "401" in str(wrong_token.value)
    with pytest.raises(ModelLoadError) as unknown:
        RemoteEngine().load(remote_config(server, "no-such-model"))
    assert "no-such-model" in str(unknown.value)
