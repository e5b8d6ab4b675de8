"""GuiServices: the core objects the composition root builds and hands to the window (no globals)."""

from __future__ import annotations

import dataclasses
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.core.chat.store import ConversationStore
from app.core.config.paths import AppPaths
from app.core.engines.manager import EngineManager
from app.core.services.answer_job import SAVE_INTERVAL_S
from app.core.services.answering import Answerer
from app.core.services.chat_session import ChatSession
from app.ui.state.live_settings import LiveSettings
from app.ui.state.machine_facts import MachineFacts

if TYPE_CHECKING:
    from app.core.kb.knowledge_base import KnowledgeBase

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChatServices:
    """The conversations store and the session that answers in it (the window's chat half)."""

    store: ConversationStore
    session: ChatSession
    answerer: Answerer
    paths: AppPaths
    live_settings: LiveSettings
    _knowledge_lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @classmethod
    def open(cls, manager: EngineManager, live_settings: LiveSettings, paths: AppPaths,
             *, save_interval_s: float = SAVE_INTERVAL_S) -> ChatServices:
        """Open the store under the data folder; the answerer starts without a knowledge base.
        Streaming answers are saved at least every ``save_interval_s``."""
        store = ConversationStore.open(paths.data_dir)
        answerer = Answerer(manager, None, live_settings.get)
        session = ChatSession(store, answerer, save_interval_s=save_interval_s)
        return cls(store, session, answerer, paths, live_settings)

    def attach_existing_knowledge_base(self, *, create: bool = False) -> bool:
        """Give the answerer the knowledge base if the user has one, or a new one when ``create``
        (any thread; opening is cheap: SQLite, with vectors and embedding models loaded on first
        search). One lock makes sure the window and the knowledge panel never open it twice.
        False when there is none and ``create`` is off.
        """
        from app.core.kb.database import DATABASE_FILE_NAME
        from app.core.kb.knowledge_base import KB_FOLDER_NAME, KnowledgeBase

        with self._knowledge_lock:
            if self.answerer.knowledge_base is not None:
                return True
            if not create and not (self.paths.data_dir / KB_FOLDER_NAME / DATABASE_FILE_NAME).is_file():
                return False
            self.answerer.knowledge_base = KnowledgeBase.open(self.paths, self.live_settings.get())
            return True

    def close(self) -> None:
        """Close the knowledge base (if opened) and the store; call after every answer has ended."""
        knowledge_base: KnowledgeBase | None = self.answerer.knowledge_base
        if knowledge_base is not None:
            knowledge_base.close()
        self.store.close()


@dataclass(frozen=True)
class GuiServices:
    """The engine manager plus the settings and machine facts it reads (shared with the window);
    ``chat`` when the window has conversations (the composition root always gives it)."""

    engine_manager: EngineManager
    live_settings: LiveSettings
    machine: MachineFacts
    chat: ChatServices | None = None

    def with_chat(self, paths: AppPaths, *, save_interval_s: float = SAVE_INTERVAL_S) -> GuiServices:
        """These services plus a conversations store and chat session under ``paths``."""
        chat = ChatServices.open(self.engine_manager, self.live_settings, paths, save_interval_s=save_interval_s)
        return dataclasses.replace(self, chat=chat)
