"""The bandwidth table's matching rules and the copy benchmark."""

from __future__ import annotations

import pytest

from app.core.hardware.bandwidth import BandwidthCandidate, estimate_bandwidth, measure_copy_bandwidth
from app.core.hardware.bandwidth_table import BANDWIDTH_TABLE, look_up_bandwidth, normalise_device_name

GIB = 1024**3


def _gb_per_s(name: str, memory_bytes: int | None = None, cpu_cores: int | None = None) -> float | None:
    hit = look_up_bandwidth(name, memory_bytes=memory_bytes, cpu_cores=cpu_cores)
    return None if hit is None else hit.bytes_per_second / 1e9


@pytest.mark.parametrize(
    ("more_specific", "less_specific"),
    [
        ("NVIDIA GeForce RTX 4080 SUPER", "NVIDIA GeForce RTX 4080"),
        ("NVIDIA GeForce RTX 4070 Ti SUPER", "NVIDIA GeForce RTX 4070 Ti"),
        ("NVIDIA GeForce RTX 3090 Ti", "NVIDIA GeForce RTX 3090"),
        ("AMD Radeon RX 7900 XTX", "AMD Radeon RX 7900 XT"),
        ("Apple M1 Max", "Apple M1"),
        ("NVIDIA H100 NVL", "NVIDIA H100 80GB HBM3"),
    ],
)
def test_specific_names_are_not_swallowed_by_shorter_ones(more_specific: str, less_specific: str) -> None:
    specific, general = _gb_per_s(more_specific), _gb_per_s(less_specific)
    assert specific is not None and general is not None
    assert specific != general


def test_gh200_is_not_mistaken_for_h200() -> None:
    assert _gb_per_s("NVIDIA GH200 480GB") == 4000
    assert _gb_per_s("NVIDIA H200") == 4800
    assert _gb_per_s("NVIDIA GH200 144G HBM3e") == 4900


def test_gb10_is_not_mistaken_for_gb100_or_b200() -> None:
    assert _gb_per_s("NVIDIA GB10") == 273
    assert _gb_per_s("NVIDIA GB100") is None


def test_memory_size_picks_the_variant() -> None:
    assert _gb_per_s("NVIDIA GeForce RTX 3060", memory_bytes=8 * GIB) == 240
    assert _gb_per_s("NVIDIA GeForce RTX 3060", memory_bytes=12 * GIB) == 360
    assert _gb_per_s("NVIDIA GeForce RTX 3060") == 360  # size unknown: the common 12 GB card
    assert _gb_per_s("NVIDIA A100-SXM4-40GB") == 1555
    assert _gb_per_s("NVIDIA A100-SXM4-80GB", memory_bytes=80 * GIB) == 2039
    assert _gb_per_s("NVIDIA A100 80GB PCIe", memory_bytes=80 * GIB) == 1935


def test_core_count_picks_the_apple_bin() -> None:
    assert _gb_per_s("Apple M4 Max", cpu_cores=14) == 410
    assert _gb_per_s("Apple M4 Max", cpu_cores=16) == 546
    assert _gb_per_s("Apple M4 Max") == 546


def test_laptop_parts_do_not_match_desktop_cards() -> None:
    assert _gb_per_s("NVIDIA GeForce RTX 4090 Laptop GPU") is None
    assert _gb_per_s("NVIDIA GeForce RTX 4090") == 1008


def test_strix_halo_matches_by_cpu_or_gpu_name() -> None:
    assert _gb_per_s("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S") == 256
    assert _gb_per_s("AMD Radeon 8060S (Strix Halo)") == 256


def test_requested_devices_are_in_the_table() -> None:
    names = [
        "NVIDIA GB10",
        "NVIDIA Jetson AGX Thor Developer Kit",
        "NVIDIA Jetson AGX Orin Developer Kit",
        "NVIDIA GH200 480GB",
        "Apple M1",
        "Apple M2 Pro",
        "Apple M3 Ultra",
        "Apple M4 Pro",
        "NVIDIA GeForce RTX 3060",
        "NVIDIA GeForce RTX 5090",
        "NVIDIA A100-SXM4-80GB",
        "NVIDIA H100 80GB HBM3",
        "NVIDIA H200",
        "NVIDIA L40S",
        "AMD Radeon RX 7900 XTX",
    ]
    assert [name for name in names if look_up_bandwidth(name) is None] == []


def test_every_entry_is_reachable_by_its_own_label() -> None:
    """Looking up an entry's label must find that entry: a miss is a pattern typo, another hit is
    an earlier, broader pattern shadowing it (variant entries need a size or core count, so skip)."""
    misses = []
    for entry in BANDWIDTH_TABLE:
        if entry.max_memory_gib is None and entry.max_cpu_cores is None:
            hit = look_up_bandwidth(entry.label)
            if hit is None or hit.label != entry.label:
                misses.append(entry.label)
    assert misses == []


def test_unknown_names_are_not_matched() -> None:
    assert _gb_per_s("Intel(R) Core(TM) i7-9700K CPU @ 3.60GHz") is None
    assert normalise_device_name("Intel(R) Core(TM) i7_9700K") == "intel core i7 9700k"


def test_measure_copy_bandwidth_gives_a_real_copy_rate() -> None:
    # best of several copies, so one copy slowed by a busy machine does not decide the figure
    estimate = measure_copy_bandwidth(16 * 1024**2, time_budget_s=1.0, max_repeats=5)

    assert estimate.source == "measured"
    assert estimate.bytes_per_second > 1e8  # anything slower than 0.1 GB/s is not a real copy
    assert "16 MiB" in estimate.detail


def test_unknown_discrete_gpu_is_not_given_a_cpu_figure() -> None:
    estimate = estimate_bandwidth(
        [BandwidthCandidate("NVIDIA Quadro Mystery", 16 * GIB)],
        cpu_cores=8,
        decode_reads_system_ram=False,
        measure=True,
    )
    assert estimate.source == "unknown"
    assert estimate.bytes_per_second == 0
    assert "NVIDIA Quadro Mystery" in estimate.detail


def test_first_candidate_in_the_table_wins() -> None:
    estimate = estimate_bandwidth(
        [BandwidthCandidate("Mystery GPU"), BandwidthCandidate("Apple M2")],
        cpu_cores=8,
        decode_reads_system_ram=True,
        measure=False,
    )
    assert (estimate.source, estimate.bytes_per_second) == ("table", 100e9)
    assert "Apple M2" in estimate.detail
