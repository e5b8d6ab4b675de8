"""Estimates of compute/activation buffers and fixed runtime overhead, per backend.

llama.cpp (compute buffer, reserved once at context creation for a worst-case ubatch). ggml's graph
allocator reuses memory, so the buffer is the larger of two peaks, not their sum:
    output head:  4 bytes x rows x (n_vocab + 2 x n_embd)           logits of the rows a step outputs
    layers:       4 bytes x n_ubatch x (4 x n_ff + 1.5 x n_embd)    feed-forward activations
                + with flash attention: 2 bytes x n_ubatch x n_kv   (the f16 KQ mask)
                + without: 4 bytes x n_ubatch x n_kv x (n_head + 1) (f32 KQ scores and mask)
  plus 1 MiB for small tensors; n_kv is the cells of one KV stream. Fitted to what llama.cpp 0.3.36
  reports (CPU, n_ubatch 512) over 32 contexts (hidden 512-4096, feed-forward 1536-14336, vocabulary
  1280-32000, 1K-32K cells, 1-4 chats): never below it, at most 8 MiB above (the output head's peak
  exact; the layers' within 1.5 x n_embd).
  By default llama.cpp reserves logits for every token of a ubatch (512 rows: 500 MiB for a 256k-token
  vocabulary); the engine tells it a step outputs at most one row per chat (``n_outputs_max``), so rows is
  the number of chats. A GPU (CUDA, Metal) commits the whole reservation; on the CPU its pages count once
  written, which the layers' peak (with the mask of a full context) does.
  Beside it llama.cpp keeps a host output buffer of 4 bytes x n_vocab x n_seq_max (its log's "output
  buffer size"); where a GPU samples in the graph, four such rows per chat (logits, the samplers' logits,
  probabilities, ids).

vLLM (peak activations found by its profiling run, plus the sampler):
    max_num_batched_tokens x dtype bytes x (8 x hidden + 3 x intermediate)
  + 2 x 4 bytes x vocab x max_num_seqs                           (f32 logits and probabilities)

Overheads (measured orders of magnitude, deliberately rounded up):
  llama.cpp: 24 MiB of host memory on the CPU (runtime, threadpool, tokenizer: measured 13-18 MiB of RSS
  beyond the weights, the KV cache and the written compute buffer by tests/benchmarks/bench_plan_vs_memory.py),
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
LLAMACPP_CPU_HOST_OVERHEAD_BYTES = 24 * MIB
LLAMACPP_SMALL_TENSORS_BYTES = MIB
LLAMACPP_DEVICE_OVERHEAD_BYTES = 512 * MIB
VLLM_HOST_OVERHEAD_BYTES = 3 * GIB // 2
VLLM_DEVICE_OVERHEAD_BYTES = 3 * GIB // 2
VLLM_MAX_BATCHED_TOKENS_GPU = 8192
VLLM_MAX_BATCHED_TOKENS_CPU = 4096


def _llamacpp_layers_bytes(model: ModelMetadata, kv_cells_per_stream: int, ubatch: int, flash_attention: bool) -> int:
    """The layers' peak of a ``ubatch``-token graph attending over ``kv_cells_per_stream`` cells."""
    layers = 4 * ubatch * (4 * model.intermediate_size + 3 * model.hidden_size // 2)
    if flash_attention:
        return layers + 2 * ubatch * kv_cells_per_stream
    return layers + 4 * ubatch * kv_cells_per_stream * (model.n_heads + 1)


def _llamacpp_output_head_bytes(model: ModelMetadata, rows: int) -> int:
    """The output head's peak for ``rows`` rows of logits."""
    return 4 * rows * (model.vocab_size + 2 * model.hidden_size)


def llamacpp_compute_bytes(
    model: ModelMetadata, kv_cells_per_stream: int, n_ubatch: int, parallel_chats: int, flash_attention: bool = True
) -> int:
    """llama.cpp's compute buffer as reserved for the engine's contexts: the layers' peak for a full ubatch over
    the largest KV stream, or the output head for one row of logits per chat (the engine tells llama.cpp a step
    outputs at most that: ``n_outputs_max``), whichever is larger.
    """
    ubatch = max(1, min(n_ubatch, kv_cells_per_stream))
    layers = _llamacpp_layers_bytes(model, kv_cells_per_stream, ubatch, flash_attention)
    rows = max(1, min(parallel_chats, ubatch))
    return max(_llamacpp_output_head_bytes(model, rows), layers) + LLAMACPP_SMALL_TENSORS_BYTES


def llamacpp_output_buffer_bytes(model: ModelMetadata, parallel_chats: int, graph_sampling: bool = False) -> int:
    """llama.cpp's host output buffer: one row of f32 logits per sequence; with sampling in the graph also a
    row of the samplers' logits, probabilities and candidate ids (4 bytes each) and the sampled token.
    """
    rows_per_sequence = 4 if graph_sampling else 1
    return 4 * (rows_per_sequence * model.vocab_size + int(graph_sampling)) * max(1, parallel_chats)


def vllm_activation_bytes(model: ModelMetadata, max_num_batched_tokens: int, max_num_seqs: int) -> int:
    """vLLM's activation peak for a batch of ``max_num_batched_tokens`` plus sampler logits."""
    dtype_bytes = FLOAT_DTYPE_BYTES.get(model.model_dtype, 2)
    per_token = dtype_bytes * (8 * model.hidden_size + 3 * model.intermediate_size)
    logits = 2 * 4 * model.vocab_size * max_num_seqs
    return max_num_batched_tokens * per_token + logits
