"""EngineManager: picks the backend, plans memory, loads/switches/unloads models, routes requests."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from app.core.config import Settings
from app.core.engines.admission import AdmissionGate
from app.core.engines.base import (
    BackendName,
    Engine,
    EngineConfig,
    FlashAttention,
    LoadedModel,
    ModelLoadError,
    NoModelLoadedError,
    ProgressCallback,
    RemoteTarget,
    SpeculativeMode,
    VllmOptions,
)
from app.core.engines.load_texts import said, warming_up
from app.core.engines.metrics import EngineMetrics
from app.core.engines.requests import ChatRequest
from app.core.engines.selection import BackendSelection, select_backend
from app.core.engines.stream import RequestStream
from app.core.hardware.report import HardwareReport
from app.core.planner import MemoryPlan, PlanRequest, plan_memory, read_model_metadata
from app.core.planner.from_settings import plan_request_from_settings
from app.core.util.translatable import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)

EngineFactory = Callable[[BackendName], Engine]
MIN_RETRY_CONTEXT = 512
WARM_UP_FRACTION = 0.95
"""Where the load's progress stands while the loaded model answers its first short request."""


class ManagerState(Enum):
    EMPTY = "empty"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class ManagerStatus:
    """A snapshot for the UI: what is loaded, how it was planned, what went wrong."""

    state: ManagerState
    loaded: LoadedModel | None = None
    selection: BackendSelection | None = None
    plan: MemoryPlan | None = None
    error: str | None = None


def default_engine_factory(backend: BackendName) -> Engine:
    """Create a backend; each backend module is imported only when it is first used."""
    if backend == "llamacpp":
        from app.core.engines.backends.llamacpp import LlamaCppEngine

        return LlamaCppEngine()
    if backend == "vllm":
        from app.core.engines.backends.vllm import VllmEngine

        return VllmEngine()
    if backend == "remote":
        from app.core.engines.backends.remote import RemoteEngine

        return RemoteEngine()
    raise ModelLoadError(said(QT_TRANSLATE_NOOP("EngineLoad", "The {0} engine is not available in this version of "
                                                              "UniDesk."), backend), cause="unsupported")


