"""ModelMetadata for a catalog variant before download, from the catalog's config.json facts.

The shape comes from the planner's own config reader (``parse_hf_config``) and parameter
estimate; the weight size is the variant's download size (a GGUF file or safetensors are
almost all weights), spread over the layers in the estimate's proportions.
"""

from __future__ import annotations

from dataclasses import replace

from app.core.models.catalog import CatalogModel, CatalogVariant
from app.core.models.catalog_parse import CONTEXT
from app.core.models.errors import CatalogError
from app.core.planner.errors import ModelMetadataError
from app.core.planner.hf_config import parse_hf_config
from app.core.planner.metadata import ModelMetadata
from app.core.planner.param_estimate import estimate_parameters, estimated_weight_bytes
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text


def variant_metadata(model: CatalogModel, variant: CatalogVariant) -> ModelMetadata:
    """What the planner needs to size ``variant`` of ``model`` on a machine."""
    config = dict(model.config)
    if variant.quantization_config is not None:
        config["quantization_config"] = dict(variant.quantization_config)
    try:
        text = parse_hf_config(config, f"catalog entry {model.id}")
    except ModelMetadataError as error:
        raise CatalogError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "CatalogErrors", "The catalog's facts for {0} are incomplete: {1}"), (model.id, error.message))) from error
    vocab_size = text.vocab_size
    if not vocab_size:
        raise CatalogError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "CatalogErrors", "The catalog's facts for {0} lack vocab_size."), (model.id,)))
    text = replace(text, context_length=min(text.context_length, model.context_length))
    estimate = estimate_parameters(text, vocab_size)
    estimated_bytes, estimated_layers, estimated_experts = estimated_weight_bytes(text, estimate)
    scale = variant.approx_size_bytes / estimated_bytes if estimated_bytes > 0 else 1.0
    layer_bytes = tuple(int(size * scale) for size in estimated_layers)
    weight_bytes = variant.approx_size_bytes
    if text.mla is not None:
        kv_heads, head_dim_k, head_dim_v = (1,) * text.n_layers, text.mla.kv_lora_rank + text.mla.qk_rope_head_dim, 0
    else:
        kv_heads, head_dim_k, head_dim_v = (text.n_kv_heads,) * text.n_layers, text.head_dim, text.head_dim
    is_gguf = variant.format == "gguf"
    weight_type = variant.quantization.lower()
    return ModelMetadata(
        path=f"{variant.repo_id}/{variant.file_name}" if is_gguf else variant.repo_id,
        source="gguf" if is_gguf else "hf_config",
        architecture=text.model_type,
        n_layers=text.n_layers,
        n_heads=text.n_heads,
        n_kv_heads=kv_heads,
        head_dim_k=head_dim_k,
        head_dim_v=head_dim_v,
        hidden_size=text.hidden_size,
        intermediate_size=text.intermediate_size,
        vocab_size=vocab_size,
        context_length=text.context_length,
        sliding_window=text.sliding_window,
        sliding_layers=text.sliding_layers,
        expert_count=text.expert_count,
        experts_used=text.experts_used,
        weight_bytes=weight_bytes,
        expert_weight_bytes=int(estimated_experts * scale),
        layer_weight_bytes=layer_bytes,
        tensor_bytes_by_type=((weight_type, weight_bytes),),
        file_size_bytes=variant.approx_size_bytes,
        parameter_count=estimate.total,
        weights_estimated=True,
        model_dtype="f16" if is_gguf else text.dtype,
        quantization=None if weight_type in ("f16", "bf16", "f32") else weight_type,
    )
