"""The memory verdict for edited settings: plan, nearest alternatives and backend choice (Qt-free, worker side)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.config import Settings
from app.core.engines.manager import ManagerState, ManagerStatus
from app.core.engines.selection import BackendSelection, select_backend
from app.core.hardware import HardwareReport
from app.core.planner import MemoryPlan, ModelMetadata, plan_memory, read_model_metadata
from app.core.planner.from_settings import plan_request_from_settings
from app.core.planner.recommend import chat_candidates
from app.core.util.errors import UserFacingError

MetadataReader = Callable[[Path], ModelMetadata]


@dataclass(frozen=True)
class Verdict:
    """What the settings being edited would do on this machine.

    ``plan`` is None without a model (or for the remote backend, or when the model cannot be
    read: ``problem`` says why). ``context_alternative`` is the longest context that fits with
    the requested chats; ``chats_alternative`` the most chats that fit at the requested context
    (each None when the request fits or no such setting exists).
    """

    model_path: Path | None
    selection: BackendSelection | None
    problem: str | None
    plan: MemoryPlan | None
    context_alternative: int | None = None
    chats_alternative: int | None = None
    hardware: HardwareReport | None = None


class MetadataCache:
    """Model metadata by (path, size, mtime), so editing other settings does not re-read the model."""

    def __init__(self, reader: MetadataReader = read_model_metadata) -> None:
        self._reader = reader
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, int, int], ModelMetadata] = {}

    def get(self, path: Path) -> ModelMetadata:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._entries.get(key)
        if cached is not None:
            return cached
        metadata = self._reader(path)
        with self._lock:
            self._entries = {key: metadata}  # one model at a time is enough
        return metadata


def memory_a_reload_frees(status: ManagerStatus) -> int:
    """Memory the loaded model holds that unloading it gives back, as far as MemAvailable can tell.

    llama.cpp maps the weights from the file (page cache, already counted as available), so its
    KV cache and compute buffers are what come back; vLLM allocates everything.
    """
    plan = status.plan
    if status.state is not ManagerState.READY or plan is None:
        return 0
    if plan.memory_kind == "discrete":
        return plan.host_bytes if plan.backend == "vllm" else 0
    if plan.backend == "vllm":
        return plan.total_bytes - plan.embedder_bytes
    return plan.kv_bytes_total + plan.compute_bytes


def model_path_for(settings: Settings, status: ManagerStatus) -> Path | None:
    """The model the verdict is about: the one in the settings, else the loaded one."""
    chosen = settings.str_value("model.path").strip()
    if chosen:
        return Path(chosen).expanduser()
    if status.loaded is not None:
        return status.loaded.config.model_path
    return None


def compute_verdict(
    settings: Settings,
    model_path: Path | None,
    hardware: HardwareReport,
    metadata: MetadataCache,
) -> Verdict:
    """Plan ``settings`` for ``model_path`` on ``hardware`` (runs on a worker: reads the model file)."""
    backend_setting = settings.str_value("engine.backend")
    if model_path is None:
        return Verdict(None, None, None, None, hardware=hardware)
    try:
        selection = select_backend(model_path, backend_setting, hardware)
    except (UserFacingError, OSError) as error:
        return Verdict(model_path, None, _one_line(error), None, hardware=hardware)
    if selection.backend == "remote":
        return Verdict(model_path, selection, None, None, hardware=hardware)
    try:
        model = metadata.get(model_path)
        request = plan_request_from_settings(settings, selection.backend)
        plan = plan_memory(model, hardware, request)
    except (UserFacingError, OSError) as error:
        return Verdict(model_path, selection, _one_line(error), None, hardware=hardware)
    context_alternative = chats_alternative = None
    if not plan.fits:
        recommended = plan.recommended
        if (recommended.fits and recommended.parallel_chats == plan.parallel_chats
                and recommended.kv_cache_dtype == plan.kv_cache_dtype):
            context_alternative = recommended.context_length
        for chats in chat_candidates(plan.parallel_chats)[1:]:
            fewer = dataclasses.replace(request, parallel_chats=chats, context_length=plan.context_length)
            if plan_memory(model, hardware, fewer).fits:
                chats_alternative = chats
                break
    return Verdict(model_path, selection, None, plan, context_alternative, chats_alternative, hardware)


def _one_line(error: BaseException) -> str:
    if isinstance(error, UserFacingError):
        return error.message
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def format_tokens(count: int) -> str:
    """Token counts the way people say them: 16384 -> "16K", 131072 -> "128K", 1000 -> "1000"."""
    if count >= 1024 and count % 1024 == 0:
        return f"{count // 1024}K"
    return str(count)
