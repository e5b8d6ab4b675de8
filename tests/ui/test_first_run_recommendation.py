"""The first-run guide recommends a model for this machine and downloads it in place (pause, resume, use)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.ui.models_support import SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
TIMEOUT_MS = 60_000


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def test_the_guide_names_the_recommended_model_and_downloads_it_with_pause_and_resume(
    qtbot: Any, tmp_path: Path, hub: FakeHub, tiny_gguf: Path, screenshot: Shot
) -> None:
    library = make_library(tmp_path, hub.url)
    used = UsedModels()
    dialog = open_dialog(qtbot, library, SMALL_MACHINE, used, first_run=True)
    guide = dialog.first_run
    assert dialog.stack.currentWidget() is guide
    recommendation = dialog.recommendation
    assert recommendation is not None
    qtbot.waitUntil(lambda: guide.recommended_title.isVisible(), timeout=TIMEOUT_MS)
    assert recommendation.model.name in guide.recommended_title.text()
    assert "fits this computer" in guide.recommended_reason.text()
    box = guide.download_box
    assert box.mode == "available" and box.download_button.isVisible()
    screenshot(dialog, "first-run-recommendation")

    variant = recommendation.variant
    assert variant.file_name is not None
    content = tiny_gguf.read_bytes()
    hub.add_file(variant.repo_id, variant.file_name, content)
    release = hub.hold_at(len(content) // 2)
    box.download_button.click()
    qtbot.waitUntil(lambda: box.pause_button.isVisible(), timeout=TIMEOUT_MS)
    box.pause_button.click()
    release.set()
    qtbot.waitUntil(lambda: box.resume_button.isVisible(), timeout=TIMEOUT_MS)
    assert box.state_label.text().startswith("Paused")
    box.resume_button.click()

    qtbot.waitUntil(lambda: box.mode == "downloaded", timeout=TIMEOUT_MS)
    target = library.download_target(variant)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == hashlib.sha256(content).hexdigest()
    box.use_button.click()
    assert used.paths == [target.resolve()]


def test_the_guide_offers_only_browsing_when_nothing_fits(qtbot: Any, tmp_path: Path) -> None:
    from tests.ui.conftest import fake_machine

    tiny_machine = fake_machine(ram_total_gib=1.0, ram_available_gib=0.2)
    dialog = open_dialog(qtbot, make_library(tmp_path), tiny_machine, UsedModels(), first_run=True)
    assert dialog.recommendation is None
    assert not dialog.first_run.recommended_title.isVisible() and not dialog.first_run.download_box.isVisible()
    assert dialog.first_run.browse_button.isVisible()


def test_the_guides_download_also_fetches_the_documents_embedding_model(
    app_context: Any, open_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
    from tests.ui.conftest import make_services

    fetched: list[bool] = []
    monkeypatch.setattr(KnowledgeBasePanel, "fetch_embedding_model", lambda self: fetched.append(True))
    window = open_window(app_context, make_services(app_context, SMALL_MACHINE))
    box = window.model_manager.first_run.download_box
    box.download_requested.emit()
    assert fetched == [True]
