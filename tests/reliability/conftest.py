"""The reliability suite (issue 14): crash safety, faults, hostile input, load, sockets.

Every test here carries the ``reliability`` marker (run only them: ``pytest -m reliability``). Long runs
are configurable by environment variables; the defaults are the short version CI runs:
``UNIDESK_RELIABILITY_KILLS`` (kills per crash scenario), ``UNIDESK_LOAD_SECONDS`` (the load test's
duration), ``UNIDESK_LOAD_FILES`` (files it ingests), ``UNIDESK_FUZZ_EXAMPLES`` (hypothesis examples),
``UNIDESK_PARSER_FUZZ_EXAMPLES`` (batches of hostile files indexed through the reader process).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def env_int(name: str, default: int) -> int:
    """A positive whole number from the environment (``default`` when unset); a clear error when malformed."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise pytest.UsageError(f"{name} must be a whole number, not {raw!r}") from None
    if value < 1:
        raise pytest.UsageError(f"{name} must be at least 1, not {value}")
    return value


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).resolve().is_relative_to(HERE):
            item.add_marker(pytest.mark.reliability)
