"""The largest context that fits: the boundary itself fits, 256 tokens more does not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.core.planner.largest_context import TOKEN_STEP, largest_fitting_context
from tests.core.planner.fake_hardware import cpu_only, gb10
from tests.core.planner.published_configs import LLAMA_3_1_8B, write_config

GIB = 1024**3


def test_the_largest_context_is_the_boundary_of_what_fits(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path, LLAMA_3_1_8B))
    machine = cpu_only(ram_total_gib=32, ram_available_gib=24)  # 15 GiB of weights leave room for ~40K tokens
    request = PlanRequest("llamacpp", parallel_chats=1, kv_cache_dtype="f16", reserve_bytes=4 * GIB)
    largest = largest_fitting_context(model, machine, request)
    assert 0 < largest < model.context_length and largest % TOKEN_STEP == 0
    assert plan_memory(model, machine, replace(request, context_length=largest)).fits
    assert not plan_memory(model, machine, replace(request, context_length=largest + TOKEN_STEP)).fits


def test_the_trained_context_when_everything_fits_and_zero_when_nothing_does(tmp_path: Path) -> None:
    model = read_model_metadata(write_config(tmp_path, LLAMA_3_1_8B))
    request = PlanRequest("vllm", parallel_chats=1, reserve_bytes=4 * GIB)
    assert largest_fitting_context(model, gb10(), request) == model.context_length
    assert largest_fitting_context(model, gb10(available_gib=10), request) == 0  # the weights alone do not fit
