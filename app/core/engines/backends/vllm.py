"""vLLM engine: in-process AsyncLLM (engine core in a child process) driven from its own asyncio thread."""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.core.engines.backends.vllm_args import engine_arguments, sampling_arguments
from app.core.engines.backends.vllm_guard import (
    EngineGuard,
    ProcessIdentity,
    engine_child_processes,
    kill_process_trees,
    reap_exited_children,
    start_guard,
)
from app.core.engines.backends.vllm_loop import EngineLoopThread
from app.core.engines.backends.vllm_memory import (
    NOT_ENOUGH_MEMORY_HINT,
    KvCacheSizing,
    describe_exception_chain,
    exception_names,
    live_engine_pool,
    pool_kind_hint,
    processes_memory,
    size_kv_cache,
    wait_for_exit,
    weights_bytes,
)
from app.core.engines.backends.vllm_requests import RequestRunner
from app.core.engines.backends.vllm_stats import VllmStatsCollector, make_stat_logger_factory
from app.core.engines.base import (
    BackendName,
    EngineConfig,
    EngineDeadError,
    LoadedModel,
    ModelLoadError,
    NoModelLoadedError,
    ProgressCallback,
)
from app.core.engines.chat_formats import format_for_vocabulary
from app.core.engines.chat_template import ChatTemplate, ChatTemplateError
from app.core.engines.load_texts import said
from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.engines.page_cache import drop_model_pages
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from app.core.engines.unified_memory import GIB
from app.core.planner.engine_plan import VllmPlan
from app.core.util.translatable import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)
SHUTDOWN_TIMEOUT_S = 20.0
WARM_UP_TIMEOUT_S = 600.0


def _vllm(module: str) -> Any:
    """Import a vLLM module (kept dynamic: vLLM is optional, and its types stay out of our type check)."""
    return importlib.import_module(module)


def vllm_available() -> bool:
    """True when vLLM can be imported here."""
    try:
        importlib.import_module("vllm")
    except Exception:  # ImportError, or a broken install raising anything at import
        return False
    return True


