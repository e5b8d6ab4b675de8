"""The engine's numpy top-k sampling against llama.cpp's own samplers on the same logits."""

from __future__ import annotations

import ctypes
from typing import Any

import pytest

from app.core.engines.backends.llamacpp_native import preload_library
from app.core.engines.backends.llamacpp_sampling import SamplerChain
from app.core.engines.backends.llamacpp_topk import MAX_TOP_K, TopKSampling, sample_top_k, top_candidates
from app.core.engines.requests import GREEDY, SamplingParams

pytestmark = pytest.mark.integration

DRAWS = 400
"""Uniform numbers per row, spread evenly over [0, 1): every kept token of a row gets its share."""


@pytest.fixture(scope="module")
def library() -> Any:
    assert preload_library(), "llama-cpp-python is needed"
    import llama_cpp.llama_cpp as library

    return library


def llama_kept(library: Any, logits: Any, setting: TopKSampling) -> list[tuple[int, float]]:
    """(token, logit after temperature) of what llama.cpp's chain keeps, best first: the app's chain
    (``SamplerChain``) without its final draw, applied to one row of logits.
    """
    size = len(logits)
    data = (library.llama_token_data * size)()
    for token, logit in enumerate(logits.tolist()):
        data[token] = library.llama_token_data(token, logit, 0.0)
    array = library.llama_token_data_array(data, size, -1, False)
    chain = library.llama_sampler_chain_init(library.llama_sampler_chain_default_params())
    add = library.llama_sampler_chain_add
    if setting.top_k > 0:
        add(chain, library.llama_sampler_init_top_k(setting.top_k))
    if setting.top_p < 1.0:
        add(chain, library.llama_sampler_init_top_p(setting.top_p, 1))
    if setting.min_p > 0.0:
        add(chain, library.llama_sampler_init_min_p(setting.min_p, 1))
    add(chain, library.llama_sampler_init_temp(setting.temperature))
    try:
        library.llama_sampler_apply(chain, ctypes.byref(array))
        kept = [(int(data[i].id), float(data[i].logit)) for i in range(array.size)]
    finally:
        library.llama_sampler_free(chain)
    return sorted(kept, key=lambda pair: -pair[1])


def llama_choice(kept: list[tuple[int, float]], draw: float) -> int:
    """The token llama.cpp's dist sampler picks for the uniform number ``draw`` (its cumulative walk)."""
    import math

    best = kept[0][1]
    weights = [math.exp(logit - best) for _token, logit in kept]
    target = sum(weights) * draw
    running = 0.0
    for (token, _logit), weight in zip(kept, weights, strict=True):
        running += weight
        if running >= target:
            return token
    return kept[-1][0]


def peaked_logits(rows: int, n_vocab: int, seed: int) -> Any:
    """Random logits with a few clear leaders per row, as a trained model gives (float32, C order)."""
    import numpy as np

    generator = np.random.default_rng(seed)
    logits = generator.standard_normal((rows, n_vocab)).astype(np.float32)
    for row in range(rows):
        leaders = generator.choice(n_vocab, size=12, replace=False)
        logits[row, leaders] += generator.uniform(2.0, 6.0, size=12).astype(np.float32)
    return logits


@pytest.mark.parametrize("n_vocab", [300, 1280, 151_936])
def test_the_k_best_are_found_in_any_vocabulary(library: Any, n_vocab: int) -> None:
    """Small vocabularies are searched whole; large ones through group maxima (tail included)."""
    import numpy as np

    logits = peaked_logits(6, n_vocab, seed=n_vocab)
    logits[4, n_vocab - 1] = 50.0  # the best logit in the last few tokens, which no group holds
    for rows in (None, [4, 0, 5]):
        chosen = logits if rows is None else logits[rows]
        for k in (1, 40, 200):
            ids, values = top_candidates(logits, rows, k)
            assert np.array_equal(values, -np.sort(-chosen, axis=1)[:, :k])
            assert np.array_equal(np.take_along_axis(chosen, ids, axis=1), values)


SETTINGS = [
    TopKSampling(top_k=40, top_p=0.95, min_p=0.05, temperature=0.7),  # the app's chat default
    TopKSampling(top_k=40, top_p=0.5, min_p=0.0, temperature=1.0),  # top-p cuts
    TopKSampling(top_k=40, top_p=1.0, min_p=0.3, temperature=1.3),  # min-p cuts
    TopKSampling(top_k=5, top_p=1.0, min_p=0.0, temperature=2.0),  # top-k alone, hot
    TopKSampling(top_k=1, top_p=0.9, min_p=0.1, temperature=0.8),  # one candidate
    TopKSampling(top_k=300, top_p=0.9, min_p=0.0, temperature=0.5),
    TopKSampling(top_k=0, top_p=0.95, min_p=0.0, temperature=0.7),  # the HTTP API's: the whole vocabulary
    TopKSampling(top_k=0, top_p=0.6, min_p=0.2, temperature=1.5),
]


