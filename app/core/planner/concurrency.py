"""Automatic parallel chats: how many chats run at once when ``engine.parallel_chats`` is Automatic.

The number comes from the backend and the machine, then from memory:

- a GPU (discrete or sharing system memory) answers several chats in one decode step for little
  more than the time of one, because each step reads the weights once for all of them: up to
  GPU_CHATS (more for vLLM, whose paged KV cache is shared between chats);
- a CPU gains less, and a small one loses: one chat below CPU_CORES_PER_CHAT x 2 physical cores,
  then one more chat per CPU_CORES_PER_CHAT cores, at most MAX_CPU_CHATS;
- then halved until that many chats, each with the context asked for (automatic: the model's
  context, at most AUTO_CHAT_CONTEXT tokens), fit in memory.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.planner.budget import MemoryBudget
from app.core.planner.metadata import ModelMetadata
from app.core.planner.recommend import chat_candidates
from app.core.planner.request import BackendChoice, PlanRequest
from app.core.planner.sizing import Setting, size_setting
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

GPU_CHATS: dict[BackendChoice, int] = {"llamacpp": 4, "vllm": 8}
CPU_CORES_PER_CHAT = 4
MAX_CPU_CHATS = 4
AUTO_CHAT_CONTEXT = 8192  # tokens each automatic chat keeps room for (or the model's whole context, if shorter)
CONTEXT = "MemoryPlan"


@dataclass(frozen=True)
class ChatsChoice:
    """The number of parallel chats the planner chose, and why (a Text: translated in the window)."""

    parallel_chats: int
    reason: str


def _said(template: str, *args: object) -> Text:
    """A phrase of the plan (``template`` marked with QT_TRANSLATE_NOOP("MemoryPlan", ...))."""
    return Text(CONTEXT, template, args)


def machine_chats(budget: MemoryBudget, backend: BackendChoice, cpu_cores: int) -> ChatsChoice:
    """The chats this backend and machine run well at once, before memory is looked at."""
    if budget.has_gpu:
        chats = GPU_CHATS[backend]
        return ChatsChoice(chats, _said(QT_TRANSLATE_NOOP(
            "MemoryPlan", "the GPU answers up to {0} chats together for little more than the time of one"), chats))
    chats = min(MAX_CPU_CHATS, cpu_cores // CPU_CORES_PER_CHAT) if cpu_cores >= 2 * CPU_CORES_PER_CHAT else 1
    if chats == 1:
        return ChatsChoice(1, _said(QT_TRANSLATE_NOOP(
            "MemoryPlan", "with {0} CPU cores, one chat at a time answers fastest"), cpu_cores))
    return ChatsChoice(chats, _said(QT_TRANSLATE_NOOP(
        "MemoryPlan", "{0} CPU cores answer up to {1} chats together"), cpu_cores, chats))


def choose_parallel_chats(
    model: ModelMetadata,
    budget: MemoryBudget,
    request: PlanRequest,
    kv_cache_dtype: str,
    start_context: int,
    cpu_cores: int,
) -> ChatsChoice:
    """The automatic number of chats for ``request`` (whose ``parallel_chats`` is None).

    ``start_context`` is the context the plan starts from (the request's, capped at the model's
    trained context). With an automatic context each chat keeps room for at least
    AUTO_CHAT_CONTEXT tokens (or the whole trained context, if shorter).
    """
    wanted = machine_chats(budget, request.backend, cpu_cores)
    context = start_context if request.context_length is not None else min(start_context, AUTO_CHAT_CONTEXT)
    for chats in chat_candidates(wanted.parallel_chats):
        setting = Setting(context, chats, kv_cache_dtype, request.gpu_layers)
        if not size_setting(model, budget, request.backend, setting, request.embedder_bytes, request.block_size).fits:
            continue
        if chats == wanted.parallel_chats:
            return wanted
        return ChatsChoice(chats, _said(QT_TRANSLATE_NOOP(
            "MemoryPlan", "{0}, but memory leaves room for {1} of {2} tokens each"), wanted.reason, chats, context))
    if wanted.parallel_chats == 1:
        return wanted
    return ChatsChoice(1, _said(QT_TRANSLATE_NOOP(
        "MemoryPlan", "{0}, but memory is short even for one chat"), wanted.reason))


def chats_sentence(choice: ChatsChoice) -> str:
    """The plan's sentence about an automatic choice, e.g. "4 chats at once, chosen automatically: ..."."""
    if choice.parallel_chats == 1:
        return _said(QT_TRANSLATE_NOOP("MemoryPlan", "1 chat at a time, chosen automatically: {0}."), choice.reason)
    return _said(QT_TRANSLATE_NOOP("MemoryPlan", "{0} chats at once, chosen automatically: {1}."),
                 choice.parallel_chats, choice.reason)
