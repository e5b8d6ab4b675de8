"""Automatic parallel chats: several on a GPU or unified memory, fewer on a small CPU, fewer when memory is short."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.core.planner import PlanRequest, format_plan, plan_memory
from tests.core.planner.fake_hardware import GIB, cpu_only, gb10, rtx4090
from tests.core.planner.published_configs import LLAMA_3_1_8B, LLAMA_3_2_1B
from tests.core.planner.test_plan import load

AUTOMATIC = PlanRequest("llamacpp", context_length=None, parallel_chats=None)


def test_a_gpu_or_unified_memory_runs_several_chats(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    unified = plan_memory(model, gb10(), AUTOMATIC)
    assert unified.parallel_chats == 4 and unified.fits
    assert unified.recommended.parallel_chats == 4
    assert unified.recommended.llamacpp is not None and unified.recommended.llamacpp.kv_unified is False
    assert unified.parallel_chats_reason is not None and "GPU" in unified.parallel_chats_reason
    assert unified.explanation.endswith(
        "4 chats at once, chosen automatically: the GPU answers up to 4 chats together for little more than the "
        "time of one.")
    vllm = plan_memory(model, gb10(), replace(AUTOMATIC, backend="vllm"))
    assert vllm.parallel_chats == 8  # vLLM shares its paged KV cache between chats
    assert plan_memory(load(tmp_path, LLAMA_3_2_1B, "small"), rtx4090(), AUTOMATIC).parallel_chats == 4


def test_a_small_cpu_runs_one_chat_and_a_big_one_several(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    laptop = plan_memory(model, cpu_only(), AUTOMATIC)  # 4 physical cores
    assert laptop.parallel_chats == 1
    assert laptop.parallel_chats_reason == "with 4 CPU cores, one chat at a time answers fastest"
    workstation = replace(cpu_only(64, 60), cpu_cores_physical=16)
    big = plan_memory(model, workstation, AUTOMATIC)
    assert big.parallel_chats == 4 and big.parallel_chats_reason == "16 CPU cores answer up to 4 chats together"
    eight = plan_memory(model, replace(workstation, cpu_cores_physical=8), AUTOMATIC)
    assert eight.parallel_chats == 2


def test_memory_lowers_the_automatic_number_and_says_so(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)  # 15 GiB of weights, 1 GiB of f16 KV per 8192 tokens
    tight = plan_memory(model, gb10(available_gib=4 + 15 + 3.4), AUTOMATIC)
    assert tight.fits and 1 <= tight.parallel_chats < 4
    assert tight.parallel_chats_reason is not None
    assert f"memory leaves room for {tight.parallel_chats} of 8192 tokens each" in tight.parallel_chats_reason
    assert tight.context_length >= 8192  # each chat keeps a useful context
    hopeless = plan_memory(model, gb10(available_gib=10), AUTOMATIC)
    assert hopeless.parallel_chats == 1 and not hopeless.fits
    assert hopeless.parallel_chats_reason is not None and "short even for one chat" in hopeless.parallel_chats_reason


def test_a_fixed_context_is_kept_for_every_automatic_chat(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_1_8B)
    budget_for_two = gb10(available_gib=4 + 15 + 2 * 4 + 2.5)  # about two chats of 32768 tokens (4 GiB of KV each)
    plan = plan_memory(model, budget_for_two, replace(AUTOMATIC, context_length=32768))
    assert plan.context_length == 32768 and plan.parallel_chats == 2 and plan.fits


def test_a_number_the_user_chose_is_kept_and_has_no_reason(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    plan = plan_memory(model, gb10(), PlanRequest("llamacpp", None, 3))
    assert plan.parallel_chats == 3 and plan.parallel_chats_reason is None
    assert "chosen automatically" not in plan.explanation
    assert "Chats:" not in format_plan(plan)


def test_the_text_plan_shows_the_choice_and_its_reason(tmp_path: Path) -> None:
    plan = plan_memory(load(tmp_path, LLAMA_3_2_1B), gb10(), AUTOMATIC)
    text = format_plan(plan)
    assert ("Chats: 4 at once, chosen automatically: the GPU answers up to 4 chats together for little more "
            "than the time of one") in text.splitlines()
    assert plan.to_dict()["parallel_chats_reason"] == plan.parallel_chats_reason
    assert plan.total_bytes < 120 * GIB