class VllmEngine:
    """A model served by vLLM's AsyncLLM. Thread-safe; ``submit`` returns a stream at once.

    The AsyncLLM lives on the engine thread's event loop; callers hand it work with
    ``run_coroutine_threadsafe``. A guard process kills the engine core if this process dies.
    """

    backend_name: BackendName = "vllm"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokenizer_lock = threading.Lock()
        self._loop: EngineLoopThread | None = None
        self._llm: Any = None
        self._tokenizer: Any = None
        self._fallback_template = ChatTemplate(None)
        self._runner: RequestRunner | None = None
        self._collector = VllmStatsCollector()
        self._children: list[ProcessIdentity] = []
        self._guard: EngineGuard | None = None
        self._model_name = ""
        self._kv_capacity_tokens = 0
        self._dead_reason: str | None = None

    # ---- lifecycle ---------------------------------------------------------------------
    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        """Check memory safety, start AsyncLLM (and its engine-core process) and a guard for it."""
        # vLLM logs to stdout by default, which would corrupt `--json` output; the user may override.
        os.environ.setdefault("VLLM_LOGGING_STREAM", "ext://sys.stderr")
        if not vllm_available():
            raise ModelLoadError(
                said(QT_TRANSLATE_NOOP("EngineLoad", "vLLM is not installed.")),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "Install UniDesk's vllm extra, or use a GGUF model with llama.cpp.")),
                cause="unsupported",
            )
        started = time.monotonic()
        on_cpu = bool(_vllm("vllm.platforms").current_platform.is_cpu())
        drop_model_pages(config.model_path)  # a cached earlier read would count as used to CUDA on unified memory
        sizing = self._check_memory(config, on_cpu)
        arguments = engine_arguments(
            config, kv_cache_memory_bytes=sizing.kv_cache_memory_bytes, memory_utilization=sizing.gpu_memory_utilization
        )
        if progress is not None:
            progress(0.05, said(QT_TRANSLATE_NOOP("EngineLoad", "Starting vLLM")))
        self._collector = VllmStatsCollector()
        before = {identity.pid for identity in engine_child_processes(os.getpid())}
        guard = start_guard(adopt_children_of=os.getpid(), existing=frozenset(before))  # before the engine starts
        loop = EngineLoopThread()
        try:
            llm = loop.call(lambda: self._create_llm(arguments))
        except BaseException as error:
            loop.stop()
            self._reap_new_children(before)
            guard.release()
            raise _load_error(config, error) from error
        children = [child for child in engine_child_processes(os.getpid()) if child.pid not in before]
        guard.watch(children)
        guard.settle()
        with self._lock:
            self._loop, self._llm, self._children = loop, llm, children
            self._tokenizer = llm.tokenizer
            self._fallback_template = ChatTemplate(None, fallback=format_for_vocabulary(_added_tokens(llm.tokenizer)))
            self._runner = RequestRunner(loop, llm, self._on_engine_dead)
            self._model_name = config.model_path.name
            self._kv_capacity_tokens = _kv_capacity_tokens(llm)
            self._dead_reason = None
        self._guard = guard
        drop_model_pages(config.model_path)  # the weights now live in the engine's memory: the file's pages are a copy
        if progress is not None:
            progress(1.0, said(QT_TRANSLATE_NOOP("EngineLoad", "vLLM is ready")))
        notes = [said(QT_TRANSLATE_NOOP("EngineLoad", "vLLM {0} backend, KV cache of {1} tokens"),
                      "CPU" if on_cpu else "GPU", self._kv_capacity_tokens)]
        if sizing.kv_cache_memory_bytes:
            notes.append(said(QT_TRANSLATE_NOOP("EngineLoad", "KV cache sized in bytes: {0:.2f} GiB, as planned"),
                              sizing.kv_cache_memory_bytes / GIB))
        elif sizing.gpu_memory_utilization is not None:
            notes.append(said(QT_TRANSLATE_NOOP(
                "EngineLoad", "GPU memory utilisation {0:.3f}"), sizing.gpu_memory_utilization))
        return LoadedModel("vllm", self._model_name, config, time.monotonic() - started, tuple(notes))

    def _check_memory(self, config: EngineConfig, on_cpu: bool) -> KvCacheSizing:
        """How the KV cache is sized (in bytes, or a fraction of a device pool); refuses less than the reserve."""
        plan = config.vllm or VllmPlan()
        pool = live_engine_pool(on_cpu, pool_kind_hint(plan.memory_kind))
        return size_kv_cache(
            pool,
            weights_bytes=weights_bytes(config.model_path),
            kv_cache_bytes=plan.kv_cache_memory_bytes or (plan.cpu_kvcache_space_gib or 0) * GIB,
            activation_bytes=plan.activation_bytes,
            reserve_bytes=plan.reserve_bytes,
            embedder_bytes=plan.embedder_bytes,
            requested_utilization=plan.gpu_memory_utilization,
        )

    def _create_llm(self, arguments: dict[str, Any]) -> Any:
        """Build AsyncLLM on the engine thread (so its output handler runs on this loop)."""
        engine_args = _vllm("vllm.engine.arg_utils").AsyncEngineArgs(**arguments)
        async_llm = _vllm("vllm.v1.engine.async_llm").AsyncLLM
        return async_llm.from_engine_args(engine_args, stat_loggers=[make_stat_logger_factory(self._collector)])

    def _reap_new_children(self, before: set[int]) -> None:
        """After a failed start: make sure no engine process it left behind survives."""
        leftovers = [child for child in engine_child_processes(os.getpid()) if child.pid not in before]
        kill_process_trees(wait_for_exit(leftovers, 5.0))

    def warm_up(self) -> None:
        """One short greedy request: the first real answer then does not pay for first-use costs."""
        stream = self.submit(ChatRequest.single_prompt("Hello", replace(GREEDY, max_tokens=4)))
        stream.wait(timeout=WARM_UP_TIMEOUT_S)
        if stream.error is not None:
            raise stream.error

    def unload(self) -> None:
        """Abort all requests, shut AsyncLLM down, and wait until its processes have exited (or kill them)."""
        with self._lock:
            loop, llm, runner = self._loop, self._llm, self._runner
            children, guard = self._children, self._guard
            self._loop = self._llm = self._runner = self._tokenizer = None
            self._children, self._guard = [], None
        if runner is not None:
            runner.cancel_all()
        if loop is not None and llm is not None:
            try:
                loop.call(lambda: llm.shutdown(), timeout_s=SHUTDOWN_TIMEOUT_S)
            except Exception as error:  # a dead engine may fail to shut down politely
                log.warning("vLLM shutdown: %s", describe_exception_chain(error))
        if loop is not None:
            loop.stop()
        survivors = wait_for_exit(children, SHUTDOWN_TIMEOUT_S)
        if survivors:
            log.warning("vLLM engine processes %s did not exit; killing them", [s.pid for s in survivors])
            kill_process_trees(survivors)
        if guard is not None:
            guard.release()
        multiprocessing.active_children()  # joins the engine processes multiprocessing still tracks
        reap_exited_children(children)  # and reaps those it no longer does (no zombie entries left)

    # ---- requests ----------------------------------------------------------------------
    def submit(self, request: ChatRequest) -> RequestStream:
        runner = self._runner
        if runner is None:
            raise NoModelLoadedError()
        stream = RequestStream(request.request_id, cancel=self.cancel)
        if self._dead_reason is not None:
            stream.finish("error", RequestMetrics(finish_reason="error"), self._dead_error())
            return stream
        prompt_ids = self._encode(self.render_prompt(request.messages))
        own_template = bool(getattr(self._tokenizer, "chat_template", None))
        asked = request.sampling if own_template else self._fallback_template.sampling_for(request.sampling)
        sampling = _vllm("vllm").SamplingParams(
            **sampling_arguments(asked),
            output_kind=_vllm("vllm.sampling_params").RequestOutputKind.DELTA,
        )
        runner.start(request.request_id, prompt_ids, sampling, stream)
        return stream

    def cancel(self, request_id: str) -> None:
        runner = self._runner
        if runner is not None:
            runner.cancel(request_id)

    def _on_engine_dead(self, reason: str) -> None:
        with self._lock:
            if self._dead_reason is None:
                self._dead_reason = reason
                log.error("vLLM engine died: %s", reason)

    def _dead_error(self) -> EngineDeadError:
        return EngineDeadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "The vLLM engine stopped working ({0})."), self._dead_reason),
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "Load the model again (a smaller context or fewer parallel chats if memory ran out); "
                "your conversation is kept.")),
        )

    @property
    def dead_reason(self) -> str | None:
        """Why the engine died (None while it works)."""
        return self._dead_reason

    def metrics(self) -> EngineMetrics:
        stats = self._collector.snapshot()
        children = self._children
        alive = self._dead_reason is None and bool(self._llm is not None)
        if alive and children and not all(_alive(child) for child in children):
            self._on_engine_dead("its engine process exited")
            alive = False
        capacity = self._kv_capacity_tokens
        return EngineMetrics(
            backend="vllm",
            model_name=self._model_name,
            running_requests=stats.running_requests,
            waiting_requests=stats.waiting_requests,
            kv_cells_used=round(stats.kv_cache_usage * capacity),
            kv_cells_capacity=capacity,
            prefix_cache_hit_rate=stats.prefix_cache_hit_rate,
            decode_tokens_per_s=stats.decode_tokens_per_s,
            prefill_tokens_per_s=stats.prefill_tokens_per_s,
            last_time_to_first_token_s=stats.last_time_to_first_token_s,
            requests_finished=stats.requests_finished,
            tokens_generated=stats.tokens_generated,
            speculative_acceptance_rate=stats.speculative_acceptance_rate,
            extra={
                "engine_alive": 1.0 if alive else 0.0,
                "engine_process_rss_bytes": float(processes_memory(children)),
                "prefix_cache_queried_tokens": float(stats.prefix_cache_queries),
                "prefix_cache_hit_tokens": float(stats.prefix_cache_hits),
                "speculative_draft_tokens": float(stats.draft_tokens),
                "speculative_accepted_tokens": float(stats.accepted_tokens),
            },
        )

    def count_tokens(self, text: str) -> int:
        return len(self._encode(text))

    def _encode(self, text: str) -> list[int]:
        tokenizer = self._tokenizer
        if tokenizer is None:
            raise NoModelLoadedError()
        with self._tokenizer_lock:
            return list(tokenizer.encode(text, add_special_tokens=False))

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        """The model's own chat template (through its tokenizer); when it has none, the format its
        vocabulary's special tokens name (``chat_formats``).
        """
        tokenizer = self._tokenizer
        if tokenizer is None:
            raise NoModelLoadedError()
        conversation = [{"role": message.role, "content": message.content} for message in messages]
        if not getattr(tokenizer, "chat_template", None):
            return self._fallback_template.render(messages)
        try:
            with self._tokenizer_lock:
                return str(tokenizer.apply_chat_template(conversation, tokenize=False, add_generation_prompt=True))
        except Exception as error:  # jinja2 errors, template raise_exception(...)
            raise ChatTemplateError(
                said(QT_TRANSLATE_NOOP("EngineLoad", "The model's chat template failed: {0}"), str(error)),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "Check the order of roles (some models need user and assistant to alternate).")),
            ) from error


