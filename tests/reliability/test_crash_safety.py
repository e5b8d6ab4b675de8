"""kill -9 a headless UniDesk at random moments while it streams answers, saves settings, switches models and
indexes documents; after every kill, everything it had finished is intact and the home is free again.

Kills per scenario: ``UNIDESK_RELIABILITY_KILLS`` (default 4; CI runs the default). Each test prints
``crash safety <scenario>: <kills> kills survived, <losses> losses``.
"""

from __future__ import annotations

import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from app.core.chat.store import ConversationStore
from app.core.config import SettingsStore
from app.core.config.home_lock import HomeLock
from app.core.config.paths import AppPaths
from app.core.models.local_models import REGISTRY_NAME, LocalModels
from tests.fixtures.models import GgufFactory
from tests.reliability.conftest import REPO_ROOT, env_int

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
KILLS = env_int("UNIDESK_RELIABILITY_KILLS", 4)
READY_TIMEOUT_S = 240.0
INGESTION_FILES = 120


class Harness:
    """One run of tests/reliability/crash_harness.py; its journal is read on a thread."""

    def __init__(self, home: Path, scenario: str, seed: int, *models: Path) -> None:
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.reliability.crash_harness", str(home), scenario, str(seed),
             *map(str, models)],
            cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.strip())
            if line.strip() == "ready":
                self.ready.set()

    def kill_after(self, delay_s: float, working: Callable[[], bool] = lambda: True) -> list[str]:
        """Wait until it works (and ``working()`` holds), let it work ``delay_s`` more, SIGKILL it; its journal."""
        try:
            if not self.ready.wait(READY_TIMEOUT_S):
                self.process.kill()
                stderr = self.process.communicate(timeout=30)[1]
                raise AssertionError(f"the harness did not start: {stderr[-3000:]}")
            deadline = time.monotonic() + READY_TIMEOUT_S
            while not working() and "done" not in self.lines:
                assert self.process.poll() is None, self.process.communicate()[1][-3000:]
                assert time.monotonic() < deadline, "the harness did not get to work"
                time.sleep(0.05)
            assert self.process.poll() is None, self.process.communicate()[1][-3000:]
            assert listening_sockets(self.process.pid) == [], "the headless app listens on the network"
            time.sleep(delay_s)
            self.process.send_signal(signal.SIGKILL)
        finally:
            self.process.kill()
            self.process.wait(60)
            self._reader.join(30)
        assert self.process.returncode == -signal.SIGKILL, self.process.communicate()[1][-3000:]
        return list(self.lines)


def listening_sockets(pid: int) -> list[object]:
    return [connection.laddr for connection in psutil.Process(pid).net_connections(kind="inet")
            if connection.status == psutil.CONN_LISTEN]


def survive_kills(home: Path, scenario: str, delays: tuple[float, float], check: Callable[[list[str]], int],
                  *models: Path, kills: int = KILLS, working: Callable[[], bool] = lambda: True) -> int:
    """``kills`` rounds of start, random kill, check; the number of losses ``check`` counted."""
    rng = random.Random(f"{scenario}-{kills}")
    losses = 0
    for round_number in range(kills):
        journal = Harness(home, scenario, round_number, *models).kill_after(rng.uniform(*delays), working)
        with HomeLock(AppPaths.under_home(home), "crash-check"):  # the dead harness's lock is gone
            losses += check(journal)
    print(f"crash safety {scenario}: {kills} kills survived, {losses} losses")
    return losses


def test_kills_while_answers_stream_lose_no_finished_answer(tmp_path: Path, tiny_gguf: Path) -> None:
    home = tmp_path / "home"
    paths = AppPaths.under_home(home)
    acknowledged: dict[str, str] = {}

    def check(journal: list[str]) -> int:
        for line in journal:
            if line.startswith("answer "):
                _, _, message_id, text_digest = line.split()
                acknowledged[message_id] = text_digest
        database = paths.data_dir / "chat" / "conversations.db"
        connection = sqlite3.connect(database)
        try:
            assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            connection.close()
        store = ConversationStore.open(paths.data_dir)
        try:
            lost = 0
            for message_id, text_digest in acknowledged.items():
                if not store.has_message(message_id):
                    lost += 1
                    continue
                message = store.message(message_id)
                lost += int(not message.finished or _digest(message.text) != text_digest)
            return lost
        finally:
            store.close()

    losses = survive_kills(home, "streaming", (0.3, 2.5), check, tiny_gguf)
    print(f"crash safety streaming: {len(acknowledged)} finished answers checked after every kill")
    assert acknowledged, "no answer finished before the kills: the test proved nothing"
    assert losses == 0


