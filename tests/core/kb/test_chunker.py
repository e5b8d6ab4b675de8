"""The chunker: exact offsets, hard token limits, overlap, structure (pages, headings, code, CJK sentences)."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.core.kb.chunker import chunk_document, iter_chunks
from app.core.kb.documents import Chunk, PageText, ParsedDocument, Section
from app.core.kb.parsers.sections import build_page
from tests.core.kb.token_counters import (
    CountingCounter,
    minilm_token_counter,
    subword_tokens,
    whitespace_and_cjk_tokens,
)

Counter = Callable[[str], int]


def document_of(*pages: PageText) -> ParsedDocument:
    return ParsedDocument(Path("doc.txt"), "text", "doc", tuple(pages))


def single_page(sections: list[Section], page_number: int | None = None) -> ParsedDocument:
    return document_of(build_page(page_number, sections))


def check_invariants(
    document: ParsedDocument, chunks: list[Chunk], count: Counter, limit: int, overlap: int
) -> None:
    """Everything the chunker promises, checked against the document."""
    pages = {page.page_number: page for page in document.pages}
    assert [chunk.ordinal for chunk in chunks] == list(range(len(chunks)))
    page_order = [page.page_number for page in document.pages]
    positions = [page_order.index(chunk.page_number) for chunk in chunks]
    assert positions == sorted(positions)
    for chunk in chunks:
        page = pages[chunk.page_number]
        assert page.text[chunk.char_start : chunk.char_end] == chunk.text
        # No whitespace at the ends, except a code line's indentation at the start.
        assert chunk.text.strip() and not chunk.text[-1].isspace()
        assert chunk.text.lstrip(" \t") == chunk.text.lstrip()
        assert chunk.token_count == count(chunk.text) <= limit
        assert chunk.heading_path in {section.heading_path for section in page.sections} | {()}
    for page in document.pages:
        spans = [(c.char_start, c.char_end) for c in chunks if c.page_number == page.page_number]
        covered = bytearray(len(page.text))
        for start, end in spans:
            covered[start:end] = b"\x01" * (end - start)
        lost = [i for i, character in enumerate(page.text) if not covered[i] and not character.isspace()]
        assert lost == [], f"characters not in any chunk: {page.text[lost[0]:lost[0] + 20]!r}"
        section_spans = _section_spans(page)
        for (start, end), (next_start, next_end) in pairwise(spans):
            assert start < next_start and end < next_end
            if next_start < end:  # overlap: within one section and within the overlap budget
                assert count(page.text[next_start:end]) <= overlap
                assert any(s <= next_start and end <= e for s, e in section_spans)


def _section_spans(page: PageText) -> list[tuple[int, int]]:
    spans, cursor = [], 0
    for section in page.sections:
        start = page.text.index(section.text, cursor)
        spans.append((start, start + len(section.text)))
        cursor = start + len(section.text)
    return spans or [(0, len(page.text))]


# -- generated documents ---------------------------------------------------------------------

WORDS = ["the", "index", "chunk", "embedding", "retrieval", "model", "page", "a", "of", "supercalifragilistic"]
CJK_SENTENCES = ["知识库把文档切成小块。", "然后用向量检索！", "这是测试吗？", "分号也断句；", "没有标点的长句子继续"]


@st.composite
def prose(draw: st.DrawFn) -> str:
    paragraphs = []
    for _ in range(draw(st.integers(1, 4))):
        sentences = []
        for _ in range(draw(st.integers(1, 6))):
            if draw(st.booleans()):
                sentences.append(draw(st.sampled_from(CJK_SENTENCES)) * draw(st.integers(1, 3)))
            else:
                words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=30))
                end = draw(st.sampled_from([".", "!", "?", "", ".\n", "\n"]))
                sentences.append(" ".join(words) + end)
        paragraphs.append(" ".join(sentences))
    if draw(st.booleans()):
        paragraphs.append("x" * draw(st.integers(1, 400)))  # one "word" that may exceed any chunk
    return "\n\n".join(paragraphs)


@st.composite
def code(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 25))):
        indent = "    " * draw(st.integers(0, 2))
        tokens = draw(st.lists(st.sampled_from([*WORDS, "(x)", "=", "+"]), min_size=0, max_size=8))
        lines.append(indent + " ".join(tokens))
    return "\n".join(lines)


@st.composite
def documents(draw: st.DrawFn) -> ParsedDocument:
    pages = []
    for number in range(1, draw(st.integers(1, 3)) + 1):
        sections: list[Section] = []
        path: tuple[str, ...] = ()
        for _ in range(draw(st.integers(1, 6))):
            kind = draw(st.sampled_from(["text", "text", "heading", "code", "table"]))
            if kind == "heading":
                title = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4)))
                path = (*path[: draw(st.integers(0, len(path)))], title)
                sections.append(Section("# " + title, "heading", path))
            else:
                text = draw(prose()) if kind == "text" else draw(code())
                sections.append(Section(text.strip("\n").rstrip() if kind != "text" else text.strip(), kind, path))
        sections = [section for section in sections if section.text.strip()]
        pages.append(build_page(number, sections))
    return document_of(*pages)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    document=documents(),
    limit=st.integers(6, 80),
    overlap_fraction=st.sampled_from([0.0, 0.1, 0.25, 0.5]),
    counter=st.sampled_from([whitespace_and_cjk_tokens, subword_tokens]),
)
def test_chunks_keep_every_promise_on_generated_documents(
    document: ParsedDocument, limit: int, overlap_fraction: float, counter: Counter
) -> None:
    overlap = int(limit * overlap_fraction)
    chunks = chunk_document(document, counter, limit, overlap)
    check_invariants(document, chunks, counter, limit, overlap)


# -- structure ---------------------------------------------------------------------------------


def test_chinese_text_breaks_at_sentence_punctuation() -> None:
    sentences = ["知识库把文档切成小块。", "然后用向量检索找到段落！", "回答时引用来源吗？", "分号也可以断句；"] * 6
    document = single_page([Section("".join(sentences))])
    chunks = chunk_document(document, whitespace_and_cjk_tokens, chunk_tokens=30, overlap_tokens=0)
    assert len(chunks) > 3
    for chunk in chunks[:-1]:
        assert chunk.text[-1] in "。！？；", chunk.text
    assert "".join(chunk.text for chunk in chunks) == "".join(sentences)


def test_english_text_breaks_at_paragraphs_then_sentences() -> None:
    paragraph = "This sentence has exactly seven words here. " * 3
    text = "\n\n".join([paragraph.strip()] * 6)
    chunks = chunk_document(single_page([Section(text)]), whitespace_and_cjk_tokens, 50, 0)
    assert all(chunk.text.endswith("here.") for chunk in chunks)
    # 21 words per paragraph: two paragraphs (42) fit in 50 tokens, so chunks end at paragraph breaks.
    assert [chunk.token_count for chunk in chunks] == [42, 42, 42]


def test_code_block_that_fits_is_kept_whole() -> None:
    code_text = "\n".join(f"    line_{number} = compute({number})" for number in range(30))
    sections = [
        Section("Intro words " * 20, "text", ("Guide",)),
        Section(code_text, "code", ("Guide",)),
        Section("Closing words " * 10, "text", ("Guide",)),
    ]
    chunks = chunk_document(single_page(sections), whitespace_and_cjk_tokens, 100, 10)
    assert any(code_text in chunk.text for chunk in chunks)


def test_code_block_too_big_is_split_at_lines() -> None:
    code_text = "\n".join(f"value_{number} = {number}" for number in range(200))
    chunks = chunk_document(single_page([Section(code_text, "code")]), whitespace_and_cjk_tokens, 40, 0)
    assert len(chunks) > 1
    for chunk in chunks:
        assert chunk.text.startswith("value_") and chunk.text.split("\n")[-1].count(" ") == 2


def test_chunks_never_cross_pages_and_keep_page_numbers() -> None:
    pages = [build_page(number, [Section(f"Page {number} text. " * 5)]) for number in (1, 2, 3)]
    chunks = chunk_document(document_of(*pages), whitespace_and_cjk_tokens, 1000, 0)
    assert [(chunk.page_number, chunk.text.count("Page")) for chunk in chunks] == [(1, 5), (2, 5), (3, 5)]


def test_heading_paths_follow_sections_and_small_sections_share_a_chunk() -> None:
    sections = [
        Section("# Install", "heading", ("Install",)),
        Section("Run the installer. " * 30, "text", ("Install",)),
        Section("## Linux", "heading", ("Install", "Linux")),
        Section("Use the AppImage. " * 30, "text", ("Install", "Linux")),
    ]
    chunks = chunk_document(single_page(sections), whitespace_and_cjk_tokens, 100, 0)
    assert chunks[0].text.startswith("# Install") and chunks[0].heading_path == ("Install",)
    linux = [chunk for chunk in chunks if "AppImage" in chunk.text]
    assert linux[0].text.startswith("## Linux")  # the break falls at the heading
    assert all(chunk.heading_path == ("Install", "Linux") for chunk in linux)
    tiny = [Section(f"# Part {n}", "heading", (f"Part {n}",)) for n in range(3)]
    tiny = [s for n in range(3) for s in (tiny[n], Section(f"Short text {n}.", "text", (f"Part {n}",)))]
    assert len(chunk_document(single_page(tiny), whitespace_and_cjk_tokens, 100, 0)) == 1


def test_overlap_repeats_the_end_of_the_previous_chunk() -> None:
    text = " ".join(f"Sentence number {n} ends here." for n in range(60))
    chunks = chunk_document(single_page([Section(text)]), whitespace_and_cjk_tokens, 40, 12)
    assert len(chunks) > 3
    for previous, following in pairwise(chunks):
        assert following.char_start < previous.char_end
        shared = text[following.char_start : previous.char_end]
        assert 0 < whitespace_and_cjk_tokens(shared) <= 12 and shared.endswith("here.")


def test_word_longer_than_the_limit_is_cut() -> None:
    text = "start " + "x" * 5000 + " end"
    chunks = chunk_document(single_page([Section(text)]), subword_tokens, 64, 8)
    assert all(chunk.token_count <= 64 for chunk in chunks)
    assert "".join(c.text for c in chunks if "x" in c.text and c.text != "start").count("x") >= 5000


def test_limits_are_validated() -> None:
    document = single_page([Section("text")])
    with pytest.raises(ValueError):
        chunk_document(document, whitespace_and_cjk_tokens, 10, 10)
    with pytest.raises(ValueError):
        chunk_document(document, whitespace_and_cjk_tokens, 0, 0)


def test_pages_without_sections_and_empty_pages() -> None:
    document = document_of(PageText(1, "Plain page text. Second sentence."), PageText(2, "   \n\n  "))
    chunks = chunk_document(document, whitespace_and_cjk_tokens, 100, 0)
    assert [(c.page_number, c.text) for c in chunks] == [(1, "Plain page text. Second sentence.")]


# -- real tokenizer and speed ------------------------------------------------------------------


def _long_english_document(paragraphs: int) -> ParsedDocument:
    sentence = "Retrieval augmented generation finds passages in local documents and cites them. "
    text = "\n\n".join(sentence * (1 + n % 7) for n in range(paragraphs))
    return single_page([Section(text)])


def test_real_minilm_tokenizer_limits_hold() -> None:
    count = minilm_token_counter()
    document = _long_english_document(200)
    mixed = single_page([Section(("知识库把文档切成小块。" * 40) + "\n\n" + "Mixed English text. " * 80)])
    for doc in (document, mixed):
        chunks = chunk_document(doc, count, 128, 16)
        check_invariants(doc, chunks, count, 128, 16)
        assert sum(chunk.token_count for chunk in chunks) / len(chunks) > 64  # chunks are reasonably full


def test_chunking_calls_the_counter_sparingly() -> None:
    # Counting tokens is what costs (the embedding model's tokenizer); chunking must not re-count a chunk
    # per candidate cut. Its speed against the embedder is measured in tests/benchmarks/bench_kb.py.
    counter = CountingCounter(whitespace_and_cjk_tokens)
    document = _long_english_document(3000)
    chunks = list(iter_chunks(document, counter, 128, 16))
    assert len(chunks) > 1000
    assert counter.calls <= 3 * len(chunks)


@pytest.mark.parametrize("line", [
    " ".join(f"Sentence {number} says the cache index moved to disk {number % 13}." for number in range(6000)),
    " ".join(f"word{number} cache index vector latency" for number in range(8000)),  # no sentence ends
    "".join(f"{number:x}q" for number in range(60000)),  # one word, no spaces: cut into character runs
], ids=["sentences", "no-sentence-ends", "no-spaces"])
def test_one_huge_line_is_chunked_with_a_bounded_number_of_counts_per_chunk(line: str) -> None:
    """A file of one long line (10 MB ones are common: minified, exported, OCR'd) costs a few counts per chunk,
    never counts that grow with the line."""
    counter = CountingCounter(subword_tokens)
    document = single_page([Section(line)])
    chunks = list(iter_chunks(document, counter, 254, 64))
    assert len(chunks) > 100
    assert counter.calls <= 3 * len(chunks) + 10
    assert all(chunk.token_count <= 254 for chunk in chunks)
    assert document.pages[0].text[chunks[-1].char_start : chunks[-1].char_end] == chunks[-1].text
