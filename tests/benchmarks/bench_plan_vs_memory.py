"""Plan against measurement: load models of several shapes on llama.cpp and compare the planner's total with the
memory the process really took (RSS growth over the load and one answer to a prompt longer than a ubatch) and
with llama.cpp's own KV, compute and output buffer figures (from its log). Goal: the plan within 10% of the RSS
growth for every shape. RSS counts only written pages: weights are mapped from the file (``weights_resident_bytes``
is the mapping's Rss in /proc/self/smaps). The compute buffer llama.cpp reserves (``reserved_compute_bytes``,
compared with llama.cpp's figure) holds logits for one row per chat, as the engine asks (``n_outputs_max``).
``--vllm`` adds vLLM's CPU build (see the README). The shape marked ``untuned`` was added after the
formulae were fitted, to check them.

Each shape is loaded in a fresh child process (a clean baseline; llama-cpp-python imported before the
baseline, so the library itself is not counted). The plan's embedder is left out (no embedding model is loaded).

    .venv/bin/python -m tests.benchmarks.bench_plan_vs_memory [--out FILE.json] [--shapes a,b] [--vllm]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.benchmarks.llamacpp_bench_models import write_bench_gguf
from tests.fixtures.gguf_models import ModelShape

MIB = 1024**2
GOAL = 0.10
MODEL_DIR = Path(tempfile.gettempdir()) / "unidesk-plan-vs-memory"
# name -> (architecture, weight type, context per chat, parallel chats)
# A vocabulary of a real size (32000, as Llama-2 and Mistral; the test vocabulary builder stops near 36000):
# the tokenizer and the output head are part of what the runtime holds.
GQA_1024 = ModelShape(n_layers=16, n_embd=1024, n_heads=16, n_kv_heads=4, n_ff=2816, n_ctx_train=32768, vocab=32000)
MHA_1024 = ModelShape(n_layers=16, n_embd=1024, n_heads=16, n_kv_heads=16, n_ff=2816, n_ctx_train=8192, vocab=32000)
LLAMA32_1B = ModelShape(n_layers=16, n_embd=2048, n_heads=32, n_kv_heads=8, n_ff=8192, n_ctx_train=131072,
                        vocab=32000, rope_freq_base=500000.0)
# Not used to fit the formulae: wider, fewer KV heads, a 36000-token vocabulary, 3 chats in separate streams.
WIDE_1536 = ModelShape(n_layers=12, n_embd=1536, n_heads=12, n_kv_heads=2, n_ff=6144, n_ctx_train=32768,
                       vocab=36000, rope_freq_base=1000000.0)
CASES: dict[str, tuple[ModelShape, str, int, int]] = {
    "gqa-1024x16-q8_0-ctx4k": (GQA_1024, "q8_0", 4096, 1),
    "gqa-1024x16-f16-ctx8k": (GQA_1024, "f16", 8192, 1),
    "gqa-1024x16-q8_0-ctx32k": (GQA_1024, "q8_0", 32768, 1),
    "mha-1024x16-q8_0-ctx4k-4chats": (MHA_1024, "q8_0", 4096, 4),
    "llama3.2-1b-shape-q8_0-ctx8k-2chats": (LLAMA32_1B, "q8_0", 8192, 2),
    "untuned-wide-1536x12-f16-ctx12k-3chats": (WIDE_1536, "f16", 12288, 3),
}
_BUFFER_LINE = re.compile(r"(KV|compute|output) buffer size\s*=\s*([\d.]+)\s*MiB")


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def _pss(pids: list[int]) -> int:
    """Proportional set size of ``pids`` together: a page shared by several (torch's libraries, mapped by the app
    and by vLLM's engine core) counts once in all, where a sum of RSS counts it in each."""
    import psutil

    total = 0
    for pid in pids:
        try:
            total += int(psutil.Process(pid).memory_full_info().pss)
        except (psutil.Error, OSError, AttributeError):
            continue
    return total


def mapped_rss(path: Path) -> int:
    """Resident bytes of this process's mappings of ``path`` (Linux /proc/self/smaps; 0 elsewhere)."""
    try:
        text = Path("/proc/self/smaps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    total, inside = 0, False
    for line in text.splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
            inside = len(fields) >= 6 and fields[5] == str(path)
        elif inside and fields[:1] == ["Rss:"]:
            total += int(fields[1]) * 1024
    return total


def measure_child(model: Path, context: int, chats: int) -> dict[str, Any]:
    """In the child: load ``model`` through the EngineManager, warm it up, and report plan and measurement."""
    import llama_cpp  # noqa: F401  the library's own memory belongs to the baseline

    from app.core.config import Settings
    from app.core.engines.manager import EngineManager
    from app.core.engines.requests import GREEDY, ChatRequest
    from app.core.hardware import probe_hardware
    from app.core.planner.compute import llamacpp_compute_bytes, llamacpp_output_buffer_bytes
    from app.core.planner.kv import LLAMACPP_N_UBATCH

    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    llama_logger = logging.getLogger("llama_cpp")
    llama_logger.setLevel(logging.DEBUG)
    llama_logger.addHandler(Collect())
    hardware = probe_hardware(measure_bandwidth=False)
    settings = Settings.defaults().with_changes({"engine.context_length": context, "engine.parallel_chats": chats,
                                                 "engine.warmup": True})
    manager = EngineManager(lambda: hardware, lambda: settings)
    before = _rss()
    manager.load(model)
    # In use: a prompt longer than one ubatch (512 tokens) runs the worst-case graph the compute buffer is
    # sized for, so its pages are touched as in a real chat (the KV buffer is cleared, so touched, at load).
    answer = manager.submit(ChatRequest.single_prompt("hello world " * 400, replace(GREEDY, max_tokens=4)))
    if not answer.wait(timeout=600) or answer.error is not None:
        raise RuntimeError(f"the measuring request failed: {answer.error}")
    after = _rss()
    weights_resident = mapped_rss(model)
    plan = manager.status().plan
    assert plan is not None
    buffers = {"KV": 0.0, "compute": 0.0, "output": 0.0}
    for line in lines:
        for kind, mib in _BUFFER_LINE.findall(line):
            buffers[kind] += float(mib)
    manager.unload()
    planned = plan.total_bytes - plan.embedder_bytes
    kv_measured, compute_measured = int(buffers["KV"] * MIB), int(buffers["compute"] * MIB)
    output_measured = int(buffers["output"] * MIB)
    llamacpp = plan.recommended.llamacpp
    assert llamacpp is not None
    streams = 1 if llamacpp.kv_unified else chats
    reserved = llamacpp_compute_bytes(plan.model, llamacpp.n_ctx // streams, LLAMACPP_N_UBATCH, chats)
    return {
        "model_file_bytes": model.stat().st_size,
        "context_per_chat": plan.context_length,
        "parallel_chats": chats,
        "plan": {"weights_bytes": plan.weights_bytes, "kv_bytes": plan.kv_bytes_total,
                 "compute_bytes": plan.compute_bytes, "reserved_compute_bytes": reserved,
                 "output_buffer_bytes": llamacpp_output_buffer_bytes(plan.model, chats),
                 "runtime_bytes": plan.overhead_bytes, "total_without_embedder_bytes": planned},
        "measured": {"rss_growth_bytes": after - before,
                     "llamacpp_kv_buffer_bytes": kv_measured,
                     "llamacpp_compute_buffer_bytes": compute_measured,
                     "llamacpp_output_buffer_bytes": output_measured,
                     "weights_resident_bytes": weights_resident,
                     "rss_beyond_weights_kv_bytes": after - before - weights_resident - kv_measured},
        "plan_over_rss_growth": planned / max(1, after - before),
        "plan_kv_over_llamacpp_kv": plan.kv_bytes_total / max(1, kv_measured),
        "plan_reserved_compute_over_llamacpp_compute": reserved / max(1, compute_measured),
        "plan_output_over_llamacpp_output": llamacpp_output_buffer_bytes(plan.model, chats) / max(1, output_measured),
    }


def measure_vllm_child(context: int, chats: int) -> dict[str, Any]:
    """In the child: the tiny HF Llama on vLLM's CPU build through the EngineManager; the plan against the memory
    of this process and the engine-core process (PSS: their shared libraries once; the RSS sum is reported too),
    and against the KV cache vLLM allocated (blocks x block size)."""
    import os

    from app.core.config import Settings
    from app.core.engines.backends.vllm_memory import descendants, processes_memory
    from app.core.engines.base import BackendName, Engine
    from app.core.engines.manager import EngineManager
    from app.core.planner import kv_bytes_per_token
    from tests.fixtures.hf_models import HfLlamaShape
    from tests.fixtures.model_cache import cached_hf_llama
    from tests.integration.test_vllm_lifecycle import vllm_cpu_machine
    from tests.integration.vllm_support import EagerVllmEngine, engine_processes

    def factory(backend: BackendName) -> Engine:
        return EagerVllmEngine()

    VLLM_SHAPE = HfLlamaShape(hidden_size=1024, n_heads=16, n_kv_heads=4, n_layers=8, intermediate_size=2816,
                              max_position_embeddings=8192)  # ~150 M weights, bf16 (the MiniLM vocabulary)

    model = cached_hf_llama(MODEL_DIR, VLLM_SHAPE)
    settings = Settings.defaults().with_changes({"engine.backend": "vllm", "engine.warmup": True})
    manager = EngineManager(vllm_cpu_machine, lambda: settings, engine_factory=factory)
    before, pss_before = _rss(), _pss([os.getpid()])
    manager.load(model, context_length=context, parallel_chats=chats)
    engine = engine_processes()
    after = _rss() + processes_memory(engine)
    pss_after = _pss([os.getpid(), *(pid for identity in engine for pid in (identity.pid, *descendants(identity.pid)))])
    plan, metrics = manager.status().plan, manager.metrics()
    assert plan is not None and metrics is not None
    allocated_kv = metrics.kv_cells_capacity * kv_bytes_per_token(plan.model, plan.kv_cache_dtype, plan.context_length)
    manager.unload()
    planned = plan.total_bytes - plan.embedder_bytes
    return {
        "context_per_chat": plan.context_length,
        "parallel_chats": chats,
        "plan": {"weights_bytes": plan.weights_bytes, "kv_bytes": plan.kv_bytes_total,
                 "compute_bytes": plan.compute_bytes, "runtime_bytes": plan.overhead_bytes,
                 "total_without_embedder_bytes": planned},
        "measured": {"pss_growth_with_engine_process_bytes": pss_after - pss_before,
                     "rss_growth_with_engine_process_bytes": after - before, "vllm_kv_cache_bytes": allocated_kv},
        "plan_over_pss_growth": planned / max(1, pss_after - pss_before),
        "plan_over_rss_growth": planned / max(1, after - before),
        "plan_kv_over_vllm_kv": plan.kv_bytes_total / max(1, allocated_kv),
    }


def run_case(name: str) -> dict[str, Any]:
    shape, dtype, context, chats = CASES[name]
    stem = f"{shape.n_layers}x{shape.n_embd}-kv{shape.n_kv_heads}-v{shape.vocab}-t{shape.n_ctx_train}-{dtype}"
    model = write_bench_gguf(MODEL_DIR / f"{stem}.gguf", shape, dtype)  # type: ignore[arg-type]
    result = run_child(["--child", str(model), str(context), str(chats)], name)
    result["within_goal"] = abs(result["plan_over_rss_growth"] - 1) <= GOAL
    return result


def run_child(arguments: list[str], name: str) -> dict[str, Any]:
    """Run this module in a fresh process with ``arguments``; its one-line JSON answer."""
    completed = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_plan_vs_memory", *arguments],
                               capture_output=True, text=True, timeout=1200, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"{name}: child failed: {completed.stderr[-2000:]}")
    answer: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    answer["within_goal"] = abs(answer.get("plan_over_pss_growth", answer["plan_over_rss_growth"]) - 1) <= GOAL
    return answer


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="also write the JSON report here")
    parser.add_argument("--shapes", help="comma-separated case names (default: all)")
    parser.add_argument("--vllm", action="store_true", help="also measure vLLM's CPU build (a few minutes more)")
    parser.add_argument("--child", nargs=3, metavar=("MODEL", "CTX", "CHATS"), help=argparse.SUPPRESS)
    parser.add_argument("--vllm-child", nargs=2, metavar=("CTX", "CHATS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.vllm_child:
        print(json.dumps(measure_vllm_child(int(args.vllm_child[0]), int(args.vllm_child[1]))))
        return 0
    if args.child:
        model, context, chats = args.child
        print(json.dumps(measure_child(Path(model), int(context), int(chats))))
        return 0
    names = args.shapes.split(",") if args.shapes else list(CASES)
    cases = {name: run_case(name) for name in names}
    report: dict[str, Any] = {"goal": f"plan total within {GOAL:.0%} of RSS growth", "cases": cases}
    report["all_within_goal"] = all(case["within_goal"] for case in report["cases"].values())
    if args.vllm:
        report["vllm_cpu"] = run_child(["--vllm-child", "4096", "2"], "vllm-cpu")
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