def _alive(identity: ProcessIdentity) -> bool:
    from app.core.engines.backends.vllm_guard import is_alive

    return is_alive(identity)


def _kv_capacity_tokens(llm: Any) -> int:
    """Tokens the KV cache holds: blocks x block size, as vLLM allocated them."""
    cache = llm.vllm_config.cache_config
    return int(getattr(cache, "num_gpu_blocks", 0) or 0) * int(getattr(cache, "block_size", 0) or 0)


def _load_error(config: EngineConfig, error: BaseException) -> ModelLoadError:
    """A ModelLoadError saying why vLLM did not start; out-of-memory when the engine core was killed or said so."""
    if isinstance(error, ModelLoadError):
        return error
    detail = describe_exception_chain(error)
    brief = detail[:300].rstrip(". ")  # vLLM's own words, ended by the sentence around them
    names = exception_names(error)
    lowered = detail.lower()
    if ("memory" in lowered and ("less than" in lowered or "out of memory" in lowered)) or ": -9}" in detail:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "vLLM ran out of memory loading {0}: {1}."), config.model_path.name, brief),
            NOT_ENOUGH_MEMORY_HINT,
            cause="out_of_memory",
        )
    if {"OSError", "FileNotFoundError"} & names or "config.json" in lowered or "unrecognized model" in lowered:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "vLLM cannot load {0}: {1}."), str(config.model_path), brief),
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "Choose a Hugging Face model folder (config.json and safetensors weights).")),
            cause="not_a_model",
        )
    return ModelLoadError(
        said(QT_TRANSLATE_NOOP(
            "EngineLoad", "vLLM failed to start with {0}: {1}."), config.model_path.name, brief),
        said(QT_TRANSLATE_NOOP("EngineLoad", "See the log for vLLM's own message.")),
        cause="other",
    )


def _added_tokens(tokenizer: Any) -> Callable[[str], bool]:
    """Whether a text is one of the tokenizer's added (special) tokens, as Hugging Face tokenizers list them."""
    try:
        added = set(tokenizer.get_added_vocab())
    except Exception:  # a tokenizer without the method (or a broken one): no known markers
        added = set()
    return added.__contains__
