"""Faults, each reported clearly with nothing stored damaged: the disk filling during ingestion and during a
download (a file-size limit on the process: its writes fail as on a full disk), the model file deleted while
loaded, the embedding model failing to load, a remote endpoint that hangs or answers garbage. (The vLLM
engine process dying: tests/integration/test_vllm_lifecycle.py; a guard for it: test_engine_guard.py.)"""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.requests import GREEDY, ChatRequest
from app.core.kb.catalog import DocumentStatus
from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.progress import ProgressTracker
from app.core.util.errors import UserFacingError
from tests.core.engines.test_remote_protocol import Script, ScriptedServer, connect
from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.integration.answering_support import greedy, load_manager
from tests.integration.test_kb_crash_recovery import write_documents
from tests.reliability.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs a file-size limit (POSIX)")
TIMEOUT_S = 300


def limited_to(max_file_bytes: int) -> Callable[[], None]:
    """For Popen(preexec_fn=...): no file of the child may grow past ``max_file_bytes`` (writes fail with EFBIG,
    as on a full disk)."""

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))

    return apply


def environment() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}


def largest_file(folder: Path) -> int:
    return max(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def test_a_full_disk_during_ingestion_keeps_every_finished_document(tmp_path: Path) -> None:
    home = tmp_path / "home"
    first = write_documents(tmp_path / "first")
    kb_folder = home / "data" / "kb"
    with open_knowledge_base(kb_folder) as knowledge_base:  # the same folder `unidesk --home` uses
        assert knowledge_base.indexer().run([first], ProgressTracker(), threading.Event()).files_failed == 0
        before = {record.path: record.chunk_count for record in knowledge_base.documents()}
    second = tmp_path / "second"
    second.mkdir()
    for index in range(40):
        (second / f"more{index:02d}.txt").write_text(f"Another report, number {index}. " * 400, encoding="utf-8")

    limit = largest_file(home) + 64 * 1024  # a little room, then the "disk" is full
    full = subprocess.run([sys.executable, "-m", "app", "--home", str(home), "kb", "add", str(second)],
                          cwd=REPO_ROOT, env=environment(), capture_output=True, text=True, timeout=TIMEOUT_S,
                          preexec_fn=limited_to(limit))
    print(f"faults: ingestion with files limited to {limit} bytes -> exit {full.returncode}: "
          f"{(full.stderr.strip().splitlines() or [''])[-1][:300]}")
    assert full.returncode != 0 or "failed 0" not in full.stdout, "the full disk went unnoticed"
    assert "Traceback" not in full.stderr
    if full.returncode != 0:
        assert "could not write to the disk" in full.stderr and "Free some space" in full.stderr

    with open_knowledge_base(kb_folder) as knowledge_base:
        report = check_consistency(open_database(knowledge_base.database_path), knowledge_base.vector_store)
        assert report.ok, report.problems
        records = {record.path: record for record in knowledge_base.documents()}
        for path, chunks in before.items():  # everything finished before the disk filled is intact
            assert records[path].status is DocumentStatus.INDEXED and records[path].chunk_count == chunks
        summary = knowledge_base.indexer().run([second], ProgressTracker(), threading.Event())  # room again
        assert summary.files_failed == 0
        assert all(record.status is DocumentStatus.INDEXED for record in knowledge_base.documents())


DOWNLOADER = """
import sys
from pathlib import Path
from app.core.models import DownloadJob, DownloadSpec, HubClient, TransferOptions
job = DownloadJob(DownloadSpec("someone/Tiny-GGUF", Path(sys.argv[2]), files=("tiny.gguf",)),
                  HubClient(endpoint=sys.argv[1], timeout_s=10),
                  options=TransferOptions(chunk_size=16384, max_retries=1, retry_delay_s=0.01)).start()
try:
    job.wait(120)
except Exception as error:
    print(f"failed: {error}")
    sys.exit(1)
print("finished")
"""


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def test_a_full_disk_during_a_download_fails_clearly_and_the_download_resumes_later(
    hub: FakeHub, tmp_path: Path
) -> None:
    content = random.Random(5).randbytes(600_000)
    hub.add_file("someone/Tiny-GGUF", "tiny.gguf", content)
    full = subprocess.run([sys.executable, "-c", DOWNLOADER, hub.url, str(tmp_path)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=TIMEOUT_S, preexec_fn=limited_to(200_000))
    print(f"faults: download with files limited to 200000 bytes -> {full.stdout.strip()[:300]}")
    assert full.returncode == 1 and "Cannot write" in full.stdout, full.stdout + full.stderr
    assert not (tmp_path / "tiny.gguf").exists()  # no unverified file in place
    part = tmp_path / "tiny.gguf.part"
    assert part.read_bytes() == content[: part.stat().st_size]  # what was written is right, and kept
    resumed = subprocess.run([sys.executable, "-c", DOWNLOADER, hub.url, str(tmp_path)], cwd=REPO_ROOT,
                             capture_output=True, text=True, timeout=TIMEOUT_S)
    assert resumed.stdout.strip() == "finished", resumed.stdout + resumed.stderr
    assert (tmp_path / "tiny.gguf").read_bytes() == content


def test_a_model_file_deleted_while_loaded_keeps_answering_and_a_reload_says_it_is_gone(
    tmp_path: Path, tiny_gguf: Path
) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(tiny_gguf.read_bytes())
    manager = load_manager(model, 512, 1, threads=1)
    try:
        model.unlink()
        stream = manager.submit(ChatRequest.single_prompt("Hello", greedy(8)))
        assert stream.wait(60) and stream.error is None  # the loaded weights are still in memory
        with pytest.raises(UserFacingError) as reloading:
            manager.load(model, context_length=512)
        assert str(model) in str(reloading.value)
    finally:
        manager.unload()


def test_an_embedding_model_that_cannot_load_fails_the_files_with_the_reason(tmp_path: Path) -> None:
    folder = write_documents(tmp_path / "docs")
    from app.core.kb.knowledge_base import KnowledgeBase

    with KnowledgeBase(tmp_path / "kb", Settings({"kb.embedding_model": "no-such-org/no-such-embedder"})) as kb:
        try:
            summary = kb.indexer().run([folder], ProgressTracker(), threading.Event())
        except UserFacingError as error:  # one clear error for the whole run is as good as per-file reasons
            assert "no-such-embedder" in str(error)
        else:
            assert summary.files_indexed == 0 and summary.files_failed > 0
            assert any("no-such-embedder" in problem.message for problem in summary.problems)
        assert not any(record.status is DocumentStatus.INDEXED for record in kb.documents())
        assert check_consistency(open_database(kb.database_path), kb.vector_store).ok


def hang(handler: BaseHTTPRequestHandler, attempt: int) -> None:
    threading.Event().wait(30)  # accepts the request, never answers


def garbage(handler: BaseHTTPRequestHandler, attempt: int) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(b"data: {not json at all\n\n" + bytes(range(256)) + b"\n\ndata: [DONE]\n\n")


@pytest.mark.parametrize("script", [hang, garbage], ids=["hangs", "garbage"])
def test_a_remote_endpoint_that_hangs_or_answers_garbage_is_an_error_not_a_wait(
    script: Script, tmp_path: Path
) -> None:
    server = ScriptedServer(script)
    try:
        engine = connect(server.url, read_timeout_s=1.0, retries=1)
        stream = engine.submit(ChatRequest.single_prompt("Hello", GREEDY))
        assert stream.wait(120), "the request never ended"
        assert stream.error is not None or stream.finish_reason == "error", stream.finish_reason
        message = str(stream.error)
        print(f"faults: remote endpoint that {script.__name__}: {message[:200]}")
        assert message and "Traceback" not in message
        engine.unload()
    finally:
        server.close()

