"""Minimal hand-written decode loops over llama-cpp-python's low-level API: the benchmarks' yardstick.

Each loop does only what any correct program must do: one ``llama_decode`` per step (the next
token of every sequence in one batch) and greedy sampling with llama.cpp's own sampler (one
chain per sequence, ``llama_sampler_sample(chain, ctx, batch_index)``). No text, no threads,
no queues. The engine's figures are divided by these, so the ratio is what the engine adds or loses.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.engines.backends.llamacpp_native import cpu_repacking_crashes

GGML_KV_TYPES = {"f32": 0, "f16": 1, "q4_0": 2, "q8_0": 8}
FLASH_ATTENTION_TYPES = {"auto": -1, "off": 0, "on": 1}


@dataclass(frozen=True)
class ContextSettings:
    """The llama_context parameters a loop runs with (mirror the engine's for a fair ratio)."""

    n_ctx: int
    n_seq_max: int = 1
    kv_unified: bool = True
    threads: int = 2
    n_batch: int = 2048
    n_ubatch: int = 512
    kv_cache_dtype: str = "f16"
    flash_attention: str = "auto"
    gpu_layers: int = 0  # negative: all layers (the engine's EngineConfig.gpu_layers)
    # Each sequence's greedy chain runs inside llama.cpp's graph ([EXPERIMENTAL] backend sampling,
    # ``llama_context_params.samplers``): the token is picked where the logits are, none are copied out.
    backend_sampling: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class LoopResult:
    """Timing of one loop run. ``decode_tokens_per_s`` counts all sequences, prefill excluded."""

    sequences: int
    prompt_tokens: int
    generated_tokens_per_sequence: int
    time_to_first_token_s: float
    decode_tokens_per_s: float
    decode_time_s: float
    first_tokens: tuple[int, ...]


class ReferenceModel:
    """One model loaded through the low-level API; contexts are made per ContextSettings."""

    def __init__(self, model_path: Path, gpu_layers: int = 0) -> None:
        import llama_cpp

        self._llama = llama_cpp
        llama_cpp.llama_backend_init()
        model_params = llama_cpp.llama_model_default_params()
        model_params.n_gpu_layers = gpu_layers
        model_params.use_extra_bufts = not cpu_repacking_crashes(llama_cpp)  # as the engine does
        model = llama_cpp.llama_model_load_from_file(str(model_path).encode(), model_params)
        if not model:
            raise RuntimeError(f"llama.cpp could not load {model_path}")
        self._model = model
        self._vocab = llama_cpp.llama_model_get_vocab(model)

    def tokenize(self, text: str, add_special: bool = True) -> list[int]:
        """Token ids of ``text`` (special tokens in the text are parsed, as a chat template needs)."""
        llama = self._llama
        encoded = text.encode("utf-8")
        capacity = len(encoded) + 16
        while True:
            buffer = (llama.llama_token * capacity)()
            count = llama.llama_tokenize(self._vocab, encoded, len(encoded), buffer, capacity, add_special, True)
            if count >= 0:
                return list(buffer[:count])
            capacity = -count  # a vocabulary of few pieces can need more tokens than the text has bytes

    def new_context(self, settings: ContextSettings) -> ReferenceContext:
        return ReferenceContext(self._llama, self._model, settings)

    def close(self) -> None:
        if self._model:
            self._llama.llama_model_free(self._model)
            self._model = None


class ReferenceContext:
    """A llama_context plus a batch buffer and one greedy sampler chain per sequence."""

    def __init__(self, llama: Any, model: Any, settings: ContextSettings) -> None:
        self._llama = llama
        self.settings = settings
        params = llama.llama_context_default_params()
        params.n_ctx = settings.n_ctx
        params.n_batch = settings.n_batch
        params.n_ubatch = settings.n_ubatch
        params.n_seq_max = settings.n_seq_max
        params.kv_unified = settings.kv_unified
        params.n_threads = settings.threads
        params.n_threads_batch = settings.threads
        params.type_k = GGML_KV_TYPES[settings.kv_cache_dtype]
        params.type_v = GGML_KV_TYPES[settings.kv_cache_dtype]
        params.flash_attn_type = FLASH_ATTENTION_TYPES[settings.flash_attention]
        params.no_perf = True
        self._samplers = [self._greedy_chain() for _ in range(settings.n_seq_max)]
        if settings.backend_sampling:  # llama_sampler_sample then returns the token the graph picked
            configs = [llama.llama_sampler_seq_config(sequence, ctypes.cast(chain, ctypes.c_void_p))
                       for sequence, chain in enumerate(self._samplers)]
            self._sampler_configs = (llama.llama_sampler_seq_config * len(configs))(*configs)
            params.samplers = self._sampler_configs
            params.n_samplers = len(configs)
        context = llama.llama_init_from_model(model, params)
        if not context:
            raise RuntimeError(f"llama.cpp could not create a context with {settings}")
        self._context = context
        self._memory = llama.llama_get_memory(context)
        self._batch = llama.llama_batch_init(settings.n_batch, 0, 1)

    def _greedy_chain(self) -> Any:
        llama = self._llama
        chain = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
        llama.llama_sampler_chain_add(chain, llama.llama_sampler_init_greedy())
        return chain

    def sampled_in_graph(self) -> bool:
        """Whether the last decode's first output was picked by a backend sampler (not left to the host)."""
        return int(self._llama.llama_get_sampled_token_ith(self._context, 0)) >= 0

    def close(self) -> None:
        llama = self._llama
        for chain in self._samplers:
            llama.llama_sampler_free(chain)
        self._samplers = []
        llama.llama_batch_free(self._batch)
        llama.llama_free(self._context)

    def _decode(self) -> None:
        status = self._llama.llama_decode(self._context, self._batch)
        if status != 0:
            raise RuntimeError(f"llama_decode returned {status}")

    def _set_token(self, index: int, token: int, position: int, sequence: int, wants_logits: bool) -> None:
        batch = self._batch
        batch.token[index] = token
        batch.pos[index] = position
        batch.n_seq_id[index] = 1
        batch.seq_id[index][0] = sequence
        batch.logits[index] = wants_logits

    def _prefill(self, prompts: Sequence[Sequence[int]]) -> list[int]:
        """Decode all prompts in n_batch-sized batches; sample each sequence's first token right
        after the batch that holds its last prompt token.
        """
        entries = [
            (token, position, sequence, position == len(prompt) - 1)
            for sequence, prompt in enumerate(prompts)
            for position, token in enumerate(prompt)
        ]
        first_tokens = [0] * len(prompts)
        capacity = self.settings.n_batch
        for start in range(0, len(entries), capacity):
            chunk = entries[start : start + capacity]
            for index, (token, position, sequence, wants_logits) in enumerate(chunk):
                self._set_token(index, token, position, sequence, wants_logits)
            self._batch.n_tokens = len(chunk)
            self._decode()
            for index, (_token, _position, sequence, wants_logits) in enumerate(chunk):
                if wants_logits:
                    first_tokens[sequence] = self._llama.llama_sampler_sample(
                        self._samplers[sequence], self._context, index
                    )
        return first_tokens

    def run(self, prompts: Sequence[Sequence[int]], new_tokens: int) -> LoopResult:
        """Prefill every prompt (sequence i gets prompts[i]), then decode
        ``new_tokens`` tokens per sequence, one ``llama_decode`` for all sequences per step.
        Prompts may differ in length (chats of the same text length tokenize differently).
        """
        llama = self._llama
        sequence_count = len(prompts)
        lengths = [len(prompt) for prompt in prompts]
        prompt_length = max(lengths)
        if not 0 < sequence_count <= self.settings.n_seq_max or min(lengths) < 1:
            raise ValueError(f"need 1 to {self.settings.n_seq_max} non-empty prompts, got {lengths}")
        llama.llama_memory_clear(self._memory, True)
        for chain in self._samplers:
            llama.llama_sampler_reset(chain)
        context = self._context
        batch = self._batch
        samplers = self._samplers
        sample = llama.llama_sampler_sample
        decode = llama.llama_decode

        started = time.perf_counter()
        next_tokens = self._prefill(prompts)
        first_token_at = time.perf_counter()
        first_tokens = tuple(next_tokens)

        for sequence in range(sequence_count):
            self._set_token(sequence, 0, 0, sequence, True)
        batch.n_tokens = sequence_count
        tokens = batch.token
        positions = batch.pos
        for step in range(1, new_tokens):
            for sequence in range(sequence_count):
                tokens[sequence] = next_tokens[sequence]
                positions[sequence] = lengths[sequence] + step - 1
            if decode(context, batch) != 0:
                raise RuntimeError("llama_decode failed during decode")
            next_tokens = [sample(samplers[s], context, s) for s in range(sequence_count)]
        finished_at = time.perf_counter()

        decode_time = finished_at - first_token_at
        decoded = sequence_count * (new_tokens - 1)
        return LoopResult(
            sequences=sequence_count,
            prompt_tokens=prompt_length,
            generated_tokens_per_sequence=new_tokens,
            time_to_first_token_s=first_token_at - started,
            decode_tokens_per_s=decoded / decode_time if decode_time > 0 else 0.0,
            decode_time_s=decode_time,
            first_tokens=first_tokens,
        )


def single_sequence_loop(context: ReferenceContext, prompt: Sequence[int], new_tokens: int) -> LoopResult:
    """(a) The minimal single-chat greedy decode loop."""
    return context.run([prompt], new_tokens)


def batched_loop(context: ReferenceContext, prompts: Sequence[Sequence[int]], new_tokens: int) -> LoopResult:
    """(b) The minimal N-chat loop: one llama_decode per step for all sequences."""
    return context.run(prompts, new_tokens)
