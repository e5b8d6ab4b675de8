"""Layout that holds in Chinese and in a small window: the machine summary aligned by drawn width, the
knowledge-scope dialog's Status column whole, the window usable at 900x600 (issue 15, items 7 and 8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QStyle, QWidget

import tests.core.hardware.hardware_machines as machines
from app.context import AppContext
from app.core.chat.records import KnowledgeScope
from app.core.engines.manager import ManagerState
from app.core.hardware import format_report, probe_hardware
from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.services.gauge_readings import GaugeSnapshot, MemoryBarReading, MemorySegment, SpeedReading
from app.ui.chat.knowledge_scope_dialog import KnowledgeScopeDialog
from app.ui.chat.knowledge_scope_tree import STATUS
from app.ui.gauges.gauges_panel import GaugesPanel
from app.ui.i18n import LanguageSwitcher
from app.ui.main_window import MainWindow
from app.ui.welcome.welcome_page import WelcomePage
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui
Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000
LOAD_MS = 60_000  # a tiny model, on a slow and busy machine


def _value_lefts(page: WelcomePage) -> set[int]:
    """Where each row's value starts, in the page's pixels."""
    return {value.mapTo(page, value.rect().topLeft()).x() for _label, value in page.machine_summary.rows}


def test_the_machine_summary_lines_up_by_width_in_chinese(
    qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path, screenshot: Shot
) -> None:
    """Chinese labels are double width: padding them by characters put the values at different places."""
    report = probe_hardware(machines.cpu_only_server(tmp_path).sources, measure_bandwidth=False)
    summary = format_report(report)
    page = WelcomePage()
    qtbot.addWidget(page)
    page.resize(900, 600)
    page.show()
    qtbot.waitExposed(page)
    page.set_machine_summary(summary)
    labels = [label.text() for label, _value in page.machine_summary.rows]
    assert labels[:3] == ["OS", "CPU", "RAM"] and "Backend" in labels
    assert page.machine_summary.text() == summary  # what a copy gives: the CLI's lines

    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: page.machine_summary.rows[0][0].text() == "操作系统", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(_value_lefts(page)) == 1, timeout=WAIT_MS)
    rows = page.machine_summary.rows
    labels = [label.text() for label, _value in rows]
    assert labels[:3] == ["操作系统", "CPU", "内存"] and "统一内存" in labels and "后端" in labels
    (left,) = _value_lefts(page)
    widest = max(label.fontMetrics().horizontalAdvance(label.text()) for label, _value in rows)
    assert left >= rows[0][0].mapTo(page, rows[0][0].rect().topLeft()).x() + widest
    values = [value.text() for _label, value in rows]
    assert any("4 核 / 8 线程" in value for value in values)
    assert values[-1].endswith("llamacpp（无 GPU：llama.cpp 在 CPU 上运行模型。）")
    screenshot(page, "summary-zh-aligned-by-width")

    assert switcher.apply("en") == "en"
    qtbot.waitUntil(lambda: page.machine_summary.rows[0][0].text() == "OS", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(_value_lefts(page)) == 1, timeout=WAIT_MS)
    screenshot(page, "summary-en-aligned-by-width")
    page.set_machine_summary(lambda: "Could not look at this machine: no /proc")  # any other text: one line
    assert [value.text() for _label, value in page.machine_summary.rows] == ["Could not look at this machine: no /proc"]


def _document(document_id: int, folder: Path, name: str, status: DocumentStatus, *, embedded: bool = True,
              error_kind: str | None = None) -> DocumentRecord:
    """A row as the knowledge base's catalog lists it."""
    path = str(folder / name)
    return DocumentRecord(document_id, path, str(folder), "hash", 100, 0, "md", None, 1, 3, status, error_kind,
                          f"{path}: the file is damaged" if error_kind else None, None, 0.0, 0.0, embedded)