@pytest.mark.parametrize("n_vocab", [1280, 151_936])
def test_each_row_samples_what_llama_cpp_keeps_with_its_probabilities(library: Any, n_vocab: int) -> None:
    """Rows of one call with different settings: for every uniform number, the token is the one
    llama.cpp's chain (top-k, top-p, min-p, temperature, dist) picks for that number.
    """
    import numpy as np

    logits = peaked_logits(len(SETTINGS), n_vocab, seed=7)
    expected_kept = [llama_kept(library, logits[row], setting) for row, setting in enumerate(SETTINGS)]
    assert len(expected_kept[1]) < 40 and len(expected_kept[2]) < 40, "top-p and min-p should cut here"
    assert 1 < len(expected_kept[6]) < n_vocab, "a nucleus of the whole vocabulary"
    hits: list[dict[int, int]] = [{} for _ in SETTINGS]
    for index in range(DRAWS):
        draw = (index + 0.5) / DRAWS
        tokens = sample_top_k(logits, None, SETTINGS, [draw] * len(SETTINGS))
        for row, token in enumerate(tokens):
            hits[row][token] = hits[row].get(token, 0) + 1
            kept = expected_kept[row]
            if not _near_a_boundary(kept, draw):
                assert token == llama_choice(kept, draw), f"row {row}, draw {draw}"
    for row, kept in enumerate(expected_kept):
        assert set(hits[row]) <= {token for token, _logit in kept}
    subset = sample_top_k(logits, [2, 0], [SETTINGS[2], SETTINGS[0]], [0.3, 0.9])
    assert subset == [llama_choice(expected_kept[2], 0.3), llama_choice(expected_kept[0], 0.9)]
    assert np.all(logits == peaked_logits(len(SETTINGS), n_vocab, seed=7)), "the logits are not changed"


def _near_a_boundary(kept: list[tuple[int, float]], draw: float) -> bool:
    """Whether ``draw`` is within float rounding of a step of the cumulative probabilities."""
    import math

    best = kept[0][1]
    weights = [math.exp(logit - best) for _token, logit in kept]
    total = sum(weights)
    running = 0.0
    for weight in weights:
        running += weight
        if abs(running / total - draw) < 1e-5:
            return True
    return False


def test_frequencies_follow_the_probabilities_with_a_seeded_generator(library: Any) -> None:
    """Many steps of one chat, each with its generator's next number, like the engine does."""
    import numpy as np

    setting = SETTINGS[0]
    logits = peaked_logits(1, 151_936, seed=3)
    kept = llama_kept(library, logits[0], setting)
    weights = np.exp(np.array([logit for _token, logit in kept]) - kept[0][1])
    expected = dict(zip((token for token, _logit in kept), weights / weights.sum(), strict=True))
    generator = np.random.default_rng(11)
    draws = 4000
    counts: dict[int, int] = {}
    for _ in range(draws):
        token = sample_top_k(logits, None, [setting], [generator.random()])[0]
        counts[token] = counts.get(token, 0) + 1
    assert set(counts) <= set(expected)
    for token, probability in expected.items():
        spread = 4 * (probability * (1 - probability) / draws) ** 0.5 + 1 / draws
        assert abs(counts.get(token, 0) / draws - probability) <= spread, token


@pytest.mark.parametrize(("spread", "kept_between"), [(3.8, (64, 1024)), (0.3, (1024, 20_000))])
def test_a_nucleus_beyond_the_first_candidates_is_found_further(
    library: Any, spread: float, kept_between: tuple[int, int]
) -> None:
    """Flatter logits: a top-p of 0.95 without top-k keeps hundreds of tokens (searched among 1,024)
    or thousands (the row sorted whole); rows picked in another order than the matrix's.
    """
    import numpy as np

    logits = (np.random.default_rng(5).standard_normal((2, 20_000)) * spread).astype(np.float32)
    setting = TopKSampling(top_k=0, top_p=0.95, min_p=0.0, temperature=0.8)
    kept = [llama_kept(library, logits[row], setting) for row in range(2)]
    assert all(kept_between[0] < len(row_kept) < kept_between[1] for row_kept in kept)
    for draw in (0.05, 0.5, 0.93, 0.999):
        first, second = sample_top_k(logits, [1, 0], [setting, setting], [draw, 1 - draw])
        if not _near_a_boundary(kept[1], draw):
            assert first == llama_choice(kept[1], draw)
        if not _near_a_boundary(kept[0], 1 - draw):
            assert second == llama_choice(kept[0], 1 - draw)


