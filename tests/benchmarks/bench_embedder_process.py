"""Embedding in the app's process vs in the embedding child process (the placement on GPU builds of llama.cpp).

    .venv/bin/python -m tests.benchmarks.bench_embedder_process [--model NAME] [--chunks N] [--rounds N]

The same chunks (generated prose, half English, half Chinese) are embedded by two ``Embedder``s of the same
model on the same device, one in process and one in its child process, alternately, round after round
(round 0 warms up and is dropped): in pieces of 8 chunks (how indexing calls it while it may step aside for
an answer) and in batches of 64. Reported: chunks/s of each and the child / in-process ratio (median of
the per-round ratios of chunks/s), the largest difference between their vectors, and the start-up of the child
(spawn, imports, model load; median of --starts) against loading the model in a fresh process of its own
(imports and load, measured in a subprocess). One JSON document on stdout; progress on stderr.
Any sentence-transformers model works: ``--model`` takes a name or a folder (default: the bundled MiniLM).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import figure, median
from tests.benchmarks.kb_text import TextMaker

PIECES = {"pieces_of_8": 8, "batches_of_64": 64}


def log(message: str) -> None:
    print(f"[embedder-process] {message}", file=sys.stderr, flush=True)


def make_chunks(count: int, seed: int = 0) -> list[str]:
    """``count`` chunks of about 150 English words or 200 Chinese characters, alternately."""
    maker = TextMaker.create(seed)
    rng = random.Random(seed)
    return [maker.english_paragraph(rng, 150) if index % 2 == 0 else maker.chinese_paragraph(rng, 200)
            for index in range(count)]


def embed_all(embedder: Any, chunks: list[str], piece: int) -> tuple[float, Any]:
    """Seconds to embed ``chunks`` in calls of ``piece`` chunks, and the vectors."""
    import numpy as np

    started = time.perf_counter()
    parts = [embedder.embed_documents(chunks[start:start + piece]) for start in range(0, len(chunks), piece)]
    return time.perf_counter() - started, np.concatenate(parts)


def load_in_fresh_process(model: str, device: str) -> float:
    """Seconds a fresh Python takes to import and load the model in process (what the child does besides spawning)."""
    code = ("import sys, time; started = time.perf_counter()\n"
            "from app.core.kb.embedder import Embedder\n"
            "from app.core.kb.model_placement import Placement\n"
            f"Embedder({model!r}, device={device!r}, placement=Placement.SAME_PROCESS).load()\n"
            "print(time.perf_counter() - started)\n")
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900, check=True)
    log(f"in-process load in a fresh process: {completed.stdout.strip()} s of {time.perf_counter() - started:.1f} s")
    return float(completed.stdout.strip())


def child_start(model: str, device: str) -> float:
    """Seconds from ``load()`` to a child serving the model (spawn, imports, load, facts back)."""
    from app.core.kb.embedder import Embedder
    from app.core.kb.model_placement import Placement

    embedder = Embedder(model, device=device, placement=Placement.CHILD_PROCESS)
    started = time.perf_counter()
    embedder.load()
    seconds = time.perf_counter() - started
    embedder.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="all-MiniLM-L6-v2", help="embedding model name or folder")
    parser.add_argument("--device", default="cpu", help="PyTorch device for both (default cpu)")
    parser.add_argument("--chunks", type=int, default=256, help="chunks embedded per round (default 256)")
    parser.add_argument("--rounds", type=int, default=4, help="measured rounds after a warm-up round (default 4)")
    parser.add_argument("--starts", type=int, default=3, help="child start-ups measured (default 3)")
    arguments = parser.parse_args(argv)

    import numpy as np

    from app.core.kb.embedder import Embedder
    from app.core.kb.model_placement import Placement

    report: dict[str, Any] = {
        "benchmark": "embedder_process",
        "command": " ".join([Path(sys.executable).name, "-m", "tests.benchmarks.bench_embedder_process",
                             *(sys.argv[1:] if argv is None else argv)]),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "load_average_before": os.getloadavg()},
        "model": arguments.model, "device": arguments.device, "chunks": arguments.chunks,
    }
    log("start-up: the child, then a fresh process loading in process")
    starts = [child_start(arguments.model, arguments.device) for _ in range(arguments.starts)]
    fresh = load_in_fresh_process(arguments.model, arguments.device)
    report["start_up"] = {"child_s": figure(starts, 3), "in_fresh_process_s": round(fresh, 3),
                          "child_over_fresh_process": round(median(starts) / fresh, 3)}

    chunks = make_chunks(arguments.chunks)
    local = Embedder(arguments.model, device=arguments.device, placement=Placement.SAME_PROCESS)
    child = Embedder(arguments.model, device=arguments.device, placement=Placement.CHILD_PROCESS)
    local.load()
    child.load()
    seconds: dict[str, dict[str, list[float]]] = {name: {"in_process": [], "child": []} for name in PIECES}
    largest_difference = 0.0
    try:
        for round_index in range(arguments.rounds + 1):
            for name, piece in PIECES.items():
                order = [("in_process", local), ("child", child)]
                if round_index % 2:
                    order.reverse()
                vectors = {}
                for side, embedder in order:
                    spent, vectors[side] = embed_all(embedder, chunks, piece)
                    if round_index:
                        seconds[name][side].append(spent)
                largest_difference = max(largest_difference,
                                         float(np.abs(vectors["in_process"] - vectors["child"]).max()))
                log(f"round {round_index} {name}: " + ", ".join(
                    f"{side} {seconds[name][side][-1]:.2f} s" for side in ("in_process", "child") if round_index))
    finally:
        child.close()
    for name, sides in seconds.items():
        ratios = [inside / outside for inside, outside in zip(sides["in_process"], sides["child"], strict=True)]
        report[name] = {
            "in_process_chunks_per_s": figure([arguments.chunks / value for value in sides["in_process"]], 2),
            "child_chunks_per_s": figure([arguments.chunks / value for value in sides["child"]], 2),
            "child_over_in_process": figure(ratios, 4),
        }
    report["max_abs_vector_difference"] = largest_difference
    report["machine"]["load_average_after"] = os.getloadavg()
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
