"""llama.cpp through llama-cpp-python's ctypes API: log routing, model and context setup, failures."""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.core.engines.base import EngineConfig, ModelLoadError, ProgressCallback
from app.core.engines.load_texts import said
from app.core.hardware.gpu_libraries import has_gpu_backend_library  # noqa: F401  (the window asks here)
from app.core.planner.engine_plan import LLAMACPP_GRAPH_SAMPLING_ON_GPU, LlamaCppPlan
from app.core.util.translatable import QT_TRANSLATE_NOOP

LLAMA_LOGGER = logging.getLogger("llama_cpp")
GGUF_MAGIC = b"GGUF"
# ggml_type values of the KV-cache types EngineConfig.kv_cache_dtype may name.
KV_CACHE_TYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8, "bf16": 30}
QUANTIZED_KV_TYPES = frozenset({"q4_0", "q4_1", "q5_0", "q5_1", "q8_0"})
FLASH_ATTENTION_TYPES = {"auto": -1, "off": 0, "on": 1}
_OOM_MARKERS = (
    "failed to allocate",
    "out of memory",
    "unable to allocate",
    "cannot allocate memory",
    "cudamalloc failed",
    "bad_alloc",
)


def preload_library() -> bool:
    """Load llama.cpp's shared libraries now; call it before anything imports numpy.

    On a CUDA build (llama-cpp-python 0.3.36, CUDA 13, H200), ``llama_model_load_from_file``
    segfaulted whenever numpy (or torch) had been imported before llama.cpp's libraries were
    loaded; loaded first, the same load works (gdb: the fault is in ``llama_model::print_info``'s
    number formatting, in code resolved to libggml-cuda). Returns False where llama-cpp-python
    is not installed or its library cannot be loaded (the engine reports that when used).
    """
    if "llama_cpp.llama_cpp" not in sys.modules and "numpy" in sys.modules:
        LLAMA_LOGGER.warning("numpy was imported before llama.cpp's libraries; a CUDA build may crash on load")
    try:
        import llama_cpp.llama_cpp  # noqa: F401  (the import loads libllama and libggml*)
    except (ImportError, OSError, RuntimeError):
        return False
    return True


def llama_library() -> Any:
    """The llama-cpp-python low-level module (imported on first use; typed as Any on purpose)."""
    import llama_cpp.llama_cpp as library

    return library


class LlamaLogRouter:
    """Receives every llama.cpp/ggml log line and sends it to the ``llama_cpp`` logger at debug.

    llama.cpp has one process-wide log hook, so there is one router per process (see
    :func:`install_log_router`); it keeps its ctypes callback alive for as long as the
    process runs. While a :meth:`capture` is open, lines are also collected for diagnosis.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._captures: list[list[str]] = []
        self._pending = ""
        library = llama_library()
        self._callback = library.llama_log_callback(self._on_log)
        library.llama_log_set(self._callback, ctypes.c_void_p(0))

    def _on_log(self, level: int, text: bytes | None, user_data: Any) -> None:
        del level, user_data
        message = (text or b"").decode("utf-8", errors="replace")
        with self._lock:
            for capture in self._captures:
                capture.append(message)
            self._pending += message
            if not self._pending.endswith("\n"):
                return
            line, self._pending = self._pending.rstrip("\n"), ""
        if line and LLAMA_LOGGER.isEnabledFor(logging.DEBUG):
            LLAMA_LOGGER.debug("%s", line)

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        """Collect the log text llama.cpp writes inside the ``with`` block."""
        lines: list[str] = []
        with self._lock:
            self._captures.append(lines)
        try:
            yield lines
        finally:
            with self._lock:
                self._captures.remove(lines)


@functools.cache
def install_log_router() -> LlamaLogRouter:
    """The process's llama.cpp log router, installed on first call (llama.cpp's hook is global)."""
    return LlamaLogRouter()


def default_thread_count() -> int:
    """Threads for llama.cpp when the settings say 0: physical cores this process may use."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        usable = os.cpu_count() or 4
    try:
        import psutil

        physical = psutil.cpu_count(logical=False) or usable
    except ImportError:
        physical = usable
    return max(1, min(usable, physical))


def cpu_repacking_crashes(library: Any) -> bool:
    """Whether to turn off llama.cpp's CPU weight repacking (``use_extra_bufts``): on CPUs with AMX,
    llama-cpp-python 0.3.36's AMX-repacked q8_0 weights segfault in the first multi-token decode
    (seen on a Xeon with AMX_INT8; tests/benchmarks/llamacpp_gpu_crash.py ``cpu_prefill``).
    """
    info = library.llama_print_system_info().decode("utf-8", errors="replace")
    return "AMX_INT8 = 1" in info


