"""Fit badges: whether each catalog variant fits this machine with the chosen context and parallel chats."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from app.core.config import Settings
from app.core.hardware.report import HardwareReport
from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant
from app.core.models.catalog_metadata import variant_metadata
from app.core.planner.dtypes import LLAMACPP_KV_DTYPES, VLLM_KV_DTYPES
from app.core.planner.embedders import embedder_memory_bytes
from app.core.planner.plan import MemoryPlan, plan_memory
from app.core.planner.request import DEFAULT_RESERVE_BYTES, BackendChoice, PlanRequest

GIB = 1024**3
TIGHT_HEADROOM = 0.15  # "tight": it fits, but with less than this share of the budget to spare
DEFAULT_FIT_CONTEXT = 8192  # tokens per chat judged when the context setting is automatic
FitBadge = Literal["fits", "tight", "too_big", "unsupported"]


@dataclass(frozen=True)
class FitRequest:
    """What the badges are judged for. ``context_length`` None: DEFAULT_FIT_CONTEXT (or less, if the
    model's context is shorter)."""

    context_length: int | None = None
    parallel_chats: int = 1
    kv_cache_dtype: str = "auto"
    reserve_bytes: int = DEFAULT_RESERVE_BYTES
    embedder_bytes: int = 0

    @classmethod
    def from_settings(
        cls, settings: Settings, *, context_length: int | None = None, parallel_chats: int | None = None
    ) -> FitRequest:
        """The request the user's settings describe; explicit arguments override them."""
        return cls(
            context_length=context_length or settings.int_value("engine.context_length") or None,
            parallel_chats=parallel_chats or settings.int_value("engine.parallel_chats"),
            kv_cache_dtype=settings.str_value("engine.kv_cache_dtype"),
            reserve_bytes=int(settings.float_value("engine.os_reserve_gib") * GIB),
            embedder_bytes=embedder_memory_bytes(settings.str_value("kb.embedding_model")),
        )


@dataclass(frozen=True)
class VariantFit:
    """The badge of one variant, with the numbers behind it.

    ``needed_bytes``/``budget_bytes`` are for the part of memory that decides (GPU memory for
    vLLM on a discrete GPU, otherwise everything the backend may use); ``headroom`` is the
    share of that budget left free; ``longest_context`` is the longest context (tokens per
    chat, with the same number of chats) the planner finds that fits, None if none does.
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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def fit_variant(
    model: CatalogModel, variant: CatalogVariant, hardware: HardwareReport, request: FitRequest
) -> VariantFit:
    """Judge ``variant`` on ``hardware``: fits, tight, too_big, or unsupported (its backend cannot run here)."""
    backend = variant.backend
    metadata = variant_metadata(model, variant)
    context = min(request.context_length or DEFAULT_FIT_CONTEXT, metadata.context_length)
    if backend == "vllm" and hardware.recommended_backend.backend != "vllm":
        return VariantFit(
            model_id=model.id, variant_id=variant.id, badge="unsupported", backend=backend,
            context_length=context, parallel_chats=request.parallel_chats, needed_bytes=0, budget_bytes=0,
            headroom=0.0, longest_context=None,
            reason="Hugging Face (vLLM) models run only on Linux machines with unified memory and vLLM; "
            "use a GGUF variant here.",
        )
    plan = plan_memory(metadata, hardware, _plan_request(request, backend, context))
    longest = plan_memory(metadata, hardware, _plan_request(request, backend, None))
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
        parallel_chats=request.parallel_chats,
        needed_bytes=needed,
        budget_bytes=budget,
        headroom=round(headroom, 4),
        longest_context=longest.context_length if longest.fits else None,
        reason=_reason(plan, needed, budget, context, request.parallel_chats),
    )


def fit_catalog(catalog: Catalog, hardware: HardwareReport, request: FitRequest) -> tuple[VariantFit, ...]:
    """Badges of every variant in ``catalog``, in catalog order."""
    return tuple(fit_variant(model, variant, hardware, request) for model in catalog for variant in model.variants)


def _plan_request(request: FitRequest, backend: BackendChoice, context_length: int | None) -> PlanRequest:
    """A PlanRequest for ``backend``; a KV type the backend lacks falls back to its automatic choice."""
    supported = LLAMACPP_KV_DTYPES if backend == "llamacpp" else VLLM_KV_DTYPES
    kv_dtype = request.kv_cache_dtype if request.kv_cache_dtype in supported else "auto"
    return PlanRequest(
        backend=backend,
        context_length=context_length,
        parallel_sequences=request.parallel_chats,
        kv_cache_dtype=kv_dtype,
        reserve_bytes=request.reserve_bytes,
        embedder_bytes=request.embedder_bytes,
    )


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


def _partly_on_cpu(plan: MemoryPlan) -> bool:
    """True when llama.cpp on a discrete GPU keeps some layers in system RAM."""
    layers = plan.recommended.n_gpu_layers
    return plan.memory_kind == "discrete" and layers is not None and 0 <= layers < plan.model.n_layers


def _reason(plan: MemoryPlan, needed: int, budget: int, context: int, chats: int) -> str:
    """One line: what the setting needs against what is available."""
    chats_text = "1 chat" if chats == 1 else f"{chats} parallel chats"
    text = f"needs {needed / GIB:.1f} GiB of {budget / GIB:.1f} GiB available for {context} tokens x {chats_text}"
    if plan.fits and _partly_on_cpu(plan):
        text += (f"; only {plan.recommended.n_gpu_layers} of {plan.model.n_layers} layers fit on the GPU, "
                 "the rest run slower on the CPU")
    return text
