"""The retrieval check with the loaded chat model writing the questions (see app.core.kb.retrieval_check)."""

from __future__ import annotations

import re
import threading
from typing import Final

from app.core.engines.manager import EngineManager
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams
from app.core.kb.errors import KnowledgeBaseError
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.retrieval_check import (
    DEFAULT_SAMPLES,
    CheckProgress,
    CheckReport,
    QuestionWriter,
    run_retrieval_check,
    sample_passages,
)
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT: Final = "KnowledgeBaseErrors"
QUESTION_PROMPT: Final = (
    "Here is a passage from one of my documents.\n\n{passage}\n\n"
    "Write one question that this passage answers, in the passage's language, as a user would ask it "
    "without seeing the passage. Reply with the question only."
)
MAX_PASSAGE_CHARACTERS: Final = 2000
QUESTION_TOKENS: Final = 96
_THINKING: Final = re.compile(r"<think>.*?(</think>|\Z)", re.DOTALL)


def first_question(answer: str) -> str:
    """The question in a model's reply: thinking left out, the first non-empty line, quotes and labels trimmed."""
    text = _THINKING.sub("", answer)
    for line in text.splitlines():
        cleaned = line.strip().strip("\"'“”「」").strip()
        cleaned = re.sub(r"^(question|问题)\s*[:：]\s*", "", cleaned, flags=re.IGNORECASE)
        if cleaned:
            return cleaned
    return ""


def engine_question_writer(manager: EngineManager, *, timeout_s: float = 300.0, seed: int = 0) -> QuestionWriter:
    """A question writer that asks the loaded chat model (greedy, short answers)."""

    def write(passage: str) -> str:
        prompt = QUESTION_PROMPT.format(passage=passage[:MAX_PASSAGE_CHARACTERS])
        request = ChatRequest((ChatMessage("user", prompt),),
                              SamplingParams(temperature=0.0, max_tokens=QUESTION_TOKENS, seed=seed))
        stream = manager.submit(request)
        if not stream.wait(timeout_s):
            manager.cancel(request.request_id)
            stream.wait(30)
        if stream.error is not None:
            raise stream.error
        return first_question(stream.text)

    return write


def check_knowledge_base(
    knowledge_base: KnowledgeBase,
    write_question: QuestionWriter,
    *,
    samples: int = DEFAULT_SAMPLES,
    k: int = 5,
    seed: int | None = 0,
    progress: CheckProgress | None = None,
    cancel: threading.Event | None = None,
) -> CheckReport:
    """Sample ``samples`` passages, have questions written, report recall@``k`` with the current settings."""
    passages = sample_passages(knowledge_base.database_path, samples, seed)
    if not passages:
        raise KnowledgeBaseError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("KnowledgeBaseErrors", "There are no indexed passages to check.")),
            Text(CONTEXT, QT_TRANSLATE_NOOP("KnowledgeBaseErrors", "Add documents first: unidesk kb add PATH...")),
        )
    settings = knowledge_base.settings
    described = {
        "embedding model": knowledge_base.stats().active_model or "none (keywords only)",
        "chunk tokens": str(settings.int_value("kb.chunk_tokens")),
        "reranking": knowledge_base.rerank_plan().reason,
    }
    return run_retrieval_check(knowledge_base, passages, write_question, k=k, settings=described,
                               progress=progress, cancel=cancel)
