"""Text: a str holding the English that keeps its translation context, template and arguments; lists, layout
lines, and UserFacingError built from Texts."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from app.core.util.errors import UserFacingError
from app.core.util.translatable import (
    LAYOUT,
    LIST_CONTEXT,
    QT_TRANSLATE_NOOP,
    Sentences,
    Text,
    join_sentences,
    joined,
    listed,
)


def test_a_text_is_its_english_and_remembers_how_it_was_made() -> None:
    inner = Text("Plan", "{0} chats", (4,))
    text = Text("Plan", "{0} fit in {1:.1f} GiB", (inner, 9.125))

    assert text == "4 chats fit in 9.1 GiB" and isinstance(text, str)
    assert type(str(text)) is str and str(text) == "4 chats fit in 9.1 GiB"
    assert (text.context, text.template, text.args) == ("Plan", "{0} fit in {1:.1f} GiB", (inner, 9.125))
    assert f"[{text}]" == "[4 chats fit in 9.1 GiB]" and text.startswith("4 chats")
    assert hash(text) == hash("4 chats fit in 9.1 GiB") and repr(text) == repr("4 chats fit in 9.1 GiB")
    assert json.dumps({"why": text}) == '{"why": "4 chats fit in 9.1 GiB"}'


def test_a_text_cannot_be_changed_and_survives_copies_and_pickling() -> None:
    text = Text("Plan", "{0} of {1}", (Text("Plan", "all"), 2))
    with pytest.raises(AttributeError):
        text.context = "Other"  # type: ignore[misc]
    for again in (copy.deepcopy(text), pickle.loads(pickle.dumps(text))):
        assert isinstance(again, Text) and again == text
        assert (again.context, again.template, again.args) == (text.context, text.template, text.args)
        assert isinstance(again.args[0], Text) and again.args[0].context == "Plan"


def test_a_lowercase_text_writes_its_english_in_lower_case() -> None:
    label = Text("SettingsDeclaration", "Automatic", lowercase=True)
    assert label == "automatic" and label.template == "Automatic" and label.lowercase


def test_the_marker_returns_its_source() -> None:
    assert QT_TRANSLATE_NOOP("Any", "Hello {0}") == "Hello {0}"


def test_with_template_formats_another_wording_converting_only_the_texts() -> None:
    text = Text("Plan", "{0} x {1}", (Text("Plan", "tokens"), "f16"))
    assert text.with_template("{1} / {0}", lambda inner: inner.upper()) == "f16 / TOKENS"
    assert text.with_template("{1} / {0}") == "f16 / tokens"


def test_joined_lines_have_nothing_to_translate_but_their_parts() -> None:
    lines = joined([Text("Summary", "RAM"), "a {brace}", "last"], "\n")
    assert lines == "RAM\na {brace}\nlast"
    assert lines.context == LAYOUT and lines.template == "{0}\n{1}\n{2}"
    assert joined([], "\n") == "" and joined(["x", "y"], " {} ") == "x {} y"


def test_listed_items_read_as_today_with_a_translatable_separator() -> None:
    items = listed(["auto", Text("SettingsDeclaration", "Off", lowercase=True), "f16"])
    assert items == "auto, off, f16"
    assert isinstance(items, Text) and items.context == LIST_CONTEXT and items.template == "{0}, {1}"
    assert listed(["only"]) == "only" and listed([]) == ""


def test_a_user_facing_error_made_of_texts_reads_as_one_english_line() -> None:
    message, hint = Text("Errors", "{0} is missing.", ("model.gguf",)), Text("Errors", "Choose another file.")
    error = UserFacingError(message, hint)

    assert str(error) == "model.gguf is missing. Choose another file."
    assert error.message is message and error.hint is hint
    whole = error.text
    assert isinstance(whole, Text) and whole.args == (message, hint) and whole == str(error)
    assert isinstance(str(error), Text)  # what a window shows with str(error) can be translated
    plain = UserFacingError("Plain words.")
    assert str(plain) == "Plain words." and plain.text == "Plain words." and not isinstance(plain.text, Text)


CHINESE = {"{0} is missing.": "缺少 {0}。", "Choose another file.": "请另选一个文件。", "it is broken": "文件已损坏"}


def in_chinese(text: Text) -> str:
    """A stand-in for the window's render: each Text's template looked up in a small Chinese table."""
    return text.with_template(CHINESE.get(text.template, text.template), in_chinese)


def test_sentences_keep_the_english_space_and_take_none_after_chinese_punctuation() -> None:
    message, hint = Text("Errors", "{0} is missing.", ("model.gguf",)), Text("Errors", "Choose another file.")
    error = UserFacingError(message, hint)

    assert str(error) == "model.gguf is missing. Choose another file."  # what the CLI prints
    assert in_chinese(error.text) == "缺少 model.gguf。请另选一个文件。"
    assert "。 " not in in_chinese(error.text)
    fragment = UserFacingError(Text("Errors", "it is broken"), hint)
    assert str(fragment) == "it is broken. Choose another file."  # an English part without its full stop gets one
    assert in_chinese(fragment.text) == "文件已损坏。请另选一个文件。"  # a Chinese part without its full stop gets one


def test_join_sentences_follows_the_language_each_part_is_written_in() -> None:
    assert join_sentences(["Saved.", "The changes take effect later."]) == "Saved. The changes take effect later."
    assert join_sentences(["已保存。", "更改将在加载模型后生效。"]) == "已保存。更改将在加载模型后生效。"
    assert join_sentences(["失败（内存不足）", "请重试。"]) == "失败（内存不足）。请重试。"
    assert join_sentences(["Failed.", "请重试。"]) == "Failed. 请重试。"
    assert join_sentences(["请选择“自动”", "然后重试。"]) == "请选择“自动”。然后重试。"  # Chinese inside the quotes
    assert join_sentences(["Choose “auto”", "Then retry."]) == "Choose “auto”. Then retry."
    assert join_sentences(["", "Only.", ""]) == "Only."


def test_join_sentences_gives_a_part_without_its_full_stop_one() -> None:
    # English that ends in a letter or digit (looked through closing brackets and quotes) takes ". "
    assert join_sentences(["its part a.xml is compressed 1000:1, as zip bombs are", "It is refused."]) == (
        "its part a.xml is compressed 1000:1, as zip bombs are. It is refused.")
    assert join_sentences(["kb.top_k = 0 is below the minimum 1", "Allowed: 1 to 50."]) == (
        "kb.top_k = 0 is below the minimum 1. Allowed: 1 to 50.")
    assert join_sentences(["the file is empty (0 bytes)", "Add it."]) == "the file is empty (0 bytes). Add it."
    # English that ends in punctuation (also inside closing brackets or quotes) keeps its own and takes a space
    for ended in ("Saved.", "Really?", "Stop!", "Note:", "first;", "Loading…", "(moved or deleted?)", 'He said "no."'):
        assert join_sentences([ended, "Next."]) == ended + " Next."
    # Chinese without punctuation takes "。", with none no space, also when it ends in a name or number
    assert join_sentences(["文件已损坏", "请重试。"]) == "文件已损坏。请重试。"
    assert join_sentences(["文件是空的（0 字节）", "请重试。"]) == "文件是空的（0 字节）。请重试。"
    assert join_sentences(["读取所需内存超过 512 MB", "请拆分文件。"]) == "读取所需内存超过 512 MB。请拆分文件。"
    assert join_sentences(["文件不存在（被删除了？）", "请检查路径。"]) == "文件不存在（被删除了？）请检查路径。"
    # mixed: English before Chinese (an untranslated part), a Chinese name in English, English after Chinese
    assert join_sentences(["it is broken", "请重试。"]) == "it is broken. 请重试。"
    assert join_sentences(["/home/张三/报告.txt: the file is 5 MB", "Split it."]) == (
        "/home/张三/报告.txt: the file is 5 MB. Split it.")
    assert join_sentences(["文件已损坏", "Retry."]) == "文件已损坏。Retry."
    assert join_sentences(["ends with a space ", "Next."]) == "ends with a space Next."


def test_sentences_survive_pickling_and_are_their_english() -> None:
    whole = Sentences(Text("Errors", "{0} is missing.", ("a",)), "Plain hint.")
    restored = pickle.loads(pickle.dumps(whole))
    assert isinstance(restored, Sentences) and restored == whole == "a is missing. Plain hint."
    assert restored.args == whole.args
