"""CSV and TSV: the header and then one text line per row ("column: value | ..."), as a table section."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.plain import read_text_file
from app.core.kb.parsers.sections import build_page

_FIELD_SEPARATOR: Final = " | "
_SNIFF_CHARACTERS: Final = 64 * 1024
_CANDIDATE_DELIMITERS: Final = ",;\t|"


def parse_table(path: Path, format_name: str) -> ParsedDocument:
    """Parse a CSV/TSV file; every row names its columns so a chunk of rows stands on its own."""
    file = read_text_file(path)
    delimiter = "\t" if format_name == "tsv" else _sniff_delimiter(file.text)
    text = table_text(file.text, delimiter)
    page = build_page(None, [Section(text, "table", ())])
    return ParsedDocument(path, format_name, path.stem, (page,), file.encoding, file.notes)


def table_text(text: str, delimiter: str) -> str:
    """The header line, then each row as ``header: value`` pairs joined by " | " (empty cells left out)."""
    try:
        return rows_as_lines(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error:  # e.g. a field over csv's size limit: keep the raw lines
        return text


def rows_as_lines(rows: Iterator[list[str]]) -> str:
    """The first non-empty row as the header line, then each row as ``header: value`` pairs (CSV, PDF, DOCX)."""
    header: list[str] | None = None
    lines: list[str] = []
    for row in rows:
        cells = [" ".join(cell.split()) for cell in row]
        if not any(cells):
            continue
        if header is None:
            header = cells
            lines.append(_FIELD_SEPARATOR.join(cells))
            continue
        pairs = []
        for index, cell in enumerate(cells):
            if not cell:
                continue
            name = header[index] if index < len(header) and header[index] else f"column {index + 1}"
            pairs.append(f"{name}: {cell}")
        lines.append(_FIELD_SEPARATOR.join(pairs))
    return "\n".join(lines)


def _sniff_delimiter(text: str) -> str:
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARACTERS], _CANDIDATE_DELIMITERS).delimiter
    except csv.Error:
        return ","
