"""Shared pieces of the engine, answering and API tests: real engines, waiting on events, a corpus, a citing model."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.config import Settings
from app.core.engines.manager import EngineManager
from app.core.engines.requests import GREEDY, SamplingParams
from app.core.engines.stream import RequestStream
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from tests.core.planner.fake_hardware import cpu_only
from tests.fixtures import documents as docs
from tests.fixtures.kb_corpus import CHINESE_DOCUMENTS, ENGLISH_DOCUMENTS
from tests.integration.crafted_gguf import byte_token, scripted_vocabulary, write_scripted_gguf

GENERATION_PROMPT = "<|im_start|>assistant\n"  # the test models' ChatML template opens answers with this
ENGINE_SETTINGS = {"engine.threads": 2, "engine.warmup": False}


def greedy(max_tokens: int, **changes: object) -> SamplingParams:
    return dataclasses.replace(GREEDY, max_tokens=max_tokens, **changes)  # type: ignore[arg-type]


def load_manager(model: Path, context_length: int, parallel_chats: int = 2, threads: int = 2) -> EngineManager:
    """A real EngineManager with llama.cpp and ``model`` loaded (2 threads unless told, no warm-up)."""
    settings = Settings({**ENGINE_SETTINGS, "engine.threads": threads})
    manager = EngineManager(lambda: cpu_only(), lambda: settings)
    manager.load(model, context_length=context_length, parallel_chats=parallel_chats)
    return manager


def wait_until(
    condition: Callable[[], bool], waiting_for: str, *, give_up: Callable[[], str | None] = lambda: None,
    timeout_s: float = 30.0,
) -> None:
    """Poll ``condition`` until it holds. Fails saying what was awaited on timeout, or as soon as
    ``give_up()`` returns a reason (e.g. "the answer finished first") while the condition is still false."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        reason = give_up()
        if reason is not None and not condition():
            raise AssertionError(f"gave up waiting for {waiting_for}: {reason}")
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s:.0f} s for {waiting_for}")
        time.sleep(0.005)


def finished_first(stream: RequestStream) -> Callable[[], str | None]:
    """A ``give_up`` for :func:`wait_until`: the request ended before the awaited moment."""
    return lambda: f"the request finished first ({stream.finish_reason})" if stream.finished else None


def write_citing_model(path: Path, answer: str = "[2]") -> Path:
    """A model whose greedy answer to any chat prompt is ``answer`` (ASCII) followed by end-of-sequence."""
    vocabulary = scripted_vocabulary()
    chain = [byte_token(vocabulary, 0x0A)] + [byte_token(vocabulary, ord(character)) for character in answer]
    if len(set(chain)) != len(chain):
        raise ValueError("every character of the scripted answer must differ from the others and from newline")
    successors = {chain[index]: chain[index + 1] for index in range(len(chain) - 1)}
    successors[chain[-1]] = vocabulary.eos_id
    return write_scripted_gguf(path, successors)


@dataclass(frozen=True)
class Corpus:
    folder: Path
    report: Path
    bees: Path
    panda: Path


def write_corpus(folder: Path) -> Corpus:
    """A three-page PDF (one topic per page), a Markdown file with headings, a Chinese text."""
    folder.mkdir(parents=True, exist_ok=True)
    report = docs.write_pdf(folder / "report.pdf", [
        ["Quarterly report", "Revenue grew in the northern region."],
        ["The submarine cable project connects the two islands.", "Engineers laid the cable in March."],
        ["Page three lists the risks of the lighthouse renovation."],
    ], title="Quarterly report")
    bees = folder / "honeybees.md"
    bees.write_text(ENGLISH_DOCUMENTS["honeybees.md"], encoding="utf-8")
    panda = folder / "panda.txt"
    panda.write_text(CHINESE_DOCUMENTS["panda.txt"], encoding="utf-8")
    return Corpus(folder, report, bees, panda)


def index_corpus(knowledge_base: KnowledgeBase, corpus: Corpus) -> None:
    summary = knowledge_base.indexer().run([corpus.folder], ProgressTracker(), threading.Event())
    assert summary.files_indexed == 3 and summary.files_failed == 0, summary


def document_id(knowledge_base: KnowledgeBase, path: Path) -> int:
    return next(record.id for record in knowledge_base.documents() if Path(record.path) == path.resolve())
