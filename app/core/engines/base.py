"""The Engine protocol every backend implements, its configuration, and its errors."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from app.core.engines.metrics import EngineMetrics
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from app.core.planner.engine_plan import LlamaCppPlan, VllmPlan
from app.core.util.errors import UserFacingError

BackendName = Literal["llamacpp", "vllm", "remote"]
FlashAttention = Literal["auto", "on", "off"]
# Called with a fraction in [0, 1] and a short description of the step.
ProgressCallback = Callable[[float, str], None]


SpeculativeMode = Literal["off", "ngram", "draft"]
DEFAULT_SPECULATIVE_TOKENS = 4


@dataclass(frozen=True)
class VllmOptions:
    """vLLM-only choices that are not memory decisions: speculative decoding from the settings,
    and knobs for tests and benchmarks (``enforce_eager`` skips torch.compile and CUDA graphs)."""

    speculative: SpeculativeMode = "off"
    speculative_tokens: int = DEFAULT_SPECULATIVE_TOKENS
    speculative_draft_model: str = ""
    enforce_eager: bool = False
    seed: int | None = None
    max_num_batched_tokens: int | None = None


@dataclass(frozen=True)
class RemoteTarget:
    """The OpenAI-compatible server the remote backend talks to; ``None`` options keep the endpoint's defaults."""

    url: str
    api_key: str = ""
    connect_timeout_s: float | None = None
    read_timeout_s: float | None = None
    retries: int | None = None
    backoff_s: float | None = None


@dataclass(frozen=True)
class EngineConfig:
    """Everything a backend needs to load a model: the plan's decisions plus the user's engine settings.

    The manager builds it from a MemoryPlan (``engine_config_from_plan``). Neutral fields, in the
    app's words: ``context_length`` is the longest single chat in tokens, ``parallel_chats`` how
    many chats run at once. Each backend's own part is typed and in its own words: ``llamacpp``
    and ``vllm`` carry what the planner decided for that backend (``app.core.planner.engine_plan``;
    a config built by hand may leave them None and gets the planner's layout for its context and
    chats), ``vllm_options`` and ``remote`` carry settings only that backend reads. Each backend
    translates the neutral fields into its own words where it loads (``n_seq_max``, ``max_num_seqs``...).
    """

    model_path: Path
    context_length: int
    parallel_chats: int = 1
    kv_cache_dtype: str = "f16"
    threads: int = 0
    flash_attention: FlashAttention = "auto"
    prefix_caching: bool = True
    warm_up: bool = True
    llamacpp: LlamaCppPlan | None = None
    vllm: VllmPlan | None = None
    vllm_options: VllmOptions = field(default_factory=VllmOptions)
    remote: RemoteTarget | None = None


@dataclass(frozen=True)
class LoadedModel:
    """What was loaded and with which settings (shown to the user)."""

    backend: BackendName
    model_name: str
    config: EngineConfig
    load_time_s: float
    notes: tuple[str, ...] = ()


class EngineError(UserFacingError):
    """Something the engine could not do; the app keeps running."""


LoadFailureCause = Literal["not_a_model", "out_of_memory", "unsupported", "other"]


class ModelLoadError(EngineError):
    """A model failed to load; ``cause`` lets the manager decide whether a retry can help."""

    def __init__(self, message: str, hint: str | None = None, cause: LoadFailureCause = "other") -> None:
        super().__init__(message, hint)
        self.cause: LoadFailureCause = cause


class EngineDeadError(EngineError):
    """The engine stopped working (crashed child process, lost server) and must be restarted."""


class NoModelLoadedError(EngineError):
    def __init__(self) -> None:
        super().__init__("No model is loaded.", "Choose a model first.")


class Engine(Protocol):
    """A loaded language model that serves many chats at once.

    Every method may be called from any thread; a backend runs its own engine thread and
    hands work to it. ``submit`` never blocks on generation: it returns a stream at once.
    """

    backend_name: BackendName

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel: ...

    def warm_up(self) -> None:
        """Run a short dummy request so the user's first request is not slower than the second."""

    def submit(self, request: ChatRequest) -> RequestStream: ...

    def cancel(self, request_id: str) -> None:
        """Stop a request within one decode step; its partial text stays in its stream."""

    def metrics(self) -> EngineMetrics: ...

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes with this model's tokenizer (for context budgeting)."""

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        """The prompt text the chat template makes of ``messages`` (with generation prompt)."""

    def unload(self) -> None:
        """Stop all requests, free the model's memory, end the engine thread."""
