"""Damaged PDFs and DOCX files of the kinds parser fuzzing found (tests/reliability/test_parser_fuzz.py), each
crafted on purpose: the reason given says what is wrong with the file and what to do, never a bare Python error or
a disk problem; a PDF whose tables cannot be read keeps its text."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from app.core.kb.parsers import DocumentError, parse_document
from app.core.kb.parsers.document_texts import failure_text
from app.core.kb.parsers.pdf_tables import PAGES_DISAGREE, damaged_note, page_tables
from app.core.kb.parsers.word import parse_docx
from app.core.util.translatable import Text
from tests.fixtures.documents import write_docx, write_pdf

PAGES = [["Harbour crane serviced on Tuesday."], ["Second page: the tide tables."]]
RESAVE = "Open and re-save it in Word or LibreOffice, then add it again."


def _two_page_pdf(path: Path) -> bytes:
    return write_pdf(path, PAGES).read_bytes()


def pdf_with_an_untyped_page(path: Path) -> Path:
    """Two pages, the second without ``/Type /Page`` (blanked, offsets kept): pypdf counts it, pdfminer skips it."""
    data = _two_page_pdf(path)
    second = data.index(b"<< /Type /Page /Parent", data.index(b"<< /Type /Page /Parent") + 1) + len(b"<< ")
    path.write_bytes(data[:second] + b" " * len(b"/Type /Page") + data[second + len(b"/Type /Page"):])
    return path


def pdf_with_a_broken_stream_dictionary(path: Path) -> Path:
    """The first content stream's dictionary reads ``<<Y/Length``: pypdf skips the stray byte, pdfminer gives up."""
    path.write_bytes(_two_page_pdf(path).replace(b"<< /Length", b"<<Y/Length", 1))
    return path


def _texts(path: Path) -> tuple[list[str], tuple[str, ...]]:
    document = parse_document(path)
    return [page.text for page in document.pages], document.notes


def test_a_pdf_whose_readers_count_different_pages_keeps_its_text_and_says_its_tables_were_not_read(
    tmp_path: Path,
) -> None:
    texts, notes = _texts(pdf_with_an_untyped_page(tmp_path / "pages-disagree.pdf"))
    assert texts == [" ".join(PAGES[0]), " ".join(PAGES[1])]
    assert notes == (damaged_note(PAGES_DISAGREE),)
    assert "its page count is inconsistent" in notes[0] and "Re-save or re-export the PDF" in notes[0]


def test_tables_are_not_matched_to_pages_when_the_page_counts_differ(tmp_path: Path) -> None:
    pdf = pdf_with_an_untyped_page(tmp_path / "pages-disagree.pdf")
    notes: list[str] = []
    assert page_tables(pdf, [0], notes, page_count=2) == {}  # page 0 exists for pdfplumber, but which page is it?
    assert notes == [damaged_note(PAGES_DISAGREE)]


def test_a_pdf_that_pdfminer_cannot_follow_keeps_its_text_and_says_its_structure_is_damaged(tmp_path: Path) -> None:
    texts, notes = _texts(pdf_with_a_broken_stream_dictionary(tmp_path / "bad-dictionary.pdf"))
    assert texts == [" ".join(PAGES[0]), " ".join(PAGES[1])]
    assert len(notes) == 1 and notes[0].startswith("tables not read: this PDF's structure is damaged (Pdfminer")
    assert notes[0].endswith("its text was read. Re-save or re-export the PDF to keep its tables, then add it again.")


def test_the_table_notes_are_known_texts() -> None:
    note = failure_text(damaged_note(PAGES_DISAGREE))
    assert isinstance(note, Text) and str(note) == damaged_note(PAGES_DISAGREE)


def _central_entries(data: bytes) -> list[int]:
    entries, at = [], data.find(b"PK\x01\x02")
    while at >= 0:
        entries.append(at)
        at = data.find(b"PK\x01\x02", at + 4)
    return entries


def docx_needing_zip_version(path: Path, version: int) -> Path:
    """The sample DOCX whose first central-directory entry needs ZIP version ``version``/10 to be extracted."""
    data = bytearray(write_docx(path).read_bytes())
    struct.pack_into("<H", data, _central_entries(bytes(data))[0] + 6, version)
    path.write_bytes(bytes(data))
    return path


def docx_with_compression_method(path: Path, method: int) -> Path:
    """The sample DOCX whose parts claim compression method ``method`` in the central directory."""
    data = bytearray(write_docx(path).read_bytes())
    for entry in _central_entries(bytes(data)):
        struct.pack_into("<H", data, entry + 10, method)
    path.write_bytes(bytes(data))
    return path


def docx_with_its_directory_moved(path: Path) -> Path:
    """The sample DOCX whose end record places the central directory 4 KiB further on than it is."""
    data = bytearray(write_docx(path).read_bytes())
    end = bytes(data).rindex(b"PK\x05\x06")
    (offset,) = struct.unpack_from("<I", data, end + 16)
    struct.pack_into("<I", data, end + 16, offset + 4096)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(("build", "detail"), [
    (lambda path: docx_needing_zip_version(path, 244), "(zip file version 24.4)"),
    (lambda path: docx_with_compression_method(path, 99), "(compression method 99)"),
])
def test_a_docx_packed_in_a_way_that_cannot_be_unpacked_is_damaged_with_advice(
    tmp_path: Path, build: object, detail: str,
) -> None:
    path = build(tmp_path / "packed.docx")  # type: ignore[operator]
    with pytest.raises(DocumentError) as raised:
        parse_document(path)
    assert raised.value.kind == "corrupt"
    assert raised.value.message == (f"{path}: it is packed with a compression method or ZIP version that cannot be "
                                    f"unpacked {detail}")
    assert raised.value.hint == RESAVE and isinstance(raised.value.hint, Text)


def test_a_docx_whose_parts_point_outside_the_file_is_damaged_not_a_disk_problem(tmp_path: Path) -> None:
    path = docx_with_its_directory_moved(tmp_path / "moved.docx")
    for parse in (parse_document, lambda file: parse_docx(file, "docx")):
        with pytest.raises(DocumentError) as raised:
            parse(path)
        assert raised.value.kind == "corrupt"
        assert raised.value.message == f"{path}: this Word (.docx) file is damaged: its list of parts points " \
                                       "outside the file"
        assert isinstance(raised.value.message, Text) and raised.value.hint == RESAVE
