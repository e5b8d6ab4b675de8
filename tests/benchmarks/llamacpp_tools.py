"""Locate or build llama.cpp's `llama-server` and `llama-batched-bench` for the peer benchmarks.

The tools are built from the llama.cpp source vendored in llama-cpp-python's source package of
the *installed* version, so they run the same kernels as the engine. Everything lives under
``~/.cache/unidesk-bench/llama.cpp-<version>/`` (override the root with ``UNIDESK_BENCH_CACHE``),
never inside the repository. Run ``python -m tests.benchmarks.llamacpp_tools`` to build ahead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

BENCH_CACHE_ENV = "UNIDESK_BENCH_CACHE"
TOOL_TARGETS = ("llama-server", "llama-batched-bench")
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
)


@dataclass(frozen=True)
class LlamaCppTools:
    """Paths of the two built peer tools and the llama.cpp version they come from."""

    version: str
    server: Path
    batched_bench: Path


def bench_cache_dir() -> Path:
    """Root of everything the benchmarks cache (models, tool builds); outside the repo."""
    override = os.environ.get(BENCH_CACHE_ENV)
    return Path(override) if override else Path.home() / ".cache" / "unidesk-bench"


def installed_llama_cpp_python_version() -> str:
    """Version of the llama-cpp-python the engine imports."""
    from importlib.metadata import version

    return version("llama-cpp-python")


def tools_dir(version: str) -> Path:
    return bench_cache_dir() / f"llama.cpp-{version}"


def _binary_paths(version: str) -> LlamaCppTools:
    bin_dir = tools_dir(version) / "build" / "bin"
    return LlamaCppTools(version, bin_dir / "llama-server", bin_dir / "llama-batched-bench")


def find_tools(version: str | None = None) -> LlamaCppTools | None:
    """The built tools for ``version`` (default: installed), or None if either is missing."""
    tools = _binary_paths(version or installed_llama_cpp_python_version())
    if tools.server.is_file() and tools.batched_bench.is_file():
        return tools
    return None


def _log(message: str) -> None:
    print(f"[llamacpp_tools] {message}", file=sys.stderr, flush=True)


def _download_source(version: str, download_dir: Path) -> Path:
    """Fetch llama-cpp-python's sdist with pip (PyPI's ordinary client) and return its path."""
    existing = sorted(download_dir.glob(f"llama_cpp_python-{version}.tar.gz"))
    if existing:
        return existing[0]
    download_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
         f"llama-cpp-python=={version}", "-d", str(download_dir)],
        check=True,
    )
    found = sorted(download_dir.glob("llama_cpp_python-*.tar.gz"))
    if not found:
        raise RuntimeError(f"pip download left no llama-cpp-python {version} sdist in {download_dir}")
    return found[0]


def _extract_vendored_llama_cpp(sdist: Path, source_dir: Path) -> None:
    """Unpack only ``vendor/llama.cpp`` of the sdist into ``source_dir``."""
    with tempfile.TemporaryDirectory(dir=source_dir.parent) as scratch:
        with tarfile.open(sdist) as archive:
            members = [m for m in archive.getmembers() if "/vendor/llama.cpp/" in m.name + "/"]
            archive.extractall(scratch, members=members, filter="data")
        vendored = next(Path(scratch).glob("*/vendor/llama.cpp"))
        shutil.move(str(vendored), source_dir)


def build_tools(version: str | None = None, jobs: int = 2) -> LlamaCppTools:
    """Download, configure and build both tools (~10 min on 2 cores); returns their paths."""
    version = version or installed_llama_cpp_python_version()
    root = tools_dir(version)
    root.mkdir(parents=True, exist_ok=True)
    source_dir = root / "src"
    build_dir = root / "build"
    if not (source_dir / "CMakeLists.txt").is_file():
        _log(f"downloading llama-cpp-python {version} source with pip")
        sdist = _download_source(version, root / "sdist")
        shutil.rmtree(source_dir, ignore_errors=True)
        _extract_vendored_llama_cpp(sdist, source_dir)
    _log(f"configuring llama.cpp in {build_dir}")
    subprocess.run(["cmake", "-S", str(source_dir), "-B", str(build_dir), *CMAKE_OPTIONS], check=True)
    _log(f"building {', '.join(TOOL_TARGETS)} with {jobs} jobs (about 10 minutes on 2 cores)")
    subprocess.run(
        ["cmake", "--build", str(build_dir), "--target", *TOOL_TARGETS, "-j", str(jobs)], check=True
    )
    tools = find_tools(version)
    if tools is None:
        raise RuntimeError(f"the build finished but the tools are not in {build_dir / 'bin'}")
    return tools


def ensure_tools(version: str | None = None) -> LlamaCppTools:
    """The tools for the installed llama-cpp-python, built first (with a message) if missing."""
    version = version or installed_llama_cpp_python_version()
    tools = find_tools(version)
    if tools is not None:
        return tools
    _log(
        f"llama-server / llama-batched-bench for llama.cpp of llama-cpp-python {version} are not built "
        f"yet; building them into {tools_dir(version)} now (pass --skip-peers to skip)"
    )
    return build_tools(version)


if __name__ == "__main__":
    built = ensure_tools()
    print(built.server)
    print(built.batched_bench)
