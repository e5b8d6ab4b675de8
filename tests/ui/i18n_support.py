"""Helpers for the language and accessibility tests: the main views as a user sees them (a window with a cited
answer, the gauges, the knowledge base and the settings open), every text a user sees or hears in a widget tree,
and the English left in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtGui import QFontDatabase, Qt, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QProgressBar,
    QTabBar,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QWidget,
)

from app.context import AppContext
from app.core.chat.records import Citation
from app.ui.chat.chat_view import ChatView
from app.ui.conversations.conversation_sidebar import ConversationSidebar
from app.ui.i18n import LanguageSwitcher
from app.ui.main_window import MainWindow
from app.ui.settings.settings_dialog import SettingsDialog
from tests.ui.chat_support import ChatWindows, chat_of
from tests.ui.models_support import make_library

# Words that stay as they are in the Chinese UI: product, format, unit and key names, and language names written
# in their own language (the language menu offers "English").
KEPT_WORDS = {"UniDesk", "GGUF", "Hugging", "Face", "Hub", "vLLM", "llama", "cpp", "GiB", "MiB", "KiB", "GB", "MB",
              "kB", "PDF", "Word", "Markdown", "KV", "HF_TOKEN", "GPU", "CPU", "Q4_K_M", "English", "Ctrl", "Shift",
              "Enter", "Esc", "Top", "OpenAI", "API", "URL", "http", "https", "chromadb", "ms", "tok", "JSON",
              "ModelScope", "HF_ENDPOINT", "NVIDIA", "OCR", "PNG", "JPEG",
              # who published a catalog checksum, and the hub branch a download follows (catalog pins)
              "LocalAI", "Podman", "AI", "Lab", "main", "sha", "git",  # sha256, git object ids
              # the built-in machines' product names (their descriptions are translated)
              "DGX", "Spark", "Jetson", "AGX", "Thor", "Orin", "GH", "Grace", "Hopper", "GeForce", "RTX", "Apple",
              "MacBook", "Pro", "Max", "LPDDR", "HBM", "DDR"}
MODEL_NAMES = ("intfloat/multilingual-e5-small", "multilingual-e5-small", "all-MiniLM-L6-v2", "bge-reranker-v2-m3",
               "bge-m3", "Qwen3-Embedding-0.6B")
"""Models named in the texts (the embedding and reranking models): names, as file names are."""
ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z_]+")


@contextmanager
def switched_language(app: Any) -> Iterator[LanguageSwitcher]:
    """A language switcher for a test; English is back afterwards (other tests expect it)."""
    languages = LanguageSwitcher(app)
    try:
        yield languages
    finally:
        languages.apply("en")
        languages.deleteLater()


def _tree_texts(widget: QTreeWidget) -> list[str]:
    header = widget.headerItem()
    texts = [header.text(column) for column in range(widget.columnCount())]
    items = [widget.topLevelItem(row) for row in range(widget.topLevelItemCount())]
    items += [item.child(index) for item in list(items) if item is not None for index in range(item.childCount())]
    texts += [item.text(column) for item in items if item is not None and not item.isHidden()
              for column in range(widget.columnCount())]
    return texts


def _menu_texts(menu: QMenu | QMenuBar) -> list[str]:
    texts = [menu.title()] if isinstance(menu, QMenu) else []
    for action in menu.actions():
        texts += [action.text(), action.toolTip()]
        submenu = action.menu()
        if isinstance(submenu, QMenu):
            texts += _menu_texts(submenu)
    return texts


def shown_text(text: str) -> str:
    """Rich text (a tooltip) as the user reads it: without its tags and invisible line-break hints."""
    if not Qt.mightBeRichText(text):
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText().replace("\u200b", "")


def widget_texts(widget: QWidget) -> list[str]:
    """The texts ``widget`` itself shows: its text, items, tabs, menus, placeholder, a spin box's shown value, tooltip
    and accessible name."""
    texts = [shown_text(widget.toolTip()), widget.accessibleName(), widget.accessibleDescription()]
    if isinstance(widget, (QLabel, QAbstractButton)):
        texts.append(widget.text())
    if isinstance(widget, QProgressBar):
        texts.append(widget.format())
    if isinstance(widget, QTabWidget):
        texts += [widget.tabText(index) for index in range(widget.count())]
    if isinstance(widget, QTabBar):
        texts += [widget.tabText(index) for index in range(widget.count())]
    if isinstance(widget, QDockWidget):
        texts.append(widget.windowTitle())
    if isinstance(widget, QTreeWidget):
        texts += _tree_texts(widget)
    if isinstance(widget, QListWidget):
        texts += [widget.item(row).text() for row in range(widget.count()) if not widget.item(row).isHidden()]
        texts += [widget.item(row).toolTip() for row in range(widget.count()) if not widget.item(row).isHidden()]
    if isinstance(widget, QComboBox):
        texts += [widget.itemText(index) for index in range(widget.count())]
    if isinstance(widget, (QLineEdit, QPlainTextEdit)):
        texts.append(widget.placeholderText())
    if isinstance(widget, QAbstractSpinBox):  # the value as shown: a special value by its label ("Automatic")
        texts += [widget.text(), widget.specialValueText()]
    if isinstance(widget, QTextBrowser):
        texts.append(widget.toPlainText())
    if isinstance(widget, (QMenu, QMenuBar)):
        texts += _menu_texts(widget)
    return texts


def visible_texts(root: QWidget) -> list[str]:
    """Every text a user can see or hear in ``root`` and its visible children (labels, buttons, headers, rows,
    tabs, menus, placeholders, tooltips, accessible names)."""
    texts = [root.windowTitle()]
    for widget in [root, *root.findChildren(QWidget)]:
        if widget is root or widget.isVisibleTo(root):
            texts += widget_texts(widget)
    return [text for text in texts if text]


def english_left(texts: list[str], data: list[str]) -> list[str]:
    """The English words in ``texts`` once names of files, models and formats (``data``) are taken out."""
    left = []
    for text in texts:
        for name in sorted([*data, *MODEL_NAMES], key=len, reverse=True):
            text = text.replace(name, " ")
        left += [word for word in ENGLISH_WORD.findall(text) if word not in KEPT_WORDS]
    return left


def has_cjk_font() -> bool:
    return any("CJK" in family for family in QFontDatabase.families())


QUESTION = "海底电缆有多长？"
ANSWER = "电缆长 **42 公里** [1]，蜜蜂用舞蹈指路 [2]。\n\n```python\nlength_km = 42\n```\n"
CODE_NAMES = ["python", "length_km"]
"""Names in the answer's code block (a language and a variable): they stay as they are in any language."""