def test_kills_while_settings_are_saved_never_leave_a_broken_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    saves = 0

    def check(journal: list[str]) -> int:
        nonlocal saves
        done = [line.split()[1] for line in journal if line.startswith("settings ")]
        begun = [line.split()[1] for line in journal if line.startswith("saving ")]
        saves += len(done)
        result = SettingsStore(AppPaths.under_home(home)).load()
        assert not result.problems, result.problems
        assert result.backup_path is None
        if not done:
            return 0
        value = str(result.settings["kb.top_k"])
        return int(value not in {done[-1], begun[-1]})  # the last finished save, or the one under way

    losses = survive_kills(home, "settings", (0.05, 0.6), check)
    assert saves > 0
    assert losses == 0


def test_kills_during_model_switches_keep_the_registry_and_the_choice(
    tmp_path: Path, tiny_gguf: Path, tiny_gguf_factory: GgufFactory
) -> None:
    home = tmp_path / "home"
    paths = AppPaths.under_home(home)
    other = tiny_gguf_factory("llama-tiny", "f32", seed=1)
    switches = 0

    def check(journal: list[str]) -> int:
        nonlocal switches
        done = [line.split(" ", 1)[1] for line in journal if line.startswith("switched ")]
        begun = [line.split(" ", 1)[1] for line in journal if line.startswith("switching ")]
        switches += len(done)
        registry = LocalModels(paths.data_dir / REGISTRY_NAME, paths.data_dir / "models")
        registered = {model.path for model in registry.models()}
        assert not (paths.data_dir / (REGISTRY_NAME + ".bad")).exists(), "the registry was torn"
        lost = len({str(Path(path).resolve()) for path in done} - registered)
        result = SettingsStore(paths).load()
        assert not result.problems, result.problems
        if done:
            lost += int(result.settings.str_value("model.path") not in {done[-1], begun[-1]})
        return lost

    losses = survive_kills(home, "switch", (0.2, 2.0), check, tiny_gguf, other)
    assert switches > 0
    assert losses == 0


def test_kills_during_ingestion_keep_every_finished_document_and_a_consistent_index(tmp_path: Path) -> None:
    from app.core.kb.catalog import DocumentStatus
    from app.core.kb.consistency import check_consistency
    from app.core.kb.database import open_database
    from app.core.kb.knowledge_base import KnowledgeBase
    from app.core.kb.progress import ProgressTracker
    from tests.fixtures.knowledge_base import shared_embedder_pool
    from tests.integration.test_kb_crash_recovery import indexed_count

    home = tmp_path / "home"
    paths = AppPaths.under_home(home).ensure()
    docs = home / "docs"
    docs.mkdir(parents=True)
    for index in range(INGESTION_FILES):  # enough that indexing them takes a while: the kill lands mid-way
        (docs / f"report{index:03d}.txt").write_text("\n\n".join(
            f"Report {index}, part {part}: the harbour crane {index % 11} was inspected and repaired. " * 6
            for part in range(6)), encoding="utf-8")
    finished: dict[str, int] = {}  # path -> chunks, of every document seen indexed after a kill

    def open_kb() -> KnowledgeBase:
        from app.core.config import Settings

        return KnowledgeBase.open(paths, Settings({"kb.embedding_batch_size": 4}), shared_embedder_pool())

    def check(journal: list[str]) -> int:
        with open_kb() as knowledge_base:
            report = check_consistency(open_database(knowledge_base.database_path), knowledge_base.vector_store)
            assert report.ok, report.problems  # no index entry points at a missing chunk
            now = {record.path: record.chunk_count for record in knowledge_base.documents()
                   if record.status is DocumentStatus.INDEXED}
        lost = sum(1 for path, chunks in finished.items() if now.get(path) != chunks)
        finished.update(now)
        return lost

    database = paths.data_dir / "kb" / "kb.sqlite3"
    start_count = [0]

    def indexing() -> bool:  # the kill lands while documents are being committed, not while models load
        return indexed_count(database) > start_count[0]

    at_kills: list[int] = []

    def check_and_rebase(journal: list[str]) -> int:
        lost = check(journal)
        start_count[0] = indexed_count(database)
        at_kills.append(start_count[0])
        return lost

    losses = survive_kills(home, "ingestion", (0.0, 1.0), check_and_rebase, kills=max(2, KILLS // 2),
                           working=indexing)
    with open_kb() as knowledge_base:  # after the last kill, the same add finishes the rest
        summary = knowledge_base.indexer().run([home / "docs"], ProgressTracker(), threading.Event())
        assert summary.files_failed == 0
        assert {record.status for record in knowledge_base.documents()} == {DocumentStatus.INDEXED}
        assert check_consistency(open_database(knowledge_base.database_path), knowledge_base.vector_store).ok
    print(f"crash safety ingestion: documents indexed when each kill landed {at_kills} (of {INGESTION_FILES}), "
          "all kept")
    assert losses == 0


def _digest(text: str) -> str:
    from tests.reliability.crash_harness import digest

    return digest(text)