def check_model_file(path: Path) -> None:
    """Reject a missing, empty or non-GGUF file before llama.cpp sees it."""
    if not path.exists():
        raise ModelLoadError(said(QT_TRANSLATE_NOOP("EngineLoad", "Model file not found: {0}"), str(path)),
                             said(QT_TRANSLATE_NOOP("EngineLoad", "Check the path or choose another model.")))
    if not path.is_file():
        raise ModelLoadError(said(QT_TRANSLATE_NOOP("EngineLoad", "Not a model file: {0} is a folder."), str(path)),
                             said(QT_TRANSLATE_NOOP("EngineLoad", "Choose a .gguf file.")), "not_a_model")
    with path.open("rb") as handle:
        magic = handle.read(len(GGUF_MAGIC))
    if magic != GGUF_MAGIC:
        message = (said(QT_TRANSLATE_NOOP("EngineLoad", "{0} is empty."), path.name) if not magic
                   else said(QT_TRANSLATE_NOOP("EngineLoad", "{0} is not a GGUF model."), path.name))
        raise ModelLoadError(
            message, said(QT_TRANSLATE_NOOP("EngineLoad", "Choose a .gguf model file (llama.cpp format).")),
            "not_a_model",
        )


@dataclass
class NativeModel:
    """Pointers and sizes of a loaded model and its context (owned by the engine thread)."""

    library: Any
    model: Any
    context: Any
    vocab: Any
    memory: Any
    n_ctx: int
    n_ctx_per_sequence: int
    n_batch: int
    n_seq_max: int
    n_vocab: int
    model_name: str
    chat_template: str | None
    notes: tuple[str, ...] = ()
    flash_attention: str = "unknown"
    offloaded: bool = False
    """Whether layers run on a GPU (then llama_decode returns before the step is computed)."""
    graph_sampling: bool = False
    """Whether chats are sampled inside llama.cpp's graph (``llamacpp_graph_sampling``)."""
    stream_per_sequence: bool = False
    """Whether each sequence has a KV stream of its own (several chats, ``kv_unified`` off, an attention
    cache): llama.cpp then computes each run of consecutive sequence ids of a step on its own."""
    freed: bool = field(default=False)

    def free(self) -> None:
        """Free the context and the model (engine thread only; safe to call twice)."""
        if self.freed:
            return
        self.freed = True
        if self.context:
            self.library.llama_free(self.context)
        if self.model:
            self.library.llama_model_free(self.model)


def _meta_string(library: Any, model: Any, key: str) -> str | None:
    size = 256
    while True:
        buffer = ctypes.create_string_buffer(size)
        length = int(library.llama_model_meta_val_str(model, key.encode(), buffer, size))
        if length < 0:
            return None
        if length < size:
            return buffer.value.decode("utf-8", errors="replace")
        size = length + 1


def _interesting_line(lines: list[str]) -> str:
    """The most telling error line in a captured llama.cpp log (for the user-facing message)."""
    for line in reversed("".join(lines).splitlines()):
        if "error loading model:" in line:
            return line.split("error loading model:", 1)[1].strip()
    for line in reversed("".join(lines).splitlines()):
        lowered = line.lower()
        if ("error" in lowered or "failed" in lowered) and "failed to load model" not in lowered:
            return line.split(": ", 1)[-1].strip()
    return ""


def classify_model_failure(path: Path, lines: list[str]) -> ModelLoadError:
    """Turn llama.cpp's log of a failed model load into a ModelLoadError with the right cause."""
    text = "".join(lines).lower()
    detail = _interesting_line(lines)
    if "unknown model architecture" in text:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad",
                                   "This llama.cpp build does not support the model's architecture ({0})."), detail),
            said(QT_TRANSLATE_NOOP("EngineLoad",
                                   "Update UniDesk (a newer llama.cpp may support it) or choose another model.")),
            "unsupported",
        )
    if any(marker in text for marker in _OOM_MARKERS):
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "Not enough memory to load {0}."), path.name),
            said(QT_TRANSLATE_NOOP("EngineLoad",
                                   "Choose a smaller model or quantization, or offload fewer layers to the GPU.")),
            "out_of_memory",
        )
    if "not within the file bounds" in text or "failed to read" in text or "magic" in text:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "{0} is damaged or incomplete ({1})."), path.name, detail),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Download the model again.")),
            "not_a_model",
        )
    return ModelLoadError(
        said(QT_TRANSLATE_NOOP("EngineLoad", "llama.cpp could not load {0}: {1}."), path.name,
             detail or said(QT_TRANSLATE_NOOP("EngineLoad", "unknown error"))),
        said(QT_TRANSLATE_NOOP("EngineLoad", "See the log file for details.")),
        "other",
    )


