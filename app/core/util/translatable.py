"""Translatable text from the Qt-free core: a marker lupdate finds and Text, a string the UI can translate.

The core has no translations. Where its words reach the window (setting checks, memory plans, backend
reasons, source labels, the machine summary, errors), it returns a :class:`Text`: a ``str`` holding the
English, so the CLI, logs, JSON and every ``str`` API keep working unchanged, that also remembers its
translation context, its template and its arguments. The UI (``app.ui.i18n.render``) translates the
template and the nested Texts among the arguments, then formats, in the language shown.

Write every template through :func:`QT_TRANSLATE_NOOP` with literal strings, e.g.
``Text("MemoryPlan", QT_TRANSLATE_NOOP("MemoryPlan", "{0} fits"), (setting,))``: pyside6-lupdate
picks up such calls textually (resources/translations/update_translations.py reads app/core too).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

LAYOUT = ""
"""The context of a Text that only arranges others (a line of columns, lines of a report): nothing to translate."""
LIST_CONTEXT = "TextLists"


def QT_TRANSLATE_NOOP(context: str, source: str) -> str:
    """``source`` unchanged; the call marks it for pyside6-lupdate as translatable in ``context`` (Qt's
    name, which is what lupdate looks for)."""
    return source


class Text(str):
    """The English of ``template.format(*args)``, with what is needed to write it in another language.

    ``args`` may hold Texts (translated too), plain strings (names, paths: kept) and numbers (format
    specs such as ``{0:.1f}`` apply). ``lowercase``: the English is written in lower case (a declared
    label inside a sentence, "0 for automatic"); a translation is used as it is. Immutable, and equal to
    (and hashed as) its English.
    """

    context: str
    template: str
    args: tuple[object, ...]
    lowercase: bool

    def __new__(cls, context: str, template: str, args: tuple[object, ...] = (), lowercase: bool = False) -> Text:
        english = template.format(*args) if args else template
        instance = super().__new__(cls, english.lower() if lowercase else english)
        for name, value in (("context", context), ("template", template), ("args", tuple(args)),
                            ("lowercase", lowercase)):
            object.__setattr__(instance, name, value)
        return instance

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Text is immutable; cannot set {name}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Text, (self.context, self.template, self.args, self.lowercase))

    def with_template(self, template: str, convert: Callable[[Text], str] | None = None) -> str:
        """``template`` (this Text's own, or its translation) formatted with the arguments, each Text among
        them passed through ``convert`` first (e.g. the UI's translating ``render``)."""
        values = [convert(arg) if convert is not None and isinstance(arg, Text) else arg for arg in self.args]
        return template.format(*values) if values else template


def joined(parts: Iterable[str], separator: str) -> Text:
    """``parts`` one after the other with ``separator`` between them (e.g. lines with ``"\\n"``), each part
    translated on its own: the separator itself is not a translatable word."""
    items = tuple(parts)
    escaped = separator.replace("{", "{{").replace("}", "}}")
    return Text(LAYOUT, escaped.join(f"{{{index}}}" for index in range(len(items))), items)


_FULL_WIDTH_RANGES = ((0x2E80, 0x9FFF), (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF))
"""CJK punctuation, ideographs, kana, hangul and full-width forms: Chinese (Japanese, Korean) writing, which
takes no space after it."""


def is_full_width(character: str) -> bool:
    """Whether ``character`` is written full width (``。``, ``）``, ``请``): no space follows it between sentences."""
    return any(low <= ord(character) <= high for low, high in _FULL_WIDTH_RANGES)


_CLOSERS = "”’\"')]}）】」』》"
"""Closing quotes and brackets: a sentence ending in one is judged by what they enclose (``(0 bytes)`` ends in a
word, ``(moved or deleted?)`` in a question mark)."""


def _separator(before: str, after: str) -> str:
    """What goes between the sentence ``before`` and the next one, ``after``: a full stop where ``before`` ends in a
    letter or digit (``"。"`` when both are Chinese writing, else ``". "``), else a space after English and nothing
    after Chinese punctuation."""
    if before[-1].isspace():
        return ""
    end = before.rstrip(_CLOSERS)[-1:] or before[-1]
    if is_full_width(end):
        return "" if unicodedata.category(end)[0] in "PZ" else "。"
    if not end.isalnum():
        return " "
    chinese = any(map(is_full_width, before)) and any(map(is_full_width, after))  # "…允许的 512 MB" + "请拆分…"
    return "。" if chinese else ". "


def join_sentences(parts: Iterable[str]) -> str:
    """``parts`` one after the other as sentences of one paragraph, in the language they are written in: a part
    that ends without punctuation gets a full stop (``"the file is empty (0 bytes)"`` + ``"There is nothing to
    index in it."`` reads ``"the file is empty (0 bytes). There is nothing to index in it."``; Chinese takes
    ``。``, with no space after it); a space follows other English (or any that ends in ASCII punctuation), nothing
    follows Chinese punctuation such as ``。``. Closing quotes and brackets are looked through (``选择“自动”`` ends
    in Chinese, ``(moved or deleted?)`` in a question mark). A Chinese part ending in a name or number (``512 MB``)
    is told from English by both parts holding Chinese writing. Empty parts are left out. Works on text already in
    the language shown (the window's rendered strings)."""
    result = ""
    previous = ""
    for part in parts:
        if not part:
            continue
        if previous:
            result += _separator(previous, part)
        result += part
        previous = part
    return result


class Sentences(Text):
    """Sentences of one paragraph (a failure and its hint; a plan and its note), each translated on its own,
    joined by :func:`join_sentences` in the language shown: ``"Not a model. Choose a .gguf file."`` in English,
    ``"不是模型。请选择 .gguf 文件。"`` in Chinese, with no ASCII space after ``。``."""

    def __new__(cls, *parts: str) -> Sentences:
        instance = str.__new__(cls, join_sentences(parts))
        for name, value in (("context", LAYOUT), ("template", " ".join(f"{{{i}}}" for i in range(len(parts)))),
                            ("args", tuple(parts)), ("lowercase", False)):
            object.__setattr__(instance, name, value)
        return instance

    def __reduce__(self) -> tuple[Any, ...]:
        return (Sentences, self.args)

    def with_template(self, template: str, convert: Callable[[Text], str] | None = None) -> str:
        """The parts (each through ``convert`` when it is a Text) joined as sentences; ``template`` is not
        used (the join depends on the words, not on a translation)."""
        return join_sentences(convert(part) if convert is not None and isinstance(part, Text) else str(part)
                              for part in self.args)


def listed(items: Iterable[str]) -> str:
    """``a, b, c`` in English; the separator is translated too (Chinese lists take ``、``)."""
    result: str | None = None
    for item in items:
        result = item if result is None else Text(LIST_CONTEXT, QT_TRANSLATE_NOOP("TextLists", "{0}, {1}"),
                                                  (result, item))
    return result if result is not None else ""
