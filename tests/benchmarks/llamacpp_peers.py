"""Run the peers the engine is compared with: `llama-server -np N` (streaming HTTP) and `llama-batched-bench`.

Both talk only to 127.0.0.1; every request and subprocess is bounded by a timeout.
"""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.engines.requests import SamplingParams
from tests.benchmarks.reference_loops import ContextSettings

HOST = "127.0.0.1"


def repacking_off() -> bool:
    """Whether the engine turns llama.cpp's CPU weight repacking off here (AMX CPUs); peers then do too."""
    import llama_cpp

    from app.core.engines.backends.llamacpp_native import cpu_repacking_crashes

    return cpu_repacking_crashes(llama_cpp)


def _context_arguments(settings: ContextSettings) -> list[str]:
    """llama.cpp common-argument spelling of a ContextSettings (n_ctx is the total over sequences)."""
    return [
        "-c", str(settings.n_ctx),
        "-b", str(settings.n_batch),
        "-ub", str(settings.n_ubatch),
        "-t", str(settings.threads),
        "-tb", str(settings.threads),
        "-ctk", settings.kv_cache_dtype,
        "-ctv", settings.kv_cache_dtype,
        "-fa", settings.flash_attention,
        "-ngl", str(settings.gpu_layers if settings.gpu_layers >= 0 else 999),
        *(["--no-repack"] if repacking_off() else []),
        "-kvu" if settings.kv_unified else "-no-kvu",
    ]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class StreamTiming:
    """One streamed completion as the client saw it (perf_counter times)."""

    sent_at: float
    first_token_at: float
    finished_at: float
    tokens_predicted: int
    prompt_tokens: int
    server_decode_tokens_per_s: float | None

    @property
    def decode_start(self) -> float:
        return self.first_token_at


