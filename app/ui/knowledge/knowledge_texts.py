"""Translated words for the knowledge-base panel: document states, failure kinds, indexing phases, durations."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.parsers.document_texts import failure_text
from app.core.kb.progress import IndexingProgress
from app.ui.i18n import duration_text, render, translate

# Every translate() names its context ("KnowledgeTexts") literally: pyside6-lupdate reads only literals.


def status_text(status: DocumentStatus) -> str:
    """The word for a document's state."""
    if status is DocumentStatus.INDEXED:
        return translate("KnowledgeTexts", "Indexed")
    if status is DocumentStatus.PENDING:
        return translate("KnowledgeTexts", "Pending")
    if status is DocumentStatus.INDEXING:
        return translate("KnowledgeTexts", "Indexing…")
    return translate("KnowledgeTexts", "Failed")


def failure_kind_text(kind: str | None) -> str:
    """Why a file failed, in a few words (``kind`` is one of the document error kinds)."""
    texts = {
        "missing": translate("KnowledgeTexts", "file not found"),
        "empty": translate("KnowledgeTexts", "no text in it"),
        "binary": translate("KnowledgeTexts", "not a text document"),
        "encrypted": translate("KnowledgeTexts", "protected by a password"),
        "corrupt": translate("KnowledgeTexts", "damaged file"),
        "unsupported": translate("KnowledgeTexts", "file type not supported"),
        "unreadable": translate("KnowledgeTexts", "cannot be read"),
        "too-large": translate("KnowledgeTexts", "over a size limit"),
        "timeout": translate("KnowledgeTexts", "took too long to read"),
        "crashed": translate("KnowledgeTexts", "crashed the reader"),
    }
    return texts.get(kind or "", translate("KnowledgeTexts", "unknown problem"))


def document_status_text(record: DocumentRecord) -> str:
    """``Indexed``, ``Keywords only (embedding…)``, ``Pending`` or ``Failed: damaged file``."""
    if record.status is DocumentStatus.FAILED:
        return translate("KnowledgeTexts", "Failed: {0}").format(failure_kind_text(record.error_kind))
    if record.stage == "keywords":
        return translate("KnowledgeTexts", "Keywords only (embedding…)")
    return status_text(record.status)


def stage_detail(record: DocumentRecord) -> str:
    """What search can do with the document now, for its tooltip ("" for documents not indexed)."""
    if record.status is not DocumentStatus.INDEXED:
        return ""
    if record.embedded:
        return translate("KnowledgeTexts", "Found by keywords and by meaning.")
    return translate("KnowledgeTexts", "Found by keywords now; by meaning once its vectors are computed.")


def failure_detail(record: DocumentRecord) -> str:
    """The core's own reason for a failed document, without the path it starts with, in the current language
    (when the core's words are recognised; anything else as the core wrote it)."""
    message = record.error_message or ""
    prefix = record.path + ": "
    detail = message[len(prefix):] if message.startswith(prefix) else message
    return render(failure_text(detail))


def notes_text(record: DocumentRecord) -> str:
    """What the reader noted about a document (one note a line), in the current language where the core's
    words are recognised; anything else as the core wrote it."""
    return "\n".join(render(failure_text(note)) for note in (record.notes or "").splitlines() if note.strip())


def phase_text(progress: IndexingProgress) -> str:
    """What the indexing job is doing now, in one line."""
    phase = progress.phase
    if phase == "starting":
        return translate("KnowledgeTexts", "Loading the embedding model…")
    if phase == "scanning":
        return translate("KnowledgeTexts", "Looking for documents…")
    if phase == "cleaning":
        return translate("KnowledgeTexts", "Tidying up the index…")
    if progress.paused and phase in ("indexing", "re-embedding"):
        return translate("KnowledgeTexts", "Paused while an answer is written; indexing carries on after it…")
    if phase == "re-embedding":
        return translate("KnowledgeTexts", "Re-embedding documents for the new embedding model…")
    if phase == "indexing" and progress.files_searchable:
        return translate(
            "KnowledgeTexts", "Indexing documents: {0} of {1} findable by keywords, {2} by meaning…"
        ).format(progress.files_searchable, progress.files_total, progress.files_indexed)
    if phase == "indexing":
        return translate("KnowledgeTexts", "Indexing documents…")
    if phase == "cancelled":
        return translate("KnowledgeTexts", "Cancelled. Finished documents were kept; the rest continue next time.")
    if phase == "failed":
        return translate("KnowledgeTexts", "Indexing stopped because of an error.")
    return finished_text(progress)


def finished_text(progress: IndexingProgress) -> str:
    """The summary of a finished run."""
    parts = [translate("KnowledgeTexts", "{0} indexed").format(progress.files_indexed)]
    if progress.files_skipped:
        parts.append(translate("KnowledgeTexts", "{0} unchanged").format(progress.files_skipped))
    if progress.files_failed:
        parts.append(translate("KnowledgeTexts", "{0} failed").format(progress.files_failed))
    if progress.files_removed:
        parts.append(translate("KnowledgeTexts", "{0} removed").format(progress.files_removed))
    return translate("KnowledgeTexts", "Done: {0}.").format(translate("KnowledgeTexts", ", ").join(parts))


def did_something(progress: IndexingProgress) -> bool:
    """Whether a finished run changed the knowledge base (a run that found nothing new is no news to the user)."""
    return bool(progress.files_indexed or progress.files_failed or progress.files_removed)


def knowledge_base_summary(documents: Sequence[DocumentRecord]) -> str:
    """What the knowledge base holds and how search finds it: ``3 documents, all searchable``, or
    ``4 documents: 2 searchable, 1 by keywords only (meaning coming), 1 failed`` ("" when it is empty)."""
    if not documents:
        return ""
    counts = {"indexed": 0, "keywords": 0, "waiting": 0, "failed": 0}
    for record in documents:
        stage = record.stage
        counts[stage if stage in counts else "waiting"] += 1
    if counts["indexed"] == len(documents):
        if len(documents) == 1:
            return translate("KnowledgeTexts", "1 document, searchable")
        return translate("KnowledgeTexts", "{0} documents, all searchable").format(len(documents))
    parts = {
        "indexed": translate("KnowledgeTexts", "{0} searchable"),
        "keywords": translate("KnowledgeTexts", "{0} by keywords only (meaning coming)"),
        "waiting": translate("KnowledgeTexts", "{0} waiting"),
        "failed": translate("KnowledgeTexts", "{0} failed"),
    }
    listed = translate("KnowledgeTexts", ", ").join(
        template.format(counts[stage]) for stage, template in parts.items() if counts[stage])
    if len(documents) == 1:
        return translate("KnowledgeTexts", "1 document: {0}").format(listed)
    return translate("KnowledgeTexts", "{0} documents: {1}").format(len(documents), listed)


def rate_text(progress: IndexingProgress) -> str:
    """``120 chunks/s · about 2 min 5 s left`` (empty until there is a rate)."""
    if progress.phase != "indexing" or progress.chunks_per_second <= 0:
        return ""
    rate = translate("KnowledgeTexts", "{0} chunks/s").format(f"{progress.chunks_per_second:.0f}")
    if progress.eta_seconds is None:
        return rate
    return translate("KnowledgeTexts", "{0} · about {1} left").format(rate, duration_text(progress.eta_seconds))
