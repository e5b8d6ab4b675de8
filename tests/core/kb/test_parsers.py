"""parse_document on real files of every format, and its DocumentError for every kind of bad file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.kb.documents import ParsedDocument
from app.core.kb.parsers import DOCUMENT_ERROR_KINDS, DocumentError, parse_document
from tests.fixtures.documents import (
    CHINESE_TEXT,
    CSV_TEXT,
    ENGLISH_PARAGRAPHS,
    HTML_PAGE,
    JAPANESE_TEXT,
    MARKDOWN_TEXT,
    PYTHON_SOURCE,
    RST_TEXT,
    TRADITIONAL_CHINESE_TEXT,
    add_pdf_outline,
    encrypt_pdf,
    write_bytes,
    write_corrupt_docx,
    write_corrupt_pdf,
    write_docx,
    write_ole_container,
    write_pdf,
    write_text,
)

PDF_PAGES = [
    ["Chapter one starts here.", "It has two lines (and parentheses)."],
    ["The second page talks about retrieval."],
    [],  # a page without text
    ["Page four ends the document."],
]


def sections_of(document: ParsedDocument) -> list[tuple[str, tuple[str, ...], str]]:
    return [(s.kind, s.heading_path, s.text) for page in document.pages for s in page.sections]


def assert_pages_are_their_sections(document: ParsedDocument) -> None:
    for page in document.pages:
        assert page.text == "\n\n".join(section.text for section in page.sections)


# -- text and encodings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "encoding", "detected"),
    [
        (CHINESE_TEXT, "gbk", "gb18030"),
        (CHINESE_TEXT, "gb18030", "gb18030"),
        (TRADITIONAL_CHINESE_TEXT, "big5", "big5"),
        (JAPANESE_TEXT, "shift_jis", "shift_jis"),
        (CHINESE_TEXT, "utf-16", "utf-16"),
        (CHINESE_TEXT, "utf-8-sig", "utf-8-sig"),
        ("\n".join(ENGLISH_PARAGRAPHS), "utf-8", "utf-8"),
    ],
)
def test_text_files_decode_exactly(tmp_path: Path, text: str, encoding: str, detected: str) -> None:
    document = parse_document(write_text(tmp_path / "notes.txt", text, encoding))
    assert document.format == "text" and document.encoding == detected
    assert [page.page_number for page in document.pages] == [None]
    assert document.pages[0].text == text
    assert document.title == "notes" and document.notes == ()


def test_windows_newlines_become_unix_newlines(tmp_path: Path) -> None:
    document = parse_document(write_bytes(tmp_path / "crlf.txt", b"one\r\ntwo\rthree\n"))
    assert document.pages[0].text == "one\ntwo\nthree\n"


def test_unknown_extension_with_text_content_is_read_as_text(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "README", "Read me first.\n", "utf-8"))
    assert document.format == "text" and document.pages[0].text == "Read me first.\n"


def test_data_formats_are_read_as_text(tmp_path: Path) -> None:
    for name, content in [("config.json", '{"a": 1}'), ("c.yaml", "a: 1\n"), ("app.log", "INFO start\n")]:
        document = parse_document(write_text(tmp_path / name, content, "utf-8"))
        assert document.pages[0].text == content


# -- structured formats ------------------------------------------------------------------------


def test_markdown_headings_and_code_fences(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "guide.md", MARKDOWN_TEXT, "utf-8"))
    assert document.format == "markdown" and document.title == "Markdown Guide"
    sections = sections_of(document)
    assert ("heading", ("Introduction", "Install"), "## Install") in sections
    code = [s for s in sections if s[0] == "code"]
    assert len(code) == 1 and code[0][1] == ("Introduction", "Install")
    assert "# Not A Heading" in code[0][2] and code[0][2].startswith("```python")
    assert ("text", ("Introduction", "Setext Heading", "Deeper"), "Deep text.") in sections
    assert ("text", ("Second Part",), "The end.") in sections
    assert not any("Not A Heading" in path for _, paths, _ in sections for path in paths)
    assert_pages_are_their_sections(document)


def test_rst_underlined_headings_and_literal_blocks(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "manual.rst", RST_TEXT, "utf-8"))
    assert document.title == "Main Title"
    sections = sections_of(document)
    assert ("text", ("Main Title", "Section One", "Subsection"), "Sub text.") in sections
    assert ("text", ("Main Title", "Section Two"), "Last words.") in sections
    assert ("code", ("Main Title", "Section One"), "    code line one\n    code line two") in sections


def test_html_keeps_visible_text_and_headings_only(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "help.html", HTML_PAGE, "utf-8"))
    text = document.pages[0].text
    assert document.title == "UniDesk Help"
    for hidden in ("SCRIPT TEXT", "MORE SCRIPT", "NOSCRIPT", "HIDDEN TEXT", "color: red"):
        assert hidden not in text
    sections = sections_of(document)
    assert ("text", ("Getting started",), "Drag files into the window. Fish & chips <3.") in sections
    assert ("text", ("Getting started", "Adding folders"), "Folders are scanned recursively.") in sections
    assert ("code", ("Getting started", "Adding folders"), "def main():\n    return 42") in sections
    assert ("text", ("Getting started", "Tables"), "Key | Value\nk | 5") in sections


def test_html_in_a_declared_legacy_encoding(tmp_path: Path) -> None:
    page = f'<html><head><meta charset="gbk"></head><body><h1>标题</h1><p>{CHINESE_TEXT}</p></body></html>'
    document = parse_document(write_text(tmp_path / "zh.htm", page, "gbk"))
    assert document.encoding == "gbk"
    assert sections_of(document) == [("heading", ("标题",), "标题"), ("text", ("标题",), CHINESE_TEXT)]


def test_csv_rows_name_their_columns(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "people.csv", CSV_TEXT, "utf-8"))
    assert sections_of(document) == [
        (
            "table",
            (),
            "name | role | city\nname: Alice | role: engineer | city: Paris\nname: Bob | city: Berlin\n"
            "name: Carol | role: manager | city: New York, NY",
        )
    ]
    tsv = parse_document(write_text(tmp_path / "t.tsv", "a\tb\n1\t2\n", "utf-8"))
    assert tsv.format == "tsv" and tsv.pages[0].text == "a | b\na: 1 | b: 2"


def test_python_source_is_code_cut_at_top_level_definitions(tmp_path: Path) -> None:
    document = parse_document(write_text(tmp_path / "module.py", PYTHON_SOURCE, "utf-8"))
    sections = sections_of(document)
    assert {kind for kind, _, _ in sections} == {"code"}
    assert [path for _, path, _ in sections] == [(), ("def first",), ("class Second",), ()]
    assert sections[1][2].startswith("@decorator\ndef first")
    assert "class NotAClass" in sections[1][2]  # inside a docstring: not a definition
    other = parse_document(write_text(tmp_path / "main.go", "package main\n\nfunc main() {}\n", "utf-8"))
    assert sections_of(other) == [("code", (), "package main\n\nfunc main() {}")]


def test_docx_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    document = parse_document(write_docx(tmp_path / "guide.docx"))
    assert document.format == "docx" and document.title == "Field Guide"
    sections = sections_of(document)
    installation = "Download the installer and run it.\n\nThe first start builds the index."
    assert ("text", ("Field Guide", "Installation"), installation) in sections
    linux = "Use the AppImage; no root rights are needed."
    assert ("text", ("Field Guide", "Installation", "On Linux"), linux) in sections
    assert ("text", ("Field Guide", "Usage"), CHINESE_TEXT) in sections
    table = "Setting | Default\nSetting: chunk tokens | Default: 512\nSetting: top k | Default: 5"
    assert ("table", ("Field Guide", "Usage"), table) in sections
    assert_pages_are_their_sections(document)


def test_pdf_pages_keep_their_numbers(tmp_path: Path) -> None:
    document = parse_document(write_pdf(tmp_path / "report.pdf", PDF_PAGES, title="Annual Report"))
    assert document.format == "pdf" and document.title == "Annual Report"
    assert [(page.page_number, page.text) for page in document.pages] == [
        (1, "Chapter one starts here.\nIt has two lines (and parentheses)."),
        (2, "The second page talks about retrieval."),
        (4, "Page four ends the document."),
    ]


def test_pdf_outline_gives_heading_paths(tmp_path: Path) -> None:
    plain = write_pdf(tmp_path / "plain.pdf", PDF_PAGES)
    document = parse_document(
        add_pdf_outline(plain, tmp_path / "outlined.pdf", [("Part A", 0, 0), ("Details", 1, 1), ("Part B", 3, 0)])
    )
    paths = [(page.page_number, page.sections[0].heading_path) for page in document.pages]
    assert paths == [(1, ("Part A",)), (2, ("Part A", "Details")), (4, ("Part B",))]


def test_pdf_with_an_empty_user_password_opens(tmp_path: Path) -> None:
    plain = write_pdf(tmp_path / "plain.pdf", PDF_PAGES)
    document = parse_document(encrypt_pdf(plain, tmp_path / "owner-only.pdf", user_password=""))
    assert document.pages[1].text == "The second page talks about retrieval."


def test_a_pdf_page_that_fails_is_skipped_with_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pypdf import PageObject

    original = PageObject.extract_text

    def failing_on_page_two(self: PageObject, *args: object, **kwargs: object) -> str:
        text = original(self)
        if "second page" in text:
            raise KeyError("/Font")
        return text

    monkeypatch.setattr(PageObject, "extract_text", failing_on_page_two)
    document = parse_document(write_pdf(tmp_path / "partial.pdf", PDF_PAGES))
    assert [page.page_number for page in document.pages] == [1, 4]
    assert len(document.notes) == 1 and document.notes[0].startswith("page 2 skipped")


# -- bad files: each its own kind and message --------------------------------------------------


def _error(path: Path) -> DocumentError:
    with pytest.raises(DocumentError) as caught:
        parse_document(path)
    error = caught.value
    assert error.kind in DOCUMENT_ERROR_KINDS
    assert str(path) in error.message and error.path == path
    return error


def test_bad_files_each_get_their_own_error(tmp_path: Path) -> None:
    plain_pdf = write_pdf(tmp_path / "plain.pdf", PDF_PAGES)
    cases = {
        "missing": (tmp_path / "gone.txt", "does not exist"),
        "empty": (write_bytes(tmp_path / "empty.txt", b""), "empty (0 bytes)"),
        "binary": (write_bytes(tmp_path / "photo.txt", os.urandom(3000) + b"\x00"), "not a text file"),
        "encrypted": (encrypt_pdf(plain_pdf, tmp_path / "locked.pdf", "secret"), "password"),
        "corrupt": (write_corrupt_pdf(tmp_path / "broken.pdf"), "damaged"),
        "unsupported": (write_bytes(tmp_path / "model.gguf", b"GGUF"), ".gguf files are not documents"),
    }
    for kind, (path, words) in cases.items():
        error = _error(path)
        assert (error.kind, words in error.message) == (kind, True), error.message
        assert error.hint


def test_more_bad_inputs(tmp_path: Path) -> None:
    assert "NUL" in _error(write_bytes(tmp_path / "nul.txt", b"some text\x00more text")).message
    assert _error(write_pdf(tmp_path / "scanned.pdf", [[], []])).kind == "empty"
    assert "scanned" in _error(tmp_path / "scanned.pdf").message
    assert _error(write_bytes(tmp_path / "blank.md", b"  \n\n \t\n")).kind == "empty"
    assert _error(write_bytes(tmp_path / "zero.pdf", b"")).kind == "empty"
    assert _error(write_ole_container(tmp_path / "protected.docx")).kind == "encrypted"
    assert _error(write_corrupt_docx(tmp_path / "broken.docx")).kind == "corrupt"
    whole_pdf = write_pdf(tmp_path / "whole.pdf", PDF_PAGES).read_bytes()
    assert _error(write_bytes(tmp_path / "truncated.pdf", whole_pdf[: len(whole_pdf) // 2])).kind == "corrupt"
    assert _error(write_bytes(tmp_path / "blob", os.urandom(500) + b"\x00")).kind == "unsupported"
    assert _error(write_bytes(tmp_path / "old.xlsx", b"PK")).hint == "Save it as .csv and add that."
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    assert _error(folder).kind == "unsupported"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path: Path) -> None:
    path = write_text(tmp_path / "secret.txt", "text", "utf-8")
    path.chmod(0)
    assert _error(path).kind == "unreadable"


def test_invalid_utf8_is_read_with_the_broken_bytes_marked(tmp_path: Path) -> None:
    data = CHINESE_TEXT.encode() + b"\xff" + "更多文字。".encode()
    document = parse_document(write_bytes(tmp_path / "damaged.txt", data))
    assert document.encoding == "utf-8"
    assert document.pages[0].text == CHINESE_TEXT + "\ufffd" + "更多文字。"
    assert len(document.notes) == 1 and "1 undecodable" in document.notes[0]
