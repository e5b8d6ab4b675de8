"""Estimates of compute/activation buffers and fixed runtime overhead, per backend.

llama.cpp (compute buffer, reserved once at context creation for a worst-case ubatch). ggml's graph
allocator reuses memory, so the buffer is the larger of two peaks, not their sum:
    output head:  4 bytes x n_ubatch x (n_vocab + 2 x n_embd)       logits of a full ubatch
    layers:       4 bytes x n_ubatch x (4 x n_ff + 1.5 x n_embd)    feed-forward activations
                + with flash attention: 2 bytes x n_ubatch x n_kv   (the f16 KQ mask)
                + without: 4 bytes x n_ubatch x n_kv x (n_head + 1) (f32 KQ scores and mask)
  plus 1 MiB for small tensors; n_kv is the cells of one KV stream. Fitted to what llama.cpp 0.3.36
  reports (CPU, n_ubatch 512) over 32 contexts (hidden 512-4096, feed-forward 1536-14336, vocabulary
  1280-32000, 1K-32K cells, 1-4 chats): never below it, at most 8 MiB above (the output head's peak
  exact; the layers' within 1.5 x n_embd). The former sum of both peaks overestimated models with a
  large vocabulary by up to 70% and underestimated wide ones with a small vocabulary by up to 22%.

vLLM (peak activations found by its profiling run, plus the sampler):
    max_num_batched_tokens x dtype bytes x (8 x hidden + 3 x intermediate)
  + 2 x 4 bytes x vocab x max_num_seqs                           (f32 logits and probabilities)

Overheads (measured orders of magnitude, deliberately rounded up):
  llama.cpp: 48 MiB of host memory on the CPU (runtime, threadpool, tokenizer, output buffers: measured
  16-21 MiB of RSS beyond weights, KV and compute buffers by tests/benchmarks/bench_plan_vs_memory.py),
  256 MiB when a GPU backend is used (its runtime libraries), plus 512 MiB on the device then
  (CUDA/Metal context).
  vLLM: 1.5 GiB of host memory (two Python processes with torch) plus 1.5 GiB on the device
  (CUDA context, cuBLAS workspaces, CUDA graphs, non-torch allocations).
"""

from __future__ import annotations

from app.core.planner.dtypes import FLOAT_DTYPE_BYTES
from app.core.planner.metadata import ModelMetadata

MIB = 1024**2
GIB = 1024**3
LLAMACPP_HOST_OVERHEAD_BYTES = 256 * MIB
LLAMACPP_CPU_HOST_OVERHEAD_BYTES = 48 * MIB
LLAMACPP_SMALL_TENSORS_BYTES = MIB
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
    output_head = 4 * ubatch * (model.vocab_size + 2 * model.hidden_size)
    layers = 4 * ubatch * (4 * model.intermediate_size + 3 * model.hidden_size // 2)
    if flash_attention:
        layers += 2 * ubatch * kv_cells_per_stream
    else:
        layers += 4 * ubatch * kv_cells_per_stream * (model.n_heads + 1)
    return max(output_head, layers) + LLAMACPP_SMALL_TENSORS_BYTES


def vllm_activation_bytes(model: ModelMetadata, max_num_batched_tokens: int, max_num_seqs: int) -> int:
    """vLLM's activation peak for a batch of ``max_num_batched_tokens`` plus sampler logits."""
    dtype_bytes = FLOAT_DTYPE_BYTES.get(model.model_dtype, 2)
    per_token = dtype_bytes * (8 * model.hidden_size + 3 * model.intermediate_size)
    logits = 2 * 4 * model.vocab_size * max_num_seqs
    return max_num_batched_tokens * per_token + logits
