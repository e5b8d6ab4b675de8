"""What one memory-guardian sample costs: the GPU's view through the kept NVML session (NvmlMemoryWatch) against a
fresh NVML session per sample (init, read, shutdown), and the OS's view (/proc/meminfo), measured in one run.
Needs an NVIDIA GPU whose memory NVML reports; elsewhere it says so and measures the OS's view alone.

    python -m tests.benchmarks.bench_gpu_view [--samples 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from app.core.hardware.live_memory import read_system_view
from app.core.hardware.nvml_reader import NvmlMemoryWatch


def per_call_us(call: Callable[[], object], samples: int) -> float:
    """Median of ``samples`` timings of ``call`` in microseconds (after 10 unmeasured calls)."""
    for _ in range(10):
        call()
    timings = []
    for _ in range(samples):
        start = time.perf_counter()
        call()
        timings.append((time.perf_counter() - start) * 1e6)
    return statistics.median(timings)


def fresh_session_read() -> object:
    """A sample as a reader that opens NVML each time would take it."""
    import pynvml

    pynvml.nvmlInit()
    try:
        return pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(0))
    finally:
        pynvml.nvmlShutdown()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    report: dict[str, Any] = {"samples": args.samples,
                              "meminfo_us": per_call_us(read_system_view, args.samples)}
    watch = NvmlMemoryWatch()
    try:
        reading = watch()
        if reading is None:
            report["gpu"] = "NVML reports no GPU memory here"
        else:
            report["gpu"] = reading.name
            report["kept_session_us"] = per_call_us(watch, args.samples)
            report["fresh_session_us"] = per_call_us(fresh_session_read, max(1, args.samples // 10))
            report["fresh_over_kept"] = report["fresh_session_us"] / report["kept_session_us"]
    finally:
        watch.close()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
