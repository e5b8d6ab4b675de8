"""Test-only parsers for the reader process (named as "tests.core.kb.reader_hooks:parse").

The file's name says what to do: ``kill*`` kills the reader process, ``hog*`` allocates memory until the
limit stops it, ``hang*`` never returns; anything else is read by the real parser. Every read is
logged (one name a line) in the file named by the environment variable READS_LOG, when set, so tests can
count what the reader process read.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from app.core.kb.documents import ParsedDocument
from app.core.kb.parsers import parse_document

HOOK = "tests.core.kb.reader_hooks:parse"
READS_LOG = "UNIDESK_TEST_READS_LOG"


def parse(path: Path) -> ParsedDocument:
    log = os.environ.get(READS_LOG)
    if log:
        with open(log, "a", encoding="utf-8") as stream:
            stream.write(path.name + "\n")
    if path.name.startswith("kill"):
        os.kill(os.getpid(), signal.SIGKILL)
    if path.name.startswith("hog"):
        hoard = []
        while True:  # 64 MB at a time, touched so it is resident too
            hoard.append(bytearray(64 * 1024 * 1024))
            hoard[-1][::4096] = b"x" * len(hoard[-1][::4096])
    if path.name.startswith("hang"):
        while True:
            time.sleep(1)
    return parse_document(path)


def reads(log: Path) -> list[str]:
    """Names read so far by reader processes, in order."""
    return log.read_text(encoding="utf-8").split() if log.exists() else []
