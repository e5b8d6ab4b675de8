"""A process killed (SIGKILL) while an answer streams loses at most about a second of it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.chat.store import ConversationStore
from app.core.config import Settings
from app.core.services.answering import Answerer
from app.core.services.chat_session import ChatSession
from tests.fixtures.models import GgufFactory, ModelShape
from tests.integration.answering_support import greedy, load_manager

pytestmark = pytest.mark.integration
REPO_ROOT = Path(__file__).resolve().parents[2]
# llama-tiny with a 64K context (16 MiB of KV): the answer streams for many seconds, so the kill lands mid-stream.
LONG_CONTEXT_SHAPE = ModelShape(n_layers=2, n_embd=64, n_heads=4, n_kv_heads=2, n_ff=128, n_ctx_train=65536)


def read_answer(database: Path, message_id: str) -> tuple[str, int] | None:
    """(text, finished) as another process sees it now, read-only."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        row = connection.execute("SELECT text, finished FROM messages WHERE id = ?", (message_id,)).fetchone()
    finally:
        connection.close()
    return (str(row[0]), int(row[1])) if row else None


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_kill_during_streaming_keeps_the_partial_answer_marked_unfinished(
    tmp_path: Path, tiny_gguf_factory: GgufFactory
) -> None:
    model = tiny_gguf_factory(LONG_CONTEXT_SHAPE, "f32")
    database = tmp_path / "chat" / "conversations.db"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.answer_stream_child", str(database), str(model)],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.startswith("streaming "), line + (child.stderr.read() if child.stderr else "")
        message_id = line.split()[1]
        saves: list[tuple[float, int]] = []  # (when seen, text length) for each new save
        deadline = time.monotonic() + 30
        while len(saves) < 3 and time.monotonic() < deadline:
            seen = read_answer(database, message_id)
            assert seen is not None and seen[1] == 0, "the answer must stay unfinished while it streams"
            if seen[0] and (not saves or len(seen[0]) != saves[-1][1]):
                saves.append((time.monotonic(), len(seen[0])))
            time.sleep(0.05)
        assert len(saves) == 3, f"expected growing saves, saw {saves}"  # (cadence: test_answering_job.py)
        assert child.poll() is None, "the answer finished before the kill: it must stream longer"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        assert child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)

    connection = sqlite3.connect(database)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        connection.close()
    with ConversationStore(database) as store:
        answer = store.message(message_id)
        assert not answer.finished and answer.finish_reason is None and answer.can_continue
        assert len(answer.text) >= saves[-1][1]
        [conversation] = store.conversations()
        assert [message.role for message in store.branch(conversation.id)] == ["user", "assistant"]
        assert store.search("essay")[0].conversation_id == conversation.id

        # The interrupted answer can be continued after the restart.
        manager = load_manager(model, 65536, parallel_chats=1)
        try:
            settings = Settings()
            session = ChatSession(store, Answerer(manager, None, lambda: settings))
            job = session.continue_answer(answer.id, sampling=greedy(4))
            result = job.wait(60)
        finally:
            manager.unload()
        resumed = store.message(answer.id)
        assert resumed.finished and resumed.text == result.text and resumed.text.startswith(answer.text)
