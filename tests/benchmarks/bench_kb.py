"""Benchmark the knowledge base: ingestion vs raw encode, query latency at 100k chunks, re-adding; one JSON out.

Usage: ``.venv/bin/python -m tests.benchmarks.bench_kb [--only NAME] [--quick] [--profile]``
(see tests/benchmarks/README.md for what each figure means).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import wait_for_idle_machine
from tests.benchmarks.kb_instrument import load_average, log, machine_facts

MEASUREMENTS = ("ingestion", "query", "query_dimensions", "readd")


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help=f"run only these (repeatable or comma-separated): {', '.join(MEASUREMENTS)}")
    parser.add_argument("--quick", action="store_true", help="small sizes, one round (a smoke run)")
    parser.add_argument("--profile", action="store_true",
                        help="ingestion: also raw-encode per pipeline batch and run one pipeline under cProfile")
    parser.add_argument("--rounds", type=int, default=None, help="ingestion rounds (default 2, quick 1)")
    parser.add_argument("--files", type=int, default=None, help="ingestion corpus files (default 300, quick 40)")
    parser.add_argument("--chunks", type=int, default=None, help="query: chunks in the large index (default 100000)")
    parser.add_argument("--dimensions", default="384,1024",
                        help="query_dimensions: vector dimensions to measure (default 384,1024)")
    parser.add_argument("--queries", type=int, default=None, help="query: timed queries (default 240, quick 40)")
    parser.add_argument("--wait-idle", type=float, default=0.0, metavar="MINUTES",
                        help="first wait up to this long for the 1-minute load average to drop below 1")
    parser.add_argument("--work-dir", type=Path, default=None, help="where corpora and KBs go (default: a temp dir)")
    return parser.parse_args(argv)


def selected(arguments: argparse.Namespace) -> list[str]:
    names: list[str] = []
    for entry in arguments.only:
        for name in filter(None, (part.strip() for part in entry.split(","))):
            if name not in MEASUREMENTS:
                raise SystemExit(f"unknown measurement {name!r}; choose from {', '.join(MEASUREMENTS)}")
            if name not in names:
                names.append(name)
    return names or list(MEASUREMENTS)


def _runners(arguments: argparse.Namespace, work_dir: Path) -> dict[str, Callable[[], dict[str, Any]]]:
    from tests.benchmarks.kb_ingestion import IngestionPlan, measure_ingestion
    from tests.benchmarks.kb_query import QueryPlan, measure_query_latency
    from tests.benchmarks.kb_query_dimensions import DimensionsPlan, measure_query_dimensions
    from tests.benchmarks.kb_readd import ReaddPlan, measure_readd
    from tests.benchmarks.llamacpp_tools import bench_cache_dir

    quick = arguments.quick
    ingestion = IngestionPlan(
        files=arguments.files or (40 if quick else 300),
        rounds=arguments.rounds or (1 if quick else 2),
        profile=arguments.profile,
    )
    large = arguments.chunks or (20_000 if quick else 100_000)
    query = QueryPlan(large_chunks=large, small_chunks=min(10_000, large // 2),
                      queries=arguments.queries or (40 if quick else 240), cache_root=bench_cache_dir() / "kb")
    dimensions = DimensionsPlan(chunks=large, queries=arguments.queries or (40 if quick else 240),
                                dimensions=tuple(int(part) for part in arguments.dimensions.split(",") if part.strip()),
                                cache_root=bench_cache_dir() / "kb")
    readd = ReaddPlan(files=200 if quick else 1000, repeats=3)
    return {
        "ingestion": lambda: measure_ingestion(ingestion, _fresh(work_dir / "ingestion")),
        "query": lambda: measure_query_latency(query),
        "query_dimensions": lambda: measure_query_dimensions(dimensions),
        "readd": lambda: measure_readd(readd, _fresh(work_dir / "readd")),
    }


def _fresh(folder: Path) -> Path:
    """``folder``, emptied: knowledge bases left by an earlier run would make every file "unchanged"."""
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    names = selected(arguments)
    waited = wait_for_idle_machine(arguments.wait_idle, log)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    report: dict[str, Any] = {
        "benchmark": "kb",
        "command": " ".join([Path(sys.executable).name, "-m", "tests.benchmarks.bench_kb", *sys.argv[1:]]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine_before": machine_facts(),
        "waited_for_idle_s": round(waited),
        "results": {},
    }
    failures = 0
    with tempfile.TemporaryDirectory(prefix="unidesk-bench-kb-") as temporary:
        work_dir = arguments.work_dir or Path(temporary)
        runners = _runners(arguments, work_dir)
        for name in names:
            log(f"--- {name} (load {load_average()})")
            started = time.perf_counter()
            try:
                result = runners[name]()
            except Exception as error:  # one failing measurement must not hide the others' figures
                failures += 1
                result = {"error": f"{type(error).__name__}: {error}"}
                log(f"{name} failed: {result['error']}")
            result["seconds"] = round(time.perf_counter() - started, 1)
            result["load_average_after"] = load_average()
            report["results"][name] = result
    report["machine_after"] = machine_facts()
    report["summary"] = {
        name: {key: result[key] for key in ("ratio", "p95_ms", "target", "passed", "error") if key in result}
        for name, result in report["results"].items()
    }
    print(json.dumps(report, indent=2, ensure_ascii=False))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
