"""Child process for the crash test: streams one long answer into a conversations file until killed.

Usage: python -m tests.integration.answer_stream_child DATABASE MODEL
Prints "streaming <message id>" once the answer has started, then waits for the answer.
"""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.chat.store import ConversationStore
from app.core.config import Settings
from app.core.services.answering import Answerer
from app.core.services.chat_session import ChatSession
from tests.integration.answering_support import greedy, load_manager

LONG_CONTEXT = 65536  # room for an answer that streams far longer than the test waits, even on a fast machine


def main(database: Path, model: Path) -> int:
    manager = load_manager(model, LONG_CONTEXT, parallel_chats=1)
    store = ConversationStore(database)
    settings = Settings()
    session = ChatSession(store, Answerer(manager, None, lambda: settings))
    conversation = store.create_conversation(kb_enabled=False)
    long_answer = greedy(LONG_CONTEXT - 200, ignore_eos=True)
    job = session.send(conversation.id, "Write a very long essay.", sampling=long_answer)
    print(f"streaming {job.message_id}", flush=True)
    job.join()
    print("finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
