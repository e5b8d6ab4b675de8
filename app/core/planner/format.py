"""Human-readable text of a MemoryPlan: a few lines with sizes in GiB."""

from __future__ import annotations

from app.core.planner.plan import MemoryPlan

GIB = 1024**3
_BACKEND_NAMES = {"vllm": "vLLM", "llamacpp": "llama.cpp"}
_MEMORY_NAMES = {"unified": "unified memory", "discrete": "discrete GPU + RAM", "cpu": "CPU and RAM"}


def _gib(value: int) -> str:
    """Bytes as "12.34 GiB"."""
    return f"{value / GIB:.2f} GiB"


def _parameters(count: int) -> str:
    """Parameter count as "8.03B" / "125.0M"."""
    return f"{count / 1e9:.2f}B" if count >= 1e9 else f"{count / 1e6:.1f}M"


def format_plan(plan: MemoryPlan) -> str:
    """A few lines: model, budget, breakdown, recommended settings, roofline, and the explanation."""
    model = plan.model
    estimated = " (estimated from config)" if model.weights_estimated else ""
    moe = f", MoE {model.experts_used} of {model.expert_count} experts" if model.is_moe else ""
    verdict = "fits" if plan.fits else "does not fit"
    chats = "chat" if plan.parallel_chats == 1 else "chats"
    lines = [
        f"Model: {model.architecture}, {_parameters(model.parameter_count)} parameters, "
        f"{model.dominant_weight_type} weights {_gib(model.weight_bytes)}{estimated}, "
        f"{model.n_layers} layers{moe}, trained context {model.context_length}",
        f"Memory: {_BACKEND_NAMES[plan.backend]} on {_MEMORY_NAMES[plan.memory_kind]}, "
        f"{_gib(plan.budget_bytes)} usable ({_gib(plan.reserve_bytes)} kept free)",
        f"Needs for {plan.context_length} tokens x {plan.parallel_chats} {chats} "
        f"({plan.kv_cache_dtype} KV): "
        f"weights {_gib(plan.weights_bytes)} + KV {_gib(plan.kv_bytes_total)} + compute "
        f"{_gib(plan.compute_bytes)} + runtime {_gib(plan.overhead_bytes)} + embedder "
        f"{_gib(plan.embedder_bytes)} = {_gib(plan.total_bytes)} -> {verdict}",
        "Recommended: " + _recommended_text(plan),
    ]
    if plan.parallel_chats_reason is not None:
        lines.append(f"Chats: {plan.parallel_chats} at once, chosen automatically: {plan.parallel_chats_reason}")
    if plan.decode_tok_s_roofline is not None and plan.decode_tok_s_roofline_empty is not None:
        lines.append(
            f"Decode ceiling: {plan.decode_tok_s_roofline:.1f} tok/s at {plan.context_length} tokens, "
            f"{plan.decode_tok_s_roofline_empty:.1f} tok/s at an empty context"
        )
    lines.append(plan.explanation)
    return "\n".join(lines)


def _recommended_text(plan: MemoryPlan) -> str:
    """The recommended engine settings on one line: the neutral ones, then the backend's own words."""
    rec = plan.recommended
    parts = [f"context {rec.context_length}", f"chats {rec.parallel_chats}", f"KV {rec.kv_cache_dtype}"]
    if rec.vllm is not None:
        vllm = rec.vllm
        if vllm.gpu_memory_utilization is not None:
            parts.append(f"gpu_memory_utilization {vllm.gpu_memory_utilization:.3f}")
        if vllm.block_size is not None:
            parts.append(f"block size {vllm.block_size}")
        if vllm.cpu_kvcache_space_gib is not None:
            parts.append(f"VLLM_CPU_KVCACHE_SPACE {vllm.cpu_kvcache_space_gib}")
    if rec.llamacpp is not None:
        llamacpp = rec.llamacpp
        parts.append(f"n_ctx {llamacpp.n_ctx}")
        layers = llamacpp.n_gpu_layers
        parts.append("n_gpu_layers all" if layers == -1 else f"n_gpu_layers {layers}")
    return ", ".join(parts) + ("" if rec.fits else " (still does not fit)")
