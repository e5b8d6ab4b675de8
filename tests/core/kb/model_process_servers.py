"""Embedding servers for tests of the embedding child process (imported by the child): real model, real deaths.

A test names one as ``Embedder(..., child_server="tests.core.kb.model_process_servers:...")``; the marker
file is named by ``UNIDESK_TEST_DEATH_MARKER`` in the environment the child inherits.
"""

from __future__ import annotations

import logging
import os
import signal
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from app.core.kb.embedding_server import EmbeddingServer

MARKER_VARIABLE = "UNIDESK_TEST_DEATH_MARKER"
FAIL_TEXT = "fail, please"

log = logging.getLogger(__name__)


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


class LogsWhenEncoding(EmbeddingServer):
    """Logs before each ``encode`` (a warning with its traceback, a Python warning, a transformers warning);
    the text FAIL_TEXT makes it fail unexpectedly (a RuntimeError)."""

    def handle(self, operation: str, *arguments: Any) -> Iterator[Any]:
        if operation == "encode":
            from transformers.utils import logging as transformers_logging

            try:
                raise KeyError("a missing key")
            except KeyError:
                log.warning("encoding %d texts", len(arguments[0]), exc_info=True)
            warnings.warn("a deprecated option", FutureWarning, stacklevel=1)
            transformers_logging.get_logger("transformers.modeling_utils").warning("a transformers warning")
            if FAIL_TEXT in arguments[0]:
                raise RuntimeError("the server broke")
        yield from super().handle(operation, *arguments)
