"""CodeHighlighter: colours keywords, strings, comments and numbers inside fenced code blocks of a document."""

from __future__ import annotations

import re
from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument, QTextFormat

KEYWORDS = frozenset(
    "and as assert async await break case catch class const continue def default del do elif else enum except "
    "export extends false final finally fn for from func function go if impl import in interface is lambda let "
    "loop match mod mut new nil none not null or package pass pub raise return self static struct super switch "
    "this throw trait true try type typeof use var void while with yield int float double char bool string str "
    "echo fi then done esac local select insert update delete where join create table values into".split()
)
HASH_COMMENT_LANGUAGES = frozenset(
    "python py sh bash zsh shell console yaml yml toml ruby rb r perl pl make makefile dockerfile ini conf "
    "cmake nim julia jl elixir ex powershell ps1".split()
)
DASH_COMMENT_LANGUAGES = frozenset("sql lua haskell hs".split())
_NUMBER = re.compile(r"\b(?:0[xX][0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?)\b")
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"?|'(?:[^'\\]|\\.)*'?|`[^`]*`?")
_BLOCK_COMMENT_OPEN = "/*"
_BLOCK_COMMENT_CLOSE = "*/"
IN_BLOCK_COMMENT = 1


@dataclass(frozen=True)
class CodeColors:
    keyword: str
    string: str
    comment: str
    number: str


LIGHT_COLORS = CodeColors(keyword="#a626a4", string="#50a14f", comment="#8a8f98", number="#c18401")
DARK_COLORS = CodeColors(keyword="#c678dd", string="#98c379", comment="#7f848e", number="#d19a66")


def _format(color: str, *, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    char_format = QTextCharFormat()
    char_format.setForeground(QColor(color))
    if bold:
        char_format.setFontWeight(QFont.Weight.DemiBold)
    char_format.setFontItalic(italic)
    return char_format


def comment_marker(language: str) -> str:
    """The line-comment marker of ``language`` ("#", "--" or "//")."""
    lowered = language.lower()
    if lowered in HASH_COMMENT_LANGUAGES:
        return "#"
    if lowered in DASH_COMMENT_LANGUAGES:
        return "--"
    return "//"


class CodeHighlighter(QSyntaxHighlighter):
    """A small, language-agnostic highlighter: it only touches blocks the Markdown importer marked as code.

    Not a parser: one pass per line with a handful of patterns, and a block state for ``/* ... */``.
    """

    def __init__(self, document: QTextDocument, *, dark: bool = False) -> None:
        super().__init__(document)
        self._set_formats(DARK_COLORS if dark else LIGHT_COLORS)

    def set_dark(self, dark: bool, *, rehighlight: bool = True) -> None:
        """Use the colours for a dark (or light) palette; the code on show is coloured again when they change,
        unless ``rehighlight`` is False (the caller is about to replace the text anyway)."""
        colors = DARK_COLORS if dark else LIGHT_COLORS
        if colors == self.colors:
            return
        self._set_formats(colors)
        if rehighlight:
            self.rehighlight()

    def _set_formats(self, colors: CodeColors) -> None:
        self.colors: CodeColors = colors
        self._keyword = _format(colors.keyword, bold=True)
        self._string = _format(colors.string)
        self._comment = _format(colors.comment, italic=True)
        self._number = _format(colors.number)

    def highlightBlock(self, text: str) -> None:
        block_format = self.currentBlock().blockFormat()
        if not block_format.hasProperty(QTextFormat.Property.BlockCodeFence):
            self.setCurrentBlockState(0)
            return
        language = block_format.stringProperty(QTextFormat.Property.BlockCodeLanguage)
        start = 0
        if self.previousBlockState() == IN_BLOCK_COMMENT:
            start = self._continue_block_comment(text, 0)
            if start < 0:
                return
        self.setCurrentBlockState(0)
        self._highlight_line(text, start, comment_marker(language))

    def _continue_block_comment(self, text: str, start: int) -> int:
        """Colour from ``start`` to the end of a block comment; where to go on, or -1 if it runs on."""
        end = text.find(_BLOCK_COMMENT_CLOSE, start)
        if end < 0:
            self.setFormat(start, len(text) - start, self._comment)
            self.setCurrentBlockState(IN_BLOCK_COMMENT)
            return -1
        end += len(_BLOCK_COMMENT_CLOSE)
        self.setFormat(start, end - start, self._comment)
        return end

    def _highlight_line(self, text: str, start: int, line_comment: str) -> None:
        for match in _WORD.finditer(text, start):
            if match.group().lower() in KEYWORDS:
                self.setFormat(match.start(), match.end() - match.start(), self._keyword)
        for match in _NUMBER.finditer(text, start):
            self.setFormat(match.start(), match.end() - match.start(), self._number)
        position = start
        while position < len(text):
            string = _STRING.search(text, position)
            comment = text.find(line_comment, position)
            block = text.find(_BLOCK_COMMENT_OPEN, position) if line_comment == "//" else -1
            candidates = [index for index in (string.start() if string else -1, comment, block) if index >= 0]
            if not candidates:
                return
            first = min(candidates)
            if first == comment:
                self.setFormat(comment, len(text) - comment, self._comment)
                return
            if first == block:
                position = self._continue_block_comment(text, block + len(_BLOCK_COMMENT_OPEN))
                if position < 0:
                    self.setFormat(block, len(text) - block, self._comment)
                    return
                self.setFormat(block, position - block, self._comment)
                continue
            assert string is not None
            self.setFormat(string.start(), string.end() - string.start(), self._string)
            position = max(string.end(), position + 1)