def classify_context_failure(config: EngineConfig, lines: list[str]) -> ModelLoadError:
    """Context creation failed after the weights loaded: usually memory, sometimes a setting."""
    text = "".join(lines)
    detail = _interesting_line(lines)
    if "does not divide n_embd_head" in text:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "The {0} KV cache does not fit this model's head size ({1})."),
                 config.kv_cache_dtype, detail),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Use an f16 KV cache for this model.")),
            "other",
        )
    if "requires flash_attn" in text or "requires Flash Attention" in text:
        return ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "A {0} KV cache needs flash attention, which is off or unsupported."),
                 config.kv_cache_dtype),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Set flash attention to auto or on, or use an f16 KV cache.")),
            "other",
        )
    return ModelLoadError(
        said(QT_TRANSLATE_NOOP("EngineLoad", "Not enough memory for the KV cache of {0} chat(s) of {1} tokens."),
             config.parallel_chats, config.context_length),
        said(QT_TRANSLATE_NOOP("EngineLoad", "Lower the context length or the number of parallel chats, or use a "
                                             "quantized KV cache.")),
        "out_of_memory",
    )


def _validate_config(config: EngineConfig) -> None:
    if config.kv_cache_dtype not in KV_CACHE_TYPES:
        raise ModelLoadError(
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "Unknown KV cache type {0} for llama.cpp."), repr(config.kv_cache_dtype)),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Choose one of: {0}."), ", ".join(sorted(KV_CACHE_TYPES))),
        )
    if config.kv_cache_dtype in QUANTIZED_KV_TYPES and config.flash_attention == "off":
        raise ModelLoadError(
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "A {0} KV cache needs flash attention, but it is set to off."), config.kv_cache_dtype),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Set flash attention to auto or on, or use an f16 KV cache.")),
        )


def _flash_attention_state(config: EngineConfig, lines: list[str]) -> str:
    text = "".join(lines)
    if config.flash_attention != "auto":
        return "enabled" if config.flash_attention == "on" else "disabled"
    if "Flash Attention enabled" in text or "enabling flash_attn" in text:
        return "enabled"
    if "Flash Attention was auto, set to disabled" in text or "not supported, set to disabled" in text:
        return "disabled"
    return "unknown"


def llamacpp_plan(config: EngineConfig) -> LlamaCppPlan:
    """The plan's llama.cpp decisions; a config built by hand gets the planner's layout for its context and chats."""
    return config.llamacpp or LlamaCppPlan.for_chats(config.context_length, config.parallel_chats)


def offloads(library: Any, config: EngineConfig) -> bool:
    """Whether the model's layers run on a GPU (a build with GPU offload, and GPU layers asked for)."""
    return llamacpp_plan(config).n_gpu_layers != 0 and bool(library.llama_supports_gpu_offload())


def samples_in_graph(library: Any, config: EngineConfig) -> bool:
    """Whether chats are sampled inside llama.cpp's graph: the plan's choice, else the default for GPU layers."""
    chosen = llamacpp_plan(config).graph_sampling
    if chosen is None:
        return LLAMACPP_GRAPH_SAMPLING_ON_GPU and offloads(library, config)
    return chosen


def context_params(library: Any, config: EngineConfig, threads: int) -> Any:
    """``llama_context_params`` for ``config``: the plan's layout, translated to llama.cpp's words.

    ``n_ctx`` (all chats' cells), ``kv_unified`` and ``swa_full`` are the plan's, so llama.cpp
    allocates exactly what the plan sized; ``n_seq_max`` is the neutral ``parallel_chats``. A step
    outputs at most one row per chat (all the engine asks for), so llama.cpp reserves logits for that many
    rows, not for a whole ubatch (on a GPU, which commits the reservation, ~500 MiB less for a 256k-token
    vocabulary), and graph samplers for one row per chat.
    """
    plan = llamacpp_plan(config)
    params = library.llama_context_default_params()
    params.n_ctx = plan.n_ctx
    params.n_batch = plan.n_batch
    params.n_ubatch = min(plan.n_batch, plan.n_ubatch)
    params.n_seq_max = config.parallel_chats
    params.kv_unified = plan.kv_unified
    params.swa_full = plan.swa_full
    params.n_threads = threads
    params.n_threads_batch = threads
    params.flash_attn_type = FLASH_ATTENTION_TYPES[config.flash_attention]
    params.type_k = KV_CACHE_TYPES[config.kv_cache_dtype]
    params.type_v = KV_CACHE_TYPES[config.kv_cache_dtype]
    params.no_perf = True
    params.n_outputs_max = config.parallel_chats
    params.n_outputs_max_per_seq = 1
    return params


