"""Sampling inside llama.cpp's graph (backend sampling), forced on the CPU build: same answers as the host's."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.engines.backends.llamacpp import LlamaCppEngine
from app.core.engines.base import EngineConfig
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest, SamplingParams
from app.core.planner.engine_plan import LlamaCppPlan
from tests.integration.crafted_gguf import write_peaked_gguf

pytestmark = pytest.mark.integration

PROMPTS = ("hello world, please answer the question", "the model memory and speed", "你好世界 中文 模型")
CHATS = 3


@pytest.fixture(scope="module")
def peaked_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_peaked_gguf(tmp_path_factory.mktemp("graph") / "peaked.gguf")


def load(model: Path, graph_sampling: bool) -> LlamaCppEngine:
    plan = dataclasses.replace(LlamaCppPlan.for_chats(256, CHATS), graph_sampling=graph_sampling)
    engine = LlamaCppEngine()
    engine.load(EngineConfig(model_path=model, context_length=256, parallel_chats=CHATS, threads=2, llamacpp=plan))
    return engine


@pytest.fixture(scope="module")
def engines(peaked_model: Path) -> Iterator[dict[bool, LlamaCppEngine]]:
    loaded = {choice: load(peaked_model, choice) for choice in (True, False)}
    yield loaded
    for engine in loaded.values():
        engine.unload()


def answers(engine: LlamaCppEngine, samplings: list[SamplingParams]) -> list[str]:
    """Run one chat per sampling at once; their texts in order."""
    streams = [
        engine.submit(ChatRequest((ChatMessage("user", PROMPTS[index % len(PROMPTS)]),), sampling))
        for index, sampling in enumerate(samplings)
    ]
    assert all(stream.wait(60) for stream in streams)
    assert all(stream.error is None for stream in streams)
    return [stream.text for stream in streams]


def attachments(engine: LlamaCppEngine) -> int:
    graph = engine._scheduler.graph_samplers if engine._scheduler is not None else None
    return -1 if graph is None else graph.attachments


GREEDY_16 = dataclasses.replace(GREEDY, max_tokens=16)
SEEDED = SamplingParams(temperature=0.9, top_k=40, top_p=0.95, min_p=0.05, seed=7, max_tokens=16)
PENALTY = dataclasses.replace(GREEDY_16, repetition_penalty=1.3)


def test_the_load_says_where_chats_are_sampled(engines: dict[bool, LlamaCppEngine]) -> None:
    def noted(engine: LlamaCppEngine) -> bool:
        loaded = engine.loaded_model
        return loaded is not None and any("compute graph" in note for note in loaded.notes)

    assert noted(engines[True]) and not noted(engines[False])
    assert attachments(engines[False]) == -1


def test_greedy_chats_sampled_in_the_graph_answer_as_on_the_host(engines: dict[bool, LlamaCppEngine]) -> None:
    before = attachments(engines[True])
    in_graph = answers(engines[True], [GREEDY_16] * CHATS)
    assert answers(engines[False], [GREEDY_16] * CHATS) == in_graph
    assert all(text for text in in_graph)
    again_before = attachments(engines[True])
    assert again_before > before or before > 0  # the chains were attached (now or by the warm-up)
    assert answers(engines[True], [GREEDY_16] * CHATS) == in_graph
    assert attachments(engines[True]) == again_before  # the next greedy chats reuse the slots' chains


def test_a_seeded_chat_repeats_itself_in_the_graph(engines: dict[bool, LlamaCppEngine]) -> None:
    first = answers(engines[True], [SEEDED])
    assert answers(engines[True], [SEEDED]) == first  # the slot's chain starts again from its seed
    other = [answers(engines[True], [dataclasses.replace(SEEDED, seed=seed)])[0] for seed in range(8, 12)]
    assert any(text != first[0] for text in other)


def test_a_step_mixing_graph_and_host_sampling_answers_as_each_alone(engines: dict[bool, LlamaCppEngine]) -> None:
    mixed = [GREEDY_16, PENALTY, GREEDY_16]  # the penalty needs the host: its row's logits are copied out
    together = answers(engines[True], mixed)
    assert together == answers(engines[False], mixed)
    # the slot the penalised chat took now samples on the host; greedy chats there go back to the graph
    assert answers(engines[True], [GREEDY_16] * CHATS) == answers(engines[False], [GREEDY_16] * CHATS)
