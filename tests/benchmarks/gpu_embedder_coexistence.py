"""Can one app process hold a GPU llama.cpp model and use the knowledge base's embedder? (the NVIDIA crash)

    PYTHONPATH=<site>:<repo> python3 -m tests.benchmarks.gpu_embedder_coexistence --model PATH.gguf

In one process, as the app does: llama.cpp's libraries are loaded first when they are a GPU build (as
``app/main.py`` does), the GGUF is loaded through the app's ``EngineManager`` with every layer on the GPU
(``engine.gpu_layers = -1``) and decodes; then texts are embedded through the app's ``Embedder`` with the
model in a child process (PyTorch on CUDA there, never in this process); then the chat model decodes again.
It prints one JSON document (``ok``, timings, where each part ran) and exits 0 when everything worked.

The embedding model is a tiny random BERT sentence-transformers model written on the fly (no internet
needed; its vectors mean nothing) by a subprocess, which also writes its CPU vectors of the same texts:
the child's vectors are compared with them. ``--embedder FOLDER`` uses a real model instead.

As a control, the same steps run again in a subprocess with the embedder in *this* process
(``--placement same``); on a CUDA build of llama.cpp with a CUDA PyTorch that is expected to crash
(``control.crashed``), which is why the app separates them. ``--no-control`` skips it.

On a CPU machine it runs the same way (the child uses PyTorch on the CPU, the control does not crash):

    PYTHONPATH=. .venv/bin/python -m tests.benchmarks.gpu_embedder_coexistence --model tiny.gguf

Any GGUF works (e.g. ``python -m tests.benchmarks.llamacpp_bench_models tiny-256 q8_0 /tmp/tiny.gguf``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = ("the", "cat", "sleeps", "on", "sofa", "model", "answer", "question", "token", "vector", "search",
         "document", "page", "table", "memory", "graphics", "card", "speed", "light", "water", "river", "city")


def log(message: str) -> None:
    print(f"[coexistence] {message}", file=sys.stderr, flush=True)


def sample_texts(count: int) -> list[str]:
    """``count`` different sentences of 8-40 words from a small word list (deterministic)."""
    texts = []
    for index in range(count):
        length = 8 + (index * 7) % 33
        texts.append(" ".join(WORDS[(index * 3 + position * (index % 5 + 1)) % len(WORDS)]
                              for position in range(length)) + f" {index}.")
    return texts


# -- the embedding model, written by a subprocess (PyTorch stays out of the measured process) ---------------


def write_tiny_embedder(folder: Path, seed: int = 0) -> Path:
    """A random 2-layer BERT sentence-transformers model with a WordPiece tokenizer over a tiny vocabulary."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    try:
        from sentence_transformers.sentence_transformer import modules
    except ImportError:  # sentence-transformers before 5.2
        from sentence_transformers import models as modules

    letters = [chr(code) for code in range(ord("a"), ord("z") + 1)] + [str(digit) for digit in range(10)] + ["."]
    vocabulary = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *letters, *(f"##{letter}" for letter in letters),
                  *WORDS]
    transformer_folder = folder.with_name(folder.name + "-transformer")
    transformer_folder.mkdir(parents=True, exist_ok=True)
    vocabulary_file = transformer_folder / "vocab.txt"
    vocabulary_file.write_text("\n".join(vocabulary) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(vocabulary_file), do_lower_case=True)
    config = BertConfig(vocab_size=len(vocabulary), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=128, max_position_embeddings=256)
    torch.manual_seed(seed)
    BertModel(config).save_pretrained(transformer_folder)
    tokenizer.save_pretrained(transformer_folder)
    word = modules.Transformer(str(transformer_folder), max_seq_length=128)
    dimension = getattr(word, "get_embedding_dimension", None) or word.get_word_embedding_dimension
    pooling = modules.Pooling(dimension(), pooling_mode="mean")
    SentenceTransformer(modules=[word, pooling, modules.Normalize()], device="cpu").save(str(folder))
    return folder


def write_reference(model: Path, texts_count: int, out: Path) -> None:
    """The model's vectors of :func:`sample_texts` computed in process on the CPU, as ``out`` (.npy)."""
    import numpy as np

    from app.core.kb.embedder import Embedder
    from app.core.kb.model_placement import Placement

    embedder = Embedder(str(model), device="cpu", placement=Placement.SAME_PROCESS)
    np.save(out, embedder.embed_documents(sample_texts(texts_count)))