def load_native_model(
    config: EngineConfig, progress: ProgressCallback | None, router: LlamaLogRouter
) -> NativeModel:
    """Load the model and create one context for ``config.parallel_chats`` chats, laid out as the plan says
    (:func:`context_params`). Must run on the engine thread.
    """
    _validate_config(config)
    check_model_file(config.model_path)
    library = llama_library()
    library.llama_backend_init()

    def on_progress(fraction: float, user_data: Any) -> bool:
        del user_data
        if progress is not None:
            try:
                progress(0.9 * float(fraction), said(QT_TRANSLATE_NOOP("EngineLoad", "Loading weights")))
            except Exception:  # a failing progress display must not abort the load
                LLAMA_LOGGER.exception("The load progress callback failed")
        return True

    progress_callback = library.llama_progress_callback(on_progress)
    model_params = library.llama_model_default_params()
    if cpu_repacking_crashes(library):
        model_params.use_extra_bufts = False
    gpu_layers = llamacpp_plan(config).n_gpu_layers
    model_params.n_gpu_layers = gpu_layers  # negative: all layers
    model_params.progress_callback = progress_callback
    with router.capture() as model_log:
        model = library.llama_model_load_from_file(str(config.model_path).encode(), model_params)
    if not model:
        raise classify_model_failure(config.model_path, model_log)

    threads = config.threads if config.threads > 0 else default_thread_count()
    n_seq_max = config.parallel_chats
    if progress is not None:
        progress(0.92, said(QT_TRANSLATE_NOOP("EngineLoad", "Allocating the KV cache")))
    with router.capture() as context_log:
        context = library.llama_init_from_model(model, context_params(library, config, threads))
    if not context:
        library.llama_model_free(model)
        raise classify_context_failure(config, context_log)

    vocab = library.llama_model_get_vocab(model)
    template = library.llama_model_chat_template(model, None)
    name = _meta_string(library, model, "general.name") or config.model_path.stem
    if not library.llama_supports_gpu_offload():
        gpu_note = said(QT_TRANSLATE_NOOP("EngineLoad", "This llama.cpp build has no GPU offload; running on the CPU."))
    elif gpu_layers >= 0:
        gpu_note = said(QT_TRANSLATE_NOOP("EngineLoad", "GPU layers: {0}"), gpu_layers)
    else:
        gpu_note = said(QT_TRANSLATE_NOOP("EngineLoad", "GPU layers: all"))
    native = NativeModel(
        library=library,
        model=model,
        context=context,
        vocab=vocab,
        memory=library.llama_get_memory(context),
        n_ctx=int(library.llama_n_ctx(context)),
        n_ctx_per_sequence=int(library.llama_n_ctx_seq(context)),
        n_batch=int(library.llama_n_batch(context)),
        n_seq_max=n_seq_max,
        n_vocab=int(library.llama_vocab_n_tokens(vocab)),
        model_name=name,
        chat_template=template.decode("utf-8", errors="replace") if template else None,
        flash_attention=_flash_attention_state(config, context_log),
        offloaded=offloads(library, config),
        graph_sampling=samples_in_graph(library, config),
        stream_per_sequence=n_seq_max > 1 and not llamacpp_plan(config).kv_unified
        and not library.llama_model_is_recurrent(model) and not library.llama_model_is_hybrid(model),
    )
    flash = {"enabled": QT_TRANSLATE_NOOP("EngineLoad", "Flash attention: enabled"),
             "disabled": QT_TRANSLATE_NOOP("EngineLoad", "Flash attention: disabled")}
    native.notes = (
        gpu_note,
        said(flash.get(native.flash_attention, QT_TRANSLATE_NOOP("EngineLoad", "Flash attention: unknown"))),
        said(QT_TRANSLATE_NOOP("EngineLoad", "KV cache: {0}, {1} stream(s) of {2} cells"), config.kv_cache_dtype,
             1 if llamacpp_plan(config).kv_unified else n_seq_max, native.n_ctx_per_sequence),
        said(QT_TRANSLATE_NOOP("EngineLoad", "Threads: {0}"), threads),
    )
    if native.graph_sampling:
        native.notes += (said(QT_TRANSLATE_NOOP("EngineLoad", "Sampling: inside llama.cpp's compute graph")),)
    return native


def describe_build() -> dict[str, Any]:
    """What this llama.cpp build can do (system info, GPU offload, limits)."""
    library = llama_library()
    from importlib import metadata

    try:
        version = metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {
        "llama_cpp_python": version,
        "system_info": library.llama_print_system_info().decode("utf-8", errors="replace").strip(),
        "gpu_offload": bool(library.llama_supports_gpu_offload()),
        "mmap": bool(library.llama_supports_mmap()),
        "mlock": bool(library.llama_supports_mlock()),
        "max_devices": int(library.llama_max_devices()),
        "max_parallel_sequences": int(library.llama_max_parallel_sequences()),
    }
