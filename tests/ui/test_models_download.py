"""Downloads from the model manager against a loopback server that answers like the Hugging Face hub."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.core.models.file_download import part_path
from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.ui.models_support import SMALL_MACHINE, UsedModels, make_library, open_dialog

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
KEY = ("qwen2.5-0.5b-instruct", "q4_k_m")
DOWNLOAD_TIMEOUT_MS = 60_000


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def _serve_catalog_variant(hub: FakeHub, tmp_path: Path, model_file: Path) -> tuple[Path, bytes]:
    """Serve a real (tiny) GGUF where the catalog's variant lives on the hub; returns the target and bytes."""
    library = make_library(tmp_path, hub.url)
    _, variant = library.catalog.find(*KEY)
    assert variant.file_name is not None
    content = model_file.read_bytes()
    hub.add_file(variant.repo_id, variant.file_name, content)
    return library.download_target(variant), content


def _ranges(hub: FakeHub) -> list[str]:
    return [request.headers.get("Range") or "" for request in hub.cdn_requests() if request.method == "GET"]


def test_a_download_resumes_after_a_dropped_connection_and_pause(
    qtbot: Any, tmp_path: Path, hub: FakeHub, tiny_gguf: Path, screenshot: Shot
) -> None:
    target, content = _serve_catalog_variant(hub, tmp_path, tiny_gguf)
    drop_at = len(content) // 3
    hub.throttle(16 * 1024, 0.03)
    hub.drop_connection_after(drop_at)
    release = hub.hold_at(2 * len(content) // 3)  # the resumed body stops there until Pause has been clicked
    used = UsedModels()
    dialog = open_dialog(qtbot, make_library(tmp_path, hub.url), SMALL_MACHINE, used)
    page, box = dialog.catalog_page, dialog.catalog_page.download_box
    page.tree.select(KEY)
    assert box.mode == "available" and box.download_button.isVisible()

    box.download_button.click()

    def shown_past_the_drop() -> bool:
        return (drop_at < (job_bytes(dialog) or 0) < len(content) and box.bar.isVisible()
                and box.bar.value() * len(content) > drop_at * box.bar.maximum())

    qtbot.waitUntil(shown_past_the_drop, timeout=DOWNLOAD_TIMEOUT_MS)
    assert any(text.startswith("bytes=") for text in _ranges(hub))  # resumed after the drop
    assert f"bytes={drop_at}-" in _ranges(hub)
    assert 0 < box.bar.value() < box.bar.maximum()
    assert box.state_label.text() == "Downloading…" and " of " in box.amount_label.text()
    assert page.tree.state_of(KEY).endswith("%")
    screenshot(dialog, "models-04-downloading")

    box.pause_button.click()
    release.set()  # the worker sees the pause after the chunk it is reading
    qtbot.waitUntil(lambda: box.state_label.text().startswith("Paused"), timeout=DOWNLOAD_TIMEOUT_MS)
    assert (job_bytes(dialog) or 0) < len(content)  # paused mid-file
    paused_at = job_bytes(dialog)
    qtbot.wait(300)
    assert job_bytes(dialog) == paused_at and box.resume_button.isVisible() and not box.pause_button.isVisible()
    assert page.tree.state_of(KEY) == "Paused"
    box.resume_button.click()

    qtbot.waitUntil(lambda: box.mode == "downloaded", timeout=DOWNLOAD_TIMEOUT_MS)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == hashlib.sha256(content).hexdigest()
    assert not part_path(target).exists()
    assert f"bytes={paused_at}-" in _ranges(hub)  # the pause closed the connection; resume asked for the rest
    assert page.tree.state_of(KEY) == "Downloaded"
    assert "downloaded and verified" in dialog.message.text()
    qtbot.waitUntil(lambda: [model.path for model in dialog.local_page.models()] == [str(target.resolve())],
                    timeout=DOWNLOAD_TIMEOUT_MS)

    box.use_button.click()
    assert used.paths == [target.resolve()]


def test_a_cancelled_download_deletes_its_part_and_can_start_again(
    qtbot: Any, tmp_path: Path, hub: FakeHub, tiny_gguf: Path
) -> None:
    target, content = _serve_catalog_variant(hub, tmp_path, tiny_gguf)
    hub.throttle(8 * 1024, 0.01)
    release = hub.hold_at(len(content) // 2)  # the body stops half way until Cancel has been clicked
    dialog = open_dialog(qtbot, make_library(tmp_path, hub.url), SMALL_MACHINE, UsedModels())
    box = dialog.catalog_page.download_box
    dialog.catalog_page.tree.select(KEY)
    box.download_button.click()
    qtbot.waitUntil(lambda: (job_bytes(dialog) or 0) > 0, timeout=DOWNLOAD_TIMEOUT_MS)

    box.cancel_button.click()
    release.set()

    qtbot.waitUntil(lambda: "was cancelled" in dialog.message.text(), timeout=DOWNLOAD_TIMEOUT_MS)
    assert not part_path(target).exists() and not target.exists()
    assert box.download_button.isVisible() and not box.bar.isVisible()
    assert dialog.catalog_page.tree.state_of(KEY) == ""
    assert len(content) > 0


def job_bytes(dialog: Any) -> int | None:
    job = dialog.job(KEY)
    return None if job is None else int(job.progress().bytes_done)