def prepare_embedder(scratch: Path, embedder: Path | None, texts_count: int) -> tuple[Path, Path]:
    """The embedding model's folder and its CPU reference vectors, made in a subprocess."""
    model = embedder or scratch / "tiny-embedder"
    reference = scratch / "reference.npy"
    command = [sys.executable, "-m", "tests.benchmarks.gpu_embedder_coexistence", "--write-reference",
               str(reference), "--texts", str(texts_count), "--embedder", str(model)]
    if embedder is None:
        command.append("--write-model")
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"writing the embedding model failed: {completed.stderr[-2000:]}")
    return model, reference


# -- the measured process ----------------------------------------------------------------------------


def decode(manager: Any, tokens: int) -> dict[str, Any]:
    """One greedy answer of exactly ``tokens`` tokens; its timings."""
    from app.core.engines.requests import ChatRequest, SamplingParams

    started = time.perf_counter()
    stream = manager.submit(ChatRequest.single_prompt(
        "Say something about rivers and cities.", SamplingParams(temperature=0, max_tokens=tokens, ignore_eos=True)))
    if not stream.wait(timeout=600):
        raise TimeoutError("the answer did not finish within 600 s")
    if stream.error is not None:
        raise stream.error
    metrics = stream.metrics
    return {"wall_s": round(time.perf_counter() - started, 4), "generated_tokens": metrics.generated_tokens,
            "time_to_first_token_s": metrics.time_to_first_token_s,
            "decode_tokens_per_s": metrics.decode_tokens_per_s}


def coexist(arguments: argparse.Namespace, model: Path, reference: Path, report: dict[str, Any]) -> None:
    """Load the chat model on the GPU, decode, embed, decode again; every step's figures go into ``report``."""
    from app.core.hardware.gpu_libraries import has_gpu_backend_library

    gpu_build = has_gpu_backend_library()
    if gpu_build:  # as app/main.py does, before anything imports numpy
        from app.core.engines.backends.llamacpp_native import preload_library

        preload_library()
    from app.core.config import Settings
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware
    from app.core.kb.embedder import Embedder
    from app.core.kb.model_placement import Placement, choose_placement

    report.update(llama_gpu_build=gpu_build, placement=arguments.placement,
                  app_would_choose=choose_placement().placement.value)
    settings = Settings({"engine.gpu_layers": -1, "engine.context_length": 2048, "engine.parallel_chats": 1})
    hardware = probe_hardware(measure_bandwidth=False)
    report["gpus"] = [gpu.name for gpu in hardware.gpus]
    manager = EngineManager(lambda: hardware, lambda: settings)
    steps: list[str] = []
    report["steps"] = steps
    try:
        started = time.perf_counter()
        loaded = manager.load(arguments.model)
        llamacpp = loaded.config.llamacpp
        report["chat_model"] = {"path": str(arguments.model), "load_s": round(time.perf_counter() - started, 3),
                                "n_gpu_layers": llamacpp.n_gpu_layers if llamacpp is not None else None}
        steps.append("chat model loaded")
        report["decode_before"] = decode(manager, arguments.tokens)
        steps.append("decoded")

        placement = Placement.CHILD_PROCESS if arguments.placement == "child" else Placement.SAME_PROCESS
        embedder = Embedder(str(model), device=arguments.device, placement=placement)
        started = time.perf_counter()
        embedder.load()
        report["embedder_start_s"] = round(time.perf_counter() - started, 3)
        report["embedder_device"] = embedder.device
        report["embedder_child_pid"] = embedder.child_pid
        steps.append("embedder loaded")
        texts = sample_texts(arguments.texts)
        started = time.perf_counter()
        vectors = [embedder.embed_documents(texts[start:start + 64]) for start in range(0, len(texts), 64)]
        embed_s = time.perf_counter() - started
        query = embedder.embed_query("where is the cat")
        steps.append("embedded")
        import numpy as np

        matrix = np.concatenate(vectors)
        expected = np.load(reference)
        report["embedding"] = {"texts": len(texts), "seconds": round(embed_s, 4),
                               "texts_per_s": round(len(texts) / embed_s, 1), "dimension": int(matrix.shape[1]),
                               "query_norm": round(float(np.linalg.norm(query)), 5),
                               "max_abs_diff_vs_cpu_reference": float(np.abs(matrix - expected).max())}

        report["decode_after"] = decode(manager, arguments.tokens)
        steps.append("decoded again")
        embedder.close()
    finally:
        manager.unload()
    report["torch_in_this_process"] = "torch" in sys.modules
    close_enough = report["embedding"]["max_abs_diff_vs_cpu_reference"] < 1e-3
    report["ok"] = close_enough and report["decode_after"]["generated_tokens"] == arguments.tokens and (
        arguments.placement == "same" or not report["torch_in_this_process"])


