"""plan_memory on fake machines: GB10 (unified), RTX 4090 (discrete + RAM spill), a 16 GiB CPU laptop."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.core.hardware.report import HardwareReport
from app.core.planner import (
    MemoryPlan,
    ModelMetadata,
    PlanRequest,
    format_plan,
    kv_bytes_for_context,
    plan_memory,
    read_model_metadata,
)
from app.core.planner.budget import GPU_RESERVE_BYTES
from app.core.planner.compute import (
    VLLM_HOST_OVERHEAD_BYTES,
    llamacpp_compute_bytes,
    llamacpp_output_buffer_bytes,
)
from app.core.planner.engine_plan import LLAMACPP_GRAPH_SAMPLING_ON_GPU
from app.core.planner.kv import llamacpp_kv_layout
from tests.core.planner.fake_hardware import GIB, cpu_only, gb10, rtx4090
from tests.core.planner.published_configs import (
    GEMMA_2_9B,
    LLAMA_2_7B,
    LLAMA_3_1_8B,
    LLAMA_3_2_1B,
    MISTRAL_7B_V0_1,
    MIXTRAL_8X7B,
    MIXTRAL_8X7B_ACTIVE_PARAMETERS,
    write_config,
)


def load(tmp_path: Path, config: dict[str, Any], name: str = "model") -> ModelMetadata:
    return read_model_metadata(write_config(tmp_path / name, config))


def one_sentence(text: str) -> bool:
    return text.endswith(".") and ". " not in text and "\n" not in text


def assert_breakdown_adds_up(plan: MemoryPlan) -> None:
    parts = plan.weights_bytes + plan.kv_bytes_total + plan.compute_bytes + plan.overhead_bytes + plan.embedder_bytes
    assert plan.total_bytes == parts == plan.gpu_bytes + plan.host_bytes


def assert_utilization_keeps_reserve(plan: MemoryPlan, hardware: HardwareReport) -> None:
    """vLLM's share of the unified pool plus what else lives there leaves the reserve free."""
    utilization = plan.recommended.vllm.gpu_memory_utilization
    assert utilization is not None
    engine_share = utilization * hardware.ram_total_bytes
    others = VLLM_HOST_OVERHEAD_BYTES + plan.embedder_bytes
    assert engine_share + others <= hardware.ram_available_bytes - plan.reserve_bytes


