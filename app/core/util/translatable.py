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


def listed(items: Iterable[str]) -> str:
    """``a, b, c`` in English; the separator is translated too (Chinese lists take ``、``)."""
    result: str | None = None
    for item in items:
        result = item if result is None else Text(LIST_CONTEXT, QT_TRANSLATE_NOOP("TextLists", "{0}, {1}"),
                                                  (result, item))
    return result if result is not None else ""