def test_the_scope_dialogs_status_column_shows_every_status_whole_in_chinese(
    qtbot: Any, switcher: LanguageSwitcher, tmp_path: Path, screenshot: Shot
) -> None:
    """The column was sized by the header's hint: the longest status ran flush into the frame (clipped in
    Chinese). Each status now has its drawn width, the item margins and room to spare."""
    folder = tmp_path / "research notes"
    records = [
        _document(1, folder, "heron.md", DocumentStatus.INDEXED),
        _document(2, folder, "otters.md", DocumentStatus.INDEXED, embedded=False),  # keywords only, embedding
        _document(3, folder, "broken.pdf", DocumentStatus.FAILED, error_kind="corrupt"),
        _document(4, folder, "birds/swifts.md", DocumentStatus.PENDING),
        _document(5, folder, "a long name about the grey herons that nest along the river all year.md",
                  DocumentStatus.INDEXED),
    ]
    dialog = KnowledgeScopeDialog()
    qtbot.addWidget(dialog)
    dialog.edit(True, KnowledgeScope())
    dialog.show()
    qtbot.waitExposed(dialog)
    assert switcher.apply("zh_CN") == "zh_CN"
    dialog.show_documents(records, [str(folder)])
    tree = dialog.tree
    qtbot.waitUntil(lambda: tree.headerItem().text(STATUS) == "状态", timeout=WAIT_MS)

    def room(item: Any) -> int:
        """Pixels left beside the status text in its cell (after the item's own text margins)."""
        margin = 2 * (tree.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1)
        width = tree.visualRect(tree.indexFromItem(item, STATUS)).width()
        return width - margin - tree.fontMetrics().horizontalAdvance(item.text(STATUS))

    items = [tree.item_for_document(record.id) for record in records]
    statuses = [item.text(STATUS) for item in items if item is not None]
    assert "仅关键词（正在嵌入…）" in statuses and "失败：文件已损坏" in statuses
    em = tree.fontMetrics().horizontalAdvance("M")
    assert all(item is not None and room(item) >= em // 2 for item in items), [room(i) for i in items if i]
    column_right = tree.columnViewportPosition(STATUS) + tree.columnWidth(STATUS)
    assert column_right <= tree.viewport().width()  # nothing hidden past the right edge either
    screenshot(dialog, "scope-zh-status-whole")

    assert switcher.apply("en") == "en"
    qtbot.waitUntil(lambda: tree.headerItem().text(STATUS) == "Status", timeout=WAIT_MS)
    assert all(item is not None and room(item) >= em // 2 for item in items)
    screenshot(dialog, "scope-en-status-whole")


def test_the_window_is_usable_at_900_by_600_with_a_model_loaded(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path,
    switcher: LanguageSwitcher, screenshot: Shot
) -> None:
    """At 900x600 the gauges dock scrolled: the speed gauge's figures sat below the fold. Now both gauges are
    whole in the dock, in English and in Chinese, with a model loaded (every legend row shown)."""
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900 and window.height() == 600, timeout=WAIT_MS)
    assert window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_MS)
    qtbot.waitUntil(lambda: window.sampler.latest is not None and window.sampler.latest.model_loaded,
                    timeout=WAIT_MS)
    window.gauges_dock.raise_()
    gauges = window.gauges

    def whole() -> bool:
        """Every gauge fits the dock: the panel's least size is within the room it has without scroll bars
        (so no bar shows), and the last figure is inside the visible area."""
        body, room = gauges.widget(), gauges.maximumViewportSize()
        least = body.minimumSizeHint()
        # A scroll area asks a panel of word-wrapping labels for its height at the width it has.
        height = max(least.height(), body.heightForWidth(room.width()) if body.hasHeightForWidth() else 0)
        note = gauges.speed_gauge.note
        bottom = note.mapTo(body, note.rect().bottomLeft()).y()
        return height <= room.height() and least.width() <= room.width() and bottom <= room.height()

    qtbot.waitUntil(whole, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not gauges.verticalScrollBar().isVisible(), timeout=WAIT_MS)
    assert not gauges.horizontalScrollBar().isVisible() and gauges.speed_gauge.values["roofline"].isVisible()
    screenshot(window, "window-900x600-en")
    assert switcher.apply("zh_CN") == "zh_CN"
    qtbot.waitUntil(lambda: gauges.memory_gauge.title.text() == "内存", timeout=WAIT_MS)
    qtbot.waitUntil(whole, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not gauges.verticalScrollBar().isVisible(), timeout=WAIT_MS)
    screenshot(window, "window-900x600-zh")
    assert whole() and not gauges.verticalScrollBar().isVisible()  # still, once the window has settled
    assert gauges.memory_gauge.summary.toolTip()  # the explanation moved into the tooltip, not lost


def _two_pool_snapshot() -> GaugeSnapshot:
    """What a discrete GPU shows with a model loaded: system memory and GPU memory, every part present."""
    gib = 1024**3

    def bar(pool: Any, total: int, parts: tuple[tuple[Any, int], ...]) -> MemoryBarReading:
        return MemoryBarReading(pool, total, tuple(MemorySegment(key, size) for key, size in parts))

    system = bar("system", 64 * gib, (("app", gib), ("embedder", gib // 2), ("runtime", gib // 4),
                                      ("other", 8 * gib), ("cache", 20 * gib), ("free", 30 * gib)))
    gpu = bar("gpu", 24 * gib, (("weights", 5 * gib), ("kv_used", gib), ("kv_reserved", 3 * gib),
                                ("compute", gib // 2), ("other", gib), ("free", 13 * gib)))
    return GaugeSnapshot(0.0, True, (system, gpu), SpeedReading(decode_tok_s=42.0, roofline_tok_s=120.0), gib, 0)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_with_two_memory_pools_the_plot_steps_aside_before_any_figure_scrolls(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], switcher: LanguageSwitcher,
    screenshot: Shot, language: str
) -> None:
    """A GPU machine's two bars and legends leave little room in a 900x600 window: every figure stays in view
    (they scrolled), the plot steps aside where it would not fit whole, and comes back given the room."""
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900 and window.height() == 600, timeout=WAIT_MS)
    assert switcher.apply(language) == language
    # A panel made in that language, in the window's own dock, fed the two-pool reading, not this machine's.
    gauges = GaugesPanel()
    window.gauges_dock.setWidget(gauges)
    window.gauges_dock.raise_()
    qtbot.waitUntil(lambda: not gauges.visibleRegion().isEmpty() and gauges.height() > 400, timeout=WAIT_MS)
    gauges.show_snapshot(_two_pool_snapshot())
    speed = gauges.speed_gauge

    def figures_in_view() -> bool:
        """The panel (with the plot where it is shown) needs no more height than the dock has, at its width:
        no scroll bar, every figure in view. From the layout's own sizes, not the last drawn positions."""
        body, room = gauges.widget(), gauges.maximumViewportSize()
        return not gauges.verticalScrollBar().isVisible() and body.heightForWidth(room.width()) <= room.height()

    qtbot.waitUntil(figures_in_view, timeout=WAIT_MS)
    assert all(legend.isVisible() for legend in gauges.memory_gauge.legends)
    assert speed.values["decode"].text() != "–" and speed.values["roofline"].isVisible()
    screenshot(window, f"window-900x600-two-pools-{language}")
    window.resize(900, 1000)
    qtbot.waitUntil(lambda: speed.history.isVisible(), timeout=WAIT_MS)
    qtbot.waitUntil(figures_in_view, timeout=WAIT_MS)
