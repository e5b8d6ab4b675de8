"""Fit badges on faked small and large machines, and where "tight" begins."""

from __future__ import annotations

import dataclasses

import pytest

from app.core.config import Settings
from app.core.hardware import HardwareReport
from app.core.models import badge_request_from_settings, fit_catalog, fit_variant, load_catalog, variant_metadata
from app.core.models.fit import DEFAULT_FIT_CONTEXT, TIGHT_HEADROOM
from app.core.planner import PlanRequest, plan_memory
from app.core.planner.from_settings import plan_request_from_settings
from tests.core.planner.fake_hardware import cpu_only, gb10, rtx4090

GIB = 1024**3
RESERVE = 4 * GIB


def _request(context_length: int = 8192, parallel_chats: int = 1, kv_cache_dtype: str = "auto") -> PlanRequest:
    settings = Settings.defaults().with_changes({"engine.kv_cache_dtype": kv_cache_dtype})
    request = badge_request_from_settings(settings, context_length=context_length, parallel_chats=parallel_chats)
    return dataclasses.replace(request, reserve_bytes=RESERVE, embedder_bytes=0)


def _badges(hardware: HardwareReport, request: PlanRequest) -> dict[tuple[str, str], str]:
    return {(fit.model_id, fit.variant_id): fit.badge for fit in fit_catalog(load_catalog(), hardware, request)}


def test_a_small_laptop_fits_small_models_and_refuses_big_ones() -> None:
    badges = _badges(cpu_only(ram_total_gib=8, ram_available_gib=6), _request())
    assert badges[("qwen2.5-0.5b-instruct", "q4_k_m")] == "fits"
    assert badges[("llama-3.2-1b-instruct", "q4_k_m")] == "fits"
    assert badges[("qwen2.5-32b-instruct", "q4_k_m")] == "too_big"
    assert badges[("qwen3-32b", "q8_0")] == "too_big"
    # vLLM (HF) variants cannot run on a machine without unified memory.
    assert badges[("qwen3-8b", "hf-fp8")] == "unsupported"
    assert set(badges.values()) <= {"fits", "tight", "too_big", "unsupported"}


def test_a_dgx_spark_fits_everything_in_the_catalog_and_runs_hf_variants() -> None:
    fits = fit_catalog(load_catalog(), gb10(available_gib=120), _request())
    assert {fit.badge for fit in fits} == {"fits"}
    hf = [fit for fit in fits if fit.backend == "vllm"]
    assert hf and all(fit.needed_bytes > 0 for fit in hf)


def test_bigger_machines_never_get_worse_badges() -> None:
    order = {"too_big": 0, "tight": 1, "fits": 2}
    small = _badges(cpu_only(ram_total_gib=16, ram_available_gib=12), _request())
    large = _badges(cpu_only(ram_total_gib=128, ram_available_gib=120), _request())
    for key, badge in small.items():
        if badge != "unsupported":
            assert order[large[key]] >= order[badge], key
    assert sum(badge == "too_big" for badge in small.values()) > sum(badge == "too_big" for badge in large.values())


def test_tight_means_it_fits_with_less_than_the_headroom_to_spare() -> None:
    catalog = load_catalog()
    model, variant = catalog.find("qwen2.5-7b-instruct", "q4_k_m")
    # What the planner says this setting needs (the same on any CPU-only machine).
    needed = fit_variant(model, variant, cpu_only(ram_available_gib=100), _request()).needed_bytes
    roomy_gib = (RESERVE + needed / (1 - TIGHT_HEADROOM - 0.05)) / GIB
    snug_gib = (RESERVE + needed / (1 - TIGHT_HEADROOM + 0.05)) / GIB
    short_gib = (RESERVE + needed * 0.95) / GIB
    for available, expected in ((roomy_gib, "fits"), (snug_gib, "tight"), (short_gib, "too_big")):
        machine = cpu_only(ram_total_gib=available + 1, ram_available_gib=available)
        fit = fit_variant(model, variant, machine, _request())
        assert fit.badge == expected, (available, fit)
        assert fit.needed_bytes == needed
    tight = fit_variant(model, variant, cpu_only(ram_total_gib=snug_gib + 1, ram_available_gib=snug_gib), _request())
    assert 0 < tight.headroom < TIGHT_HEADROOM


