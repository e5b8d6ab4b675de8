"""Fit badges: whether each catalog variant fits this machine with the chosen context and parallel chats."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

from app.core.config import Settings
from app.core.hardware.report import HardwareReport
from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant
from app.core.models.catalog_metadata import variant_metadata
from app.core.planner.from_settings import plan_request_from_settings
from app.core.planner.plan import MemoryPlan, plan_memory
from app.core.planner.request import BackendChoice, PlanRequest, backend_kv_dtypes
from app.core.planner.roofline import decode_bytes_per_token

GIB = 1024**3
TIGHT_HEADROOM = 0.15  # "tight": it fits, but with less than this share of the budget to spare
DEFAULT_FIT_CONTEXT = 8192  # tokens per chat judged when the context setting is automatic
SLOW_DECODE_TOK_S = 5.0
"""Decode ceiling below which a model is marked slow. People read about 250 words a minute, some 5-6 tokens
a second; the ceiling is an upper bound (real decoding reaches roughly half to four fifths of it), so
below 5 tokens/s answers certainly come slower than they are read, word by word."""
FitBadge = Literal["fits", "tight", "too_big", "unsupported"]


def badge_request_from_settings(
    settings: Settings, *, context_length: int | None = None, parallel_chats: int | None = None
) -> PlanRequest:
    """What the badges are judged for: the settings' plan request (explicit arguments override them).

    Each variant is then planned for its own backend (see :func:`fit_variant`), so the backend
    here is only a placeholder (one that can use the chosen KV type). An automatic context is
    judged at DEFAULT_FIT_CONTEXT (or the model's, if shorter); automatic chats are chosen by the
    planner for each variant.
    """
    kv_cache_dtype = settings.str_value("engine.kv_cache_dtype")
    placeholder: BackendChoice = "vllm" if kv_cache_dtype in backend_kv_dtypes("vllm") - backend_kv_dtypes(
        "llamacpp") else "llamacpp"
    return plan_request_from_settings(
        settings, placeholder, context_length=context_length, parallel_chats=parallel_chats
    )


@dataclass(frozen=True)
class VariantFit:
    """The badge of one variant, with the numbers behind it.

    ``needed_bytes``/``budget_bytes`` are for the part of memory that decides (GPU memory for
    vLLM on a discrete GPU, otherwise everything the backend may use); ``headroom`` is the
    share of that budget left free; ``longest_context`` is the longest context (tokens per
    chat, with the same number of chats) the planner finds that fits, None if none does.
    ``capped`` is True when the request asked for more context than the model was trained for:
    ``context_length`` is then the model's maximum. ``decode_bytes_per_token`` is what one chat
    reads per token at an empty context (the roofline's numerator), ``decode_tok_s`` the plan's
    ceiling for it on this machine's memory bandwidth (None when the bandwidth is unknown);
    ``cpu_layers`` the layers llama.cpp would leave in system RAM on a discrete GPU, which the
    ceiling (at the GPU's bandwidth) does not account for.
    """

    model_id: str
    variant_id: str
    badge: FitBadge
    backend: BackendChoice
    context_length: int
    parallel_chats: int
    needed_bytes: int
    budget_bytes: int
    headroom: float
    longest_context: int | None
    reason: str
    capped: bool = False
    decode_bytes_per_token: int = 0
    decode_tok_s: float | None = None
    cpu_layers: int = 0

    @property
    def slow(self) -> bool:
        """True when even the decode ceiling is below SLOW_DECODE_TOK_S (answers come slower than people read)."""
        return self.decode_tok_s is not None and self.decode_tok_s < SLOW_DECODE_TOK_S

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (with ``slow``)."""
        return dict(asdict(self), slow=self.slow)


def fit_variant(
    model: CatalogModel, variant: CatalogVariant, hardware: HardwareReport, request: PlanRequest
) -> VariantFit:
    """Judge ``variant`` on ``hardware``: fits, tight, too_big, or unsupported (its backend cannot run here).

    ``request`` (as :func:`badge_request_from_settings` makes it) is planned for the variant's
    backend; a KV type that backend lacks falls back to its automatic choice.
    """
    backend = variant.backend
    metadata = variant_metadata(model, variant)
    asked = request.context_length or DEFAULT_FIT_CONTEXT
    context = min(asked, metadata.context_length)
    capped = request.context_length is not None and request.context_length > metadata.context_length
    if backend == "vllm" and hardware.recommended_backend.backend != "vllm":
        return VariantFit(
            model_id=model.id, variant_id=variant.id, badge="unsupported", backend=backend,
            context_length=context, parallel_chats=request.parallel_chats or 1, needed_bytes=0, budget_bytes=0,
            headroom=0.0, longest_context=None, capped=capped,
            reason="Hugging Face (vLLM) models run only on Linux machines with unified memory and vLLM; "
            "use a GGUF variant here.",
        )
    plan = plan_memory(metadata, hardware, _plan_request(request, backend, context))
    same_chats = replace(request, parallel_chats=plan.parallel_chats)  # an automatic number, now chosen
    longest = plan_memory(metadata, hardware, _plan_request(same_chats, backend, None))
    needed, budget = _deciding_part(plan)
    headroom = (budget - needed) / budget if budget > 0 else -1.0
    badge: FitBadge = "too_big" if not plan.fits else "tight" if headroom < TIGHT_HEADROOM else "fits"
    if badge == "fits" and _partly_on_cpu(plan):
        badge = "tight"  # it runs, but layers left in RAM make it much slower
    return VariantFit(
        model_id=model.id,
        variant_id=variant.id,
        badge=badge,
        backend=backend,
        context_length=context,
        parallel_chats=plan.parallel_chats,
        needed_bytes=needed,
        budget_bytes=budget,
        headroom=round(headroom, 4),
        longest_context=longest.context_length if longest.fits else None,
        reason=_reason(plan, needed, budget, context, plan.parallel_chats, capped),
        capped=capped,
        decode_bytes_per_token=decode_bytes_per_token(metadata, plan.kv_cache_dtype, 0),
        decode_tok_s=plan.decode_tok_s_roofline_empty,
        cpu_layers=_cpu_layers(plan),
    )


def fit_catalog(catalog: Catalog, hardware: HardwareReport, request: PlanRequest) -> tuple[VariantFit, ...]:
    """Badges of every variant in ``catalog``, in catalog order."""
    return tuple(fit_variant(model, variant, hardware, request) for model in catalog for variant in model.variants)


def _plan_request(request: PlanRequest, backend: BackendChoice, context_length: int | None) -> PlanRequest:
    """``request`` for ``backend`` and ``context_length``; a KV type the backend lacks becomes its automatic one."""
    kv_dtype = request.kv_cache_dtype if request.kv_cache_dtype in backend_kv_dtypes(backend) else "auto"
    return replace(request, backend=backend, context_length=context_length, kv_cache_dtype=kv_dtype)


def _deciding_part(plan: MemoryPlan) -> tuple[int, int]:
    """(needed, budget) of the memory that limits the plan.

    On a discrete GPU that is GPU memory (vLLM always; llama.cpp while every layer fits there),
    or GPU memory and RAM together when llama.cpp leaves layers in RAM; elsewhere the one pool.
    """
    if plan.memory_kind == "discrete":
        if _partly_on_cpu(plan):
            return plan.total_bytes, plan.budget_bytes
        return plan.gpu_bytes, plan.gpu_budget_bytes
    return plan.host_bytes, plan.host_budget_bytes


def _cpu_layers(plan: MemoryPlan) -> int:
    """Layers llama.cpp keeps in system RAM on a discrete GPU (0 when all are on the GPU, or there is none)."""
    llamacpp = plan.recommended.llamacpp
    if not _partly_on_cpu(plan) or llamacpp is None or llamacpp.n_gpu_layers is None:
        return 0
    return plan.model.n_layers - llamacpp.n_gpu_layers


def _partly_on_cpu(plan: MemoryPlan) -> bool:
    """True when llama.cpp on a discrete GPU keeps some layers in system RAM."""
    llamacpp = plan.recommended.llamacpp
    layers = llamacpp.n_gpu_layers if llamacpp is not None else None
    return plan.memory_kind == "discrete" and layers is not None and 0 <= layers < plan.model.n_layers


def _reason(plan: MemoryPlan, needed: int, budget: int, context: int, chats: int, capped: bool) -> str:
    """One line: what the setting needs against what is available."""
    chats_text = "1 chat" if chats == 1 else f"{chats} parallel chats"
    tokens = f"{context} tokens (the model's maximum)" if capped else f"{context} tokens"
    text = f"needs {needed / GIB:.1f} GiB of {budget / GIB:.1f} GiB available for {tokens} x {chats_text}"
    llamacpp = plan.recommended.llamacpp
    if plan.fits and _partly_on_cpu(plan) and llamacpp is not None:
        text += (f"; only {llamacpp.n_gpu_layers} of {plan.model.n_layers} layers fit on the GPU, "
                 "the rest run slower on the CPU")
    return text
