"""A minimal single-sequence greedy loop over llama-cpp-python's low-level API, as a test oracle."""

from __future__ import annotations

import ctypes
from pathlib import Path


def reference_greedy_pieces(
    model_path: Path, prompt_tokens: list[int], n_tokens: int, n_ctx: int = 512, threads: int = 2
) -> list[bytes]:
    """The bytes of each of the first ``n_tokens`` greedy tokens after ``prompt_tokens``.

    No engine code involved: load, one decode of the whole prompt, then one token per decode,
    sampled with llama.cpp's greedy sampler. Stops early at an end-of-generation token.
    """
    import llama_cpp.llama_cpp as llama

    from app.core.engines.backends.llamacpp_native import cpu_repacking_crashes

    model_params = llama.llama_model_default_params()
    model_params.use_extra_bufts = not cpu_repacking_crashes(llama)  # as the engine loads (AMX CPUs crash)
    model = llama.llama_model_load_from_file(str(model_path).encode(), model_params)
    assert model, f"reference loop could not load {model_path}"
    params = llama.llama_context_default_params()
    params.n_ctx = n_ctx
    params.n_batch = max(len(prompt_tokens), 1)
    params.n_seq_max = 1
    params.n_threads = params.n_threads_batch = threads
    context = llama.llama_init_from_model(model, params)
    vocab = llama.llama_model_get_vocab(model)
    sampler = llama.llama_sampler_chain_init(llama.llama_sampler_chain_default_params())
    llama.llama_sampler_chain_add(sampler, llama.llama_sampler_init_greedy())
    batch = llama.llama_batch_init(len(prompt_tokens), 0, 1)
    buffer = ctypes.create_string_buffer(64)
    pieces: list[bytes] = []
    try:
        for index, token in enumerate(prompt_tokens):
            batch.token[index] = token
            batch.pos[index] = index
            batch.n_seq_id[index] = 1
            batch.seq_id[index][0] = 0
            batch.logits[index] = index == len(prompt_tokens) - 1
        batch.n_tokens = len(prompt_tokens)
        position = len(prompt_tokens)
        assert llama.llama_decode(context, batch) == 0
        output_index = len(prompt_tokens) - 1
        while len(pieces) < n_tokens:
            token = llama.llama_sampler_sample(sampler, context, output_index)
            if llama.llama_vocab_is_eog(vocab, token):
                break
            length = llama.llama_token_to_piece(vocab, token, buffer, len(buffer), 0, False)
            pieces.append(buffer.raw[:length])
            batch.token[0] = token
            batch.pos[0] = position
            batch.n_seq_id[0] = 1
            batch.seq_id[0][0] = 0
            batch.logits[0] = 1
            batch.n_tokens = 1
            position += 1
            output_index = 0
            assert llama.llama_decode(context, batch) == 0
    finally:
        llama.llama_batch_free(batch)
        llama.llama_sampler_free(sampler)
        llama.llama_free(context)
        llama.llama_model_free(model)
    return pieces