def test_more_parallel_chats_and_longer_context_need_more_memory() -> None:
    model, variant = load_catalog().find("llama-3.1-8b-instruct", "q4_k_m")
    machine = cpu_only(ram_total_gib=16, ram_available_gib=12)
    one = fit_variant(model, variant, machine, _request())
    four = fit_variant(model, variant, machine, _request(parallel_chats=4))
    long = fit_variant(model, variant, machine, _request(context_length=32768))
    # 3 more chats x 8192 tokens x 128 KiB per token of f16 KV cache.
    assert four.needed_bytes - one.needed_bytes >= 3 * 8192 * 131072
    assert long.needed_bytes - one.needed_bytes >= (32768 - 8192) * 131072
    assert one.badge == "fits" and four.parallel_chats == 4
    assert one.longest_context is not None and one.longest_context >= 8192


def test_badges_agree_with_the_planner_itself() -> None:
    """A badge of "fits"/"tight" is exactly the planner's verdict for the same request."""
    machine = rtx4090(vram_free_gib=11, ram_available_gib=20)
    for model in load_catalog():
        variant = model.variant()
        fit = fit_variant(model, variant, machine, _request())
        plan = plan_memory(variant_metadata(model, variant), machine,
                           PlanRequest(backend="llamacpp", context_length=fit.context_length, reserve_bytes=RESERVE))
        assert (fit.badge in ("fits", "tight")) == plan.fits, model.id


def test_partial_gpu_offload_is_tight_and_says_why() -> None:
    model, variant = load_catalog().find("qwen3-32b", "q8_0")
    fit = fit_variant(model, variant, rtx4090(), _request())
    assert fit.badge == "tight"
    assert "layers fit on the GPU" in fit.reason
    small_model, small_variant = load_catalog().find("qwen3-4b", "q4_k_m")
    on_gpu = fit_variant(small_model, small_variant, rtx4090(), _request())
    assert on_gpu.badge == "fits" and on_gpu.budget_bytes == 22 * GIB  # free VRAM less the 1 GiB GPU reserve


def test_the_request_follows_the_settings_and_automatic_context() -> None:
    settings = Settings.defaults().with_changes({"engine.parallel_chats": 3, "engine.os_reserve_gib": 6.0})
    request = badge_request_from_settings(settings)
    assert request.parallel_chats == 3 and request.reserve_bytes == 6 * GIB and request.context_length is None
    assert request.embedder_bytes > 0  # the default embedding model is counted
    assert badge_request_from_settings(settings, context_length=4096, parallel_chats=1).context_length == 4096
    model, variant = load_catalog().find("yi-1.5-9b-chat", "q4_k_m")  # a 4K-context model
    fit = fit_variant(model, variant, gb10(), request)
    assert fit.context_length == 4096 < DEFAULT_FIT_CONTEXT
    other_model, other_variant = load_catalog().find("qwen3-8b")
    assert fit_variant(other_model, other_variant, gb10(), request).context_length == DEFAULT_FIT_CONTEXT


@pytest.mark.parametrize("kv_cache_dtype", ["q8_0", "fp8"])
def test_a_kv_type_one_backend_lacks_does_not_break_the_other(kv_cache_dtype: str) -> None:
    fits = fit_catalog(load_catalog(), gb10(), _request(kv_cache_dtype=kv_cache_dtype))
    assert {fit.backend for fit in fits} == {"llamacpp", "vllm"}
    assert all(fit.badge == "fits" for fit in fits)


def test_badges_plan_what_the_engine_would_load_gpu_layers_and_block_size_included() -> None:
    """The badge's plan is the engine manager's plan for the same settings (one settings -> request function)."""
    settings = Settings.defaults().with_changes({"engine.gpu_layers": 8, "engine.context_length": 8192,
                                                 "engine.parallel_chats": 2})
    model, variant = load_catalog().find("qwen3-4b", "q4_k_m")
    fit = fit_variant(model, variant, rtx4090(), badge_request_from_settings(settings))
    metadata = variant_metadata(model, variant)
    engine_plan = plan_memory(metadata, rtx4090(), plan_request_from_settings(settings, "llamacpp"))
    assert fit.badge == "tight" and "only 8 of" in fit.reason  # the 8 layers the settings give the GPU
    assert fit.cpu_layers == metadata.n_layers - 8  # the speed's ceiling does not cover those: the window says so
    assert (fit.needed_bytes, fit.parallel_chats) == (engine_plan.total_bytes, engine_plan.parallel_chats)
    automatic = fit_variant(model, variant, rtx4090(), badge_request_from_settings(Settings.defaults()))
    assert automatic.badge == "fits"


