"""Reading OpenAI request bodies into engine requests and writing OpenAI response bodies."""

from __future__ import annotations

import base64
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.core.engines.metrics import FinishReason, RequestMetrics
from app.core.engines.requests import ChatMessage, Role, SamplingParams
from app.core.services.api.errors import bad_request

MAX_STOP_STRINGS = 4
MAX_EMBEDDING_INPUTS = 2048
_ROLE_ALIASES: dict[str, Role] = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}


@dataclass(frozen=True)
class ChatCompletionCall:
    """A validated /v1/chat/completions request (``max_tokens`` None: as many as fit)."""

    model: str
    messages: tuple[ChatMessage, ...]
    stream: bool
    include_usage: bool
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    stop: tuple[str, ...]
    seed: int | None

    def sampling(self, default_temperature: float, default_top_p: float, max_tokens: int) -> SamplingParams:
        """OpenAI semantics: only temperature and top-p shape sampling (top-k and min-p are off)."""
        return SamplingParams(
            temperature=default_temperature if self.temperature is None else self.temperature,
            top_p=default_top_p if self.top_p is None else self.top_p,
            top_k=0, min_p=0.0, seed=self.seed, max_tokens=max_tokens, stop=self.stop,
        )


def _number(body: dict[str, Any], name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise bad_request(f"'{name}' must be a number from {low:g} to {high:g}, not {value!r}.", name,
                          "invalid_value")
    return float(value)


def _integer(body: dict[str, Any], name: str, low: int) -> int | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise bad_request(f"'{name}' must be an integer of at least {low}, not {value!r}.", name, "invalid_value")
    return value


def _content_text(content: Any, index: int) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                kind = part.get("type") if isinstance(part, dict) else type(part).__name__
                raise bad_request(f"messages[{index}]: only text content is supported, not {kind!r}.",
                                  f"messages[{index}].content", "unsupported_content")
            texts.append(part["text"])
        return "".join(texts)
    raise bad_request(f"messages[{index}].content must be a string or a list of text parts.",
                      f"messages[{index}].content", "invalid_type")


def _messages(raw: Any) -> tuple[ChatMessage, ...]:
    if not isinstance(raw, list) or not raw:
        raise bad_request("'messages' must be a non-empty list.", "messages", "invalid_type")
    messages = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise bad_request(f"messages[{index}] must be an object.", f"messages[{index}]", "invalid_type")
        role = _ROLE_ALIASES.get(str(item.get("role")))
        if role is None:
            raise bad_request(
                f"messages[{index}].role {item.get('role')!r} is not supported (system, developer, user, assistant).",
                f"messages[{index}].role", "invalid_value",
            )
        messages.append(ChatMessage(role, _content_text(item.get("content"), index)))
    return tuple(messages)


def parse_chat_completion(body: Any) -> ChatCompletionCall:
    """Validate a chat completion body; raises ApiError (400) naming the bad field."""
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.", None, "invalid_type")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise bad_request("'model' is required.", "model", "missing_required_parameter")
    messages = _messages(body.get("messages"))
    if _integer(body, "n", 1) not in (None, 1):
        raise bad_request("Only n = 1 is supported.", "n", "unsupported_value")
    if body.get("tools"):
        raise bad_request("Tools are not supported by this server.", "tools", "unsupported_parameter")
    if body.get("logprobs"):
        raise bad_request("logprobs are not supported by this server.", "logprobs", "unsupported_parameter")
    stop = body.get("stop")
    stops = (stop,) if isinstance(stop, str) else tuple(stop) if isinstance(stop, list) else ()
    if stop is not None and (not all(isinstance(s, str) for s in stops) or len(stops) > MAX_STOP_STRINGS):
        raise bad_request("'stop' must be a string or a list of up to 4 strings.", "stop", "invalid_value")
    stream = body.get("stream", False)
    options = body.get("stream_options") or {}
    if not isinstance(stream, bool) or not isinstance(options, dict):
        raise bad_request("'stream' must be true or false.", "stream", "invalid_type")
    max_tokens = _integer(body, "max_completion_tokens", 1)
    max_tokens = max_tokens if max_tokens is not None else _integer(body, "max_tokens", 1)
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise bad_request("'seed' must be an integer.", "seed", "invalid_type")
    return ChatCompletionCall(
        model=model, messages=messages, stream=stream, include_usage=bool(options.get("include_usage")),
        temperature=_number(body, "temperature", 0.0, 2.0), top_p=_number(body, "top_p", 1e-9, 1.0),
        max_tokens=max_tokens, stop=tuple(s for s in stops if s), seed=seed,
    )


def openai_finish_reason(reason: FinishReason | None) -> str:
    return "length" if reason == "length" else "stop"


def usage(metrics: RequestMetrics) -> dict[str, int]:
    return {
        "prompt_tokens": metrics.prompt_tokens, "completion_tokens": metrics.generated_tokens,
        "total_tokens": metrics.prompt_tokens + metrics.generated_tokens,
    }


def completion_body(
    completion_id: str, model: str, text: str, reason: FinishReason | None, metrics: RequestMetrics
) -> dict[str, Any]:
    return {
        "id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None,
                     "finish_reason": openai_finish_reason(reason)}],
        "usage": usage(metrics), "system_fingerprint": None,
    }


def chunk_body(
    completion_id: str, model: str, created: int, delta: dict[str, str], reason: str | None
) -> dict[str, Any]:
    return {
        "id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}],
        "system_fingerprint": None,
    }


def usage_chunk_body(completion_id: str, model: str, created: int, metrics: RequestMetrics) -> dict[str, Any]:
    return {
        "id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
        "choices": [], "usage": usage(metrics), "system_fingerprint": None,
    }


def model_entry(model_id: str, created: int) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": "unidesk"}


@dataclass(frozen=True)
class EmbeddingCall:
    model: str
    inputs: tuple[str, ...]
    base64: bool


def parse_embeddings(body: Any) -> EmbeddingCall:
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.", None, "invalid_type")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise bad_request("'model' is required.", "model", "missing_required_parameter")
    raw = body.get("input")
    inputs = (raw,) if isinstance(raw, str) else tuple(raw) if isinstance(raw, list) else ()
    if not inputs or not all(isinstance(text, str) for text in inputs):
        raise bad_request("'input' must be a string or a non-empty list of strings (token arrays are not "
                          "supported).", "input", "invalid_type")
    if len(inputs) > MAX_EMBEDDING_INPUTS:
        raise bad_request(f"At most {MAX_EMBEDDING_INPUTS} inputs per request.", "input", "invalid_value")
    if any(not text for text in inputs):
        raise bad_request("'input' must not contain empty strings.", "input", "invalid_value")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise bad_request("'encoding_format' must be 'float' or 'base64'.", "encoding_format", "invalid_value")
    return EmbeddingCall(model, inputs, encoding == "base64")


def embedding_body(
    model: str, vectors: Sequence[Sequence[float]], as_base64: bool, tokens: int
) -> dict[str, Any]:
    data = []
    for index, vector in enumerate(vectors):
        values = [float(value) for value in vector]
        encoded: Any = (
            base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode("ascii") if as_base64 else values
        )
        data.append({"object": "embedding", "index": index, "embedding": encoded})
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}
