"""Accessible names: every control a user can reach in the main views (chat, sidebar, messages and their sources,
gauges, knowledge base, settings) tells a screen reader what it is, in the language on show."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QTextEdit,
    QWidget,
)

from app.ui.gauges.memory_bar import MemoryBar
from app.ui.gauges.memory_gauge import MemoryGauge
from app.ui.gauges.speed_gauge import SpeedGauge
from app.ui.gauges.speed_history_plot import SpeedHistoryPlot
from app.ui.i18n import LanguageSwitcher
from tests.ui.i18n_support import MainViews

pytestmark = [pytest.mark.gui, pytest.mark.integration]
WAIT_MS = 20_000  # retranslating every widget of the window: generous for a slow, loaded machine

INTERACTIVE = (QAbstractButton, QLineEdit, QTextEdit, QPlainTextEdit, QComboBox, QAbstractSpinBox, QAbstractSlider,
               QAbstractItemView, MemoryGauge, SpeedGauge, SpeedHistoryPlot, MemoryBar)
"""Controls a user can reach (buttons, check boxes, text fields, combo and spin boxes, sliders, lists and trees)
and the gauges."""


def is_part_of_a_qt_control(widget: QWidget) -> bool:
    """Scroll bars, headers and the editor or buttons Qt puts inside a spin box, combo box or line edit: Qt
    names them through the control they belong to."""
    return isinstance(widget, (QScrollBar, QHeaderView)) or isinstance(
        widget.parentWidget(), (QAbstractSpinBox, QComboBox, QLineEdit))


def spoken_name(widget: QWidget) -> str:
    """What a screen reader announces: the accessible name, else what Qt derives (a button's text, a buddy label)."""
    interface = QAccessible.queryAccessibleInterface(widget)
    derived = interface.text(QAccessible.Text.Name) if interface is not None else ""
    return (widget.accessibleName() or derived).strip()


def unnamed_controls(root: QWidget) -> list[str]:
    """The visible controls in ``root`` without a name, as ``Class#objectName (parent's objectName)``."""
    controls = [widget for widget in [root, *root.findChildren(QWidget)]
                if isinstance(widget, INTERACTIVE) and (widget is root or widget.isVisibleTo(root))
                and not is_part_of_a_qt_control(widget)]
    return [f"{type(widget).__name__}#{widget.objectName()} ({parent_name(widget)})"
            for widget in controls if not spoken_name(widget)]


def parent_name(widget: QWidget) -> str:
    parent = widget.parentWidget()
    return parent.objectName() if parent is not None else ""


def reachable_controls(root: QWidget) -> list[QWidget]:
    return [widget for widget in root.findChildren(QWidget) if isinstance(widget, INTERACTIVE)
            and widget.isVisibleTo(root) and not is_part_of_a_qt_control(widget)]


def kinds_of(controls: list[QWidget]) -> set[type]:
    return {kind for kind in INTERACTIVE if any(isinstance(widget, kind) for widget in controls)}


def test_every_control_in_the_main_views_has_a_name(qtbot: Any, views: MainViews) -> None:
    window, settings = views.window, views.settings
    settings.panel.show_advanced(True)
    question = views.view.messages.widget_for(views.question_id)
    answer = views.view.messages.widget_for(views.answer_id)
    assert question is not None and answer is not None
    question.start_edit()  # its editor and Send / Cancel appear
    answer.chips[0].passage_action.trigger()
    popup = views.view.passage_popup
    assert popup is not None and popup.isVisible()

    for root in (window, settings, popup):
        assert unnamed_controls(root) == [], root.objectName()

    in_window, in_settings = reachable_controls(window), reachable_controls(settings)
    assert {QAbstractButton, QPlainTextEdit, QTextEdit, QLineEdit, QAbstractItemView, MemoryGauge, SpeedGauge,
            SpeedHistoryPlot, MemoryBar} <= kinds_of(in_window)  # the walk reached the chat, sidebar and gauges
    assert {QComboBox, QAbstractSpinBox} <= kinds_of(in_settings)
    icon_only = [widget for widget in [*in_window, *in_settings] if isinstance(widget, QAbstractButton)
                 and not any(character.isalnum() for character in widget.text())
                 and not widget.objectName().startswith("qt_")]  # a dock's float and close buttons: Qt's own
    assert answer.previous_button in icon_only  # the answer has an alternative: ‹ 2 / 2 ›
    assert [widget.objectName() or type(widget).__name__ for widget in icon_only if not widget.toolTip()] == []
    popup.close()
    question.cancel_edit()


def test_names_follow_the_language(qtbot: Any, views: MainViews, switcher: LanguageSwitcher) -> None:
    view = views.view
    named_before = [(widget, spoken_name(widget)) for widget in reachable_controls(views.window)]

    assert switcher.apply("zh_CN") == "zh_CN"

    qtbot.waitUntil(lambda: view.composer.editor.accessibleName() != "Message", timeout=WAIT_MS)
    assert view.composer.editor.accessibleName() == "消息"
    assert views.sidebar.search.accessibleName() == "搜索对话"
    assert views.window.gauges.speed_gauge.history.accessibleName() == "解码速度历史"
    assert unnamed_controls(views.window) == [] and unnamed_controls(views.settings) == []
    renamed = [widget for widget, name in named_before if spoken_name(widget) != name]
    assert len(renamed) >= 10  # names are written again in the new language, not only set once


def test_the_walk_reports_unnamed_controls_and_skips_hidden_ones(qtbot: Any) -> None:
    root = QWidget()
    root.setObjectName("form")
    qtbot.addWidget(root)
    field = QLineEdit(root)
    field.setObjectName("unnamedField")
    hidden = QComboBox(root)
    hidden.setVisible(False)
    labelled = QLineEdit(root)
    labelled.setAccessibleName("Title")
    root.show()
    assert unnamed_controls(root) == ["QLineEdit#unnamedField (form)"]
    field.setAccessibleName("Search")
    assert unnamed_controls(root) == []