class LlamaServer:
    """A `llama-server` child process on a free local port; use as a context manager."""

    def __init__(self, server_binary: Path, model_path: Path, settings: ContextSettings, slots: int) -> None:
        self.port = free_port()
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)  # noqa: SIM115
        self.log_path = Path(self._log.name)
        command = [
            str(server_binary), "-m", str(model_path), "--host", HOST, "--port", str(self.port),
            "-np", str(slots), *_context_arguments(settings), "--no-webui", "--cache-ram", "0",
        ]
        self.command = command
        self._process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)

    def __enter__(self) -> LlamaServer:
        self.wait_until_ready()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def wait_until_ready(self, timeout_s: float = 180.0) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"llama-server exited with {self._process.returncode}; see {self.log_path}")
            try:
                connection = http.client.HTTPConnection(HOST, self.port, timeout=2)
                connection.request("GET", "/health")
                if connection.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise TimeoutError(f"llama-server was not ready within {timeout_s} s; see {self.log_path}")

    def stop(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=15)
        self._log.close()

    def stream_completion(
        self, prompt_tokens: Sequence[int], new_tokens: int, sampling: SamplingParams, timeout_s: float = 300.0
    ) -> StreamTiming:
        """Streamed completion of exactly ``new_tokens`` tokens for a prompt given as token ids."""
        body = json.dumps({
            "prompt": list(prompt_tokens),
            "n_predict": new_tokens,
            "stream": True,
            "ignore_eos": True,
            "cache_prompt": False,
            **server_sampling_fields(sampling),
        })
        connection = http.client.HTTPConnection(HOST, self.port, timeout=timeout_s)
        sent_at = time.perf_counter()
        connection.request("POST", "/completion", body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        if response.status != 200:
            raise RuntimeError(f"llama-server answered {response.status}: {response.read()[:300]!r}")
        first: float | None = None
        final: dict[str, Any] | None = None
        for raw_line in response:
            line = raw_line.strip()
            if not line.startswith(b"data:"):
                continue
            event = json.loads(line[5:])
            if first is None:
                first = time.perf_counter()
            if event.get("stop"):
                final = event
                break
        finished_at = time.perf_counter()
        connection.close()
        if final is None or first is None:
            raise RuntimeError("llama-server's stream ended without a final event")
        timings = final.get("timings", {})
        return StreamTiming(
            sent_at=sent_at,
            first_token_at=first,
            finished_at=finished_at,
            tokens_predicted=int(final.get("tokens_predicted", timings.get("predicted_n", 0))),
            prompt_tokens=int(timings.get("prompt_n", 0)),
            server_decode_tokens_per_s=timings.get("predicted_per_second"),
        )

    def concurrent_completions(
        self, prompts: Sequence[Sequence[int]], new_tokens: int, sampling: SamplingParams
    ) -> list[StreamTiming]:
        """Send all prompts at once, one client thread each, and wait for every stream to finish."""
        results: list[StreamTiming | BaseException | None] = [None] * len(prompts)

        def send(index: int) -> None:
            try:
                results[index] = self.stream_completion(prompts[index], new_tokens, sampling)
            except BaseException as error:  # re-raised below on the caller's thread
                results[index] = error

        threads = [threading.Thread(target=send, args=(index,), daemon=True) for index in range(len(prompts))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
        timings = []
        for result in results:
            if isinstance(result, BaseException):
                raise result
            if result is None:
                raise TimeoutError("a llama-server request did not finish within 600 s")
            timings.append(result)
        return timings


def server_sampling_fields(sampling: SamplingParams) -> dict[str, Any]:
    """The /completion fields for ``sampling``: greedy through the cheapest chain the server offers (top-k 1);
    otherwise the same temperature, top-k, top-p and min-p, run by the server's default sampler chain, as a
    client that sets them (an OpenAI-style chat UI) gets.
    """
    if sampling.greedy:
        return {"temperature": 0.0, "samplers": ["top_k"], "top_k": 1}
    return {"temperature": sampling.temperature, "top_k": sampling.top_k, "top_p": sampling.top_p,
            "min_p": sampling.min_p}


def server_aggregate_decode_tokens_per_s(timings: Sequence[StreamTiming]) -> float:
    """Same definition as the engine's (bench_support.aggregate_decode_tokens_per_s): decoded tokens
    (first excluded) from the moment every stream has its first token to the last end.
    """
    start = max(t.first_token_at for t in timings)
    end = max(t.finished_at for t in timings)
    decoded = sum(t.tokens_predicted - 1 for t in timings)
    return decoded / (end - start) if end > start else 0.0


@dataclass(frozen=True)
class BatchedBenchRow:
    """One row of llama-batched-bench's table; ``decode_tokens_per_s`` is its S_TG (all sequences)."""

    prompt_tokens: int
    new_tokens: int
    sequences: int
    prefill_s: float
    prefill_tokens_per_s: float
    decode_s: float
    decode_tokens_per_s: float


def parse_batched_bench_table(output: str) -> list[BatchedBenchRow]:
    """Rows of the ``| PP | TG | B | N_KV | T_PP s | S_PP t/s | T_TG s | S_TG t/s | T s | S t/s |`` table."""
    rows = []
    for line in output.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 10:
            continue
        try:
            numbers = [float(cell) for cell in cells]
        except ValueError:
            continue  # the header and the ---- separator
        rows.append(BatchedBenchRow(int(numbers[0]), int(numbers[1]), int(numbers[2]), *numbers[4:8]))
    return rows


def run_batched_bench(
    binary: Path, model_path: Path, settings: ContextSettings, prompt_tokens: int, new_tokens: int, sequences: int
) -> tuple[BatchedBenchRow, list[str]]:
    """Run `llama-batched-bench` once for one (PP, TG, B) and return its row and command line."""
    command = [
        str(binary), "-m", str(model_path), *_context_arguments(settings),
        "-npp", str(prompt_tokens), "-ntg", str(new_tokens), "-npl", str(sequences),
    ]
    output = ""
    for _attempt in range(2):  # its log thread may lose the last row at exit (seen once: rc 0, no row)
        completed = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        output = completed.stdout + "\n" + completed.stderr
        if completed.returncode != 0:
            raise RuntimeError(f"llama-batched-bench failed ({completed.returncode}): {output[-800:]}")
        rows = [row for row in parse_batched_bench_table(output) if row.sequences == sequences]
        if rows:
            return rows[0], command
    raise RuntimeError(f"no B={sequences} row in llama-batched-bench's output (n_ctx too small?): {output[-800:]}")