@dataclass
class MainViews:
    """A real main window with the chat (a question and an answer citing two files, one of them a PDF page), the
    gauges, the knowledge-base dock and the model manager, and the settings dialog open."""

    window: MainWindow
    view: ChatView
    sidebar: ConversationSidebar
    settings: SettingsDialog
    conversation_id: str
    question_id: str
    answer_id: str
    sources: tuple[Path, Path]


@contextmanager
def opened_main_views(qtbot: Any, chat_windows: ChatWindows, context: AppContext, folder: Path, model: Path,
                      language: LanguageSwitcher) -> Iterator[MainViews]:
    """Open the main views over ``model`` (files under ``folder``); closing the window stops the knowledge base and
    the model manager."""
    window = chat_windows.open(model, language=language, library=make_library(folder / "library"))
    view, sidebar, store = chat_of(window)
    report, notes = folder / "docs" / "report.pdf", folder / "docs" / "bees.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_bytes(b"%PDF-1.4\n% a stand-in; no viewer is started in tests\n%%EOF\n")
    notes.write_text("# 蜂群\n\n工蜂用舞蹈指出花的位置。\n", encoding="utf-8")
    conversation = store.create_conversation()
    question = store.add_message(conversation.id, "user", QUESTION, None)
    store.add_message(conversation.id, "assistant", "大约四十公里。", question.id, finish_reason="stop",
                      model="tiny-model")  # an earlier answer: the cited one is its alternative
    citations = (Citation(1, str(report), 3, "", 7, True, "海底电缆全长 42 公里。"),
                 Citation(2, str(notes), None, "蜂群", 8, True, "工蜂用舞蹈指出花的位置。"))
    answer = store.add_message(conversation.id, "assistant", ANSWER, question.id, finish_reason="stop",
                               citations=citations, model="tiny-model")
    sidebar.refresh(select=conversation.id)
    qtbot.waitUntil(lambda: view.meter.budget is not None, timeout=30_000)  # the context preview has run
    window.gauges_dock.raise_()
    qtbot.waitUntil(lambda: window.gauges.memory_gauge.snapshot is not None, timeout=30_000)
    window.open_settings()
    settings = window.settings_dialog
    assert settings is not None
    qtbot.waitExposed(settings)
    qtbot.waitUntil(lambda: settings.verdict_view.verdict is not None, timeout=30_000)
    yield MainViews(window, view, sidebar, settings, conversation.id, question.id, answer.id, (report, notes))
