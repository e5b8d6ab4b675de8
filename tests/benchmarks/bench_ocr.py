"""OCR speed: pages per second for scanned PDF pages (Chinese and English), and how much text comes back.

Usage: ``.venv/bin/python -m tests.benchmarks.bench_ocr [--pages 6] [--lines 24]``

Pages are drawn with Pillow (a CJK font; install fonts-noto-cjk) at 150 dpi, full of text like a
scanned letter, saved as a PDF without a text layer, then read by the knowledge base's PDF parser
with OCR (pypdfium2 rendering + rapidocr PP-OCR models). The model load (first page) is timed apart
from the steady state. Figures: pages/s, seconds per page, and the share of drawn lines found
verbatim in the recognised text. One JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from app.core.kb.ocr import RENDER_LONG_SIDE_PX, OcrStep, TextRecognizer
from app.core.kb.parsers import parse_document
from tests.fixtures.scans_and_tables import find_cjk_font, write_scanned_pdf

ENGLISH_LINES = [
    "Invoice 2025-0417 for maintenance of the cooling unit",
    "Labour: 6.5 hours at 82 EUR per hour",
    "Replacement fan motor, part number FM-220",
    "Payment is due within 30 days of the invoice date",
    "Please quote the invoice number with your transfer",
    "Our bank: Sparkasse Leipzig, IBAN DE44 8605 5592",
]
CHINESE_LINES = [
    "关于调整年度休假安排的通知",
    "各部门请于本月二十日前提交休假计划",
    "连续休假超过五天的需提前两周申请",
    "未休完的年假可以顺延至次年三月底",
    "如有疑问请联系人力资源部王老师",
    "联系电话：零二一，六四八八，二三七五",
]


def page_lines(index: int, count: int) -> list[str]:
    """Alternating Chinese and English pages, ``count`` lines each (the sample lines repeated, numbered)."""
    source = CHINESE_LINES if index % 2 else ENGLISH_LINES
    return [f"{number + 1}. {source[number % len(source)]}" for number in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pages", type=int, default=6, help="scanned pages in the measured PDF (default 6)")
    parser.add_argument("--lines", type=int, default=24, help="text lines per page (default 24)")
    args = parser.parse_args(argv)
    font = find_cjk_font()
    if font is None:
        raise SystemExit("no CJK font found: install fonts-noto-cjk (Debian/Ubuntu) to draw the Chinese pages")
    with tempfile.TemporaryDirectory(prefix="unidesk-ocr-") as temporary:
        folder = Path(temporary)
        pages = [page_lines(index, args.lines) for index in range(args.pages)]
        warm = write_scanned_pdf(folder / "warm.pdf", [page_lines(0, 4)], font)
        measured = write_scanned_pdf(folder / "scans.pdf", pages, font)
        recognizer = TextRecognizer()
        started = time.perf_counter()
        parse_document(warm, OcrStep(recognizer))
        first_page_s = time.perf_counter() - started
        print(f"model loaded and first page read in {first_page_s:.1f} s; reading {args.pages} pages...",
              file=sys.stderr)
        started = time.perf_counter()
        document = parse_document(measured, OcrStep(recognizer))
        seconds = time.perf_counter() - started
    recognised = {page.page_number: "".join(page.text.split()) for page in document.pages}
    drawn = sum(len(lines) for lines in pages)
    found = sum(1 for index, lines in enumerate(pages) for line in lines
                if "".join(line.split()) in recognised.get(index + 1, ""))
    result = {
        "benchmark": "ocr",
        "machine": {"cpus": os.cpu_count()},
        "pages": args.pages, "lines_per_page": args.lines, "render_long_side_px": RENDER_LONG_SIDE_PX,
        "first_page_with_model_load_s": round(first_page_s, 2),
        "seconds": round(seconds, 2),
        "pages_per_second": round(args.pages / seconds, 3),
        "seconds_per_page": round(seconds / args.pages, 2),
        "lines_found_verbatim": round(found / drawn, 4),
        "pages_with_text": len(document.pages),
    }
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
