"""Benchmark the llama.cpp engine against minimal loops and llama.cpp's own tools; one JSON document out.

Usage: ``.venv/bin/python -m tests.benchmarks.bench_llamacpp_engine [--only NAME] [--quick] [--skip-peers]``
(see tests/benchmarks/README.md for what each figure means).
"""

from __future__ import annotations

import argparse
import datetime
import functools
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import wait_for_idle_machine
from tests.benchmarks.engine_measurements import (
    BenchPlan,
    SharedResults,
    log,
    measure_overhead,
    measure_parallel,
    measure_prompt_reuse,
    measure_roofline,
    measure_warmup,
)
from tests.benchmarks.llamacpp_tools import bench_cache_dir, installed_llama_cpp_python_version
from tests.benchmarks.peer_measurements import measure_batched_bench, measure_server
from tests.benchmarks.slot_measurements import measure_slot_gap

Measurement = Callable[[BenchPlan, SharedResults], dict[str, Any]]
MEASUREMENTS: dict[str, Measurement] = {
    "overhead": measure_overhead,
    "parallel": measure_parallel,
    "prompt_reuse": measure_prompt_reuse,
    "warmup": measure_warmup,
    "roofline": measure_roofline,
    "peer_server": measure_server,
    "peer_batched_bench": measure_batched_bench,
    "slot_gap": measure_slot_gap,
}
PEER_MEASUREMENTS = ("peer_server", "peer_batched_bench")


def benchmark_model(dtype: str) -> Path:
    """The benchmark-size random-weight GGUF (~222 MB as q8_0), cached outside the repository."""
    from tests.fixtures.models import BENCHMARK_SHAPE, cached_llama_gguf

    return cached_llama_gguf(bench_cache_dir() / "models", BENCHMARK_SHAPE, dtype)  # type: ignore[arg-type]


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME",
        help=f"run only these measurements (repeatable or comma-separated): {', '.join(MEASUREMENTS)}; "
        "'peers' means both peer measurements",
    )
    parser.add_argument("--quick", action="store_true", help="fewer repeats and shorter prompts (a smoke run)")
    parser.add_argument("--skip-peers", action="store_true", help="skip llama-server / llama-batched-bench")
    parser.add_argument("--repeats", type=int, default=None, help="measured rounds per figure (default 5, quick 2)")
    parser.add_argument(
        "--wait-idle", type=float, default=0.0, metavar="MINUTES",
        help="first wait up to this long for the 1-minute load average to drop below 1 (a shared machine)",
    )
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="threads for every contender")
    parser.add_argument("--dtype", choices=("q8_0", "f16"), default="q8_0", help="weights of the generated model")
    parser.add_argument("--model", type=Path, default=None, help="use this GGUF instead of the generated one")
    parser.add_argument("--seqs", default="4", metavar="N[,N...]", help="parallel chats for 'parallel' (default 4)")
    parser.add_argument("--peer-seqs", default="1,8", metavar="N[,N...]",
                        help="chats for 'peer_batched_bench' (default 1,8: the issue's single-chat and 8-chat figures)")
    parser.add_argument("--kv", choices=("f16", "q8_0"), default="f16", help="KV cache type of every contender")
    parser.add_argument("--sampling", choices=("greedy", "default"), default="greedy",
                        help="sampling of the throughput chats: greedy, or the app's defaults (temperature 0.7, "
                             "top-k 40, top-p 0.95, min-p 0.05), which llama-server is then sent too")
    parser.add_argument("--gpu-layers", type=int, default=-1, help="layers to offload (-1: all; none on CPU builds)")
    parser.add_argument("--graph-sampling", choices=("auto", "on", "off"), default="auto",
                        help="sample inside llama.cpp's graph (on), on the host (off) or as the app does (auto)")
    parser.add_argument("--prompt-tokens", type=int, default=None, help="prompt length (default 128, quick 64)")
    parser.add_argument("--new-tokens", type=int, default=None, help="tokens per chat (default 128, quick 48)")
    parser.add_argument("--context", type=int, default=None, help="context tokens per chat (default 2048, quick 1024)")
    return parser.parse_args(argv)


