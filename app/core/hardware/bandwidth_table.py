"""Peak memory bandwidth of known devices (vendor specifications, GB/s = 10^9 bytes/s).

Patterns are searched, in order, in a normalised device name (lower case, ``-``/``_`` as spaces),
so the more specific entries come first. GH200 lists its HBM figure: decode runs on the GPU and
reads weights from HBM (the Grace side's LPDDR5X gives ~500 GB/s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class BandwidthEntry:
    """One device: a name pattern, its bandwidth, and optional limits that pick a variant."""

    pattern: str
    gigabytes_per_second: float
    label: str
    max_memory_gib: float | None = None
    max_cpu_cores: int | None = None


@dataclass(frozen=True)
class TableHit:
    bytes_per_second: float
    label: str


def _rtx(model: str, gigabytes_per_second: float, max_memory_gib: float | None = None) -> BandwidthEntry:
    """A GeForce desktop card; laptop parts of the same number are slower and excluded."""
    label = f"GeForce RTX {model.upper().replace('TI', 'Ti').replace('SUPER', 'Super')}"
    if max_memory_gib is not None:
        label += f" {max_memory_gib:.0f} GB"
    return BandwidthEntry(
        rf"\brtx {model}\b(?!.*\blaptop\b)", gigabytes_per_second, label, max_memory_gib=max_memory_gib
    )


BANDWIDTH_TABLE: tuple[BandwidthEntry, ...] = (
    # NVIDIA unified-memory systems.
    BandwidthEntry(r"\bgb10\b|dgx spark", 273, "NVIDIA GB10 (DGX Spark), LPDDR5X"),
    BandwidthEntry(r"\bthor\b", 273, "NVIDIA Jetson AGX Thor, LPDDR5X"),
    BandwidthEntry(r"\bagx orin\b", 204.8, "NVIDIA Jetson AGX Orin, LPDDR5"),
    BandwidthEntry(r"\borin nx\b", 102.4, "NVIDIA Jetson Orin NX, LPDDR5"),
    BandwidthEntry(r"\borin nano\b", 68, "NVIDIA Jetson Orin Nano, LPDDR5 (Super mode: 102 GB/s)"),
    BandwidthEntry(
        r"\bgh200\b.*\b(144g|hbm3e)\b", 4900, "NVIDIA GH200 144 GB HBM3e (GPU HBM; Grace side ~500)"
    ),
    BandwidthEntry(r"\bgh200\b", 4000, "NVIDIA GH200 96 GB HBM3 (GPU HBM; Grace LPDDR5X side ~500)"),
    BandwidthEntry(r"\bgb(200|300)\b", 8000, "NVIDIA GB200 / GB300 (Blackwell GPU), HBM3e"),
    # NVIDIA data-centre GPUs.
    BandwidthEntry(r"\bb(200|300)\b", 8000, "NVIDIA B200 / B300, HBM3e"),
    BandwidthEntry(r"\bh200\b", 4800, "NVIDIA H200, HBM3e"),
    BandwidthEntry(r"\bh100\b.*\bnvl\b", 3900, "NVIDIA H100 NVL, HBM3"),
    BandwidthEntry(r"\bh100\b.*\bpcie\b", 2000, "NVIDIA H100 PCIe, HBM2e"),
    BandwidthEntry(r"\bh100\b", 3350, "NVIDIA H100 SXM, HBM3"),
    BandwidthEntry(r"\ba100\b.*\b40 ?gb\b", 1555, "NVIDIA A100 40 GB, HBM2"),
    BandwidthEntry(r"\ba100\b", 1555, "NVIDIA A100 40 GB, HBM2", max_memory_gib=48),
    BandwidthEntry(r"\ba100\b.*\bpcie\b", 1935, "NVIDIA A100 80 GB PCIe, HBM2e"),
    BandwidthEntry(r"\ba100\b", 2039, "NVIDIA A100 80 GB SXM, HBM2e"),
    BandwidthEntry(r"\bl40s?\b", 864, "NVIDIA L40 / L40S, GDDR6"),
    BandwidthEntry(r"\bl4\b", 300, "NVIDIA L4, GDDR6"),
    BandwidthEntry(r"\ba10\b", 600, "NVIDIA A10, GDDR6"),
    BandwidthEntry(r"\brtx pro 6000\b", 1792, "NVIDIA RTX PRO 6000 Blackwell, GDDR7"),
    BandwidthEntry(r"\brtx 6000 ada\b", 960, "NVIDIA RTX 6000 Ada, GDDR6"),
    BandwidthEntry(r"\brtx a6000\b", 768, "NVIDIA RTX A6000, GDDR6"),
    # GeForce RTX desktop cards.
    _rtx("5090", 1792),
    _rtx("5080", 960),
    _rtx("5070 ti", 896),
    _rtx("5070", 672),
    _rtx("5060 ti", 448),
    _rtx("5060", 448),
    _rtx("4090", 1008),
    _rtx("4080 super", 736),
    _rtx("4080", 716.8),
    _rtx("4070 ti super", 672),
    _rtx("4070 ti", 504),
    _rtx("4070 super", 504),
    _rtx("4070", 504),
    _rtx("4060 ti", 288),
    _rtx("4060", 272),
    _rtx("3090 ti", 1008),
    _rtx("3090", 936),
    _rtx("3080 ti", 912),
    _rtx("3080", 760, max_memory_gib=10.5),
    _rtx("3080", 912),
    _rtx("3070 ti", 608),
    _rtx("3070", 448),
    _rtx("3060 ti", 448),
    _rtx("3060", 240, max_memory_gib=8.5),
    _rtx("3060", 360),
    # AMD.
    BandwidthEntry(
        r"ryzen ai max|radeon 80[456]0s|strix halo", 256, "AMD Strix Halo (Ryzen AI Max), LPDDR5X"
    ),
    BandwidthEntry(r"\bmi300x\b", 5300, "AMD Instinct MI300X, HBM3"),
    BandwidthEntry(r"\bmi250x?\b", 3276.8, "AMD Instinct MI250/MI250X, HBM2e"),
    BandwidthEntry(r"\brx 7900 xtx\b", 960, "AMD Radeon RX 7900 XTX, GDDR6"),
    BandwidthEntry(r"\brx 7900 xt\b", 800, "AMD Radeon RX 7900 XT, GDDR6"),
    BandwidthEntry(r"\brx 7900 gre\b", 576, "AMD Radeon RX 7900 GRE, GDDR6"),
    BandwidthEntry(r"\brx 7800 xt\b", 624, "AMD Radeon RX 7800 XT, GDDR6"),
    BandwidthEntry(r"\brx 7700 xt\b", 432, "AMD Radeon RX 7700 XT, GDDR6"),
    BandwidthEntry(r"\brx 7600\b", 288, "AMD Radeon RX 7600, GDDR6"),
    BandwidthEntry(r"\brx 9070\b", 640, "AMD Radeon RX 9070 / 9070 XT, GDDR6"),
    BandwidthEntry(r"\brx 69[05]0 xt\b", 512, "AMD Radeon RX 6900 XT / 6950 XT, GDDR6"),
    BandwidthEntry(r"\brx 6800\b", 512, "AMD Radeon RX 6800 (XT), GDDR6"),
    # Apple Silicon (unified LPDDR). The 14-core M3 Max / M4 Max bins have a narrower bus.
    BandwidthEntry(r"\bapple m1 ultra\b", 800, "Apple M1 Ultra"),
    BandwidthEntry(r"\bapple m1 max\b", 400, "Apple M1 Max"),
    BandwidthEntry(r"\bapple m1 pro\b", 200, "Apple M1 Pro"),
    BandwidthEntry(r"\bapple m1\b", 68.25, "Apple M1"),
    BandwidthEntry(r"\bapple m2 ultra\b", 800, "Apple M2 Ultra"),
    BandwidthEntry(r"\bapple m2 max\b", 400, "Apple M2 Max"),
    BandwidthEntry(r"\bapple m2 pro\b", 200, "Apple M2 Pro"),
    BandwidthEntry(r"\bapple m2\b", 100, "Apple M2"),
    BandwidthEntry(r"\bapple m3 ultra\b", 819, "Apple M3 Ultra"),
    BandwidthEntry(r"\bapple m3 max\b", 300, "Apple M3 Max (14-core CPU)", max_cpu_cores=14),
    BandwidthEntry(r"\bapple m3 max\b", 400, "Apple M3 Max (16-core CPU)"),
    BandwidthEntry(r"\bapple m3 pro\b", 150, "Apple M3 Pro"),
    BandwidthEntry(r"\bapple m3\b", 100, "Apple M3"),
    BandwidthEntry(r"\bapple m4 max\b", 410, "Apple M4 Max (14-core CPU)", max_cpu_cores=14),
    BandwidthEntry(r"\bapple m4 max\b", 546, "Apple M4 Max (16-core CPU)"),
    BandwidthEntry(r"\bapple m4 pro\b", 273, "Apple M4 Pro"),
    BandwidthEntry(r"\bapple m4\b", 120, "Apple M4"),
    BandwidthEntry(r"\bapple m5\b", 153, "Apple M5"),
)


def normalise_device_name(name: str) -> str:
    """Lower case, ``-``/``_``/``(R)``/``(TM)`` turned into single spaces, for pattern matching."""
    text = re.sub(r"\((r|tm)\)", " ", name.lower())
    return " ".join(re.sub(r"[-_/,]", " ", text).split())


def _variant_fits(entry: BandwidthEntry, memory_bytes: int | None, cpu_cores: int | None) -> bool:
    if entry.max_memory_gib is not None and (
        memory_bytes is None or memory_bytes > entry.max_memory_gib * 2**30
    ):
        return False
    return entry.max_cpu_cores is None or (cpu_cores is not None and cpu_cores <= entry.max_cpu_cores)


def look_up_bandwidth(
    name: str, *, memory_bytes: int | None = None, cpu_cores: int | None = None
) -> TableHit | None:
    """The first table entry whose pattern and variant limits fit this device, if any."""
    normalised = normalise_device_name(name)
    for entry in BANDWIDTH_TABLE:
        if re.search(entry.pattern, normalised) and _variant_fits(entry, memory_bytes, cpu_cores):
            return TableHit(bytes_per_second=entry.gigabytes_per_second * 1e9, label=entry.label)
    return None
