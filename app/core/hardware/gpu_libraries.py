"""Which GPU backend the installed llama.cpp was built with, found on disk without loading anything."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

GPU_BACKEND_LIBRARIES = ("*ggml-cuda*", "*ggml-hip*")


def has_gpu_backend_library() -> bool:
    """Whether the installed llama.cpp has a CUDA/HIP backend library, found on disk without loading anything.

    Such a build cannot share a process with PyTorch's GPU code (either one loaded second crashes), so the
    window preloads llama.cpp then, and the knowledge base runs its PyTorch models in a child process. On a
    CPU build the crash cannot happen, and loading the libraries before the first paint would only delay it.
    """
    folders = [Path(os.environ["LLAMA_CPP_LIB_PATH"])] if os.environ.get("LLAMA_CPP_LIB_PATH") else []
    try:
        spec = importlib.util.find_spec("llama_cpp")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        folders += [Path(location) / "lib" for location in spec.submodule_search_locations]
    return any(any(folder.glob(pattern)) for folder in folders if folder.is_dir() for pattern in GPU_BACKEND_LIBRARIES)
