"""Text recognition (OCR) for scanned PDF pages and pictures, with rapidocr's PP-OCR models.

rapidocr's wheel ships Chinese/English detection and recognition models, so recognition runs
offline. Nothing heavy is imported until the first page is recognised. The parsers take an
:class:`OcrStep` (a recogniser plus where progress goes); without one, scanned pages stay unread.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from PIL.Image import Image

    from app.core.kb.documents import DocumentPart, ParsedDocument

log = logging.getLogger(__name__)

MIN_SCORE: Final = 0.5
"""Recognised pieces the model is less sure of than this are dropped (rapidocr's own default)."""
RENDER_LONG_SIDE_PX: Final = 1600
"""PDF pages are rendered so their long side has about this many pixels (about 140 dpi for A4: 10-point
text is ~19 px tall, enough for PP-OCR; 2000 px read the same test pages 1.5x slower, no better)."""
MAX_RENDER_SCALE: Final = 4.0

OCR_PARSER: Final = "app.core.kb.ocr:parse_with_ocr"
"""The reader process's parser (app.core.kb.parse_worker) when kb.ocr is on: parse_document with OCR."""

PageProgress = Callable[[Path, int, int], None]
"""Called with (file, pages recognised, pages to recognise in that file)."""
PageStarted = Callable[[Path, int, int, "str | None"], None]
"""Called before a page is recognised with (file, page number, pages in the file, where reading resumes if this
page is given up: a part's ``resume_after``)."""


class OcrUnavailableError(RuntimeError):
    """rapidocr (or onnxruntime) is not installed or its models cannot be loaded."""


@dataclass(frozen=True)
class TextPiece:
    """One recognised run of text and its box (pixels of the recognised image)."""

    text: str
    left: float
    top: float
    bottom: float


class TextRecognizer:
    """rapidocr, loaded on first use; recognises one image at a time (thread-safe)."""

    def __init__(self, *, min_score: float = MIN_SCORE) -> None:
        self._min_score = min_score
        self._lock = threading.Lock()
        self._engine: Any = None

    @property
    def loaded(self) -> bool:
        return self._engine is not None

    def _loaded_engine(self) -> Any:
        if self._engine is None:
            try:
                from rapidocr import RapidOCR
            except ImportError as error:  # rapidocr, onnxruntime or opencv missing
                raise OcrUnavailableError(
                    f"text recognition needs the rapidocr and onnxruntime packages ({error})"
                ) from error
            self._engine = RapidOCR(params={"Global.log_level": "warning"})
            log.info("rapidocr loaded")
        return self._engine

    def recognize(self, image: Image) -> str:
        """The text in ``image``: pieces on one line joined by spaces, lines top to bottom."""
        import numpy as np

        array = np.asarray(image.convert("RGB"))
        with self._lock:
            result = self._loaded_engine()(array)
        return join_lines(pieces_of(result, self._min_score))


def pieces_of(result: Any, min_score: float) -> list[TextPiece]:
    """The confident pieces of a rapidocr result (empty when nothing was found)."""
    texts = getattr(result, "txts", None) or ()
    boxes = getattr(result, "boxes", None)
    scores = getattr(result, "scores", None) or ()
    pieces = []
    for index, text in enumerate(texts):
        score = float(scores[index]) if index < len(scores) else 1.0
        cleaned = str(text).strip()
        if not cleaned or score < min_score or boxes is None:
            continue
        box = boxes[index]
        xs = [float(point[0]) for point in box]
        ys = [float(point[1]) for point in box]
        pieces.append(TextPiece(cleaned, min(xs), min(ys), max(ys)))
    return pieces


def join_lines(pieces: Sequence[TextPiece]) -> str:
    """Reading order: pieces whose vertical middles fall inside one line's band form that line."""
    lines: list[list[TextPiece]] = []
    for piece in sorted(pieces, key=lambda item: (item.top + item.bottom) / 2):
        middle = (piece.top + piece.bottom) / 2
        if lines and lines[-1][0].top <= middle <= lines[-1][0].bottom:
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return "\n".join(" ".join(piece.text for piece in sorted(line, key=lambda item: item.left)) for line in lines)


@dataclass(frozen=True)
class OcrStep:
    """What a parser needs to recognise scanned pages: the recogniser, and where progress goes."""

    recognizer: TextRecognizer
    on_page: PageProgress | None = None
    cancel: threading.Event | None = None
    on_page_started: PageStarted | None = None

    def report(self, path: Path, done: int, total: int) -> None:
        if self.on_page is not None:
            self.on_page(path, done, total)

    def started(self, path: Path, page_number: int, pages: int, resume_after: str | None) -> None:
        if self.on_page_started is not None:
            self.on_page_started(path, page_number, pages, resume_after)

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()


def render_scale(width_points: float, height_points: float) -> float:
    """The pdfium scale (1.0 = 72 dpi) that gives the page's long side about RENDER_LONG_SIDE_PX pixels."""
    long_side = max(width_points, height_points, 1.0)
    return max(1.0, min(MAX_RENDER_SCALE, RENDER_LONG_SIDE_PX / long_side))


def pages_with_images(path: Path, page_indexes: Sequence[int]) -> list[int]:
    """Those of ``page_indexes`` (0-based) that show at least one picture: candidates for OCR."""
    import pypdfium2  # type: ignore[import-untyped]
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    document = pypdfium2.PdfDocument(str(path))
    try:
        found = []
        for index in page_indexes:
            page = document[index]
            try:
                if any(True for _ in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_IMAGE], max_depth=2)):
                    found.append(index)
            finally:
                page.close()
        return found
    finally:
        document.close()


def recognize_pdf_page(path: Path, page_index: int, step: OcrStep) -> str:
    """Render one page (0-based) and recognise it."""
    import pypdfium2

    document = pypdfium2.PdfDocument(str(path))
    try:
        page = document[page_index]
        try:
            width, height = page.get_size()
            image = page.render(scale=render_scale(width, height)).to_pil()
        finally:
            page.close()
    finally:
        document.close()
    return step.recognizer.recognize(image)


def progress_message(update: Callable[[str], None]) -> PageProgress:
    """A :data:`PageProgress` that tells ``update`` (e.g. an indexing progress message) where OCR stands."""

    def report(path: Path, done: int, total: int) -> None:
        update(f"recognising text (OCR) in {path.name}: page {done} of {total}" if done < total else "")

    return report


@functools.cache
def reader_recognizer() -> TextRecognizer:
    """The recogniser of this reader process, loaded on its first scanned page and kept for the next files."""
    return TextRecognizer()


def read_parts_with_ocr(
    path: Path, resume: str | None = None, page_started: Callable[[int, int, str | None], None] | None = None,
    part_bytes: int | None = None,
) -> Iterator[DocumentPart]:
    """:func:`~app.core.kb.parsers.parts.document_parts` with OCR; ``page_started`` is told before each page is
    recognised (the reader process tells the app, which gives each page its own time limit)."""
    from app.core.kb.parsers.parts import document_parts

    def started(_: Path, number: int, pages: int, resume_after: str | None) -> None:
        if page_started is not None:
            page_started(number, pages, resume_after)

    step = OcrStep(reader_recognizer(), on_page_started=started)
    return document_parts(path, resume, step) if part_bytes is None else document_parts(path, resume, step, part_bytes)


def parse_with_ocr(path: Path) -> ParsedDocument:
    """:func:`~app.core.kb.parsers.parse_document` that recognises scanned pages and pictures (see OCR_PARSER)."""
    from app.core.kb.parsers import parse_document

    return parse_document(path, OcrStep(reader_recognizer()))