def control(arguments: argparse.Namespace, model: Path, reference: Path) -> dict[str, Any]:
    """The same steps with the embedder in the measured process, in a subprocess: does it crash?"""
    command = [sys.executable, "-m", "tests.benchmarks.gpu_embedder_coexistence", "--model", str(arguments.model),
               "--embedder", str(model), "--reference", str(reference), "--placement", "same", "--no-control",
               "--texts", str(arguments.texts), "--tokens", str(arguments.tokens)]
    if arguments.device:
        command += ["--device", arguments.device]
    started = time.perf_counter()
    completed = subprocess.run(command, capture_output=True, text=True, timeout=900, check=False)
    result: dict[str, Any] = {"exit_status": completed.returncode, "crashed": completed.returncode < 0,
                              "seconds": round(time.perf_counter() - started, 1)}
    try:
        inner = json.loads(completed.stdout)
        result.update(ok=inner.get("ok"), steps=inner.get("steps"), error=inner.get("error"))
    except json.JSONDecodeError:
        result["stderr_tail"] = completed.stderr[-1500:]
    return result


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, help="a GGUF chat model (loaded with every layer on the GPU)")
    parser.add_argument("--embedder", type=Path, help="a sentence-transformers folder (default: a tiny random one)")
    parser.add_argument("--texts", type=int, default=512, help="texts embedded (default 512)")
    parser.add_argument("--tokens", type=int, default=64, help="tokens decoded before and after (default 64)")
    parser.add_argument("--device", help="PyTorch device of the embedder (default: what the app picks)")
    parser.add_argument("--placement", choices=("child", "same"), default="child",
                        help="where the embedder runs (default: a child process, the app's choice on GPU builds)")
    parser.add_argument("--no-control", action="store_true", help="skip the same-process control run")
    parser.add_argument("--reference", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--write-model", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--write-reference", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    if arguments.write_reference is not None:  # the helper subprocess: model and reference vectors
        if arguments.write_model:
            write_tiny_embedder(arguments.embedder)
        write_reference(arguments.embedder, arguments.texts, arguments.write_reference)
        return 0
    if arguments.model is None or not arguments.model.is_file():
        print("gpu_embedder_coexistence: --model must name a GGUF file", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"benchmark": "gpu_embedder_coexistence",
                              "command": " ".join([Path(sys.executable).name, "-m",
                                                   "tests.benchmarks.gpu_embedder_coexistence",
                                                   *(sys.argv[1:] if argv is None else argv)]),
                              "machine": {"node": platform.node(), "cpus": os.cpu_count()}, "ok": False}
    with tempfile.TemporaryDirectory(prefix="unidesk-coexistence-") as temporary:
        try:
            if arguments.reference is not None and arguments.embedder is not None:
                model, reference = arguments.embedder, arguments.reference
            else:
                log("writing the embedding model and its CPU reference vectors (subprocess)")
                started = time.perf_counter()
                model, reference = prepare_embedder(Path(temporary), arguments.embedder, arguments.texts)
                report["embedder_written_s"] = round(time.perf_counter() - started, 1)
            where = "a child process" if arguments.placement == "child" else "this process"
            log(f"chat model on the GPU, embedder in {where}")
            coexist(arguments, model, reference, report)
            if not arguments.no_control:
                log("control: the embedder in the same process (a subprocess; may crash on CUDA)")
                report["control_same_process"] = control(arguments, model, reference)
        except Exception as error:  # the JSON says what failed; the exit status says it failed
            report["error"] = f"{type(error).__name__}: {error}"
    print(json.dumps(report, indent=1))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
