"""llama.cpp sampler chains of several chats on helper threads give the tokens of one call per chat.

The chats here are the kinds the numpy paths leave to llama.cpp: temperature alone over the whole
vocabulary, min-p without top-k, repetition penalties.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from app.core.engines.backends import llamacpp_chains
from app.core.engines.backends.llamacpp_chains import MAX_HELPERS, ParallelChains, idle_cores
from app.core.engines.backends.llamacpp_native import cpu_repacking_crashes, preload_library
from app.core.engines.backends.llamacpp_sampling import SamplerChain
from app.core.engines.requests import SamplingParams

pytestmark = pytest.mark.integration

CHAT_SAMPLINGS = [
    SamplingParams(temperature=1.2, top_k=0, top_p=1.0, min_p=0.0, seed=3),  # temperature alone
    SamplingParams(repetition_penalty=1.3, seed=4),
    SamplingParams(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0, repetition_penalty=1.5),
    SamplingParams(temperature=1.5, top_k=0, top_p=1.0, min_p=0.1, seed=8),
    SamplingParams(temperature=0.8, top_k=0, top_p=0.5, min_p=0.0, repetition_penalty=1.1, seed=9),
]


@pytest.fixture(scope="module")
def decoded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, int]]:
    """(library, context, n_vocab) after one decode of one token in each of 5 sequences (all with logits),
    on a tiny model with a 20,000-token vocabulary.
    """
    assert preload_library()
    import llama_cpp.llama_cpp as library

    from tests.benchmarks.llamacpp_vocab_models import write_vocab_gguf

    path = write_vocab_gguf(tmp_path_factory.mktemp("vocab") / "vocab-20000.gguf", 20_000)
    model_params = library.llama_model_default_params()
    model_params.use_extra_bufts = not cpu_repacking_crashes(library)  # as the engine loads (AMX CPUs crash)
    model = library.llama_model_load_from_file(str(path).encode(), model_params)
    assert model
    params = library.llama_context_default_params()
    params.n_ctx, params.n_batch, params.n_seq_max, params.n_threads = 256, 64, len(CHAT_SAMPLINGS), 1
    context = library.llama_init_from_model(model, params)
    batch = library.llama_batch_init(64, 0, 1)
    for index in range(len(CHAT_SAMPLINGS)):
        batch.token[index], batch.pos[index], batch.n_seq_id[index] = 300 + 7 * index, 0, 1
        batch.seq_id[index][0], batch.logits[index] = index, 1
    batch.n_tokens = len(CHAT_SAMPLINGS)
    try:
        assert library.llama_decode(context, batch) == 0
        yield library, context, library.llama_vocab_n_tokens(library.llama_model_get_vocab(model))
    finally:
        library.llama_batch_free(batch)
        library.llama_free(context)
        library.llama_model_free(model)


def _logits(library: Any, context: Any, rows: int, n_vocab: int) -> Any:
    import ctypes

    import numpy as np

    pointer = library.llama_get_logits(context)
    buffer = (ctypes.c_float * (rows * n_vocab)).from_address(ctypes.cast(pointer, ctypes.c_void_p).value or 0)
    return np.ctypeslib.as_array(buffer).reshape(rows, n_vocab)


def test_helpers_pick_the_tokens_of_one_llama_sampler_sample_per_chat(decoded: tuple[Any, Any, int]) -> None:
    """Twin chains (same settings and seeds) step after step: penalties remember what they accepted."""
    library, context, n_vocab = decoded
    serial = [SamplerChain(library, sampling, n_vocab) for sampling in CHAT_SAMPLINGS]
    parallel = [SamplerChain(library, sampling, n_vocab) for sampling in CHAT_SAMPLINGS]
    assert all(chain.pointer is not None and chain.top_k is None for chain in serial), "all take the chain path"
    chains = ParallelChains(library, n_vocab, helpers=3)
    try:
        assert chains.pays(2) and not chains.pays(1)
        matrix = _logits(library, context, len(CHAT_SAMPLINGS), n_vocab)
        seen: list[list[int]] = []
        for _step in range(12):
            expected = [library.llama_sampler_sample(chain.pointer, context, row) for row, chain in enumerate(serial)]
            jobs = [(row, chain.pointer) for row, chain in enumerate(parallel)]
            assert chains.sample(matrix, jobs) == expected
            seen.append(expected)
        assert any(thread.name.startswith("llamacpp-sampling") for thread in threading.enumerate())
        assert len({tuple(step) for step in seen}) > 1, "the sampled chats vary from step to step"
        assert chains.sample(matrix, [(3, parallel[3].pointer), (0, parallel[0].pointer)]) == [
            library.llama_sampler_sample(serial[3].pointer, context, 3),
            library.llama_sampler_sample(serial[0].pointer, context, 0),
        ], "any rows, in any order"
    finally:
        chains.close()
        for chain in (*serial, *parallel):
            chain.free()
    assert not chains.pays(2), "closed"


def test_small_vocabularies_take_no_helpers() -> None:
    assert preload_library()
    import llama_cpp.llama_cpp as library

    chains = ParallelChains(library, n_vocab=1280, helpers=4)
    assert chains.helpers == 0 and not chains.pays(8)


@pytest.mark.parametrize(
    ("cores", "threads", "offloaded", "helpers"),
    [
        (2, 2, False, 0),  # llama.cpp's threads take every core
        (16, 8, False, 7),
        (8, 6, False, 1),
        (16, 8, True, MAX_HELPERS),  # on a GPU llama.cpp's CPU threads are idle
        (4, 4, True, 3),
        (1, 1, True, 0),
    ],
)
def test_helpers_are_sized_from_idle_cores(
    monkeypatch: pytest.MonkeyPatch, cores: int, threads: int, offloaded: bool, helpers: int
) -> None:
    monkeypatch.setattr(llamacpp_chains, "default_thread_count", lambda: cores)  # physical cores
    assert idle_cores(threads, offloaded) == helpers


def test_numpy_passes_split_by_rows_give_the_tokens_of_one_pass() -> None:
    """Greedy and top-k over 16 rows of a 128k vocabulary, in blocks on helper threads or in one pass."""
    import numpy as np

    from app.core.engines.backends.llamacpp_batch import greedy_tokens
    from app.core.engines.backends.llamacpp_topk import TopKSampling, sample_top_k

    n_vocab, rows = 128_256, 16
    logits = np.random.default_rng(5).standard_normal((rows, n_vocab), dtype=np.float32) * 4
    settings = [TopKSampling(40, 0.95, 0.05, 0.7)] * rows
    draws = list(np.random.default_rng(6).random(rows))
    split = ParallelChains(library=None, n_vocab=n_vocab, helpers=3)
    blocks: list[tuple[int, int, str]] = []

    def greedy_block(start: int, end: int) -> list[int]:
        blocks.append((start, end, threading.current_thread().name))
        return greedy_tokens(logits[start:end])

    def top_k_block(start: int, end: int) -> list[int]:
        return sample_top_k(logits[start:end], None, settings[start:end], draws[start:end])

    assert split.by_rows(rows, greedy_block) == greedy_tokens(logits)
    assert sorted(start for start, _end, _name in blocks) == [0, 4, 8, 12]
    assert any(name.startswith("llamacpp-sampling") for _start, _end, name in blocks)
    assert split.by_rows(rows, top_k_block) == sample_top_k(logits, None, settings, draws)  # any row-wise pass
    blocks.clear()
    assert split.by_rows(2, greedy_block) == greedy_tokens(logits[:2])  # 2 rows: one block (too few logits)
    assert len(blocks) == 1
    split.close()
