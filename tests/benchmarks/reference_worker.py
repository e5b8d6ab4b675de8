"""The reference loops in a process of their own, driven over JSON lines.

llama.cpp's CPU backend (built with OpenMP here) keeps a thread team per thread that calls
``llama_decode``. With the reference loop on the benchmark's main thread and the engine on its
own thread, one process holds two teams: more OpenMP threads than cores, so libgomp throttles its
spin-waiting and every decode step of *both* contenders slows (measured: the engine's 4-chat step
went from 22 ms to 31 ms once the reference had run in the same process). Each contender therefore
gets a process to itself, as the llama.cpp peers do.

Protocol: the first line sent is ``{"model": path, "settings": {...ContextSettings}}``; the worker
answers ``{"ready": true}``. Each later line ``{"prompts": [[...]], "new_tokens": n}`` is answered with
the LoopResult's fields plus ``inside_decode_ms`` / ``outside_decode_ms`` per ``llama_decode``.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from tests.benchmarks.decode_clock import DecodeTally, decode_clock
from tests.benchmarks.reference_loops import ContextSettings, LoopResult, ReferenceModel

REPO_ROOT = Path(__file__).resolve().parents[2]


class ReferenceProcess:
    """A child process holding one model and one ReferenceContext; ``run`` works like ReferenceContext.run."""

    def __init__(self, model_path: Path, settings: ContextSettings) -> None:
        self.settings = settings
        self.last_decode = DecodeTally()
        self._log = tempfile.TemporaryFile(mode="w+", prefix="reference-worker-")  # noqa: SIM115 (closed in close)
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tests.benchmarks.reference_worker"], cwd=REPO_ROOT,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True,
        )
        self._exchange({"model": str(model_path), "settings": settings.to_dict()})

    def run(self, prompts: Sequence[Sequence[int]], new_tokens: int) -> LoopResult:
        answer = self._exchange({"prompts": [list(prompt) for prompt in prompts], "new_tokens": new_tokens})
        self.last_decode = DecodeTally(
            calls=answer.pop("decode_calls"), decode_s=answer.pop("decode_s"), wall_s=answer.pop("wall_s")
        )
        answer["first_tokens"] = tuple(answer["first_tokens"])
        return LoopResult(**answer)

    def _exchange(self, message: dict[str, Any]) -> dict[str, Any]:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(json.dumps(message) + "\n")
            stdin.flush()
            line = stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            self._log.seek(0)
            raise RuntimeError(f"the reference worker died: {self._log.read()[-1500:]}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the reference worker failed: {answer['error']}")
        return answer

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._log.close()


def _serve(lines: IO[str], out: IO[str]) -> None:
    first = json.loads(lines.readline())
    settings = ContextSettings(**first["settings"])
    model = ReferenceModel(Path(first["model"]), settings.gpu_layers)
    context = model.new_context(settings)
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    try:
        for line in lines:
            request = json.loads(line)
            try:
                with decode_clock() as tally:
                    result = context.run(request["prompts"], request["new_tokens"])
                answer = {**dataclasses.asdict(result), "decode_calls": tally.calls,
                          "decode_s": tally.decode_s, "wall_s": tally.wall_s}
            except Exception as error:  # reported to the parent, which raises it
                answer = {"error": f"{type(error).__name__}: {error}"}
            out.write(json.dumps(answer) + "\n")
            out.flush()
    finally:
        context.close()
        model.close()


if __name__ == "__main__":
    _serve(sys.stdin, sys.stdout)
