"""Fixtures shared by the integration tests."""

from __future__ import annotations

from collections import defaultdict

import pytest

from app.core.engines.stream import RequestStream


@pytest.fixture()
def pushed_pieces(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Every piece an engine pushes into any stream, by request id.

    Iterating a stream joins what arrived since the last read, so how many pieces a reader
    sees depends on how fast it reads; the pushes show how the engine delivered the text.
    """
    pushed: dict[str, list[str]] = defaultdict(list)
    original_push = RequestStream.push

    def recording_push(stream: RequestStream, text: str, wake: bool = True) -> None:
        if text:
            pushed[stream.request_id].append(text)
        original_push(stream, text, wake)

    monkeypatch.setattr(RequestStream, "push", recording_push)
    return pushed
