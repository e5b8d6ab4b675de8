"""Embedding servers for tests of the embedding child process (imported by the child): real model, real deaths.

A test names one as ``Embedder(..., child_server="tests.core.kb.model_process_servers:...")``; the marker
file is named by ``UNIDESK_TEST_DEATH_MARKER`` in the environment the child inherits.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.core.kb.embedding_server import EmbeddingServer

MARKER_VARIABLE = "UNIDESK_TEST_DEATH_MARKER"


class DiesOnceMidBatch(EmbeddingServer):
    """Sends the first part of an ``encode`` answer, then is killed (SIGKILL), once: the marker file remembers."""

    def handle(self, operation: str, *arguments: Any) -> Iterator[Any]:
        marker = Path(os.environ[MARKER_VARIABLE])
        for index, part in enumerate(super().handle(operation, *arguments)):
            yield part
            if operation == "encode" and index == 0 and not marker.exists():
                marker.write_text(str(os.getpid()))
                os.kill(os.getpid(), signal.SIGKILL)


class DiesOnEveryEncode(EmbeddingServer):
    """Killed (SIGKILL) by every ``encode`` request, after loading normally."""

    def handle(self, operation: str, *arguments: Any) -> Iterator[Any]:
        if operation == "encode":
            os.kill(os.getpid(), signal.SIGKILL)
        yield from super().handle(operation, *arguments)
