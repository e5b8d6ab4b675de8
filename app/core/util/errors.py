"""Errors meant for the user: one clear line saying what is wrong and what to do."""

from __future__ import annotations


class UserFacingError(Exception):
    """An error whose message is shown to the user as is (CLI: one line on stderr).

    ``message`` says what is wrong; ``hint`` (optional) says what to do about it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} {self.hint}"
        return self.message