def test_automatic_chats_are_chosen_per_variant_and_reported() -> None:
    request = badge_request_from_settings(Settings.defaults())
    assert request.parallel_chats is None
    model, variant = load_catalog().find("qwen3-4b", "q4_k_m")
    assert fit_variant(model, variant, gb10(), request).parallel_chats == 4  # a GPU answers several at once
    assert fit_variant(model, variant, cpu_only(), request).parallel_chats == 1  # a 4-core laptop, one at a time


def test_each_badge_carries_the_plans_decode_ceiling_and_marks_slow_models() -> None:
    """Speed beside the fit: the roofline `plan --machine` shows (bandwidth / bytes read per token)."""
    from app.core.models.fit import SLOW_DECODE_TOK_S

    catalog = load_catalog()
    laptop = cpu_only(ram_total_gib=32, ram_available_gib=28, bandwidth=20e9)  # dual-channel DDR4
    bandwidth = laptop.bandwidth.bytes_per_second
    big_model, big_variant = catalog.find("qwen2.5-14b-instruct", "q4_k_m")
    small_model, small_variant = catalog.find("qwen2.5-0.5b-instruct", "q4_k_m")
    big = fit_variant(big_model, big_variant, laptop, _request())
    small = fit_variant(small_model, small_variant, laptop, _request())
    plan = plan_memory(variant_metadata(big_model, big_variant), laptop,
                       PlanRequest(backend="llamacpp", context_length=8192, reserve_bytes=RESERVE))
    assert big.decode_tok_s == plan.decode_tok_s_roofline_empty  # the planner's figure, not a second formula
    assert big.decode_tok_s == pytest.approx(bandwidth / big.decode_bytes_per_token)
    assert big.decode_bytes_per_token >= big_variant.approx_size_bytes  # every weight is read per token
    assert big.badge == "fits" and big.decode_tok_s < SLOW_DECODE_TOK_S and big.slow
    assert small.decode_tok_s is not None and small.decode_tok_s > SLOW_DECODE_TOK_S and not small.slow
    assert big.to_dict()["slow"] is True
    moe_model, moe_variant = catalog.find("qwen3-30b-a3b", "q4_k_m")  # reads only its active experts
    moe = fit_variant(moe_model, moe_variant, laptop, _request())
    assert moe.decode_bytes_per_token < moe_variant.approx_size_bytes / 3
    unknown = dataclasses.replace(laptop, bandwidth=dataclasses.replace(laptop.bandwidth, bytes_per_second=0.0))
    not_known = fit_variant(big_model, big_variant, unknown, _request())
    assert not_known.decode_tok_s is None and not not_known.slow  # unknown is not called slow


def test_a_context_beyond_the_models_training_is_capped_and_says_so() -> None:
    """At 131,072 tokens a 32K model is judged at 32K (capped), a 128K model at the full length."""
    catalog = load_catalog()
    machine = cpu_only(ram_total_gib=24, ram_available_gib=20)
    short_model, short_variant = catalog.find("qwen2.5-7b-instruct", "q4_k_m")
    long_model, long_variant = catalog.find("llama-3.2-3b-instruct", "q4_k_m")
    short = fit_variant(short_model, short_variant, machine, _request(context_length=131072))
    long = fit_variant(long_model, long_variant, machine, _request(context_length=131072))
    assert short.capped and short.context_length == 32768 and "(the model's maximum)" in short.reason
    assert not long.capped and long.context_length == 131072
    within = fit_variant(short_model, short_variant, machine, _request(context_length=8192))
    assert not within.capped
    automatic = fit_variant(*catalog.find("yi-1.5-9b-chat", "q4_k_m"), machine,
                            dataclasses.replace(_request(), context_length=None))
    assert automatic.context_length == 4096 and not automatic.capped  # automatic asked for nothing to cap
