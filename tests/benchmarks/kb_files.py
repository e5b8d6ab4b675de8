"""Real document folders for the knowledge-base benchmarks: a mixed-format corpus and many small files."""

from __future__ import annotations

import html
import random
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tests.benchmarks.kb_text import TextMaker
from tests.fixtures.documents import write_pdf, write_text

# Share of each format in the mixed corpus (cycled in this order, so every size has all of them).
MIXED_FORMATS = ("txt", "md", "html", "pdf", "docx", "txt", "md", "html", "pdf", "docx", "md", "txt")
CHINESE_SHARE = 0.15
PDF_LINE_CHARACTERS = 90
PDF_PAGE_LINES = 44


@dataclass(frozen=True)
class Section:
    heading: str
    paragraphs: tuple[str, ...]


@dataclass(frozen=True)
class FolderFacts:
    """What was written: files per format, bytes, and files in Chinese."""

    files: int
    bytes: int
    by_format: dict[str, int]
    chinese_files: int

    def to_dict(self) -> dict[str, object]:
        return {"files": self.files, "bytes": self.bytes, "by_format": dict(self.by_format),
                "chinese_files": self.chinese_files}


def _sections(maker: TextMaker, rng: random.Random, size: int, chinese: bool) -> list[Section]:
    """Sections totalling about ``size`` words (English) or characters (Chinese)."""
    count = rng.randint(2, 5)
    sections = []
    for _ in range(count):
        paragraphs = []
        left = size // count
        while left > 0:
            length = min(left, rng.randint(60, 180) * (2 if chinese else 1))
            if chinese:
                paragraphs.append(maker.chinese_paragraph(rng, length))
            else:
                paragraphs.append(maker.english_paragraph(rng, length))
            left -= length
        sections.append(Section(maker.heading(rng, chinese), tuple(paragraphs)))
    return sections


def _write_txt(path: Path, title: str, sections: list[Section]) -> None:
    parts = [title]
    for section in sections:
        parts.append(section.heading)
        parts.extend(section.paragraphs)
    write_text(path, "\n\n".join(parts) + "\n", "utf-8")


def _write_md(path: Path, title: str, sections: list[Section], rng: random.Random) -> None:
    parts = [f"# {title}"]
    for section in sections:
        parts.append(f"## {section.heading}")
        parts.extend(section.paragraphs)
        if rng.random() < 0.3:
            parts.append("```python\ndef step(value):\n    return value * 2\n```")
    write_text(path, "\n\n".join(parts) + "\n", "utf-8")


def _write_html(path: Path, title: str, sections: list[Section]) -> None:
    body = [f"<h1>{html.escape(title)}</h1>"]
    for section in sections:
        body.append(f"<h2>{html.escape(section.heading)}</h2>")
        body.extend(f"<p>{html.escape(paragraph)}</p>" for paragraph in section.paragraphs)
    page = (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{html.escape(title)}</title>\n'
        "<style>body { font-family: sans-serif; }</style>\n"
        "<script>window.analytics = { page: 'docs' };</script></head>\n"
        f"<body><nav><a href='/'>Home</a></nav>\n{chr(10).join(body)}\n</body></html>\n"
    )
    write_text(path, page, "utf-8")


def _write_pdf(path: Path, title: str, sections: list[Section]) -> None:
    lines = [title, ""]
    for section in sections:
        lines.extend([section.heading, ""])
        for paragraph in section.paragraphs:
            lines.extend(textwrap.wrap(paragraph, PDF_LINE_CHARACTERS))
            lines.append("")
    pages = [lines[start : start + PDF_PAGE_LINES] for start in range(0, len(lines), PDF_PAGE_LINES)]
    write_pdf(path, pages, title=title)


def _write_docx(path: Path, title: str, sections: list[Section]) -> None:
    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.add_heading(title, level=0)
    for section in sections:
        document.add_heading(section.heading, level=1)
        for paragraph in section.paragraphs:
            document.add_paragraph(paragraph)
    path.parent.mkdir(parents=True, exist_ok=True)
    document.save(str(path))


def write_mixed_corpus(folder: Path, files: int, seed: int = 1, maker: TextMaker | None = None) -> FolderFacts:
    """``files`` documents of 400-1600 words (or 800-3200 Chinese characters) in txt/md/html/pdf/docx.

    PDFs are English only (the test PDF writer is Latin-1); the other formats are sometimes Chinese.
    """
    maker = maker or TextMaker.create()
    rng = random.Random(seed)
    by_format: Counter[str] = Counter()
    chinese_files = 0
    for index in range(files):
        extension = MIXED_FORMATS[index % len(MIXED_FORMATS)]
        chinese = extension != "pdf" and rng.random() < CHINESE_SHARE
        size = rng.randint(400, 1600) * (2 if chinese else 1)
        sections = _sections(maker, rng, size, chinese)
        title = maker.heading(rng, chinese)
        path = folder / f"part-{index % 7}" / f"doc-{index:04d}.{extension}"
        path.parent.mkdir(parents=True, exist_ok=True)
        if extension == "txt":
            _write_txt(path, title, sections)
        elif extension == "md":
            _write_md(path, title, sections, rng)
        elif extension == "html":
            _write_html(path, title, sections)
        elif extension == "pdf":
            _write_pdf(path, title, sections)
        else:
            _write_docx(path, title, sections)
        by_format[extension] += 1
        chinese_files += chinese
    return _facts(folder, by_format, chinese_files)


def write_small_files(folder: Path, files: int, seed: int = 2, maker: TextMaker | None = None) -> FolderFacts:
    """``files`` small txt/md notes (~120-190 words, or ~300 Chinese characters: one chunk each)."""
    maker = maker or TextMaker.create()
    rng = random.Random(seed)
    by_format: Counter[str] = Counter()
    chinese_files = 0
    for index in range(files):
        chinese = rng.random() < 0.1
        body = maker.chinese_paragraph(rng, rng.randint(200, 300)) if chinese else maker.english_paragraph(
            rng, rng.randint(120, 190))
        title = maker.heading(rng, chinese)
        extension = "md" if index % 2 else "txt"
        text = f"# {title}\n\n{body}\n" if extension == "md" else f"{title}\n\n{body}\n"
        write_text(folder / f"group-{index % 10:02d}" / f"note-{index:04d}.{extension}", text, "utf-8")
        by_format[extension] += 1
        chinese_files += chinese
    return _facts(folder, by_format, chinese_files)


def _facts(folder: Path, by_format: Counter[str], chinese_files: int) -> FolderFacts:
    total = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    return FolderFacts(sum(by_format.values()), total, dict(sorted(by_format.items())), chinese_files)
