"""The first-run recommendation on faked machines: fits with room, reads comfortably, speaks Chinese."""

from __future__ import annotations

import dataclasses

from app.core.config import Settings
from app.core.hardware import HardwareReport
from app.core.models import badge_request_from_settings, fit_catalog, load_catalog
from app.core.models.recommend import COMFORTABLE_TOK_S, Recommendation, recommend_chat_model
from tests.core.planner.fake_hardware import cpu_only, gb10


def _recommend(hardware: HardwareReport) -> Recommendation | None:
    catalog = load_catalog()
    return recommend_chat_model(catalog, fit_catalog(catalog, hardware, badge_request_from_settings(
        Settings.defaults())), hardware)


def _with_bandwidth(hardware: HardwareReport, bytes_per_second: float) -> HardwareReport:
    return dataclasses.replace(hardware, bandwidth=dataclasses.replace(hardware.bandwidth,
                                                                       bytes_per_second=bytes_per_second))


def test_a_laptop_gets_the_largest_bilingual_model_that_still_reads_comfortably() -> None:
    laptop = _with_bandwidth(cpu_only(ram_total_gib=16, ram_available_gib=12), 40e9)
    chosen = _recommend(laptop)
    assert chosen is not None and chosen.fit.badge == "fits" and not chosen.variant.gated
    assert chosen.decode_tok_s_bound is not None and chosen.decode_tok_s_bound >= COMFORTABLE_TOK_S
    assert "zh" in chosen.model.languages and "en" in chosen.model.languages
    catalog = load_catalog()
    fits = fit_catalog(catalog, laptop, badge_request_from_settings(Settings.defaults()))
    for fit in fits:  # nothing bigger would have been as good
        model, variant = catalog.find(fit.model_id, fit.variant_id)
        if (fit.badge == "fits" and not variant.gated and "zh" in model.languages
                and variant.approx_size_bytes > chosen.variant.approx_size_bytes):
            assert fit.decode_tok_s is not None and fit.decode_tok_s < COMFORTABLE_TOK_S
    assert "At most" in chosen.reason


def test_a_dgx_spark_gets_a_bigger_model_than_a_laptop() -> None:
    laptop = _recommend(_with_bandwidth(cpu_only(ram_total_gib=16, ram_available_gib=12), 40e9))
    spark = _recommend(_with_bandwidth(gb10(available_gib=120), 273e9))
    assert laptop is not None and spark is not None
    assert spark.variant.approx_size_bytes > laptop.variant.approx_size_bytes


def test_a_slow_machine_gets_the_fastest_model_and_is_told_it_is_slow() -> None:
    slow = _with_bandwidth(cpu_only(ram_total_gib=8, ram_available_gib=6), 3e9)
    chosen = _recommend(slow)
    assert chosen is not None
    assert chosen.decode_tok_s_bound is not None and chosen.decode_tok_s_bound < COMFORTABLE_TOK_S
    assert "slowly" in chosen.reason


def test_an_unknown_bandwidth_is_said_to_be_a_guess() -> None:
    chosen = _recommend(_with_bandwidth(cpu_only(ram_total_gib=16, ram_available_gib=12), 0.0))
    assert chosen is not None and "guess" in chosen.reason


def test_nothing_is_recommended_when_nothing_fits() -> None:
    assert _recommend(cpu_only(ram_total_gib=1, ram_available_gib=0.3)) is None
