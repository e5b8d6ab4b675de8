"""Whether the window preloads llama.cpp: only a GPU build (found on disk) needs it before numpy."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.engines.backends.llamacpp_native import has_gpu_backend_library


def test_this_cpu_build_has_no_gpu_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LLAMA_CPP_LIB_PATH", raising=False)
    assert has_gpu_backend_library() is False


@pytest.mark.parametrize("library", ["libggml-cuda.so", "libggml-hip.so.0", "ggml-cuda.dll"])
def test_a_cuda_or_hip_library_beside_llama_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    library: str) -> None:
    (tmp_path / "libllama.so").write_bytes(b"")
    (tmp_path / library).write_bytes(b"")
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(tmp_path))
    assert has_gpu_backend_library() is True


def test_a_lib_folder_with_only_cpu_libraries_is_not_a_gpu_build(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("libllama.so", "libggml-cpu.so", "libggml-base.so"):
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(tmp_path))
    assert has_gpu_backend_library() is False
