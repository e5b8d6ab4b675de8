"""Estimates of compute/activation buffers and fixed runtime overhead, per backend.

llama.cpp (compute buffer, reserved once at context creation for a worst-case ubatch):
    4 bytes x n_ubatch x (n_vocab + 4 x n_embd + 2 x n_ff)      logits of a full ubatch of
                                                                   outputs + layer activations
  + with flash attention: 2 bytes x n_ubatch x n_kv              (the f16 KQ mask)
  + without:              4 bytes x n_ubatch x n_kv x (n_head + 1)  (f32 KQ scores and mask)
  where n_kv is the cells of one KV stream. Checked against what llama.cpp reports for tiny
  models: the marginal cost per cell matches exactly, the fixed part is a slight overestimate.

vLLM (peak activations found by its profiling run, plus the sampler):
    max_num_batched_tokens x dtype bytes x (8 x hidden + 3 x intermediate)
  + 2 x 4 bytes x vocab x max_num_seqs                           (f32 logits and probabilities)

Overheads (measured orders of magnitude, deliberately rounded up):
  llama.cpp: 256 MiB of host memory (runtime, threadpool, tokenizer, output buffers) plus
  512 MiB on the device when a GPU backend is used (CUDA/Metal context).
  vLLM: 1.5 GiB of host memory (two Python processes with torch) plus 1.5 GiB on the device
  (CUDA context, cuBLAS workspaces, CUDA graphs, non-torch allocations).
"""

from __future__ import annotations

from app.core.planner.dtypes import FLOAT_DTYPE_BYTES
from app.core.planner.metadata import ModelMetadata

MIB = 1024**2
GIB = 1024**3
LLAMACPP_HOST_OVERHEAD_BYTES = 256 * MIB
LLAMACPP_DEVICE_OVERHEAD_BYTES = 512 * MIB
VLLM_HOST_OVERHEAD_BYTES = 3 * GIB // 2
VLLM_DEVICE_OVERHEAD_BYTES = 3 * GIB // 2
VLLM_MAX_BATCHED_TOKENS_GPU = 8192
VLLM_MAX_BATCHED_TOKENS_CPU = 4096


def llamacpp_compute_bytes(
    model: ModelMetadata, kv_cells_per_stream: int, n_ubatch: int, flash_attention: bool = True
) -> int:
    """llama.cpp's compute buffer for a context whose largest KV stream has ``kv_cells_per_stream``."""
    ubatch = max(1, min(n_ubatch, kv_cells_per_stream))
    activations = 4 * ubatch * (model.vocab_size + 4 * model.hidden_size + 2 * model.intermediate_size)
    if flash_attention:
        attention = 2 * ubatch * kv_cells_per_stream
    else:
        attention = 4 * ubatch * kv_cells_per_stream * (model.n_heads + 1)
    return activations + attention


def vllm_activation_bytes(model: ModelMetadata, max_num_batched_tokens: int, max_num_seqs: int) -> int:
    """vLLM's activation peak for a batch of ``max_num_batched_tokens`` plus sampler logits."""
    dtype_bytes = FLOAT_DTYPE_BYTES.get(model.model_dtype, 2)
    per_token = dtype_bytes * (8 * model.hidden_size + 3 * model.intermediate_size)
    logits = 2 * 4 * model.vocab_size * max_num_seqs
    return max_num_batched_tokens * per_token + logits
