"""Chat formats for models without a chat template: choice by the vocabulary's special tokens, and rendering."""

from __future__ import annotations

import dataclasses

import pytest

from app.core.engines.chat_formats import CHATML, FORMATS, GEMMA, LLAMA3, PHI3, PLAIN, format_for_vocabulary
from app.core.engines.chat_template import ChatTemplate
from app.core.engines.requests import ChatMessage, SamplingParams

CONVERSATION = (
    ChatMessage("system", "Be brief."),
    ChatMessage("user", "你好"),
    ChatMessage("assistant", "Hi."),
    ChatMessage("user", "Again?"),
)


@pytest.mark.parametrize(
    ("special_tokens", "expected"),
    [
        ({"<start_of_turn>", "<end_of_turn>"}, GEMMA),
        ({"<|im_start|>", "<|im_end|>", "<|endoftext|>"}, CHATML),
        ({"<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|begin_of_text|>"}, LLAMA3),
        ({"<|user|>", "<|assistant|>", "<|end|>", "<|endoftext|>"}, PHI3),
        ({"<|im_start|>"}, PLAIN),  # one marker of a pair is not enough
        ({"<s>", "</s>"}, PLAIN),
    ],
)
def test_the_format_is_the_one_whose_markers_the_vocabulary_has(special_tokens: set[str], expected: object) -> None:
    assert format_for_vocabulary(special_tokens.__contains__) is expected


def test_chatml_wins_when_a_vocabulary_has_several_formats_markers() -> None:
    both = {*GEMMA.markers, *CHATML.markers}
    assert format_for_vocabulary(both.__contains__) is CHATML


def test_gemma_turns_fold_the_system_text_into_the_first_user_turn() -> None:
    template = ChatTemplate(None, bos_token="<bos>", fallback=GEMMA)
    assert template.fallback_format is GEMMA and template.is_fallback
    assert template.render(CONVERSATION) == (
        "<bos><start_of_turn>user\nBe brief.\n\n你好<end_of_turn>\n"
        "<start_of_turn>model\nHi.<end_of_turn>\n"
        "<start_of_turn>user\nAgain?<end_of_turn>\n"
        "<start_of_turn>model\n"
    )
    assert template.render(CONVERSATION[1:2], add_generation_prompt=False) == (
        "<bos><start_of_turn>user\n你好<end_of_turn>\n"
    )


def test_llama3_and_phi3_turns() -> None:
    llama3 = ChatTemplate(None, bos_token="<|begin_of_text|>", fallback=LLAMA3).render(CONVERSATION[:2])
    assert llama3 == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
        "<|start_header_id|>user<|end_header_id|>\n\n你好<|eot_id|>"
        "<|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    phi3 = ChatTemplate(None, fallback=PHI3).render(CONVERSATION[:2])
    assert phi3 == "<|system|>\nBe brief.<|end|>\n<|user|>\n你好<|end|>\n<|assistant|>\n"


def test_plain_turns_name_the_roles_and_stop_at_the_next_user_line() -> None:
    template = ChatTemplate(None, bos_token="<s>", fallback=PLAIN)
    assert template.render(CONVERSATION) == (
        "<s>System: Be brief.\n\nUser: 你好\n\nAssistant: Hi.\n\nUser: Again?\n\nAssistant:"
    )
    asked = SamplingParams(stop=("END", "\nUser:"))
    assert template.sampling_for(asked).stop == ("END", "\nUser:", "\nSystem:")
    assert template.sampling_for(SamplingParams()).stop == PLAIN.stop


@pytest.mark.parametrize("chat_format", FORMATS, ids=lambda chat_format: chat_format.name)
def test_formats_with_an_end_of_turn_token_add_no_stop_strings(chat_format: object) -> None:
    template = ChatTemplate(None, fallback=chat_format)  # type: ignore[arg-type]
    sampling = SamplingParams(stop=("x",))
    assert template.sampling_for(sampling) is sampling
    assert template.render(CONVERSATION).count("Again?") == 1


def test_the_models_own_template_adds_no_stop_strings_even_with_a_plain_fallback() -> None:
    template = ChatTemplate("{% for m in messages %}{{ m['content'] }}{% endfor %}", fallback=PLAIN)
    assert not template.is_fallback
    sampling = dataclasses.replace(SamplingParams(), max_tokens=3)
    assert template.sampling_for(sampling) is sampling


def test_a_broken_template_falls_back_to_the_vocabularys_format() -> None:
    template = ChatTemplate("{% for message in messages %}", bos_token="<bos>", fallback=GEMMA)
    assert template.fallback_format is GEMMA
    assert template.render(CONVERSATION[1:2]).startswith("<bos><start_of_turn>user\n你好")


def test_vllm_reads_the_markers_from_a_real_hugging_face_tokenizers_added_tokens() -> None:
    from transformers import AutoTokenizer

    from app.core.engines.backends.vllm import _added_tokens
    from tests.fixtures.hf_models import tokenizer_source_folder

    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_source_folder()))
    assert format_for_vocabulary(_added_tokens(tokenizer)) is PLAIN
    tokenizer.add_special_tokens({"additional_special_tokens": list(GEMMA.markers)})
    assert format_for_vocabulary(_added_tokens(tokenizer)) is GEMMA
    assert format_for_vocabulary(_added_tokens(object())) is PLAIN  # no get_added_vocab: no markers
