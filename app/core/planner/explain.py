"""One-sentence explanations of a plan: what fits, or what does not and the nearest that does.

The sentences are Texts (app.core.util.translatable): English to the CLI and JSON, translated in the window.
"""

from __future__ import annotations

from app.core.planner.budget import GPU_RESERVE_BYTES
from app.core.planner.recommend import SearchResult
from app.core.planner.sizing import ALL_LAYERS, Sizing
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GIB = 1024**3
MIB = 1024**2
CONTEXT = "MemoryPlan"


def _said(template: str, *args: object) -> Text:
    """A phrase of the plan (``template`` marked with QT_TRANSLATE_NOOP("MemoryPlan", ...))."""
    return Text(CONTEXT, template, args)


def gib(value: int, decimals: int = 1) -> str:
    """Bytes as GiB text, e.g. "9.1 GiB"; below one GiB in MiB ("3 MiB", not "0.0 GiB")."""
    if value < GIB:
        return f"{max(1, round(value / MIB)) if value else 0} MiB"
    return f"{value / GIB:.{decimals}f} GiB"


def _pair(needed: int, available: int) -> tuple[str, str]:
    """Both sizes as GiB text, with a second decimal when one decimal would make them look equal."""
    first, second = gib(needed), gib(available)
    if first == second:
        return gib(needed, 2), gib(available, 2)
    return first, second


def describe(sizing: Sizing, reference: Sizing | None = None) -> str:
    """e.g. "16384 tokens × 4 chats", plus the KV type / GPU layers where they differ from ``reference``."""
    setting = sizing.setting
    if setting.parallel_chats == 1:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} tokens × {1} chat"), setting.context_length,
                     setting.parallel_chats)
    else:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} tokens × {1} chats"), setting.context_length,
                     setting.parallel_chats)
    if reference is not None and setting.kv_cache_dtype != reference.setting.kv_cache_dtype:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} with a {1} KV cache"), text, setting.kv_cache_dtype)
    if reference is not None and sizing.n_gpu_layers != reference.n_gpu_layers:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} {1}"), text, _layers_text(sizing))
    return text


def _layers_text(sizing: Sizing) -> str:
    """Where llama.cpp's layers go on a discrete GPU."""
    layers = sizing.n_gpu_layers
    if layers == ALL_LAYERS or (layers is not None and layers >= sizing.n_layers):
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "with all layers on the GPU"))
    return _said(QT_TRANSLATE_NOOP("MemoryPlan", "with {0} of {1} layers on the GPU"), layers, sizing.n_layers)


def shortfall(sizing: Sizing) -> str:
    """e.g. "needs 9.1 GiB but 6.2 GiB is free"."""
    budget = sizing.budget
    if not sizing.gpu_fits:
        needed, free = _pair(sizing.gpu_bytes, budget.gpu_bytes)
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "needs {0} of GPU memory but {1} is free after the {2} reserve"),
                     needed, free, gib(GPU_RESERVE_BYTES))
    if budget.kind == "discrete":
        needed, free = _pair(sizing.host_bytes, budget.host_bytes)
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "needs {0} of RAM but {1} is free after the {2} reserve"),
                     needed, free, gib(budget.reserve_bytes))
    needed, free = _pair(sizing.total_bytes, budget.total_bytes)
    return _said(QT_TRANSLATE_NOOP("MemoryPlan", "needs {0} but {1} is free"), needed, free)


def explain(result: SearchResult, trained_context: int, requested_context: int | None) -> str:
    """The plan's one sentence (a Text)."""
    requested, recommended = result.requested, result.recommended
    capped = requested_context is not None and requested_context > trained_context
    cap_note = (_said(QT_TRANSLATE_NOOP("MemoryPlan", " (the model was trained for at most {0} tokens)"),
                      trained_context) if capped else "")
    if result.found and recommended is requested:
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0}{1}."),
                     _fit_sentence(recommended, trained_context, result.auto_context), cap_note)
    if result.found:
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} {1}{2}; {3} fits."), describe(requested),
                     shortfall(requested), cap_note, describe(recommended, requested))
    return _said(
        QT_TRANSLATE_NOOP("MemoryPlan",
                          "Even {0} (the least) {1}, so this model does not fit here (its weights alone are {2}){3}."),
        describe(recommended, requested), shortfall(recommended), gib(requested.weights_bytes), cap_note,
    )


def _fit_sentence(sizing: Sizing, trained_context: int, auto_context: bool) -> str:
    """The sentence for a setting that fits."""
    used, free = _pair(sizing.total_bytes, sizing.budget.total_bytes)
    text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} fits"), describe(sizing))
    if auto_context and sizing.setting.context_length < trained_context:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0}, the most context that does (the model allows {1})"),
                     text, trained_context)
    elif auto_context:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0}, the model's full context"), text)
    if sizing.budget.kind == "discrete" and sizing.n_gpu_layers is not None:
        text = _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} {1}"), text, _layers_text(sizing))
    return _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0}: it needs {1} of the {2} free"), text, used, free)
