"""Load: 8 chats answering at once, a folder of files being indexed and local-API clients (whole, streamed,
abandoned and embedding requests), all on one engine and one knowledge base for ``UNIDESK_LOAD_SECONDS``
(default 30; the issue's long run is 600 with ``UNIDESK_LOAD_FILES=1000``). No deadlock, every request
completes, is refused with 429 or is cancelled, every answer is stored finished, and RSS sampled over the run
stays bounded. Prints ``load: ...`` with the figures and the RSS over the run (the highest sample in each
tenth of it)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import psutil

from app.core.chat.store import ConversationStore
from app.core.config import Settings
from app.core.kb.progress import ProgressTracker
from app.core.services.answering import Answerer
from app.core.services.api.auth import api_token
from app.core.services.api.server import ApiServer
from app.core.services.chat_session import ChatSession
from tests.fixtures.knowledge_base import open_knowledge_base, shared_embedder_pool
from tests.integration.answering_support import greedy, load_manager
from tests.reliability.conftest import env_int

SECONDS = env_int("UNIDESK_LOAD_SECONDS", 30)
FILES = env_int("UNIDESK_LOAD_FILES", 150)
CHATS = 8
JOIN_GRACE_S = 300.0  # after the run: time for the last requests to end (a deadlock never does)
PEAK_GROWTH_LIMIT = 1024**3  # warming up: KV caches, the vector index, torch's pools, buffers
CLIMB_LIMIT = 128 * 1024**2  # once warm: the last quarter of the run may not climb past the first
MIB = 1024**2
TIMELINE_POINTS = 10  # the RSS printed over the run: the highest sample in each tenth of it


class Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.lock = threading.Lock()

    def add(self, key: str) -> None:
        with self.lock:
            self.counts[key] += 1


def rss_timeline(samples: list[tuple[float, int]], points: int = TIMELINE_POINTS) -> str:
    """``t s: MiB`` for the highest sample in each of ``points`` equal slices of the run."""
    if not samples:
        return "no samples"
    slice_size = max(1, -(-len(samples) // points))
    slices = [samples[start:start + slice_size] for start in range(0, len(samples), slice_size)]
    return ", ".join(f"{part[-1][0]:.0f} s: {max(value for _, value in part) / MIB:.0f}" for part in slices)


def api_call(server: ApiServer, path: str, body: dict[str, Any], *, stream: bool = False,
             abandon: bool = False) -> str:
    """One request; the outcome: its status, or "abandoned" when the client walked away mid-answer."""
    if abandon:
        with socket.create_connection(("127.0.0.1", server.port), timeout=120) as client:
            payload = json.dumps(body).encode()
            client.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {server.token}\r\n"
                           f"Content-Length: {len(payload)}\r\n\r\n".encode() + payload)
            head = client.recv(64)  # the answer has started (or was refused): walk away
        return "abandoned" if head.startswith(b"HTTP/1.1 200") else head[9:12].decode()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=300)
    try:
        connection.request("POST", path, json.dumps(body), {"Authorization": f"Bearer {server.token}"})
        response = connection.getresponse()
        text = response.read().decode()
        if response.status == 200 and stream:
            assert text.rstrip().endswith("data: [DONE]"), text[-300:]
        return str(response.status)
    finally:
        connection.close()


def test_chats_ingestion_and_api_clients_together_stay_bounded_and_all_finish(
    tmp_path: Path, tiny_gguf: Path
) -> None:
    manager = load_manager(tiny_gguf, 4096, CHATS, threads=1)
    store = ConversationStore.open(tmp_path / "data")
    settings = Settings()
    session = ChatSession(store, Answerer(manager, None, lambda: settings))
    embedder = shared_embedder_pool().get(settings.str_value("kb.embedding_model"))
    embedder.embed_documents(["warm up"])
    docs = tmp_path / "docs"
    docs.mkdir()
    for index in range(FILES):
        (docs / f"note{index:04d}.txt").write_text(
            f"Note {index}: the harbour crane {index % 13} was serviced. " * 30 + f"\n\nCode word w{index}.\n",
            encoding="utf-8")
    tally, stop, failures = Tally(), threading.Event(), []
    process = psutil.Process()
    rss: list[int] = []
    timeline: list[tuple[float, int]] = []

    def sample() -> None:
        while not stop.is_set():
            rss.append(process.memory_info().rss)
            timeline.append((time.monotonic() - started, rss[-1]))
            stop.wait(0.5)

    def chat(number: int) -> None:
        conversation = store.create_conversation(kb_enabled=False)
        while not stop.is_set():
            job = session.send(conversation.id, f"Chat {number}: tell me something.", sampling=greedy(24))
            if not job.join(JOIN_GRACE_S):
                failures.append(f"chat {number}: an answer never ended")
                return
            tally.add("chat answers")

    def ingest(knowledge_base: Any) -> None:
        summary = knowledge_base.indexer().run([docs], ProgressTracker(), threading.Event())
        tally.counts["files indexed"] = summary.files_indexed
        tally.counts["files failed"] = summary.files_failed

    def client(kind: str) -> None:
        model = server.chat_model_names()[0]
        chat_body = {"model": model, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 16}
        while not stop.is_set():
            try:
                if kind == "embeddings":
                    outcome = api_call(server, "/v1/embeddings", {"model": embedder.model_name,
                                                                  "input": ["a harbour crane", "code word"]})
                elif kind == "stream":
                    outcome = api_call(server, "/v1/chat/completions", {**chat_body, "stream": True}, stream=True)
                elif kind == "abandon":
                    outcome = api_call(server, "/v1/chat/completions", {**chat_body, "max_tokens": 400,
                                                                        "stream": True}, abandon=True)
                else:
                    outcome = api_call(server, "/v1/chat/completions", chat_body)
            except Exception as error:
                failures.append(f"{kind}: {type(error).__name__}: {error}")
                return
            tally.add(f"api {kind} {outcome}")
            if outcome == "429":
                stop.wait(0.2)  # as a client honouring Retry-After would

    with open_knowledge_base(tmp_path / "kb") as knowledge_base, \
            ApiServer(manager, api_token(tmp_path), port=0, embedder=lambda: embedder) as server:
        api_call(server, "/v1/chat/completions", {"model": server.chat_model_names()[0], "max_tokens": 4,
                                                  "messages": [{"role": "user", "content": "warm"}]})
        baseline = process.memory_info().rss
        workers = [threading.Thread(target=sample, name="rss")]
        workers += [threading.Thread(target=chat, args=(number,), name=f"chat{number}") for number in range(CHATS)]
        workers += [threading.Thread(target=client, args=(kind,), name=f"api-{kind}")
                    for kind in ("whole", "whole", "stream", "abandon", "embeddings")]
        ingestion = threading.Thread(target=ingest, args=(knowledge_base,), name="ingestion")
        started = time.monotonic()
        for worker in [*workers, ingestion]:
            worker.start()
        stop.wait(SECONDS)
        stop.set()
        for worker in workers:
            worker.join(JOIN_GRACE_S)
        ingestion.join(JOIN_GRACE_S + SECONDS * 4)
        elapsed = time.monotonic() - started
        stuck = [worker.name for worker in [*workers, ingestion] if worker.is_alive()]
        records = server.recent_requests()
    try:
        assert not stuck, f"deadlock or hang: {stuck} still running"
        assert not failures, failures
        statuses = {key.split()[-1] for key in tally.counts if key.startswith("api ")}
        assert statuses <= {"200", "429", "abandoned"}, tally.counts
        assert tally.counts["chat answers"] >= CHATS and tally.counts["files failed"] == 0
        assert all(message.finished for conversation in store.conversations()
                   for message in store.messages(conversation.id) if message.role == "assistant")
        abandoned = [record for record in records if record.client_disconnected]
        endings = Counter(str(record.finish_reason) for record in abandoned)
        assert set(endings) <= {"cancelled", "stop", "length"}, endings  # each ended, most of them cancelled
        quarter = max(1, len(rss) // 4)
        early, late, peak = max(rss[:quarter]), max(rss[-quarter:]), max(rss)
        print(f"load: {elapsed:.0f} s, {dict(sorted(tally.counts.items()))}, of the last {len(records)} requests "
              f"recorded, {len(abandoned)} lost their client and ended {dict(endings)}; RSS baseline "
              f"{baseline / MIB:.0f} MiB, peak {peak / MIB:.0f} MiB, first "
              f"quarter max {early / MIB:.0f} MiB, last quarter max {late / MIB:.0f} MiB ({len(rss)} samples); "
              f"RSS over time (s: MiB): {rss_timeline(timeline)}")
        assert peak - baseline < PEAK_GROWTH_LIMIT
        assert late <= early + CLIMB_LIMIT  # no steady climb over the run
    finally:
        store.close()
        manager.unload()
