"""Renders chat messages into a prompt with a model's Jinja chat template (sandboxed)."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, NoReturn

from app.core.engines.base import EngineError
from app.core.engines.chat_formats import CHATML, ChatFormat
from app.core.engines.load_texts import said
from app.core.engines.requests import ChatMessage, SamplingParams
from app.core.util.translatable import QT_TRANSLATE_NOOP

LOGGER = logging.getLogger(__name__)

class ChatTemplateError(EngineError):
    """The model's chat template refused or failed to render a conversation."""


class _TemplateRaised(Exception):
    """What ``raise_exception(...)`` inside a template throws."""


def _raise_exception(message: str) -> NoReturn:
    raise _TemplateRaised(message)


def _strftime_now(format_string: str) -> str:
    return datetime.now().strftime(format_string)


def _to_json(value: Any, indent: int | None = None, ensure_ascii: bool = False, sort_keys: bool = False) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)


class ChatTemplate:
    """A compiled chat template plus the special-token texts it may refer to.

    Rendering follows the conventions of Hugging Face chat templates (which GGUF files
    carry as ``tokenizer.chat_template``): ``trim_blocks``/``lstrip_blocks``, the variables
    ``messages``, ``add_generation_prompt``, ``bos_token``, ``eos_token`` and the helpers
    ``raise_exception``, ``strftime_now`` and ``tojson``. Templates run in Jinja's immutable
    sandbox, so a malicious model file cannot reach Python objects.
    """

    def __init__(
        self, source: str | None, bos_token: str = "", eos_token: str = "", fallback: ChatFormat = CHATML
    ) -> None:
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.fallback_format: ChatFormat | None = None if source else fallback
        """The format used instead of the model's own template (None when the model's is used)."""
        self._template = self._compile(source or fallback.source, fallback)

    @property
    def is_fallback(self) -> bool:
        return self.fallback_format is not None

    @property
    def stop(self) -> tuple[str, ...]:
        """Stop strings the format needs on top of the request's (plain text turns have no end token)."""
        return self.fallback_format.stop if self.fallback_format is not None else ()

    def sampling_for(self, sampling: SamplingParams) -> SamplingParams:
        """``sampling`` with the format's own stop strings added (the same object when there are none)."""
        extra = tuple(stop for stop in self.stop if stop not in sampling.stop)
        return replace(sampling, stop=sampling.stop + extra) if extra else sampling

    def _compile(self, source: str, fallback: ChatFormat) -> Any:
        from jinja2 import TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        environment = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
        )
        environment.filters["tojson"] = _to_json
        environment.globals["raise_exception"] = _raise_exception
        environment.globals["strftime_now"] = _strftime_now
        try:
            return environment.from_string(source)
        except TemplateError as error:
            if self.fallback_format is not None:
                raise
            LOGGER.warning("The model's chat template does not parse (%s); using %s instead.", error, fallback.name)
            self.fallback_format = fallback
            return environment.from_string(fallback.source)

    def render(self, messages: Sequence[ChatMessage], add_generation_prompt: bool = True) -> str:
        """The prompt text for ``messages``; raises ChatTemplateError when the template refuses them."""
        from jinja2 import TemplateError

        try:
            rendered: str = self._template.render(
                messages=[{"role": message.role, "content": message.content} for message in messages],
                add_generation_prompt=add_generation_prompt,
                bos_token=self.bos_token,
                eos_token=self.eos_token,
            )
        except _TemplateRaised as refusal:
            raise ChatTemplateError(
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "The model's chat template rejected the conversation: {0}"), str(refusal)),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "Check the order of roles (some models need user and assistant to alternate).")),
            ) from refusal
        except (TemplateError, TypeError, ValueError, KeyError) as error:
            raise ChatTemplateError(
                said(QT_TRANSLATE_NOOP("EngineLoad", "The model's chat template failed: {0}"), str(error)),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "The model file's template may be broken; try another build of the model.")),
            ) from error
        return rendered
