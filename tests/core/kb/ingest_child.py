"""Run in a child process by the streamed-reading tests (so it can be killed midway): index one file.

``python -m tests.core.kb.ingest_child KB_FOLDER MODEL_FOLDER FILE PART_BYTES``: the real indexer, reader
process, parsers, chunker, SQLite and chromadb, with the embedding model in MODEL_FOLDER.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path


def main(argv: list[str]) -> int:
    from app.core.config import Settings
    from app.core.kb.indexer import IndexingOptions
    from app.core.kb.knowledge_base import EmbedderPool, KnowledgeBase
    from app.core.kb.parse_worker import ParseLimits
    from app.core.kb.progress import ProgressTracker

    folder, model, file, part_bytes = argv
    settings = Settings({"kb.embedding_model": model})
    limits = ParseLimits(part_bytes=int(part_bytes))
    options = dataclasses.replace(IndexingOptions.from_settings(settings), limits=limits)
    with KnowledgeBase(Path(folder), settings, EmbedderPool(device="cpu")) as knowledge_base:
        summary = knowledge_base.indexer(options).run([Path(file)], ProgressTracker(), threading.Event())
    print(summary.files_indexed, summary.files_failed, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
