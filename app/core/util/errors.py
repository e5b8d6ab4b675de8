"""Errors meant for the user: one clear line saying what is wrong and what to do."""

from __future__ import annotations

from app.core.util.translatable import Sentences


class UserFacingError(Exception):
    """An error whose message is shown to the user as is (CLI: one line on stderr).

    ``message`` says what is wrong; ``hint`` (optional) says what to do about it. Either may be a
    :class:`~app.core.util.translatable.Text` (the window shows it translated). ``str(error)`` is the English
    "message hint", itself a Text (:attr:`text`: :class:`~app.core.util.translatable.Sentences`, so Chinese takes no
    space after its ``。``), so a window that shows ``str(error)`` can translate it.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.text

    @property
    def text(self) -> str:
        """Message and hint as one translatable Text (the English is ``str(error)``)."""
        if self.hint:
            return Sentences(self.message, self.hint)
        return self.message
