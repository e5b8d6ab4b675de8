"""Refusing zip bombs before anything is unpacked: a ZIP-based document's parts are checked from its directory.

A DOCX is a ZIP archive; its parser unpacks every part into memory. The central directory (read
without decompressing anything) declares each part's packed and unpacked size, and Python's zipfile
never unpacks more than the declared size, so checking the declarations bounds what parsing unpacks.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Final

from app.core.kb.parsers.errors import DocumentError

MIB: Final = 1024 * 1024
MAX_INFLATED_BYTES: Final = 512 * MIB
"""Everything in one archive, unpacked."""
MAX_PARTS: Final = 20_000
MAX_RATIO: Final = 100
"""Unpacked over packed size of one part; text XML packs 5-20:1, zip bombs 1000:1."""
RATIO_CHECKED_FROM: Final = 8 * MIB
"""Parts smaller than this unpacked may have any ratio (a short run of repeated XML packs tightly)."""
_HINT: Final = "It is refused before anything is unpacked; if it is a genuine document, re-save it in Word."
_RESAVE_HINT: Final = "Open and re-save it in Word or LibreOffice, then add it again."
_UNPACKABLE: Final = frozenset({zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA})
"""Compression methods Python's zipfile unpacks (Word writes only the first two)."""


def check_archive(path: Path, max_inflated_bytes: int = MAX_INFLATED_BYTES, max_ratio: int = MAX_RATIO) -> None:
    """Raise DocumentError (``too-large``) when the archive at ``path`` would unpack to too much, or a part is
    packed as tightly as zip bombs are; ``corrupt`` when it is packed in a way that cannot be unpacked. Files
    that are no ZIP archive pass (their parser says what they are)."""
    try:
        with zipfile.ZipFile(path) as archive:
            parts = archive.infolist()
    except zipfile.BadZipFile:
        return
    except NotImplementedError as error:  # a ZIP version or feature zipfile does not know
        raise unpacking_error(path, error) from error
    for part in parts:
        if part.compress_type not in _UNPACKABLE:
            raise unpacking_error(path, NotImplementedError(f"compression method {part.compress_type}"))
    if len(parts) > MAX_PARTS:
        raise DocumentError.for_file(
            path, "too-large", f"it holds {len(parts)} parts, more than the {MAX_PARTS} allowed", _HINT
        )
    total = sum(part.file_size for part in parts)
    if total > max_inflated_bytes:
        raise DocumentError.for_file(
            path, "too-large",
            f"it would inflate to {_megabytes(total)} MB, more than the {_megabytes(max_inflated_bytes)} MB allowed",
            _HINT,
        )
    for part in parts:
        if part.file_size >= RATIO_CHECKED_FROM and part.file_size > max_ratio * max(1, part.compress_size):
            ratio = part.file_size // max(1, part.compress_size)
            raise DocumentError.for_file(
                path, "too-large", f"its part {part.filename} is compressed {ratio}:1, as zip bombs are", _HINT
            )


def unpacking_error(path: Path, error: NotImplementedError) -> DocumentError:
    """The error for an archive packed with a method or ZIP version that cannot be unpacked (zipfile's
    NotImplementedError; Word never writes one, so the file is damaged or was made by an unusual tool)."""
    detail = " ".join(str(error).split())[:120] or type(error).__name__
    return DocumentError.for_file(
        path, "corrupt", f"it is packed with a compression method or ZIP version that cannot be unpacked ({detail})",
        _RESAVE_HINT,
    )


def _megabytes(size: int) -> str:
    return f"{size / MIB:.0f}"
