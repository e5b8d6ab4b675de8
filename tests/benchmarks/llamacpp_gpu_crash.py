"""Which earlier action makes llama.cpp's CUDA model load crash? Each variant runs in its own process.

    python -m tests.benchmarks.llamacpp_gpu_crash MODEL.gguf [VARIANT ...]

A child does the variant's "before" step, then loads ``MODEL`` fully offloaded with the app's
parameters (``llama_model_load_from_file`` with a progress callback), creates a context and
decodes one token; it prints ``ok`` or dies. The parent prints one line per variant:
name, exit status, and the last lines a crash left (faulthandler's Python stack).
"""

from __future__ import annotations

import ctypes
import gc
import json
import mmap
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path


def _load_and_decode(
    model_path: Path, gpu_layers: int = -1, use_mmap: bool = True, extra_bufts: bool = True, prompt: int = 1
) -> str:
    import llama_cpp.llama_cpp as lib

    lib.llama_backend_init()
    params = lib.llama_model_default_params()
    params.n_gpu_layers = gpu_layers
    params.use_mmap = use_mmap
    params.use_extra_bufts = extra_bufts  # False: no CPU repacking (AMX, AVX2 q4_0 layouts)
    callback = lib.llama_progress_callback(lambda fraction, data: True)
    params.progress_callback = callback
    model = lib.llama_model_load_from_file(str(model_path).encode(), params)
    if not model:
        return "load failed (NULL)"
    context_params = lib.llama_context_default_params()
    context_params.n_ctx = 256
    context = lib.llama_init_from_model(model, context_params)
    tokens = [1, *range(3, 2 + prompt)]
    token_array = (ctypes.c_int32 * len(tokens))(*tokens)  # must outlive the decode
    batch = lib.llama_batch_get_one(token_array, len(tokens))
    status = lib.llama_decode(context, batch)
    lib.llama_free(context)
    lib.llama_model_free(model)
    return f"ok (decode status {status})"


def _numpy_memmap(path: Path, keep: list[object]) -> None:
    import numpy as np

    mapped = np.memmap(path, mode="r")
    int(mapped[:4096].sum())  # touch it, as a reader does
    keep.append(mapped)


def _variant_before(name: str, model_path: Path, scratch: Path) -> tuple[list[object], dict[str, object]]:
    """Run the variant's first step; returns objects to keep alive and load options."""
    keep: list[object] = []
    options: dict[str, object] = {}
    if name.startswith("np_memmap"):
        target = model_path
        if name == "np_memmap_copy":
            target = scratch / "copy.gguf"
            shutil.copyfile(model_path, target)
        elif name == "np_memmap_small":
            target = scratch / "small.bin"
            target.write_bytes(bytes(1 << 20))
        _numpy_memmap(target, keep)
        if name == "np_memmap_nommap":
            options["use_mmap"] = False
        if name == "np_memmap_cpu":
            options["gpu_layers"] = 0
        if name == "np_memmap_no_repack":
            options["extra_bufts"] = False
        if name != "np_memmap_kept":
            keep.clear()
            gc.collect()
    elif name == "mmap_module":
        with model_path.open("rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
            mapped[:4096]
            mapped.close()
    elif name == "ggufreader":
        import gguf

        reader = gguf.GGUFReader(model_path, "r")
        len(reader.tensors)
        del reader
        gc.collect()
    elif name == "import_gguf":
        import gguf
    elif name == "numpy_big_array":
        import numpy as np

        array = np.ones(1 << 28, dtype=np.float32)
        del array
    elif name == "app_reader":
        from app.core.planner import read_model_metadata

        read_model_metadata(model_path)
    elif name == "cuda_first_then_memmap":
        import llama_cpp.llama_cpp as lib

        lib.llama_backend_init()
        lib.llama_supports_gpu_offload()
        lib.ggml_backend_load_all() if hasattr(lib, "ggml_backend_load_all") else None
        _numpy_memmap(model_path, keep)
        keep.clear()
        gc.collect()
    elif name == "cpu_prefill":
        options.update(gpu_layers=0, prompt=42)
    elif name == "cpu_prefill_no_repack":
        options.update(gpu_layers=0, prompt=42, extra_bufts=False)
    elif name == "no_repack":
        options["extra_bufts"] = False
    elif name not in ("plain", "plain_thread", "np_memmap_thread"):
        raise SystemExit(f"unknown variant {name}")
    return keep, options


VARIANTS = (
    "plain", "plain_thread", "np_memmap", "np_memmap_thread", "np_memmap_kept", "np_memmap_copy",
    "np_memmap_small", "np_memmap_nommap", "np_memmap_cpu", "mmap_module", "ggufreader", "import_gguf",
    "numpy_big_array", "cuda_first_then_memmap", "app_reader", "np_memmap_no_repack", "no_repack",
    "cpu_prefill", "cpu_prefill_no_repack",
)


def child(name: str, model_path: Path) -> None:
    import faulthandler

    faulthandler.enable()
    import llama_cpp  # noqa: F401  (the app imports the package, and with it numpy)

    with tempfile.TemporaryDirectory() as scratch:
        if name == "np_memmap_thread":
            _variant_before("np_memmap", model_path, Path(scratch))
            keep, options = [], {}
        else:
            keep, options = _variant_before(name, model_path, Path(scratch))
        result: list[str] = []
        def run() -> None:
            result.append(_load_and_decode(model_path, **options))  # type: ignore[arg-type]

        if name.endswith("_thread"):
            worker = threading.Thread(target=run)
            worker.start()
            worker.join()
        else:
            run()
        del keep
    print(result[0] if result else "no result", flush=True)


def main(argv: list[str]) -> int:
    model_path = Path(argv[0])
    names = argv[1:] or list(VARIANTS)
    results = []
    for name in names:
        process = subprocess.run(
            [sys.executable, "-X", "faulthandler", "-m", "tests.benchmarks.llamacpp_gpu_crash", "--child", name,
             str(model_path)], capture_output=True, text=True, timeout=180,
        )
        said = process.stdout.strip().splitlines()[-1:] or ["(nothing on stdout)"]
        crash = [line.strip() for line in process.stderr.splitlines()
                 if "Fatal Python error" in line or line.strip().startswith("File ")][:6]
        results.append({"variant": name, "returncode": process.returncode, "stdout": said, "crash": crash,
                        "stderr_tail": process.stderr.strip().splitlines()[-4:]})
        print(f"{name:24s} rc={process.returncode:4d}  {said[0][:60]}  {' | '.join(crash)[:400]}", flush=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]))
    else:
        sys.exit(main(sys.argv[1:]))
