"""Mapping "[n]" markers in answers back to the numbered sources."""

from __future__ import annotations

from app.core.chat.citations import citations_for, cited_numbers
from app.core.chat.records import Passage

PASSAGES = (
    Passage("Bees dance.", "/docs/bees.pdf", 2, "Communication", 7),
    Passage("Iceland has volcanoes. " * 30, "/docs/iceland.md", None, "", 8),
    Passage("面包需要酵母。", "/docs/面包.txt", 1, "发酵", 9),
)


def test_markers_in_their_usual_forms() -> None:
    assert cited_numbers("Bees dance [1]. Volcanoes [2][3].", 3) == [1, 2, 3]
    assert cited_numbers("See [3, 1] and [1,2].", 3) == [3, 1, 2]
    assert cited_numbers("See [1-3].", 3) == [1, 2, 3]
    assert cited_numbers("蜜蜂会跳舞【1】，面包［3］，还有[2，3]。", 3) == [1, 3, 2]


def test_numbers_without_a_source_and_non_markers_are_ignored() -> None:
    assert cited_numbers("Source [4] and [0] do not exist; [a] is no marker; x[2] is.", 3) == [2]
    assert cited_numbers("A range [1-500] is not trusted.", 3) == []
    assert cited_numbers("No citations here.", 3) == []


def test_every_source_is_listed_and_flags_what_was_cited() -> None:
    citations = citations_for("Volcanoes [2].", PASSAGES)
    assert [c.number for c in citations] == [1, 2, 3]
    assert [c.cited for c in citations] == [False, True, False]
    second = citations[1]
    assert (second.path, second.page, second.document_id) == ("/docs/iceland.md", None, 8)
    assert second.label == "iceland.md" and len(second.excerpt) <= 240 and second.excerpt.endswith("…")
    assert citations[2].label == "面包.txt, p. 1, 发酵"


def test_uncited_answer_still_lists_sources() -> None:
    citations = citations_for("I am not sure.", PASSAGES)
    assert len(citations) == 3 and not any(c.cited for c in citations)
    assert citations_for("anything [1]", ()) == ()
