"""Tests of chat-template rendering: model templates, sandboxing, errors and the ChatML fallback."""

from __future__ import annotations

import pytest

from app.core.engines.chat_formats import CHATML
from app.core.engines.chat_template import ChatTemplate, ChatTemplateError
from app.core.engines.requests import ChatMessage

CONVERSATION = (
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "你好"),
    ChatMessage("assistant", "Hi."),
    ChatMessage("user", "Again?"),
)

LLAMA3_STYLE = (
    "{{ bos_token }}{% for message in messages %}"
    "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}"
)

ALTERNATING_ONLY = (
    "{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
    "{% endif %}"
    "{{ '[' + message['role'] + '] ' + message['content'] + '\n' }}"
    "{% endfor %}"
)


def test_chatml_fallback_when_the_model_has_no_template() -> None:
    template = ChatTemplate(None)
    assert template.is_fallback
    rendered = template.render(CONVERSATION[:2])
    assert rendered == (
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n你好<|im_end|>\n<|im_start|>assistant\n"
    )


def test_model_template_gets_bos_and_the_generation_prompt() -> None:
    template = ChatTemplate(LLAMA3_STYLE, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>")
    rendered = template.render(CONVERSATION[1:2])
    assert not template.is_fallback
    assert rendered == (
        "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n你好<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )


def test_without_generation_prompt_the_assistant_header_is_left_out() -> None:
    template = ChatTemplate(CHATML.source)
    assert not template.render(CONVERSATION[:2], add_generation_prompt=False).endswith("assistant\n")


def test_raise_exception_in_a_template_becomes_a_chat_template_error() -> None:
    template = ChatTemplate(ALTERNATING_ONLY)
    assert template.render(CONVERSATION[1:3]) == "[user] 你好\n[assistant] Hi.\n"
    with pytest.raises(ChatTemplateError, match="roles must alternate") as caught:
        template.render(CONVERSATION)
    assert caught.value.hint


def test_templates_run_in_a_sandbox() -> None:
    escape = "{{ messages.__class__.__mro__[1].__subclasses__() }}"
    with pytest.raises(ChatTemplateError):
        ChatTemplate(escape).render(CONVERSATION)


def test_templates_cannot_mutate_their_inputs() -> None:
    mutating = "{% set _ = messages.append({'role': 'user', 'content': 'x'}) %}{{ messages | length }}"
    with pytest.raises(ChatTemplateError):
        ChatTemplate(mutating).render(CONVERSATION)


def test_a_template_that_does_not_parse_falls_back_to_chatml() -> None:
    template = ChatTemplate("{% for message in messages %}{{ message['content'] }")
    assert template.is_fallback
    assert template.render(CONVERSATION[1:2]).startswith("<|im_start|>user\n你好")


def test_tojson_keeps_chinese_readable_and_loop_controls_work() -> None:
    source = (
        "{% for message in messages %}{% if message['role'] == 'system' %}{% continue %}{% endif %}"
        "{{ message['content'] | tojson }};{% endfor %}"
    )
    assert ChatTemplate(source).render(CONVERSATION[:2], add_generation_prompt=False) == '"你好";'
