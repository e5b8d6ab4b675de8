"""OpenAI-style API errors: an HTTP status plus {"error": {"message", "type", "param", "code"}}."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    """An error answered to the client as OpenAI does; the server keeps running."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        error_type: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_type = error_type
        self.param = param
        self.code = code

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.error_type, "param": self.param, "code": self.code}}


def bad_request(message: str, param: str | None = None, code: str | None = None) -> ApiError:
    return ApiError(400, message, param=param, code=code)


def model_not_found(model: str) -> ApiError:
    return ApiError(
        404, f"The model '{model}' does not exist or you do not have access to it. See /v1/models.",
        param="model", code="model_not_found",
    )


def context_length_exceeded(message: str) -> ApiError:
    return ApiError(400, message, param="messages", code="context_length_exceeded")


def missing_token() -> ApiError:
    return ApiError(
        401, "You didn't provide an API key. Send it as 'Authorization: Bearer <token>'; "
        "`unidesk serve` prints the token.", code="missing_api_key",
    )


def wrong_token() -> ApiError:
    return ApiError(401, "Incorrect API key provided. `unidesk serve` prints the right one.", code="invalid_api_key")


def body_too_large(limit: int) -> ApiError:
    return ApiError(413, f"The request body is larger than {limit} bytes.", code="request_too_large")


def server_error(message: str, status: int = 500) -> ApiError:
    return ApiError(status, message, error_type="server_error", code=None)


def too_many_requests() -> ApiError:
    return ApiError(429, "UniDesk's local API is answering as many requests as it allows; try again shortly.",
                    error_type="rate_limit_error", code="too_many_requests")


def forbidden_caller(message: str) -> ApiError:
    return ApiError(403, message, error_type="permission_error", code="forbidden")


def answer_stalled(seconds: float) -> ApiError:
    return ApiError(504, f"The model produced nothing for {seconds:g} s; the request was cancelled.",
                    error_type="server_error", code="engine_stalled")
