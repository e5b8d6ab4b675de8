"""Chat formats for a model that carries no chat template, chosen by the special tokens its vocabulary has.

Many GGUF files of base models (and some conversions) have no ``tokenizer.chat_template``. Their
vocabulary still tells which format the model family was trained on: Gemma has ``<start_of_turn>``,
Qwen and SmolLM ``<|im_start|>``, Llama 3 ``<|start_header_id|>``. Writing ChatML for a model whose
vocabulary lacks ChatML's tokens gives it text it never saw, and it never emits an end-of-turn token,
so it rambles to the token limit. A vocabulary with none of the known markers gets plain
``User:``/``Assistant:`` turns and stops at the next ``User:`` line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.core.engines.load_texts import said
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text


@dataclass(frozen=True)
class ChatFormat:
    """A named chat layout: a Jinja template (Hugging Face conventions), the special tokens that
    identify it in a vocabulary, and stop strings it needs (for formats without an end-of-turn token).
    """

    name: str
    source: str
    markers: tuple[str, ...] = ()
    stop: tuple[str, ...] = ()


CHATML = ChatFormat(
    name="ChatML",
    source=(
        "{% for message in messages %}"
        "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
    ),
    markers=("<|im_start|>", "<|im_end|>"),
)

GEMMA = ChatFormat(
    name="Gemma",
    source=(
        # Gemma has no system role: the system text opens the first user turn.
        "{% if messages and messages[0]['role'] == 'system' %}"
        "{% set system = messages[0]['content'] + '\\n\\n' %}{% set turns = messages[1:] %}"
        "{% else %}{% set system = '' %}{% set turns = messages %}{% endif %}"
        "{{ bos_token }}"
        "{% for message in turns %}"
        "{{ '<start_of_turn>' + ('model' if message['role'] == 'assistant' else message['role']) + '\\n'"
        " + (system if loop.first else '') + message['content'] + '<end_of_turn>\\n' }}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ '<start_of_turn>model\\n' }}{% endif %}"
    ),
    markers=("<start_of_turn>", "<end_of_turn>"),
)

LLAMA3 = ChatFormat(
    name="Llama 3",
    source=(
        "{{ bos_token }}"
        "{% for message in messages %}"
        "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] + '<|eot_id|>' }}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
    ),
    markers=("<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
)

PHI3 = ChatFormat(
    name="Phi-3",
    source=(
        "{% for message in messages %}"
        "{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}"
    ),
    markers=("<|user|>", "<|assistant|>", "<|end|>"),
)

PLAIN = ChatFormat(
    name="plain text",
    source=(
        "{{ bos_token }}"
        "{% for message in messages %}"
        "{{ {'system': 'System', 'assistant': 'Assistant'}.get(message['role'], 'User') + ': '"
        " + message['content'] + '\\n\\n' }}"
        "{% endfor %}"
        "{% if add_generation_prompt %}{{ 'Assistant:' }}{% endif %}"
    ),
    stop=("\nUser:", "\nSystem:"),
)

FORMATS: tuple[ChatFormat, ...] = (CHATML, GEMMA, LLAMA3, PHI3)
"""Formats recognised by their marker tokens, in the order they are tried."""


def format_for_vocabulary(is_special_token: Callable[[str], bool]) -> ChatFormat:
    """The first known format whose marker tokens are all special tokens of the vocabulary, else PLAIN."""
    for chat_format in FORMATS:
        if all(is_special_token(marker) for marker in chat_format.markers):
            return chat_format
    return PLAIN


def fallback_note(chat_format: ChatFormat) -> Text:
    """What the user is told when the model's own template is missing or broken and ``chat_format`` is used."""
    if chat_format is PLAIN:
        return said(QT_TRANSLATE_NOOP(
            "EngineLoad",
            "The model has no usable chat template and no known chat tokens; using plain User:/Assistant: turns."))
    return said(QT_TRANSLATE_NOOP(
        "EngineLoad", "The model has no usable chat template; using the {0} format, which its special tokens suggest."),
        chat_format.name)
