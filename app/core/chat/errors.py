"""Errors of the chat layer, each one clear line for the user plus what to do."""

from __future__ import annotations

from app.core.util.errors import UserFacingError


class ChatError(UserFacingError):
    """Something about conversations went wrong; the app keeps running."""


class ConversationNotFoundError(ChatError):
    def __init__(self, what: str, identifier: str) -> None:
        super().__init__(f"There is no {what} {identifier!r}.", "It may have been deleted; pick another one.")


class ChatDatabaseError(ChatError):
    """The conversations file cannot be opened or read."""


class ImportFormatError(ChatError):
    """A file to import is not a UniDesk conversation export."""


class QuestionTooLongError(ChatError):
    """The question (with the system prompt and room for the answer) does not fit the context."""

    def __init__(self, message: str, hint: str, *, needed_tokens: int, context_tokens: int) -> None:
        super().__init__(message, hint)
        self.needed_tokens = needed_tokens
        self.context_tokens = context_tokens
