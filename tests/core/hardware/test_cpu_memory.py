"""Parsers for /proc/cpuinfo, /proc/meminfo and macOS vm_stat, and the CPU naming rules."""

from __future__ import annotations

from app.core.hardware.cpu_memory import (
    arm_core_names,
    describe_arm_cores,
    parse_cpuinfo,
    parse_meminfo,
    parse_vm_stat,
)


def test_parse_meminfo_converts_kilobytes_and_keeps_plain_counts() -> None:
    values = parse_meminfo("MemTotal:       16384 kB\nMemAvailable:    8192 kB\nHugePages_Total:      4\n")

    assert values == {"MemTotal": 16384 * 1024, "MemAvailable": 8192 * 1024, "HugePages_Total": 4}


def test_parse_cpuinfo_splits_blocks() -> None:
    blocks = parse_cpuinfo("processor\t: 0\nmodel name\t: X\n\nprocessor\t: 1\nmodel name\t: X\n\n")

    assert blocks == [{"processor": "0", "model name": "X"}, {"processor": "1", "model name": "X"}]


def test_arm_cores_are_named_and_counted() -> None:
    blocks = [
        {"processor": "0", "CPU implementer": "0x41", "CPU part": "0xd85"},
        {"processor": "1", "CPU implementer": "0x41", "CPU part": "0xd87"},
        {"processor": "2", "CPU implementer": "0x41", "CPU part": "0xd87"},
        {"processor": "3", "CPU implementer": "0x99", "CPU part": "0x123"},
    ]
    names = arm_core_names(blocks)

    assert names == ("Cortex-X925", "Cortex-A725", "Cortex-A725", "Arm core 0x99:0x123")
    assert describe_arm_cores(names) == "2x Cortex-A725 + 1x Cortex-X925 + 1x Arm core 0x99:0x123"


def test_parse_vm_stat_counts_free_inactive_and_speculative_pages() -> None:
    text = (
        "Mach Virtual Memory Statistics: (page size of 4096 bytes)\n"
        "Pages free:                               100.\n"
        "Pages active:                            5000.\n"
        "Pages inactive:                           200.\n"
        "Pages speculative:                         30.\n"
    )
    assert parse_vm_stat(text) == (100 + 200 + 30) * 4096
    assert parse_vm_stat("garbage") is None
