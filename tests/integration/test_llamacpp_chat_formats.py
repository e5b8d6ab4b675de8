"""A model file without a chat template chats in the format its vocabulary's special tokens name (real llama.cpp)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from app.core.engines.backends.llamacpp import LlamaCppEngine
from app.core.engines.base import EngineConfig, LoadedModel
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest
from tests.integration.crafted_gguf import byte_token, piece_token, scripted_vocabulary, write_scripted_gguf

pytestmark = pytest.mark.integration

GEMMA_TURNS = ("<start_of_turn>", "<end_of_turn>")
UNKNOWN_TURNS = ("<turn>", "</turn>")  # a family none of the known formats belongs to
MESSAGES = (ChatMessage("system", "Be brief."), ChatMessage("user", "hi"))


@contextmanager
def loaded(path: Path) -> Iterator[tuple[LlamaCppEngine, LoadedModel]]:
    engine = LlamaCppEngine()
    try:
        yield engine, engine.load(EngineConfig(model_path=path, context_length=256, parallel_chats=1, threads=1))
    finally:
        engine.unload()


def test_a_gemma_vocabulary_without_a_template_chats_in_gemma_turns_and_stops_at_their_end(tmp_path: Path) -> None:
    vocabulary = scripted_vocabulary(GEMMA_TURNS)
    hello = piece_token(vocabulary, "\u2581hello")
    successors = {byte_token(vocabulary, 0x0A): hello, hello: vocabulary.turn_end_id}
    path = write_scripted_gguf(tmp_path / "gemma-like.gguf", successors, vocabulary, chat_template=None)
    with loaded(path) as (engine, model):
        prompt = engine.render_prompt(MESSAGES)
        tokens = engine.tokenize(prompt)
        stream = engine.submit(ChatRequest(MESSAGES, dataclasses.replace(GREEDY, max_tokens=16)))
        assert stream.wait(30)
    assert prompt == "<s><start_of_turn>user\nBe brief.\n\nhi<end_of_turn>\n<start_of_turn>model\n"
    # The markers are the vocabulary's own special tokens, not their text spelled out in pieces.
    assert tokens.count(vocabulary.turn_start_id) == 2 and tokens.count(vocabulary.turn_end_id) == 1
    assert tokens[0] == vocabulary.bos_id and tokens.count(vocabulary.bos_id) == 1
    assert any("Gemma format" in note for note in model.notes)
    assert (stream.text, stream.finish_reason) == (" hello", "stop")


def test_an_unknown_vocabulary_chats_in_plain_turns_and_stops_before_it_writes_the_users_next_line(
    tmp_path: Path,
) -> None:
    vocabulary = scripted_vocabulary(UNKNOWN_TURNS)
    hello = piece_token(vocabulary, "\u2581hello")
    colon, newline = piece_token(vocabulary, ":"), byte_token(vocabulary, 0x0A)
    # After "Assistant:" the model says " hello", then writes the user's next line itself: "\nUser: hello\nUser: ..."
    user_line = [newline, *(piece_token(vocabulary, piece) for piece in ("U", "s", "er")), colon]
    successors = {colon: hello, hello: newline} | dict(itertools.pairwise(user_line))
    path = write_scripted_gguf(tmp_path / "unknown-family.gguf", successors, vocabulary, chat_template=None)
    with loaded(path) as (engine, model):
        prompt = engine.render_prompt(MESSAGES)
        stream = engine.submit(ChatRequest(MESSAGES, dataclasses.replace(GREEDY, max_tokens=24)))
        assert stream.wait(30)
    assert prompt == "<s>System: Be brief.\n\nUser: hi\n\nAssistant:"
    assert any("User:/Assistant:" in note for note in model.notes)
    assert (stream.text, stream.finish_reason) == (" hello", "stop")


def test_a_chatml_vocabulary_without_a_template_says_which_format_it_uses(tmp_path: Path) -> None:
    vocabulary = scripted_vocabulary()
    successors = {byte_token(vocabulary, 0x0A): vocabulary.turn_end_id}
    path = write_scripted_gguf(tmp_path / "chatml-like.gguf", successors, vocabulary, chat_template=None)
    with loaded(path) as (engine, model):
        prompt = engine.render_prompt(MESSAGES[1:])
    assert prompt == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    assert any("ChatML format" in note for note in model.notes)
