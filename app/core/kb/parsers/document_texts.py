"""The words of document problems (what is wrong with a file, what to do) as Texts, recognised from their English.

The parsers write their problems and hints in English; :func:`document_text` finds the template among
:data:`DOCUMENT_TEMPLATES` that reads exactly so and returns it as a :class:`~app.core.util.translatable.Text` with the
same English (the values in the holes kept as they are, recognised again where they are problems themselves).
The knowledge base stores only the English of a failure, so the window recognises it again the same way.
"""

from __future__ import annotations

import re
import string
from typing import Final

from app.core.util.translatable import QT_TRANSLATE_NOOP, Sentences, Text

CONTEXT: Final = "DocumentErrors"

DOCUMENT_TEMPLATES: Final = (
    # what is wrong
    QT_TRANSLATE_NOOP("DocumentErrors", "the file is empty (0 bytes)"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it contains only whitespace"),
    QT_TRANSLATE_NOOP("DocumentErrors", "the file does not exist (moved or deleted?)"),
    QT_TRANSLATE_NOOP("DocumentErrors", "no such file or folder"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this is a folder, not a file"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this is not a regular file"),
    QT_TRANSLATE_NOOP("DocumentErrors", "permission denied"),
    QT_TRANSLATE_NOOP("DocumentErrors", "the file cannot be read ({0})"),
    QT_TRANSLATE_NOOP("DocumentErrors", ".{0} files are not documents UniDesk can read"),
    QT_TRANSLATE_NOOP("DocumentErrors", "its type is unknown and its content is not text"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this is not a text file: {0}"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it looks like UTF-16 text but is not valid UTF-16"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it contains NUL bytes, which text files never do"),
    QT_TRANSLATE_NOOP("DocumentErrors", "too many of its bytes are control characters"),
    QT_TRANSLATE_NOOP("DocumentErrors", "its bytes are not text in any encoding UniDesk knows"),
    QT_TRANSLATE_NOOP("DocumentErrors", "no page of this PDF could be read"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this PDF has no text layer (scanned pages?)"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this PDF has no text layer and text recognition found no text in it"),
    QT_TRANSLATE_NOOP("DocumentErrors", "text recognition is turned off"),
    QT_TRANSLATE_NOOP("DocumentErrors", "text recognition is not installed"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this picture is damaged or not a PNG/JPEG image"),
    QT_TRANSLATE_NOOP("DocumentErrors", "no text was recognised in this picture"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this PDF is protected by a password"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this PDF is AES-encrypted and the 'cryptography' package is not installed"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this PDF is damaged and cannot be read ({0})"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this web page has no visible text"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this Word document contains no text"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this Word file is password-protected (or an old .doc file renamed to .docx)"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this is not a valid Word (.docx) file ({0})"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this is not a valid Word (.docx) file"),
    QT_TRANSLATE_NOOP("DocumentErrors", "the file is {0} MB, more than the {1} MB limit for one file"),
    QT_TRANSLATE_NOOP("DocumentErrors", "reading it took longer than {0} s, so it was stopped"),
    QT_TRANSLATE_NOOP("DocumentErrors", "reading a part of it took longer than {0} s, so it was stopped"),
    QT_TRANSLATE_NOOP("DocumentErrors", "reading it needed more than the {0} MB of memory allowed"),
    QT_TRANSLATE_NOOP("DocumentErrors", "reading it crashed the reader process ({0})"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it was killed, probably for using too much memory"),
    QT_TRANSLATE_NOOP("DocumentErrors", "reading it was interrupted {0} times (the app stopped meanwhile)"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it would inflate to {0} MB, more than the {1} MB allowed"),
    QT_TRANSLATE_NOOP("DocumentErrors", "its part {0} is compressed {1}:1, as zip bombs are"),
    QT_TRANSLATE_NOOP("DocumentErrors", "it holds {0} parts, more than the {1} allowed"),
    QT_TRANSLATE_NOOP("DocumentErrors", "its structure is nested too deeply to read"),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "it is packed with a compression method or ZIP version that cannot be unpacked ({0})"),
    QT_TRANSLATE_NOOP("DocumentErrors", "this Word (.docx) file is damaged: its list of parts points outside the file"),
    QT_TRANSLATE_NOOP("DocumentErrors", "tables not read: this PDF's structure is damaged ({0}); its text was read."),
    QT_TRANSLATE_NOOP("DocumentErrors", "its page count is inconsistent"),
    # what to do
    QT_TRANSLATE_NOOP("DocumentErrors", "There is nothing to index in it."),
    QT_TRANSLATE_NOOP("DocumentErrors", "There is nothing to index; add it again once it has content."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Check the path, or remove the entry if the file is gone for good."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Add the folder itself to add its files."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Give your user read access to the file and retry."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Check the disk or network share, then retry."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Supported: text, Markdown, reStructuredText, PDF, DOCX, HTML, CSV and source code."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Supported: text, Markdown, reStructuredText, PDF, DOCX, HTML, CSV, source code and pictures "
                      "of text."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Turn on text recognition (kb.ocr) in Settings, or run OCR on it and add the result."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Turn on text recognition (kb.ocr) in Settings to add pictures of text."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Open it in an image viewer and save it again, then retry."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Install the rapidocr and onnxruntime packages, then add the picture again."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Save it as .docx (Word: File > Save As) and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Save it as .csv and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Export it to PDF and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Save it as .docx or PDF and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Save it as .docx or plain text and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Convert it to PDF or HTML and add that."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Only text documents can be added; if it is a document, save it as text, PDF or DOCX."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Re-save or re-export the PDF, then retry."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Re-save or re-export the PDF to keep its tables, then add it again."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Run OCR on it (for example with ocrmypdf) and add the result."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Remove the password (open it and print or export to a new PDF), then add that file."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Install it (pip install cryptography) or remove the encryption, then retry."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Re-download it or re-export it from the program that made it, then retry."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Open it in Word, remove the password (or save as .docx), then add it again."),
    QT_TRANSLATE_NOOP("DocumentErrors", "Open and re-save it in Word or LibreOffice, then add it again."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Split it into smaller files, or raise 'Largest file' (kb.max_file_mb) in the settings."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "The file may be damaged or unusually complex; it is not retried until it changes. Raise "
                      "'Time to read one file' (kb.read_timeout_seconds) in the settings and add it again to retry."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "Split the file, or raise 'Memory to read one file' (kb.read_memory_mb) in the settings and "
                      "add it again."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "The file is not retried until it changes; if it opens in other programs, re-save it and "
                      "add it again."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "It is not retried until it changes; remove it and add it again to retry."),
    QT_TRANSLATE_NOOP("DocumentErrors",
                      "It is refused before anything is unpacked; if it is a genuine document, re-save it in Word."),
)
HINTS: Final = tuple(template for template in DOCUMENT_TEMPLATES if template[:1].isupper())
PATH_TEMPLATE: Final = QT_TRANSLATE_NOOP("DocumentErrors", "{0}: {1}")
"""A problem after the file it is about."""


def _pattern(template: str) -> re.Pattern[str]:
    parts = []
    for literal, name, _spec, _conversion in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append("(.+?)")
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


_PATTERNS: Final = tuple((template, _pattern(template)) for template in DOCUMENT_TEMPLATES)


def document_text(english: str | None) -> str | None:
    """``english`` as a Text of :data:`DOCUMENT_TEMPLATES` (a Text already, None, or unknown words: as they are)."""
    if english is None or isinstance(english, Text):
        return english
    for template, pattern in _PATTERNS:
        match = pattern.match(english)
        if match is not None:
            args = tuple(document_text(value) or value for value in match.groups())
            return Text(CONTEXT, template, args)
    return english


def located(path: str, problem: str) -> Text:
    """``"<path>: <problem>"``, the problem recognised (:func:`document_text`)."""
    return Text(CONTEXT, PATH_TEMPLATE, (path, document_text(problem) or problem))


def failure_text(english: str) -> str:
    """A failure's stored English (``"<problem>"`` or ``"<problem>. <hint>"``, without the path) as a Text that
    reads exactly so, when its parts are known problems and hints; otherwise ``english`` as it is. (Failures
    stored before problems got their full stop, ``"<problem> <hint>"``, are recognised too and read with it.)"""
    for hint in HINTS:
        if english.endswith(" " + hint):
            before = english[: -len(hint) - 1]
            for problem in (before.removesuffix("."), before):  # the stop the join added; "…was read." has its own
                known = document_text(problem)
                if isinstance(known, Text):
                    return Sentences(known, Text(CONTEXT, hint))
    return document_text(english) or english
