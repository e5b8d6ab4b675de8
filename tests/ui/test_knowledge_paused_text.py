"""The knowledge panel says when indexing waits for an answer (English and Chinese), and the usual line otherwise."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app.core.kb.progress import IndexingProgress
from app.ui.i18n import LanguageSwitcher
from app.ui.knowledge.indexing_progress_view import IndexingProgressView
from app.ui.knowledge.knowledge_texts import phase_text

pytestmark = pytest.mark.gui

MEMORY = Path(__file__).resolve().parents[2] / "resources" / "translations" / "translation_memory_zh_CN.json"
PAUSED = "Paused while an answer is written; indexing carries on after it…"
WORKING = {"indexing": "Indexing documents…", "re-embedding": "Re-embedding documents for the new embedding model…"}


def chinese(source: str) -> str:
    translations: dict[str, str] = json.loads(MEMORY.read_text(encoding="utf-8"))["translations"]
    return translations[source]


@pytest.mark.parametrize("phase", ["indexing", "re-embedding"])
def test_a_paused_run_says_it_waits_for_the_answer(phase: str) -> None:
    assert phase_text(IndexingProgress(phase=phase, paused=True)) == PAUSED
    assert phase_text(IndexingProgress(phase=phase, paused=False)) == WORKING[phase]


@pytest.mark.parametrize("phase", ["starting", "scanning", "cleaning", "cancelled", "failed", "finished"])
def test_other_phases_say_what_they_do_even_if_paused(phase: str) -> None:
    # Only embedding steps aside; the flag left on in another phase must not hide what the job does.
    assert phase_text(IndexingProgress(phase=phase, paused=True)) == phase_text(IndexingProgress(phase=phase))
    assert phase_text(IndexingProgress(phase=phase, paused=True)) != PAUSED


@pytest.mark.parametrize("phase", ["indexing", "re-embedding"])
def test_the_paused_line_speaks_chinese(qapp: Any, switcher: LanguageSwitcher, phase: str) -> None:
    assert switcher.apply("zh_CN") == "zh_CN"
    paused = phase_text(IndexingProgress(phase=phase, paused=True))
    working = phase_text(IndexingProgress(phase=phase, paused=False))
    assert paused == chinese(PAUSED) and "暂停" in paused
    assert working == chinese(WORKING[phase]) and "暂停" not in working
    assert switcher.apply("en") == "en"
    assert phase_text(IndexingProgress(phase=phase, paused=True)) == PAUSED


def test_the_progress_view_shows_the_pause_and_then_the_work_again(qtbot: Any, switcher: LanguageSwitcher) -> None:
    view = IndexingProgressView()
    qtbot.addWidget(view)
    running = IndexingProgress(phase="indexing", files_total=10, files_done=3, chunks_done=40)
    view.show_progress(replace(running, paused=True))
    assert view.phase_label.text() == PAUSED
    assert view.cancel_button.isVisibleTo(view), "a paused run can still be cancelled"
    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: view.phase_label.text() == chinese(PAUSED), timeout=20_000)  # retranslated in place
    view.show_progress(running)
    assert view.phase_label.text() == chinese(WORKING["indexing"])