def test_gb10_vllm_fits_and_utilization_covers_the_plan(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    hardware = gb10()
    plan = plan_memory(model, hardware, PlanRequest("vllm", 32768, 4))
    assert plan.fits
    assert plan.memory_kind == "unified"
    assert plan.kv_cache_dtype == "bf16"  # vLLM's "auto" is the model dtype
    assert plan.kv_bytes_per_token == 131072
    assert plan.kv_bytes_total == (4 * 32768 + 16) * 131072  # and the null block vLLM keeps back
    assert_breakdown_adds_up(plan)
    assert plan.budget_bytes == hardware.ram_available_bytes - 4 * GIB  # the pool counted once
    assert plan.gpu_budget_bytes == 0
    recommended = plan.recommended
    assert (recommended.context_length, recommended.parallel_chats, recommended.vllm.block_size) == (32768, 4, 16)
    assert recommended.llamacpp is None  # vLLM's plan: no llama.cpp part
    utilization = recommended.vllm.gpu_memory_utilization
    assert utilization is not None
    engine_needs = plan.total_bytes - VLLM_HOST_OVERHEAD_BYTES
    assert utilization * hardware.ram_total_bytes >= engine_needs
    assert utilization < engine_needs / hardware.ram_total_bytes + 0.001
    assert_utilization_keeps_reserve(plan, hardware)
    assert one_sentence(plan.explanation)
    assert plan.explanation.startswith("32768 tokens × 4 chats fits")


def test_utilization_follows_the_plan_not_a_constant(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    small = plan_memory(model, gb10(), PlanRequest("vllm", 8192, 1)).recommended.vllm.gpu_memory_utilization
    large = plan_memory(model, gb10(), PlanRequest("vllm", 65536, 8)).recommended.vllm.gpu_memory_utilization
    assert small is not None and large is not None
    assert small < large
    assert 0.9 not in (small, large)


@pytest.mark.parametrize(
    ("available_gib", "reserve_gib", "embedder_gib", "context", "chats"),
    [(120, 4, 0, None, 1), (100, 8, 1, 65536, 8), (40, 4, 0.5, None, 16), (30, 16, 0, 131072, 16)],
)
def test_utilization_never_leaves_less_than_the_reserve(
    tmp_path: Path, available_gib: float, reserve_gib: float, embedder_gib: float, context: int | None, chats: int
) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    hardware = gb10(available_gib)
    request = PlanRequest(
        "vllm", context, chats, reserve_bytes=int(reserve_gib * GIB), embedder_bytes=int(embedder_gib * GIB)
    )
    plan = plan_memory(model, hardware, request)
    assert_utilization_keeps_reserve(plan, hardware)
    if plan.recommended.fits:
        assert plan.recommended.total_bytes <= hardware.ram_available_bytes - request.reserve_bytes


def test_too_large_request_explains_the_nearest_fit(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    hardware = gb10()
    plan = plan_memory(model, hardware, PlanRequest("vllm", 131072, 16))
    assert not plan.fits
    assert plan.total_bytes > plan.budget_bytes
    recommended = plan.recommended
    assert recommended.fits
    assert recommended.parallel_chats == 16  # context is shrunk before chats
    assert recommended.context_length < 131072
    assert recommended.total_bytes <= plan.budget_bytes
    doubled = plan_memory(model, hardware, PlanRequest("vllm", 2 * recommended.context_length, 16))
    assert not doubled.fits  # the nearest fit, not just any fit
    pattern = (
        rf"^131072 tokens × 16 chats needs [\d.]+ GiB but [\d.]+ GiB is free; "
        rf"{recommended.context_length} tokens × 16 chats fits\.$"
    )
    assert re.match(pattern, plan.explanation), plan.explanation
    assert f"{plan.total_bytes / GIB:.1f} GiB" in plan.explanation
    assert f"{plan.budget_bytes / GIB:.1f} GiB" in plan.explanation
    assert_utilization_keeps_reserve(plan, hardware)


def test_context_never_exceeds_the_trained_length(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    plan = plan_memory(model, gb10(), PlanRequest("llamacpp", 1_000_000, 1))
    assert plan.context_length == 131072
    assert plan.recommended.context_length == 131072
    assert "trained for at most 131072 tokens" in plan.explanation
    assert one_sentence(plan.explanation)


def test_rtx4090_spills_layers_to_ram(tmp_path: Path) -> None:
    model = load(tmp_path, GEMMA_2_9B)  # float32: 34.4 GiB of weights, more than the 24 GiB card
    hardware = rtx4090()
    plan = plan_memory(model, hardware, PlanRequest("llamacpp", 8192, 1))
    assert plan.fits
    assert plan.memory_kind == "discrete"
    layers = plan.recommended.llamacpp.n_gpu_layers
    assert layers is not None and 0 < layers < model.n_layers
    assert plan.gpu_bytes <= plan.gpu_budget_bytes == 23 * GIB - GPU_RESERVE_BYTES  # 1 GiB of the card stays free
    assert plan.host_bytes <= plan.host_budget_bytes == (48 - 4) * GIB
    assert plan.budget_bytes == plan.gpu_budget_bytes + plan.host_budget_bytes
    assert_breakdown_adds_up(plan)
    one_more = plan_memory(model, hardware, PlanRequest("llamacpp", 8192, 1, gpu_layers=layers + 1))
    assert not one_more.fits
    assert one_more.gpu_bytes > one_more.gpu_budget_bytes
    assert f"with {layers} of 42 layers on the GPU" in plan.explanation


def test_rtx4090_all_layers_forced_recommends_fewer(tmp_path: Path) -> None:
    model = load(tmp_path, GEMMA_2_9B)
    auto = plan_memory(model, rtx4090(), PlanRequest("llamacpp", 8192, 1))
    forced = plan_memory(model, rtx4090(), PlanRequest("llamacpp", 8192, 1, gpu_layers=-1))
    assert not forced.fits
    assert forced.recommended.fits
    assert forced.recommended.llamacpp.n_gpu_layers == auto.recommended.llamacpp.n_gpu_layers
    assert forced.recommended.context_length == 8192
    assert "of GPU memory but 22.0 GiB is free after the 1.0 GiB reserve" in forced.explanation
    assert forced.explanation.endswith(f"with {auto.recommended.llamacpp.n_gpu_layers} of 42 layers on the GPU fits.")


def test_rtx4090_model_that_fits_goes_entirely_on_the_gpu(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    plan = plan_memory(model, rtx4090(), PlanRequest("llamacpp", 32768, 2))
    assert plan.fits
    assert plan.recommended.llamacpp.n_gpu_layers == -1
    assert plan.gpu_bytes > model.weight_bytes + plan.kv_bytes_total


def test_rtx4090_vllm_cannot_spill(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    hardware = rtx4090()
    plan = plan_memory(model, hardware, PlanRequest("vllm", 32768, 4))
    assert not plan.fits  # 15 GiB of weights + 16 GiB of KV > 23 GiB of free VRAM
    assert plan.recommended.fits
    utilization = plan.recommended.vllm.gpu_memory_utilization
    assert utilization is not None
    assert utilization * 24 * GIB <= 23 * GIB
    assert "of GPU memory" in plan.explanation


def test_cpu_only_picks_the_most_context_that_fits(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    hardware = cpu_only(16, 12)
    plan = plan_memory(model, hardware, PlanRequest("llamacpp", None, 4))
    assert plan.fits
    assert plan.memory_kind == "cpu"
    assert plan.recommended.llamacpp.n_gpu_layers == 0
    context = plan.context_length
    assert context < model.context_length and context & (context - 1) == 0
    assert not plan_memory(model, hardware, PlanRequest("llamacpp", 2 * context, 4)).fits
    assert plan.recommended.llamacpp.n_ctx == 4 * context
    assert "the most context that does" in plan.explanation
    assert plan.total_bytes <= 8 * GIB


def test_cpu_only_model_too_large_at_any_setting(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    plan = plan_memory(model, cpu_only(16, 12), PlanRequest("llamacpp", 8192, 1))
    assert not plan.fits
    assert not plan.recommended.fits
    assert plan.explanation.startswith("Even 2048 tokens × 1 chat with a q8_0 KV cache (the least) needs")
    assert "weights alone are 15.0 GiB" in plan.explanation
    assert one_sentence(plan.explanation)


def _hardware_between(low: MemoryPlan, high: MemoryPlan, reserve: int) -> HardwareReport:
    """A CPU machine whose budget lies between two plans' totals."""
    available = reserve + (low.total_bytes + high.total_bytes) // 2
    return cpu_only(64, available / GIB)


def test_fewer_chats_before_a_smaller_kv_type(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_2_7B)  # 512 KiB of KV per token
    roomy = cpu_only(512, 500)
    eight = plan_memory(model, roomy, PlanRequest("llamacpp", 2048, 8))
    four = plan_memory(model, roomy, PlanRequest("llamacpp", 2048, 4))
    plan = plan_memory(model, _hardware_between(four, eight, 4 * GIB), PlanRequest("llamacpp", 2048, 8))
    assert not plan.fits
    recommended = plan.recommended
    assert (recommended.context_length, recommended.parallel_chats, recommended.kv_cache_dtype) == (2048, 4, "f16")
    assert plan.explanation.endswith("; 2048 tokens × 4 chats fits.")


def test_smaller_kv_type_when_context_and_chats_are_minimal(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_2_7B)
    roomy = cpu_only(512, 500)
    f16 = plan_memory(model, roomy, PlanRequest("llamacpp", 2048, 1, kv_cache_dtype="f16"))
    q8 = plan_memory(model, roomy, PlanRequest("llamacpp", 2048, 1, kv_cache_dtype="q8_0"))
    assert q8.kv_bytes_total == f16.kv_bytes_total * 17 // 32
    plan = plan_memory(model, _hardware_between(q8, f16, 4 * GIB), PlanRequest("llamacpp", 2048, 1))
    assert not plan.fits
    assert plan.recommended.kv_cache_dtype == "q8_0"
    assert plan.explanation.endswith("; 2048 tokens × 1 chat with a q8_0 KV cache fits.")


def test_vllm_on_cpu_uses_128_token_blocks(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    plan = plan_memory(model, cpu_only(64, 60), PlanRequest("vllm", 1000, 3))
    per_token = kv_bytes_for_context(model, "bf16", 1)
    assert plan.recommended.vllm.block_size == 128
    assert plan.kv_bytes_total == (3 * 1024 + 128) * per_token  # 8 blocks of 128 per chat, and the null block
    assert plan.recommended.vllm.cpu_kvcache_space_gib == math.ceil(plan.kv_bytes_total / GIB)


def test_vllm_gpu_blocks_and_sliding_window(tmp_path: Path) -> None:
    llama = load(tmp_path, LLAMA_3_1_8B, "llama")
    plan = plan_memory(llama, gb10(), PlanRequest("vllm", 1000, 2))
    assert plan.kv_bytes_total == (2 * 1008 + 16) * 131072  # 63 blocks of 16 per chat, and the null block
    mistral = load(tmp_path, MISTRAL_7B_V0_1, "mistral")
    windowed = plan_memory(mistral, gb10(), PlanRequest("vllm", 32768, 1))
    # vLLM keeps window - 1 + max_num_batched_tokens (8192) tokens, in blocks, plus one block.
    blocks = math.ceil((4096 - 1 + 8192) / 16) + 1
    assert windowed.kv_bytes_total == (blocks + 1) * 16 * 131072
    assert windowed.kv_bytes_total < kv_bytes_for_context(mistral, "bf16", 32768) * 4


def test_llamacpp_sliding_window_cache(tmp_path: Path) -> None:
    model = load(tmp_path, GEMMA_2_9B)
    plan = plan_memory(model, gb10(), PlanRequest("llamacpp", 8192, 1))
    per_layer = 2 * 8 * 256 * 2
    # swa_full: the sliding-window layers keep every cell, as llama.cpp does by default and as the engine
    # loads them (its prompt reuse truncates sequences, which a window-sized SWA cache cannot undo).
    assert plan.recommended.llamacpp is not None and plan.recommended.llamacpp.swa_full is True
    assert plan.kv_bytes_total == 21 * 8192 * per_layer + 21 * 8192 * per_layer
    windowed = llamacpp_kv_layout(model, 8192, 1, kv_unified=True, swa_full=False)
    swa_cells = 4096 + 512  # window + n_ubatch, padded to 256 (swa_full = False)
    assert windowed.sliding_cells == swa_cells and windowed.full_cells == 8192


def test_embedder_is_counted(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    without = plan_memory(model, gb10(), PlanRequest("llamacpp", 8192, 1))
    with_embedder = plan_memory(model, gb10(), PlanRequest("llamacpp", 8192, 1, embedder_bytes=GIB))
    assert with_embedder.total_bytes - without.total_bytes == GIB
    assert with_embedder.to_dict()["embedder_bytes"] == GIB


def test_roofline_counts_active_experts_only(tmp_path: Path) -> None:
    model = load(tmp_path, MIXTRAL_8X7B)
    hardware = gb10()
    plan = plan_memory(model, hardware, PlanRequest("vllm", 4096, 1))
    bandwidth = hardware.bandwidth.bytes_per_second
    assert plan.decode_tok_s_roofline_empty == pytest.approx(bandwidth / (2 * MIXTRAL_8X7B_ACTIVE_PARAMETERS))
    kv_read = kv_bytes_for_context(model, "bf16", 4096)
    expected = bandwidth / (2 * MIXTRAL_8X7B_ACTIVE_PARAMETERS + kv_read)
    assert plan.decode_tok_s_roofline == pytest.approx(expected)
    assert plan.decode_tok_s_roofline is not None
    assert plan.decode_tok_s_roofline > 3 * bandwidth / model.weight_bytes


def test_roofline_dense_and_unknown_bandwidth(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    plan = plan_memory(model, rtx4090(), PlanRequest("llamacpp", 8192, 1))
    expected = 1008e9 / (model.weight_bytes + 8192 * 131072)
    assert plan.decode_tok_s_roofline == pytest.approx(expected)
    unknown = replace(rtx4090(), bandwidth=replace(rtx4090().bandwidth, bytes_per_second=0.0, source="unknown"))
    assert plan_memory(model, unknown, PlanRequest("llamacpp", 8192, 1)).decode_tok_s_roofline is None


def test_to_dict_and_format(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    plan = plan_memory(model, gb10(), PlanRequest("vllm", 131072, 16))
    data = json.loads(json.dumps(plan.to_dict()))
    for key in (
        "weights_bytes",
        "kv_bytes_per_token",
        "kv_bytes_total",
        "compute_bytes",
        "overhead_bytes",
        "embedder_bytes",
        "total_bytes",
        "budget_bytes",
        "fits",
        "decode_tok_s_roofline",
        "explanation",
        "backend",
        "model",
    ):
        assert key in data
    assert set(data["recommended"]) >= {"context_length", "parallel_chats", "kv_cache_dtype", "llamacpp", "vllm"}
    assert data["recommended"]["llamacpp"] is None
    assert set(data["recommended"]["vllm"]) >= {"gpu_memory_utilization", "block_size", "cpu_kvcache_space_gib"}
    assert data["model"]["architecture"] == "llama"
    assert data["fits"] is False and data["recommended"]["fits"] is True
    text = format_plan(plan)
    lines = text.splitlines()
    assert 4 <= len(lines) <= 8
    assert lines[-1] == plan.explanation
    assert f"{plan.kv_bytes_total / GIB:.2f} GiB" in text
    assert "does not fit" in text


def test_llamacpp_compute_counts_one_row_of_logits_per_chat(tmp_path: Path) -> None:
    model = load(tmp_path, GEMMA_2_9B)  # a 256000-token vocabulary: the logits of a full ubatch are 500 MiB
    request = PlanRequest("llamacpp", 8192, 2)
    on_cpu = plan_memory(model, cpu_only(64, 60), request)
    on_card = plan_memory(model, rtx4090(vram_free_gib=23, ram_available_gib=60), request)
    streams = 1 if on_cpu.recommended.llamacpp.kv_unified else 2
    cells = on_cpu.recommended.llamacpp.n_ctx // streams
    output = llamacpp_output_buffer_bytes(model, 2)
    assert output == 4 * 256000 * 2  # one row of logits per chat (llama.cpp's "output buffer size")
    sampling_output = llamacpp_output_buffer_bytes(model, 2, graph_sampling=True)
    assert sampling_output == 4 * (4 * 256000 + 1) * 2  # plus the graph samplers' rows and the sampled token
    reserved = llamacpp_compute_bytes(model, cells, 512, 2)
    assert on_cpu.compute_bytes == reserved + output
    # a GPU that samples in the graph also holds the samplers' rows (not by default yet)
    assert on_card.compute_bytes == reserved + (sampling_output if LLAMACPP_GRAPH_SAMPLING_ON_GPU else output)
    assert reserved < 4 * 512 * 256000  # not the logits of a whole ubatch: the engine asks for one row per chat
    assert on_cpu.total_bytes < on_card.total_bytes


@pytest.mark.parametrize("machine", ["dgx-spark", "jetson-agx-thor", "jetson-agx-orin-64gb", "gh200", "rtx-4090",
                                     "cpu-laptop"])
def test_no_llamacpp_setting_that_fits_leaves_less_than_the_reserves(tmp_path: Path, machine: str) -> None:
    """With the compute and output buffers in the plan: whatever llama.cpp setting the plan calls a fit leaves the
    OS reserve in RAM and, on a discrete card, the GPU reserve on the card (busy machines too)."""
    from app.core.hardware.machine_profiles import machine_report

    full = machine_report(machine)
    models = [load(tmp_path, config, name) for name, config in
              (("llama", LLAMA_3_1_8B), ("gemma", GEMMA_2_9B), ("small", LLAMA_3_2_1B))]
    checked = 0
    for available_fraction in (1.0, 0.5, 0.2):
        hardware = replace(full, ram_available_bytes=int(full.ram_available_bytes * available_fraction))
        for model in models:
            for context, chats in ((2048, 1), (8192, 4), (32768, 2), (131072, 8)):
                plan = plan_memory(model, hardware, PlanRequest("llamacpp", context, chats, reserve_bytes=4 * GIB))
                if not plan.fits:
                    continue
                checked += 1
                assert plan.compute_bytes > llamacpp_output_buffer_bytes(model, chats)
                assert hardware.ram_available_bytes - plan.host_bytes >= 4 * GIB
                if plan.memory_kind == "discrete":
                    assert hardware.gpu_memory_free_bytes - plan.gpu_bytes >= GPU_RESERVE_BYTES
    assert checked > 0