def smaller_request(request: PlanRequest) -> PlanRequest | None:
    """The next smaller setting after an out-of-memory failure: half the context, else fewer chats."""
    context = request.context_length
    if context is not None and context // 2 >= MIN_RETRY_CONTEXT:
        return replace(request, context_length=context // 2)
    chats = request.parallel_chats or 1
    if chats > 1:
        return replace(request, parallel_chats=max(1, chats // 2))
    return None


class EngineManager:
    """Owns the loaded engine. Thread-safe: the GUI calls it from a worker, the API from its own thread.

    Loading holds a lock; submitting does not wait for a load in progress (it fails with
    NoModelLoadedError until the new model is ready).
    """

    def __init__(
        self,
        hardware: Callable[[], HardwareReport],
        settings: Callable[[], Settings],
        engine_factory: EngineFactory = default_engine_factory,
    ) -> None:
        self._hardware = hardware
        self._settings = settings
        self._engine_factory = engine_factory
        self._load_lock = threading.Lock()
        self._engine: Engine | None = None
        self._status = ManagerStatus(ManagerState.EMPTY)
        self._streams_lock = threading.Lock()
        self._open_streams: list[RequestStream] = []
        self.admission = AdmissionGate()
        """Open unless something (the memory guardian) paused new requests; ``submit`` then refuses with its reason."""

    # ---- lifecycle ---------------------------------------------------------------------
    def load(
        self,
        model_path: Path,
        progress: ProgressCallback | None = None,
        *,
        context_length: int | None = None,
        parallel_chats: int | None = None,
    ) -> LoadedModel:
        """Load ``model_path`` (unloading the current model first), warm it up, and return what loaded.

        Raises ModelLoadError (or another UserFacingError) with the reason; the manager is then
        empty and the app keeps running.
        """
        with self._load_lock:
            self._unload_locked()
            self._status = ManagerStatus(ManagerState.LOADING)
            try:
                loaded = self._load_locked(model_path, progress, context_length, parallel_chats)
            except Exception as error:
                self._status = ManagerStatus(ManagerState.FAILED, error=str(error))
                raise
            return loaded

    def _load_locked(
        self,
        model_path: Path,
        progress: ProgressCallback | None,
        context_length: int | None,
        parallel_chats: int | None,
    ) -> LoadedModel:
        settings = self._settings()
        hardware = self._hardware()
        selection = select_backend(model_path, settings.str_value("engine.backend"), hardware)
        if selection.backend == "remote":  # no model file, no memory plan: model_path is the model's name there
            remote_config = remote_engine_config(model_path, settings, context_length, parallel_chats)
            remote = self._engine_factory("remote")
            try:
                remote_loaded = remote.load(remote_config, progress)
                if remote_config.warm_up:
                    _report(progress, WARM_UP_FRACTION, warming_up())
                    remote.warm_up()
            except Exception:
                remote.unload()
                raise
            self._engine = remote
            self._status = ManagerStatus(ManagerState.READY, loaded=remote_loaded, selection=selection)
            return remote_loaded
        metadata = read_model_metadata(model_path)
        request = plan_request_from_settings(
            settings, selection.backend, context_length=context_length, parallel_chats=parallel_chats
        )
        notes: list[str] = []
        retried = False
        while True:
            plan = plan_memory(metadata, hardware, request)
            if not plan.recommended.fits:
                raise ModelLoadError(plan.explanation, cause="out_of_memory")
            if not plan.fits:
                notes.append(plan.explanation)
            config = engine_config_from_plan(model_path, plan, settings)
            engine = self._engine_factory(selection.backend)
            started = time.monotonic()
            try:
                loaded = engine.load(config, progress)
            except ModelLoadError as error:
                engine.unload()
                smaller = smaller_request(_request_for(plan, request)) if error.cause == "out_of_memory" else None
                if retried or smaller is None:
                    raise
                retried = True
                notes.append(said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "Out of memory with {0} tokens × {1} chats; retried with a smaller setting."),
                    plan.recommended.context_length, plan.recommended.parallel_chats))
                log.warning("load failed for lack of memory, retrying smaller: %s", error)
                request = smaller
                continue
            break
        if config.warm_up:
            _report(progress, WARM_UP_FRACTION, warming_up())
            warm_started = time.monotonic()
            engine.warm_up()
            log.info("warm-up took %.2f s", time.monotonic() - warm_started)
        loaded = replace(loaded, notes=(*loaded.notes, *notes), load_time_s=time.monotonic() - started)
        self._engine = engine
        self._status = ManagerStatus(ManagerState.READY, loaded=loaded, selection=selection, plan=plan)
        log.info("loaded %s on %s (%s)", loaded.model_name, selection.backend, selection.reason)
        return loaded

    def unload(self) -> None:
        with self._load_lock:
            self._unload_locked()
            self._status = ManagerStatus(ManagerState.EMPTY)

    def _unload_locked(self) -> None:
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.unload()
        with self._streams_lock:
            self._open_streams = []  # the engine that would finish them is gone

    # ---- requests ----------------------------------------------------------------------
    def _require_engine(self) -> Engine:
        engine = self._engine
        if engine is None:
            raise NoModelLoadedError()
        return engine

    def submit(self, request: ChatRequest) -> RequestStream:
        self.admission.check()
        stream = self._require_engine().submit(request)
        with self._streams_lock:
            self._open_streams = [open_stream for open_stream in self._open_streams if not open_stream.finished]
            self._open_streams.append(stream)
        return stream

    def generating(self) -> bool:
        """Whether any request submitted here is still producing its answer (cheap; any thread)."""
        with self._streams_lock:
            return any(not stream.finished for stream in self._open_streams)

    def cancel(self, request_id: str) -> None:
        engine = self._engine
        if engine is not None:
            engine.cancel(request_id)

    def count_tokens(self, text: str) -> int:
        return self._require_engine().count_tokens(text)

    def metrics(self) -> EngineMetrics | None:
        engine = self._engine
        return engine.metrics() if engine is not None else None

    def status(self) -> ManagerStatus:
        return self._status

    @property
    def engine(self) -> Engine | None:
        return self._engine


def _report(progress: ProgressCallback | None, fraction: float, step: str) -> None:
    if progress is not None:
        progress(fraction, step)


def _request_for(plan: MemoryPlan, request: PlanRequest) -> PlanRequest:
    """The request matching what ``plan`` recommended (the starting point of a retry)."""
    return replace(
        request,
        context_length=plan.recommended.context_length,
        parallel_chats=plan.recommended.parallel_chats,
    )


def engine_config_from_plan(model_path: Path, plan: MemoryPlan, settings: Settings) -> EngineConfig:
    """The plan's recommendation (its neutral decisions and its part for the chosen backend) plus the
    user's engine settings, as the EngineConfig the backend loads."""
    recommended = plan.recommended
    vllm = recommended.vllm
    user_utilization = settings.float_or_automatic("engine.memory_utilization")
    if vllm is not None and user_utilization is not None:
        vllm = replace(vllm, gpu_memory_utilization=user_utilization)
    flash: FlashAttention = settings.str_value("engine.flash_attention")  # type: ignore[assignment]
    speculative: SpeculativeMode = settings.str_value("engine.speculative")  # type: ignore[assignment]
    return EngineConfig(
        model_path=model_path,
        context_length=recommended.context_length,
        parallel_chats=recommended.parallel_chats,
        kv_cache_dtype=recommended.kv_cache_dtype,
        threads=settings.int_value("engine.threads"),
        flash_attention=flash,
        prefix_caching=settings.bool_value("engine.prefix_caching"),
        warm_up=settings.bool_value("engine.warmup"),
        llamacpp=recommended.llamacpp,
        vllm=vllm,
        vllm_options=VllmOptions(
            speculative=speculative,
            speculative_tokens=settings.int_value("engine.speculative_tokens"),
            speculative_draft_model=settings.str_value("engine.speculative_draft_model"),
        ),
    )


def remote_engine_config(
    model_path: Path, settings: Settings, context_length: int | None, parallel_chats: int | None
) -> EngineConfig:
    """No model file, no memory plan: ``model_path`` is the model's name on the server; 0 tokens = the server's."""
    return EngineConfig(
        model_path=model_path,
        context_length=context_length or settings.int_value("engine.context_length"),
        parallel_chats=parallel_chats or settings.int_or_automatic("engine.parallel_chats") or 1,
        warm_up=settings.bool_value("engine.warmup"),
        remote=RemoteTarget(settings.str_value("engine.remote_url"), settings.str_value("engine.remote_api_key")),
    )
