"""Which inference backend suits this machine: vLLM on Linux with unified memory, llama.cpp elsewhere."""

from __future__ import annotations

from collections.abc import Callable

from app.core.hardware.report import BackendRecommendation
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "BackendChoice"


def _safely(check: Callable[[], bool]) -> bool:
    """The check's answer, or False when the check itself fails."""
    try:
        return bool(check())
    except Exception:
        return False


def recommend_backend(
    *, system: str, is_unified: bool, has_gpu: bool, vllm_importable: Callable[[], bool]
) -> BackendRecommendation:
    """vLLM when Linux + unified memory + vLLM installed, otherwise llama.cpp, with a one-sentence reason.

    ``vllm_importable`` is asked only when the answer depends on it.
    """
    if system == "Linux" and is_unified:
        if _safely(vllm_importable):
            return BackendRecommendation("vllm", Text(CONTEXT, QT_TRANSLATE_NOOP(
                "BackendChoice",
                "Linux with unified memory and vLLM installed: vLLM makes the best use of the shared pool.")))
        return BackendRecommendation("llamacpp", Text(CONTEXT, QT_TRANSLATE_NOOP(
            "BackendChoice", "Unified memory on Linux, but vLLM is not installed, so llama.cpp runs the model.")))
    if is_unified:
        return BackendRecommendation("llamacpp", Text(CONTEXT, QT_TRANSLATE_NOOP(
            "BackendChoice", "Unified memory on {0}, where vLLM does not run: llama.cpp runs the model."), (system,)))
    if has_gpu:
        return BackendRecommendation("llamacpp", Text(CONTEXT, QT_TRANSLATE_NOOP(
            "BackendChoice", "Discrete GPU: llama.cpp offloads layers to its memory and keeps the rest in RAM.")))
    return BackendRecommendation("llamacpp", Text(CONTEXT, QT_TRANSLATE_NOOP(
        "BackendChoice", "No GPU: llama.cpp runs the model on the CPU.")))