@pytest.mark.parametrize(
    ("params", "numpy_path"),
    [
        (SamplingParams(), True),  # the app's default: temperature 0.7, top-k 40, top-p 0.95, min-p 0.05
        (SamplingParams(temperature=1.0, top_k=MAX_TOP_K, top_p=1.0, min_p=0.0), True),
        (SamplingParams(top_k=0, min_p=0.0), True),  # the HTTP API's: top-p over the whole vocabulary
        (SamplingParams(top_k=0, top_p=1.0), False),  # temperature alone over the whole vocabulary
        (SamplingParams(top_k=MAX_TOP_K + 1), False),
        (SamplingParams(repetition_penalty=1.2), False),
        (GREEDY, False),  # greedy: the scheduler's argmax, no chain either
    ],
)
def test_requests_outside_the_numpy_path_keep_llama_cpp_chains(
    library: Any, params: SamplingParams, numpy_path: bool
) -> None:
    sampler = SamplerChain(library, params, n_vocab=1280)
    try:
        assert (sampler.top_k is not None) == numpy_path
        has_chain = not numpy_path and not params.greedy
        assert (sampler.pointer is not None) == has_chain
        if numpy_path:
            assert sampler.top_k == TopKSampling(params.top_k, params.top_p, params.min_p, params.temperature)
    finally:
        sampler.free()


def test_a_seed_gives_the_same_draws_and_another_seed_others(library: Any) -> None:
    def draws(seed: int | None) -> list[float]:
        sampler = SamplerChain(library, SamplingParams(seed=seed), n_vocab=1280)
        return [sampler.draw() for _ in range(5)]

    assert draws(5) == draws(5)
    assert draws(5) != draws(6)
    assert draws(None) != draws(None)


# ---- in the engine ------------------------------------------------------------------------------
PROMPTS = (
    "hello world, please answer the question about the local knowledge base",
    "the model memory and speed of this desktop machine",
    "write a test for the stream of tokens in python",
    "people call water from the long day",
    "你好世界 中文 模型 知识 问题",
    "hello model, the answer is in the file",
)


@pytest.fixture(scope="module")
def peaked_model(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Confident logits: the same chat gives the same logits however it is batched."""
    from tests.integration.crafted_gguf import write_peaked_gguf

    return write_peaked_gguf(tmp_path_factory.mktemp("peaked") / "peaked.gguf")


def _texts(model: Any, requests: list[Any], parallel_chats: int) -> list[str]:
    """Run the requests on a fresh engine: all submitted together (joining one step), or one at a time."""
    from app.core.engines.backends.llamacpp import LlamaCppEngine
    from app.core.engines.base import EngineConfig
    from tests.integration.test_llamacpp_engine import joining_together

    engine = LlamaCppEngine()
    engine.load(EngineConfig(model_path=model, context_length=512, parallel_chats=parallel_chats, threads=2))
    try:
        if parallel_chats == 1:
            streams = []
            for request in requests:
                stream = engine.submit(request)
                assert stream.wait(60)
                streams.append(stream)
        else:
            with joining_together(engine):
                streams = [engine.submit(request) for request in requests]
            assert all(stream.wait(60) for stream in streams)
        return [stream.text for stream in streams]
    finally:
        engine.unload()


def test_chats_with_different_sampling_in_one_step_answer_as_each_alone(peaked_model: Any) -> None:
    """Top-k and top-p chats (numpy, each its own settings and seed), a penalised and a temperature-only
    one (llama.cpp chains) and a greedy one share steps; each answers as it does alone.
    """
    from app.core.engines.requests import ChatMessage, ChatRequest

    samplings = [
        SamplingParams(max_tokens=30, seed=5, ignore_eos=True),  # the app's default, seeded
        SamplingParams(temperature=1.4, top_k=3, top_p=1.0, min_p=0.2, max_tokens=30, seed=9, ignore_eos=True),
        SamplingParams(temperature=1.2, top_k=0, top_p=0.9, min_p=0.0, max_tokens=30, seed=3, ignore_eos=True),
        SamplingParams(max_tokens=30, seed=5, repetition_penalty=1.3, ignore_eos=True),
        SamplingParams(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0, max_tokens=30, ignore_eos=True),
        SamplingParams(temperature=0.9, top_k=0, top_p=1.0, min_p=0.0, max_tokens=30, seed=2, ignore_eos=True),
    ]
    requests = [ChatRequest((ChatMessage("user", prompt),), sampling)
                for prompt, sampling in zip(PROMPTS, samplings, strict=True)]
    alone = _texts(peaked_model, requests, parallel_chats=1)
    assert _texts(peaked_model, requests, parallel_chats=len(requests)) == alone
    reseeded = [ChatRequest(request.messages, SamplingParams(max_tokens=30, seed=6, ignore_eos=True))
                for request in requests[:1]]
    assert _texts(peaked_model, reseeded, parallel_chats=1) != alone[:1], "another seed, another answer"


def test_a_hot_top_k_of_one_answers_as_greedy(peaked_model: Any) -> None:
    """Only the best token is in a top-k of 1, whatever the temperature and the draw."""
    from app.core.engines.requests import ChatMessage, ChatRequest

    def request(sampling: SamplingParams) -> Any:
        return ChatRequest((ChatMessage("user", PROMPTS[1]),), sampling)

    greedy = request(SamplingParams(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0, max_tokens=30))
    hot = request(SamplingParams(temperature=3.0, top_k=1, top_p=1.0, min_p=0.0, max_tokens=30, seed=1))
    texts = _texts(peaked_model, [greedy, hot], parallel_chats=2)
    assert texts[0] == texts[1]
