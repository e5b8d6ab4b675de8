"""The admission gate: lets something outside the engine (the memory guardian) pause new requests, with a reason."""

from __future__ import annotations

import threading

from app.core.engines.base import EngineError


class RequestsPausedError(EngineError):
    """A new request was refused because admission is paused (running ones go on)."""


class AdmissionGate:
    """Open (new requests admitted) or closed with a reason and a hint. Thread-safe; cheap to check."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._refusal: tuple[str, str | None] | None = None

    def refuse(self, reason: str, hint: str | None = None) -> None:
        """Refuse new requests from now on, saying ``reason`` (and ``hint``: what the user can do)."""
        with self._lock:
            self._refusal = (reason, hint)

    def admit(self) -> None:
        """Admit new requests again."""
        with self._lock:
            self._refusal = None

    @property
    def admitting(self) -> bool:
        """True while new requests are admitted."""
        return self._refusal is None

    def check(self) -> None:
        """Raise :class:`RequestsPausedError` with the reason while new requests are refused."""
        refusal = self._refusal
        if refusal is not None:
            raise RequestsPausedError(*refusal)
