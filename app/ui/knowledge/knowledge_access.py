"""KnowledgeAccess: the knowledge base and its indexing service, opened once on first need, from any thread."""

from __future__ import annotations

import threading
from collections.abc import Callable

from app.core.config.paths import AppPaths
from app.core.kb.database import DATABASE_FILE_NAME
from app.core.kb.knowledge_base import KB_FOLDER_NAME, KnowledgeBase
from app.core.services.indexing import IndexingService
from app.ui.state.gui_services import GuiServices

ServiceFactory = Callable[[KnowledgeBase], IndexingService]


class KnowledgeAccess:
    """Opens the knowledge base with ``open_knowledge_base`` the first time it is needed and starts an
    indexing service on it (which resumes unfinished work and watches added folders).

    ``exists()`` says whether there is a knowledge base to open without creating one, so the app
    creates nothing on disk until the user adds a document. Holds no Qt objects: the panel calls
    :meth:`open` on a worker. ``owns_knowledge_base``: :meth:`close` closes it too (otherwise its
    owner, e.g. the chat services, does).
    """

    def __init__(
        self,
        open_knowledge_base: Callable[[], KnowledgeBase],
        *,
        exists: Callable[[], bool] = lambda: True,
        make_service: ServiceFactory = IndexingService.from_settings,
        owns_knowledge_base: bool = False,
    ) -> None:
        self._open_knowledge_base = open_knowledge_base
        self._exists = exists
        self._make_service = make_service
        self._owns_knowledge_base = owns_knowledge_base
        self._lock = threading.Lock()
        self._knowledge_base: KnowledgeBase | None = None
        self._service: IndexingService | None = None
        self._closed = False

    def exists(self) -> bool:
        """True when the knowledge base is open or there is one on disk."""
        return self._knowledge_base is not None or self._exists()

    @property
    def knowledge_base(self) -> KnowledgeBase | None:
        """The knowledge base once opened, else None."""
        return self._knowledge_base

    @property
    def service(self) -> IndexingService | None:
        """The indexing service once the knowledge base is open, else None."""
        return self._service

    def open(self) -> KnowledgeBase:
        """Open the knowledge base (creating it if needed) and start indexing; later calls return it."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the knowledge base was closed")
            if self._knowledge_base is None:
                knowledge_base = self._open_knowledge_base()
                service = self._make_service(knowledge_base)
                service.start()
                self._knowledge_base, self._service = knowledge_base, service
            return self._knowledge_base

    def opened_service(self) -> IndexingService:
        """The indexing service, opening the knowledge base first if needed."""
        self.open()
        assert self._service is not None
        return self._service

    def close(self, timeout: float = 10.0) -> bool:
        """Cancel indexing and stop watching (waiting up to ``timeout`` s); close the knowledge base if owned.

        Whether indexing ended in time. If not, the knowledge base is closed when its job ends, never under it.
        """
        with self._lock:
            self._closed = True
            service, knowledge_base = self._service, self._knowledge_base
        close_owned = knowledge_base.close if knowledge_base is not None and self._owns_knowledge_base else None
        if service is not None:
            return service.close(timeout, then=close_owned)
        if close_owned is not None:
            close_owned()
        return True


def knowledge_access_for(services: GuiServices, paths: AppPaths) -> KnowledgeAccess:
    """The window's access to the user's knowledge base: with the chat half, opening it also hands it to
    the chat's answerer (one knowledge base for both); indexing waits while an answer is written."""
    exists = (paths.data_dir / KB_FOLDER_NAME / DATABASE_FILE_NAME).is_file
    generating = services.engine_manager.generating

    def make_service(knowledge_base: KnowledgeBase) -> IndexingService:
        return IndexingService.from_settings(knowledge_base, foreground_busy=generating)

    chat = services.chat
    if chat is None:
        return KnowledgeAccess(lambda: KnowledgeBase.open(paths, services.live_settings.get()),
                               exists=exists, make_service=make_service, owns_knowledge_base=True)

    def open_shared() -> KnowledgeBase:
        chat.attach_existing_knowledge_base(create=True)
        knowledge_base = chat.answerer.knowledge_base
        assert knowledge_base is not None
        return knowledge_base

    return KnowledgeAccess(open_shared, exists=exists, make_service=make_service)
