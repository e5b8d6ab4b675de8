"""The llama.cpp engine on a real model the project did not make: SmolLM2-135M-Instruct, Q4_1 (98 MB).

Every other engine test runs random or crafted weights; this model has a trained 49k BPE vocabulary,
its own ChatML template (with a default system prompt) and an end-of-turn token it really emits.
The prompts were chosen from the model's greedy answers (the same at 1 and 2 threads): this small,
4-bit model answers "What is the capital of France?" alone with a ramble about "L'Étoile", and
"...Answer in one sentence." with "The capital of France is Paris.".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engines.backends.llamacpp import LlamaCppEngine
from app.core.engines.base import EngineConfig
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from tests.integration.test_llamacpp_engine import joining_together

pytestmark = pytest.mark.integration

SETTINGS = {"context_length": 512, "threads": 2}
SAMPLING = dataclasses.replace(GREEDY, max_tokens=48)
CAPITAL_QUESTION = "What is the capital of France? Answer in one sentence."
CHINESE_PROMPT = "把这句话翻译成英文：我爱你"
""""Translate this sentence into English: I love you"; the model answers "我爱你！" and then explains in English."""
ANSWER_TIMEOUT_S = 120.0


def load(model: Path, parallel_chats: int) -> LlamaCppEngine:
    engine = LlamaCppEngine()
    engine.load(EngineConfig(model_path=model, parallel_chats=parallel_chats, **SETTINGS))
    return engine


def ask(engine: LlamaCppEngine, prompt: str) -> RequestStream:
    """Submit one greedy single-message chat and wait for it to finish."""
    stream = engine.submit(ChatRequest((ChatMessage("user", prompt),), SAMPLING))
    assert stream.wait(ANSWER_TIMEOUT_S), f"no answer to {prompt!r} within {ANSWER_TIMEOUT_S:.0f} s"
    assert stream.error is None, stream.error
    return stream


@pytest.fixture(scope="module")
def smollm2(smollm2_gguf: Path) -> Iterator[LlamaCppEngine]:
    """The model loaded as the app loads it (two chats, 512-token context, 2 threads)."""
    engine = load(smollm2_gguf, parallel_chats=2)
    yield engine
    engine.unload()


def test_the_models_own_chat_template_is_used(smollm2: LlamaCppEngine) -> None:
    """No fallback format: the model's template (with its default system prompt) renders ChatML whose turn
    markers are single special tokens, not the marker spelled out in word pieces."""
    loaded = smollm2.loaded_model
    assert loaded is not None
    assert not [note for note in loaded.notes if "chat template" in note], loaded.notes

    prompt = smollm2.render_prompt((ChatMessage("user", "Hi"),))
    assert prompt == (
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
        "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    )
    tokens = smollm2.tokenize(prompt)
    for marker in ("<|im_start|>", "<|im_end|>"):
        assert smollm2.count_tokens(marker) == 1, f"{marker} is not one token"
        marker_token = smollm2.tokenize(marker)[-1]
        assert tokens.count(marker_token) == prompt.count(marker)


def test_a_factual_question_gets_a_right_answer_that_ends_at_the_end_of_turn(smollm2: LlamaCppEngine) -> None:
    stream = ask(smollm2, CAPITAL_QUESTION)
    assert "Paris" in stream.text
    assert stream.finish_reason == "stop", f"{stream.finish_reason}: {stream.text!r}"
    assert "<|im_end|>" not in stream.text
    assert stream.metrics.generated_tokens < SAMPLING.max_tokens


def test_chinese_survives_tokenization_and_streams_as_whole_characters(
    smollm2: LlamaCppEngine, pushed_pieces: dict[str, list[str]]
) -> None:
    """Most Chinese characters span two or three byte tokens in this vocabulary; the tokens give back the
    prompt's exact bytes, the model copies the characters, and no streamed piece holds a broken character."""
    tokens = smollm2.tokenize(CHINESE_PROMPT)
    scheduler = smollm2._scheduler
    assert scheduler is not None
    pieces = scheduler.call(lambda: [scheduler.tokenizer.token_info(token)[0] for token in tokens], 30)
    assert b"".join(pieces) == CHINESE_PROMPT.encode("utf-8")
    assert len(tokens) > len(CHINESE_PROMPT), "expected characters split over several tokens"

    stream = ask(smollm2, CHINESE_PROMPT)
    assert stream.text.startswith("我爱你"), stream.text
    assert stream.finish_reason == "stop", f"{stream.finish_reason}: {stream.text!r}"
    streamed = pushed_pieces[stream.request_id]
    assert "".join(streamed) == stream.text
    assert not [piece for piece in streamed if "\ufffd" in piece], streamed


def test_two_chats_at_once_answer_as_each_alone(smollm2_gguf: Path, smollm2: LlamaCppEngine) -> None:
    """Both prompts join one step on a fresh engine (prefilled together, decoded in one batch)."""
    prompts = (CAPITAL_QUESTION, CHINESE_PROMPT)
    alone = [ask(smollm2, prompt).text for prompt in prompts]
    engine = load(smollm2_gguf, parallel_chats=2)
    try:
        with joining_together(engine):
            streams = [engine.submit(ChatRequest((ChatMessage("user", prompt),), SAMPLING)) for prompt in prompts]
        assert all(stream.wait(ANSWER_TIMEOUT_S) for stream in streams), "the two chats did not finish"
        assert [stream.text for stream in streams] == alone
        assert [stream.finish_reason for stream in streams] == ["stop", "stop"]
    finally:
        engine.unload()
