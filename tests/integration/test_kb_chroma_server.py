"""Team mode: vectors in a real chromadb server (`chroma run` on loopback) instead of the embedded store."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.kb.consistency import check_consistency
from app.core.kb.database import open_database
from app.core.kb.knowledge_base import CHROMA_FOLDER_NAME
from app.core.kb.progress import ProgressTracker
from tests.fixtures.knowledge_base import open_knowledge_base

pytestmark = pytest.mark.integration

CHROMA_CLI = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    command = str(CHROMA_CLI) if CHROMA_CLI.exists() else shutil.which("chroma")
    if command is None:
        pytest.skip("the chroma CLI (installed with the chromadb package) is not on this machine")
    port = free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    log = (data / "server.log").open("wb")
    server = subprocess.Popen(
        [command, "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"chroma run did not start: {(data / 'server.log').read_text()[-2000:]}")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        server.wait(30)
        log.close()


def test_index_search_and_remove_with_a_chroma_server(tmp_path: Path, chroma_server: str) -> None:
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "otters.txt").write_text("Sea otters eat sea urchins and keep kelp forests alive.")
    (folder / "engines.txt").write_text("A diesel engine ignites fuel by compression alone.")
    with open_knowledge_base(tmp_path / "kb", kb__chroma_server_url=chroma_server) as kb:
        summary = kb.indexer().run([folder], ProgressTracker(), threading.Event())
        assert summary.files_indexed == 2
        assert not (tmp_path / "kb" / CHROMA_FOLDER_NAME).exists(), "no embedded store in team mode"
        hit = kb.search("what do otters eat", k=1).hits[0]
        assert hit.path.endswith("otters.txt") and "vector" in hit.retrievers

        # The vectors really are on the server.
        client = chromadb.HttpClient(host="127.0.0.1", port=int(chroma_server.rsplit(":", 1)[1]),
                                     settings=ChromaSettings(anonymized_telemetry=False))
        names = [collection.name for collection in client.list_collections()]
        assert len(names) == 1 and client.get_collection(names[0]).count() == 2

        otters = next(r for r in kb.documents() if r.path.endswith("otters.txt"))
        kb.remove(otters.id)
        assert client.get_collection(names[0]).count() == 1
        report = check_consistency(open_database(kb.database_path), kb.vector_store)
        assert report.ok and report.orphan_vectors == 0, report


def test_two_knowledge_bases_can_share_one_server(tmp_path: Path, chroma_server: str) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Lighthouses guide ships along dangerous coasts.")
    with open_knowledge_base(tmp_path / "one", kb__chroma_server_url=chroma_server) as one, \
            open_knowledge_base(tmp_path / "two", kb__chroma_server_url=chroma_server) as two:
        one.indexer().run([folder], ProgressTracker(), threading.Event())
        two.indexer().run([folder], ProgressTracker(), threading.Event())
        first = next(r for r in one.documents())
        one.remove(first.id)
        # The other knowledge base keeps its own vectors (collections are named per knowledge base).
        hit = two.search("ships and coasts", k=1).hits[0]
        assert "vector" in hit.retrievers and hit.path.endswith("a.txt")
