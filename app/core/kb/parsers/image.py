"""Pictures (PNG, JPEG) of text, e.g. a photographed or scanned page: read by OCR (app.core.kb.ocr)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.core.kb.documents import ParsedDocument, Section
from app.core.kb.parsers.errors import DocumentError
from app.core.kb.parsers.pdf import clean_page_text
from app.core.kb.parsers.sections import build_page

if TYPE_CHECKING:
    from app.core.kb.ocr import OcrStep

OCR_OFF_HINT = "Turn on text recognition (kb.ocr) in Settings to add pictures of text."


def parse_image(path: Path, format_name: str, ocr: OcrStep | None = None) -> ParsedDocument:
    """The text recognised in the picture, as one page (page number 1, so citations say "p. 1")."""
    if ocr is None:
        raise DocumentError.for_file(path, "unsupported", "text recognition is turned off", OCR_OFF_HINT)
    from PIL import Image, UnidentifiedImageError

    from app.core.kb.ocr import OcrUnavailableError

    try:
        with Image.open(path) as image:
            image.load()
            ocr.report(path, 0, 1)
            text = ocr.recognizer.recognize(image)
            ocr.report(path, 1, 1)
    except OSError as error:
        if isinstance(error, UnidentifiedImageError) or not isinstance(error, FileNotFoundError | PermissionError):
            raise DocumentError.for_file(
                path, "corrupt", "this picture is damaged or not a PNG/JPEG image",
                "Open it in an image viewer and save it again, then retry.",
            ) from error
        raise DocumentError.from_os_error(path, error) from error
    except OcrUnavailableError as error:
        raise DocumentError.for_file(
            path, "unsupported", "text recognition is not installed",
            "Install the rapidocr and onnxruntime packages, then add the picture again.",
        ) from error
    cleaned = clean_page_text(text)
    if not cleaned:
        raise DocumentError.for_file(path, "empty", "no text was recognised in this picture", None)
    page = build_page(1, [Section(cleaned, "text", ())])
    return ParsedDocument(path, format_name, path.stem, (page,), None, ("text recognised (OCR)",))
