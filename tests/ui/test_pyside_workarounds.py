"""The None-reference workaround keeps long GUI sessions alive on a PySide6 that drops references to None."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from PySide6.QtWidgets import QLabel

from app.ui.pyside_workarounds import void_calls_drop_none_references

pytestmark = pytest.mark.gui
CALLS = 20_000


def test_many_void_qt_calls_leave_none_alive(qtbot: Any) -> None:
    """Four times the references None has in a fresh interpreter (about 5000): without the workaround
    (applied by the GUI start and this suite's conftest) this aborts the process on an affected PySide6."""
    label = QLabel()
    qtbot.addWidget(label)
    for number in range(CALLS):
        label.setText(str(number))
    assert sys.getrefcount(None) > 0
    assert label.text() == str(CALLS - 1)


def test_detection_matches_what_calls_do(qtbot: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    before = sys.getrefcount(None)
    for _ in range(500):
        label.setText("x")
    dropped = before - sys.getrefcount(None) >= 250
    assert void_calls_drop_none_references() == dropped
