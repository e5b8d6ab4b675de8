"""Memory planner: model metadata (GGUF, HF folder, config.json), KV/compute sizing, recommendations
and the decode roofline.
"""

from __future__ import annotations

from app.core.planner.embedders import embedder_memory_bytes
from app.core.planner.errors import ModelMetadataError, PlanRequestError
from app.core.planner.format import format_plan
from app.core.planner.kv import kv_bytes_for_context, kv_bytes_per_token
from app.core.planner.metadata import ModelMetadata
from app.core.planner.model_reader import read_model_metadata
from app.core.planner.plan import MemoryPlan, RecommendedSettings, plan_memory
from app.core.planner.request import PlanRequest
from app.core.planner.roofline import aggregate_decode_tokens_per_second_bound, decode_tokens_per_second_bound

__all__ = [
    "MemoryPlan",
    "ModelMetadata",
    "ModelMetadataError",
    "PlanRequest",
    "PlanRequestError",
    "RecommendedSettings",
    "aggregate_decode_tokens_per_second_bound",
    "decode_tokens_per_second_bound",
    "embedder_memory_bytes",
    "format_plan",
    "kv_bytes_for_context",
    "kv_bytes_per_token",
    "plan_memory",
    "read_model_metadata",
]
