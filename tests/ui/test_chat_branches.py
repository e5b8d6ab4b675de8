"""Regenerate and Edit in the real chat window: both add branches in the store (nothing is lost), and the
view flips between the alternatives."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from tests.ui.chat_support import ChatWindows, chat_of, greedy, settled, wait_until_done, wait_until_streaming

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]


def test_regenerate_and_edit_create_branches_and_the_view_flips_between_them(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf)
    view, _sidebar, store = chat_of(window)
    view.sampling = greedy(16, ignore_eos=True)
    assert view.send("What is a cat?")
    conversation_id = view.conversation_id
    assert conversation_id is not None
    wait_until_done(qtbot, view, conversation_id)
    question, first_answer = store.branch(conversation_id)

    answer_widget = view.messages.widget_for(first_answer.id)
    assert answer_widget is not None and not answer_widget.alternatives.isVisible()
    qtbot.mouseClick(answer_widget.regenerate_button, Qt.MouseButton.LeftButton)
    assert view.is_answering(conversation_id)
    wait_until_streaming(qtbot, view)
    question_widget = view.messages.widget_for(question.id)
    assert question_widget is not None and not question_widget.edit_button.isEnabled()  # busy meanwhile
    wait_until_done(qtbot, view, conversation_id)

    branch = store.branch(conversation_id)
    second_answer = branch[1]
    assert branch[0].id == question.id and second_answer.id != first_answer.id
    assert [message.id for message in store.children(conversation_id, question.id)] == [
        first_answer.id, second_answer.id]
    assert store.message(first_answer.id).text == first_answer.text  # the first answer is kept
    second_widget = view.messages.widget_for(second_answer.id)
    assert second_widget is not None and view.messages.widget_for(first_answer.id) is None
    assert second_widget.alternatives.text() == "2 / 2" and second_widget.previous_button.isEnabled()
    assert not second_widget.next_button.isEnabled()

    qtbot.mouseClick(second_widget.previous_button, Qt.MouseButton.LeftButton)
    settled(qtbot, view)
    assert store.conversation(conversation_id).current_leaf_id == first_answer.id
    shown = view.messages.widget_for(first_answer.id)
    assert shown is not None and shown.alternatives.text() == "1 / 2" and shown.text == first_answer.text

    question_widget = view.messages.widget_for(question.id)
    assert question_widget is not None and question_widget.edit_button.isEnabled()
    qtbot.mouseClick(question_widget.edit_button, Qt.MouseButton.LeftButton)
    assert question_widget.editing and question_widget.editor.toPlainText() == "What is a cat?"
    question_widget.editor.setPlainText("What is a dog?")
    screenshot(window, "chat-05-editing")
    qtbot.mouseClick(question_widget.save_edit_button, Qt.MouseButton.LeftButton)
    assert view.is_answering(conversation_id)
    wait_until_done(qtbot, view, conversation_id)

    edited_question, edited_answer = store.branch(conversation_id)
    assert edited_question.text == "What is a dog?" and edited_question.id != question.id
    assert edited_question.parent_id is None and edited_answer.parent_id == edited_question.id
    roots = store.children(conversation_id, None)
    assert [message.id for message in roots] == [question.id, edited_question.id]
    assert len(store.messages(conversation_id)) == 5  # two questions, three answers: nothing was lost
    edited_widget = view.messages.widget_for(edited_question.id)
    assert edited_widget is not None and edited_widget.alternatives.text() == "2 / 2"
    assert view.messages.widget_for(question.id) is None
    screenshot(window, "chat-06-branches")

    qtbot.mouseClick(edited_widget.previous_button, Qt.MouseButton.LeftButton)  # back to the cat
    settled(qtbot, view)
    assert store.branch(conversation_id)[0].text == "What is a cat?"
    assert view.messages.widget_for(question.id) is not None
