"""One-sentence explanations of a plan: what fits, or what does not and the nearest that does."""

from __future__ import annotations

from app.core.planner.recommend import SearchResult
from app.core.planner.sizing import ALL_LAYERS, Sizing

GIB = 1024**3


def gib(value: int, decimals: int = 1) -> str:
    """Bytes as GiB text, e.g. "9.1 GiB"."""
    return f"{value / GIB:.{decimals}f} GiB"


def _pair(needed: int, available: int) -> tuple[str, str]:
    """Both sizes as GiB text, with a second decimal when one decimal would make them look equal."""
    first, second = gib(needed), gib(available)
    if first == second:
        return gib(needed, 2), gib(available, 2)
    return first, second


def describe(sizing: Sizing, reference: Sizing | None = None) -> str:
    """e.g. "16384 tokens x 4 chats", plus the KV type / GPU layers where they differ from ``reference``."""
    setting = sizing.setting
    chats = "chat" if setting.parallel_sequences == 1 else "chats"
    text = f"{setting.context_length} tokens x {setting.parallel_sequences} {chats}"
    if reference is not None and setting.kv_cache_dtype != reference.setting.kv_cache_dtype:
        text += f" with a {setting.kv_cache_dtype} KV cache"
    if reference is not None and sizing.n_gpu_layers != reference.n_gpu_layers:
        text += " " + _layers_text(sizing)
    return text


def _layers_text(sizing: Sizing) -> str:
    """Where llama.cpp's layers go on a discrete GPU."""
    layers = sizing.n_gpu_layers
    if layers == ALL_LAYERS or (layers is not None and layers >= sizing.n_layers):
        return "with all layers on the GPU"
    return f"with {layers} of {sizing.n_layers} layers on the GPU"


def shortfall(sizing: Sizing) -> str:
    """e.g. "needs 9.1 GiB but 6.2 GiB is free"."""
    budget = sizing.budget
    if not sizing.gpu_fits:
        needed, free = _pair(sizing.gpu_bytes, budget.gpu_bytes)
        return f"needs {needed} of GPU memory but {free} is free"
    if budget.kind == "discrete":
        needed, free = _pair(sizing.host_bytes, budget.host_bytes)
        return f"needs {needed} of RAM but {free} is free after the {gib(budget.reserve_bytes)} reserve"
    needed, free = _pair(sizing.total_bytes, budget.total_bytes)
    return f"needs {needed} but {free} is free"


def explain(result: SearchResult, trained_context: int, requested_context: int | None) -> str:
    """The plan's one sentence."""
    requested, recommended = result.requested, result.recommended
    capped = requested_context is not None and requested_context > trained_context
    cap_note = f" (the model was trained for at most {trained_context} tokens)" if capped else ""
    if result.found and recommended is requested:
        return _fit_sentence(recommended, trained_context, result.auto_context) + cap_note + "."
    if result.found:
        return f"{describe(requested)} {shortfall(requested)}{cap_note}; {describe(recommended, requested)} fits."
    weights = gib(requested.weights_bytes)
    return (
        f"Even {describe(recommended, requested)} {shortfall(recommended)}, so this model does not fit "
        f"here (its weights alone are {weights}){cap_note}."
    )


def _fit_sentence(sizing: Sizing, trained_context: int, auto_context: bool) -> str:
    """The sentence for a setting that fits."""
    used, free = _pair(sizing.total_bytes, sizing.budget.total_bytes)
    text = describe(sizing) + " fits"
    if auto_context and sizing.setting.context_length < trained_context:
        text += f", the most context that does (the model allows {trained_context})"
    elif auto_context:
        text += ", the model's full context"
    if sizing.budget.kind == "discrete" and sizing.n_gpu_layers is not None:
        text += " " + _layers_text(sizing)
    return f"{text}: it needs {used} of the {free} free"