def selected_measurements(arguments: argparse.Namespace) -> list[str]:
    names: list[str] = []
    for entry in arguments.only:
        for name in filter(None, (part.strip() for part in entry.split(","))):
            expanded = list(PEER_MEASUREMENTS) if name == "peers" else [name]
            unknown = [n for n in expanded if n not in MEASUREMENTS]
            if unknown:
                raise SystemExit(f"unknown measurement {name!r}; choose from {', '.join(MEASUREMENTS)}, peers")
            names.extend(n for n in expanded if n not in names)
    chosen = names or list(MEASUREMENTS)
    if arguments.skip_peers:
        chosen = [name for name in chosen if name not in PEER_MEASUREMENTS]
    return chosen


def build_plan(arguments: argparse.Namespace) -> BenchPlan:
    model_path = arguments.model or benchmark_model(arguments.dtype)
    quick = arguments.quick
    return BenchPlan(
        model_path=model_path,
        threads=arguments.threads,
        repeats=arguments.repeats or (2 if quick else 5),
        prompt_tokens=arguments.prompt_tokens or (64 if quick else 128),
        new_tokens=arguments.new_tokens or (48 if quick else 128),
        context_length=arguments.context or (1024 if quick else 2048),
        reuse_history_tokens=700 if quick else 1500,
        kv_cache_dtype=arguments.kv,
        gpu_layers=arguments.gpu_layers,
        parallel_sequences=tuple(int(n) for n in arguments.seqs.split(",") if n.strip()),
        peer_sequences=tuple(int(n) for n in arguments.peer_seqs.split(",") if n.strip()),
        sampling=arguments.sampling,
        graph_sampling={"auto": None, "on": True, "off": False}[arguments.graph_sampling],
    )


def machine_facts() -> dict[str, Any]:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_average_1_5_15": [round(value, 2) for value in load],
        "llama_cpp_python": installed_llama_cpp_python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    names = selected_measurements(arguments)
    waited_s = wait_for_idle_machine(arguments.wait_idle, log)
    import llama_cpp._logger as llama_logger

    llama_logger.set_verbose(False)
    plan = build_plan(arguments)
    report: dict[str, Any] = {
        "benchmark": "llamacpp_engine",
        "command": " ".join([Path(sys.executable).name, "-m", "tests.benchmarks.bench_llamacpp_engine", *sys.argv[1:]]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine_before": machine_facts(),
        "waited_for_idle_s": round(waited_s),
        "model": {"path": str(plan.model_path), "size_bytes": plan.model_path.stat().st_size},
        "plan": {key: (str(value) if isinstance(value, Path) else value) for key, value in plan.__dict__.items()},
        "results": {},
    }
    shared = SharedResults()
    failures = 0
    runs: list[tuple[str, Callable[[], dict[str, Any]]]] = []
    for name in names:
        if name == "parallel":
            runs += [(f"parallel_{n}", functools.partial(measure_parallel, plan, shared, n))
                     for n in plan.parallel_sequences]
        elif name == "peer_batched_bench":
            runs += [(f"peer_batched_bench_{n}", functools.partial(measure_batched_bench, plan, shared, n))
                     for n in plan.peer_sequences]
        else:
            runs.append((name, functools.partial(MEASUREMENTS[name], plan, shared)))
    for name, measurement in runs:
        log(f"--- {name}")
        started = time.perf_counter()
        try:
            result = measurement()
        except Exception as error:  # one failing measurement must not hide the others' figures
            failures += 1
            result = {"error": f"{type(error).__name__}: {error}"}
            log(f"{name} failed: {result['error']}")
        result["seconds"] = round(time.perf_counter() - started, 1)
        result["load_average_after"] = [round(value, 2) for value in os.getloadavg()]
        report["results"][name] = result
    report["machine_after"] = machine_facts()
    report["summary"] = {
        name: {key: result.get(key) for key in ("ratio", "target", "passed", "error") if key in result}
        for name, result in report["results"].items()
    }
    print(json.dumps(report, indent=2))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
