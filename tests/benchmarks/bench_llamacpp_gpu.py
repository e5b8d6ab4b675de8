"""The llama.cpp engine on an NVIDIA GPU against llama.cpp's own tools, built from the same source.

    python -m tests.benchmarks.bench_llamacpp_gpu --tools BUILD/bin --out DIR MODEL.gguf [MODEL.gguf ...]

For every model (fully offloaded): ``llama-bench`` tg128/pp128 (f16 and q8_0 KV), ``llama-batched-bench``
at 1/4/16 sequences, the engine benchmark (engine vs the minimal llama-cpp-python loop at 1 chat and at
--seqs chats, first-token times), ``unidesk bench`` (the app's own command), and single-chat decode as a
fraction of the HBM roofline (bandwidth from a device-to-device copy measured here). Every contender
runs once per round, in turn; medians. One JSON document goes to DIR and a short table to stdout.
Needs the environment of tests/benchmarks/llamacpp_gpu_session.sh (LLAMA_CPP_LIB_PATH, PYTHONPATH).
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.llamacpp_peers import parse_batched_bench_table, repacking_off

PROMPT, NEW = 128, 128
THREADS = 4
"""CPU threads of every contender: even with every layer on the GPU, llama-batched-bench's S_TG at 16 chats
moved ~3% between -t 4 and its default (all cores) on an H200 machine, so the tools get the engine's count."""


def log(message: str) -> None:
    print(f"[gpu-bench] {message}", file=sys.stderr, flush=True)


def run(command: list[str], timeout: float = 300, allowed: tuple[int, ...] = (0,)) -> str:
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    log(f"{Path(command[0]).name} {' '.join(command[1:])[:160]} -> rc {completed.returncode} "
        f"in {time.perf_counter() - started:.1f}s")
    if completed.returncode not in allowed:
        output = completed.stdout + completed.stderr
        raise RuntimeError(f"{command[:4]} failed ({completed.returncode}): {output[-1500:]}")
    return completed.stdout


def copy_bandwidth() -> dict[str, Any]:
    """Device-to-device copy of 4 GiB with torch, bytes read + written over the median time."""
    import torch

    size = 4 << 30
    source = torch.empty(size, dtype=torch.uint8, device="cuda").random_(0, 255)
    target = torch.empty_like(source)
    times = []
    for _ in range(15):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        target.copy_(source)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1000)
    del source, target
    torch.cuda.empty_cache()
    median_s = statistics.median(times[3:])
    return {"bytes_per_s": 2 * size / median_s, "copy_bytes": size, "median_s": median_s,
            "device": torch.cuda.get_device_name(0)}


def llama_bench(tools: Path, model: Path, kv: str, repeats: int) -> dict[str, Any]:
    """tg128 and pp128 at depth 0 and at a depth of PROMPT tokens (``-d``). The engine, the minimal loop and
    batched-bench decode after a PROMPT-token prompt, which is tg128 at that depth (``tg128_tok_s``); at
    depth 0 (``tg128_d0_tok_s``, llama-bench's default) nothing is attended to yet."""
    command = [str(tools / "llama-bench"), "-m", str(model), "-p", str(PROMPT), "-n", str(NEW), "-ngl", "999",
               "-d", f"0,{PROMPT}", "-t", str(THREADS),
               "-fa", "1", "-ctk", kv, "-ctv", kv, "-r", str(repeats), "-o", "json",
               "--repack", "0" if repacking_off() else "1"]
    rows = json.loads(run(command))
    result: dict[str, Any] = {"command": " ".join(command)}
    for row in rows:
        key = "tg" if row.get("n_gen", 0) > 0 else "pp"
        depth = "" if row.get("n_depth", 0) else "_d0"
        result[f"{key}{row.get('n_gen') or row.get('n_prompt')}{depth}_tok_s"] = round(row["avg_ts"], 2)
        result[f"{key}{depth}_samples_tok_s"] = [round(value, 2) for value in row.get("samples_ts", [])]
    return result


def batched_bench(tools: Path, model: Path, kv: str, sequences: list[int]) -> dict[str, Any]:
    n_ctx = max(sequences) * (PROMPT + NEW + 64)
    command = [str(tools / "llama-batched-bench"), "-m", str(model), "-c", str(n_ctx), "-b", "512", "-ub", "512",
               "-npp", str(PROMPT), "-ntg", str(NEW), "-npl", ",".join(map(str, sequences)), "-ngl", "999",
               "-t", str(THREADS),
               "-fa", "on", "-ctk", kv, "-ctv", kv, "-no-kvu", *(["--no-repack"] if repacking_off() else [])]
    output = run(command, timeout=400)
    rows = parse_batched_bench_table(output)
    return {"command": " ".join(command),
            "s_tg_tok_s": {str(row.sequences): round(row.decode_tokens_per_s, 2) for row in rows},
            "s_pp_tok_s": {str(row.sequences): round(row.prefill_tokens_per_s, 2) for row in rows},
            "t_pp_s": {str(row.sequences): round(row.prefill_s, 4) for row in rows}}


