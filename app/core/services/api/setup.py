"""Building the local API server from the app's paths and settings (used by `unidesk serve` and the GUI)."""

from __future__ import annotations

from collections.abc import Callable

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.engines.manager import EngineManager
from app.core.kb.knowledge_base import EmbedderPool
from app.core.services.api.auth import api_token
from app.core.services.api.server import ApiServer, TextEmbedder


def build_api_server(
    manager: EngineManager,
    paths: AppPaths,
    settings: Callable[[], Settings],
    *,
    embedders: EmbedderPool | None = None,
    port: int | None = None,
) -> ApiServer:
    """An (unstarted) server on ``port`` (default: api.port) with the token from the data folder.

    /v1/embeddings uses the knowledge base's embedding model from ``embedders`` (shared with
    the knowledge base, so the model is loaded once).
    """
    pool = embedders or EmbedderPool()

    def embedder() -> TextEmbedder:
        return pool.get(settings().str_value("kb.embedding_model"))

    chosen_port = port if port is not None else settings().int_value("api.port")
    return ApiServer(manager, api_token(paths.data_dir), embedder=embedder, port=chosen_port)
