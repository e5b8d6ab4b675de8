"""Byte sizes of KV-cache, weight and safetensors dtypes, and quantization bit widths."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

# Bytes per element of each KV-cache type. q8_0 stores 32 int8 values plus one f16 scale per
# block (34 bytes / 32 elements); q4_0 stores 32 4-bit values plus one f16 scale (18 / 32).
KV_BLOCK_SIZES: dict[str, tuple[int, int]] = {
    "f32": (1, 4),
    "f16": (1, 2),
    "bf16": (1, 2),
    "fp8": (1, 1),
    "q8_0": (32, 34),
    "q4_0": (32, 18),
}
KV_CACHE_DTYPES: tuple[str, ...] = ("auto", *KV_BLOCK_SIZES)
LLAMACPP_KV_DTYPES: frozenset[str] = frozenset({"f32", "f16", "bf16", "q8_0", "q4_0"})
VLLM_KV_DTYPES: frozenset[str] = frozenset({"f32", "f16", "bf16", "fp8"})

# safetensors dtype names -> bytes per element.
SAFETENSORS_DTYPE_BYTES: dict[str, Fraction] = {
    "F64": Fraction(8),
    "I64": Fraction(8),
    "U64": Fraction(8),
    "F32": Fraction(4),
    "I32": Fraction(4),
    "U32": Fraction(4),
    "F16": Fraction(2),
    "BF16": Fraction(2),
    "I16": Fraction(2),
    "U16": Fraction(2),
    "F8_E4M3": Fraction(1),
    "F8_E5M2": Fraction(1),
    "F8_E8M0": Fraction(1),
    "I8": Fraction(1),
    "U8": Fraction(1),
    "BOOL": Fraction(1),
    "F4": Fraction(1, 2),
    "F6_E2M3": Fraction(3, 4),
    "F6_E3M2": Fraction(3, 4),
}

# HF config dtype names -> short names used throughout the planner.
HF_DTYPE_NAMES: dict[str, str] = {
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "f16",
    "fp16": "f16",
    "half": "f16",
    "f16": "f16",
    "float32": "f32",
    "fp32": "f32",
    "float": "f32",
    "f32": "f32",
}
FLOAT_DTYPE_BYTES: dict[str, int] = {"bf16": 2, "f16": 2, "f32": 4}


def kv_row_bytes(kv_cache_dtype: str, n_elements: int) -> int:
    """Bytes of one row of ``n_elements`` values in ``kv_cache_dtype`` (ggml_row_size rule)."""
    block, block_bytes = KV_BLOCK_SIZES[kv_cache_dtype]
    return -(-n_elements // block) * block_bytes


def normalize_hf_dtype(value: object, default: str = "bf16") -> str:
    """Map an HF ``dtype``/``torch_dtype`` value ("bfloat16", "torch.float16") to bf16/f16/f32."""
    if not isinstance(value, str):
        return default
    return HF_DTYPE_NAMES.get(value.removeprefix("torch.").lower(), default)


def quantized_bits_per_weight(quantization_config: dict[str, Any]) -> tuple[str, Fraction] | None:
    """Bits stored per quantized linear weight, scales included, from an HF quantization_config.

    fp8: 8 bits (per-channel/block scales are negligible). awq/gptq: ``bits`` plus one f16
    scale and one ``bits``-wide zero point per ``group_size`` weights. nvfp4 (modelopt): 4 bits
    plus an fp8 scale per 16 weights = 4.5. mxfp4: 4 bits plus an 8-bit scale per 32 = 4.25.
    bitsandbytes: 4 or 8 bits. Returns (method, bits) or None for unknown methods.
    """
    method = str(quantization_config.get("quant_method", "")).lower()
    if method in ("fp8", "fbgemm_fp8"):
        return method, Fraction(8)
    if method in ("awq", "gptq", "auto-round", "gptq_marlin", "awq_marlin"):
        bits = int(quantization_config.get("bits", quantization_config.get("w_bit", 4)))
        group_size = int(quantization_config.get("group_size", quantization_config.get("q_group_size", 128)))
        group_size = group_size if group_size > 0 else 4096
        return method, Fraction(bits) + Fraction(16 + bits, group_size)
    if method == "modelopt":
        algo = str(quantization_config.get("quant_algo", "")).upper()
        if "FP4" in algo:
            return "nvfp4", Fraction(9, 2)
        if "FP8" in algo:
            return "fp8", Fraction(8)
        return None
    if method == "mxfp4":
        return method, Fraction(17, 4)
    if method == "bitsandbytes":
        return method, Fraction(4) if quantization_config.get("load_in_4bit") else Fraction(8)
    if method == "compressed-tensors":
        return _compressed_tensors_bits(quantization_config)
    return None


def _compressed_tensors_bits(quantization_config: dict[str, Any]) -> tuple[str, Fraction] | None:
    """Bits per weight of the first weight scheme in a compressed-tensors config."""
    groups = quantization_config.get("config_groups")
    if not isinstance(groups, dict):
        return None
    for group in groups.values():
        weights = group.get("weights") if isinstance(group, dict) else None
        if isinstance(weights, dict) and isinstance(weights.get("num_bits"), int):
            bits = int(weights["num_bits"])
            if weights.get("type") == "float" and bits == 4:
                return "nvfp4", Fraction(9, 2)
            return "compressed-tensors", Fraction(bits)
    return None