def engine_bench(model: Path, kv: str, seqs: str, repeats: int, only: str, graph_sampling: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "tests.benchmarks.bench_llamacpp_engine", "--model", str(model),
               "--only", only, "--seqs", seqs, "--kv", kv, "--repeats", str(repeats),
               "--prompt-tokens", str(PROMPT), "--new-tokens", str(NEW), "--threads", str(THREADS),
               "--graph-sampling", graph_sampling]
    report = json.loads(run(command, timeout=500, allowed=(0, 1)))  # 1: some measurement failed
    report["command"] = " ".join(command[1:])
    return report


def unidesk_bench(model: Path, seqs: int) -> dict[str, Any]:
    command = [sys.executable, "-m", "app", "--home", "/tmp/ud-home", "bench", str(model), "--seqs", str(seqs),
               "--prompt-tokens", str(PROMPT), "--max-tokens", str(NEW), "--json"]
    result: dict[str, Any] = json.loads(run(command))
    result["command"] = " ".join(command[1:])
    return result


def roofline(model: Path, bandwidth: float, kv: str) -> dict[str, Any]:
    from app.core.planner import decode_tokens_per_second_bound, read_model_metadata

    metadata = read_model_metadata(model)
    bound = decode_tokens_per_second_bound(metadata, bandwidth, kv, PROMPT + NEW // 2)
    return {"roofline_tok_s": round(bound or 0.0, 1), "weight_bytes": metadata.active_weight_bytes}


def _guard(name: str, results: dict[str, Any], function: Any, *args: Any) -> None:
    try:
        results[name] = function(*args)
    except Exception as error:  # one failing contender must not hide the others
        results[name] = {"error": f"{type(error).__name__}: {error}"[-2000:]}
        log(f"{name} failed: {results[name]['error'][-400:]}")


def measure_model(model: Path, tools: Path, bandwidth: float, arguments: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"model": str(model), "size_bytes": model.stat().st_size}
    _guard("roofline", results, roofline, model, bandwidth, "f16")
    _guard("llama_bench", results, llama_bench, tools, model, "f16", arguments.repeats)
    _guard("batched_bench", results, batched_bench, tools, model, "f16", [1, 4, 16])
    _guard("engine", results, engine_bench, model, "f16", arguments.seqs, arguments.repeats, arguments.only,
           arguments.graph_sampling)
    if arguments.unidesk:
        _guard("unidesk_bench", results, unidesk_bench, model, 16)
    if arguments.kv_q8:
        _guard("llama_bench_kv_q8_0", results, llama_bench, tools, model, "q8_0", arguments.repeats)
        _guard("batched_bench_kv_q8_0", results, batched_bench, tools, model, "q8_0", [1, 16])
        _guard("engine_kv_q8_0", results, engine_bench, model, "q8_0", "16", arguments.repeats, "overhead,parallel",
               arguments.graph_sampling)
    return results


def _get(tree: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(tree, dict) or key not in tree:
            return None
        tree = tree[key]
    return tree


def summary_lines(model_results: dict[str, Any], bandwidth: float) -> list[str]:
    """Comparison-ready figures of one model: engine / peer ratios."""
    lines = [f"== {Path(model_results['model']).name}"]
    engine = _get(model_results, "engine", "results") or {}
    single = _get(engine, "overhead", "engine_decode_tok_s", "median")
    loop = _get(engine, "overhead", "reference_decode_tok_s", "median")
    tg = _get(model_results, "llama_bench", "tg128_tok_s")
    tg_d0 = _get(model_results, "llama_bench", "tg128_d0_tok_s")
    roof = _get(model_results, "roofline", "roofline_tok_s")
    if single and tg:
        lines.append(f"1 chat: engine {single:.1f}, minimal loop {loop or 0:.1f}, llama-bench tg128 @ d{PROMPT} "
                     f"{tg:.1f} tok/s -> engine/llama-bench {single / tg:.3f} (tg128 @ d0: {tg_d0 or 0:.1f})")
    if single and roof:
        lines.append(f"roofline {roof:.0f} tok/s at {bandwidth / 1e12:.2f} TB/s: engine {single / roof:.2f}, "
                     f"llama-bench {(tg or 0) / roof:.2f}")
    bench = _get(model_results, "batched_bench", "s_tg_tok_s") or {}
    if single and bench.get("1"):
        lines.append(f"1 chat: engine {single:.1f}, batched-bench S_TG(B=1) {bench['1']:.1f} "
                     f"-> {single / bench['1']:.3f}")
    for n in ("4", "16"):
        aggregate = _get(engine, f"parallel_{n}", "engine_aggregate_decode_tok_s", "median")
        peer = bench.get(n)
        if aggregate and peer:
            lines.append(f"{n} chats: engine {aggregate:.1f}, batched-bench S_TG {peer:.1f} -> {aggregate / peer:.3f}")
    if single and (sixteen := _get(engine, "parallel_16", "engine_aggregate_decode_tok_s", "median")):
        lines.append(f"16 chats / 1 chat (engine): {sixteen / single:.2f}x")
    ttft = _get(engine, "warmup", "steady_ttft_s", "median")
    first = _get(engine, "warmup", "first_ttft_s", "median")
    if ttft:
        lines.append(f"TTFT ({PROMPT} tokens): first after load {first * 1000:.1f} ms, steady {ttft * 1000:.1f} ms")
    cli = model_results.get("unidesk_bench") or {}
    if "decode_tokens_per_s" in cli:
        lines.append(f"unidesk bench: {json.dumps({k: v for k, v in cli.items() if k != 'command'})[:400]}")
    for name in ("llama_bench", "batched_bench", "engine", "unidesk_bench", "engine_kv_q8_0"):
        if isinstance(model_results.get(name), dict) and "error" in model_results[name]:
            lines.append(f"{name} ERROR {model_results[name]['error'][-300:]}")
    kv_single = _get(model_results, "engine_kv_q8_0", "results", "overhead", "engine_decode_tok_s", "median")
    kv_tg = _get(model_results, "llama_bench_kv_q8_0", "tg128_tok_s")
    kv_16 = _get(model_results, "engine_kv_q8_0", "results", "parallel_16", "engine_aggregate_decode_tok_s", "median")
    kv_peer = _get(model_results, "batched_bench_kv_q8_0", "s_tg_tok_s", "16")
    if kv_single and kv_tg:
        lines.append(f"q8_0 KV: 1 chat engine {kv_single:.1f} vs llama-bench {kv_tg:.1f} ({kv_single / kv_tg:.3f}); "
                     f"16 chats {kv_16 or 0:.1f} vs batched-bench {kv_peer or 0:.1f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--tools", type=Path, required=True, help="folder with llama-bench and llama-batched-bench")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seqs", default="4,16")
    parser.add_argument("--only", default="overhead,parallel,warmup")
    parser.add_argument("--kv-q8", action="store_true", help="also measure with a q8_0 KV cache")
    parser.add_argument("--unidesk", action="store_true", help="also run `unidesk bench`")
    parser.add_argument("--tag", default="gpu")
    parser.add_argument("--graph-sampling", choices=("auto", "on", "off"), default="auto",
                        help="the engine samples inside llama.cpp's graph: the app's rule, always, never")
    arguments = parser.parse_args(argv)
    bandwidth = copy_bandwidth()
    log(f"copy bandwidth {bandwidth['bytes_per_s'] / 1e12:.2f} TB/s")
    report: dict[str, Any] = {
        "benchmark": "llamacpp_gpu", "command": " ".join(sys.argv),
        "started_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "gpu": bandwidth["device"], "nvidia_smi": _nvidia_smi()},
        "bandwidth": bandwidth, "models": [],
    }
    arguments.out.mkdir(parents=True, exist_ok=True)
    out_file = arguments.out / f"llamacpp_gpu_{arguments.tag}.json"
    lines: list[str] = []
    for model in arguments.models:
        log(f"=== {model}")
        results = measure_model(model, arguments.tools, bandwidth["bytes_per_s"], arguments)
        report["models"].append(results)
        out_file.write_text(json.dumps(report, indent=1))
        lines += summary_lines(results, bandwidth["bytes_per_s"])
    report["summary"] = lines
    out_file.write_text(json.dumps(report, indent=1))
    print("\n".join(lines))
    return 0


def _nvidia_smi() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                               "--format=csv,noheader"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unavailable"


if __name__ == "__main__":
    sys.exit(main())
