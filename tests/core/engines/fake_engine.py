"""A scripted Engine for testing the manager's logic (the real engines are tested for real)."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.engines.base import BackendName, EngineConfig, LoadedModel, ModelLoadError, ProgressCallback
from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream


@dataclass
class EngineLog:
    """What every fake engine did, in order, shared by all engines one factory made."""

    events: list[str] = field(default_factory=list)
    configs: list[EngineConfig] = field(default_factory=list)


class FakeEngine:
    backend_name: BackendName = "llamacpp"

    def __init__(self, log: EngineLog, max_context_that_fits: int | None = None) -> None:
        self._log = log
        self._max_context = max_context_that_fits
        self.loaded: EngineConfig | None = None

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        self._log.events.append(f"load ctx={config.context_length} seqs={config.parallel_chats}")
        self._log.configs.append(config)
        if progress is not None:
            progress(1.0, "loaded")
        if self._max_context is not None and config.context_length > self._max_context:
            raise ModelLoadError("failed to allocate the KV cache", cause="out_of_memory")
        self.loaded = config
        return LoadedModel("llamacpp", config.model_path.name, config, load_time_s=0.0)

    def warm_up(self) -> None:
        self._log.events.append("warm_up")

    def submit(self, request: ChatRequest) -> RequestStream:
        stream = RequestStream(request.request_id)
        stream.push("echo: " + request.messages[-1].content)
        stream.finish("stop", RequestMetrics(generated_tokens=1, finish_reason="stop"))
        return stream

    def cancel(self, request_id: str) -> None:
        self._log.events.append(f"cancel {request_id}")

    def metrics(self) -> EngineMetrics:
        return EngineMetrics(backend="llamacpp", model_name="fake")

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        return "\n".join(message.content for message in messages)

    def unload(self) -> None:
        self._log.events.append("unload")
