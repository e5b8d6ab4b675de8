"""A headless UniDesk for the crash-safety test: real stores and engines doing one kind of work until killed.

Usage: python -m tests.reliability.crash_harness HOME SCENARIO SEED [MODEL ...]

It owns the home as the app does (the home lock), prints "ready" once working, and one journal line per
piece of work that *finished* (the store said it is saved), so the test knows what must survive a kill:
- ``streaming``: answers stream into the conversations file; ``answer <conversation> <message> <sha256>``.
- ``settings``: the settings file is saved again and again; ``saving <value>`` before, ``settings <value>`` after.
- ``switch``: the loaded model alternates between MODELs, registered and remembered in settings;
  ``switching <path>`` before, ``switched <path>`` after.
- ``ingestion``: the files under HOME/docs are indexed (resuming what an earlier run left); ``indexed <n>``.
"""

from __future__ import annotations

import hashlib
import random
import sys
import threading
import time
from pathlib import Path

from app.core.config import Settings, SettingsStore
from app.core.config.home_lock import HomeLock
from app.core.config.paths import AppPaths


def journal(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run_streaming(paths: AppPaths, rng: random.Random, model: Path) -> None:
    from app.core.chat.store import ConversationStore
    from app.core.services.answering import Answerer
    from app.core.services.chat_session import ChatSession
    from tests.integration.answering_support import greedy, load_manager

    manager = load_manager(model, 1024, parallel_chats=2, threads=1)
    store = ConversationStore.open(paths.data_dir)
    settings = Settings()
    session = ChatSession(store, Answerer(manager, None, lambda: settings), save_interval_s=0.05)
    journal("ready")
    while True:
        conversation = store.create_conversation(kb_enabled=False)
        job = session.send(conversation.id, f"Question {rng.random()}", sampling=greedy(rng.randint(20, 120)))
        job.join()
        message = store.message(job.message_id)
        if message.finished:
            journal(f"answer {conversation.id} {message.id} {digest(message.text)}")


def run_settings(paths: AppPaths, rng: random.Random) -> None:
    store = SettingsStore(paths)
    journal("ready")
    while True:
        value = rng.randint(1, 50)
        settings = store.load().settings.with_changes({"kb.top_k": value})
        journal(f"saving {value}")
        store.save(settings)
        journal(f"settings {value}")


def run_switch(paths: AppPaths, rng: random.Random, models: list[Path]) -> None:
    from app.core.models.local_models import LocalModels
    from tests.integration.answering_support import load_manager

    store = SettingsStore(paths)
    registry = LocalModels.open(paths, Settings())
    manager = load_manager(models[0], 512, parallel_chats=1, threads=1)
    journal("ready")
    while True:
        model = rng.choice(models)
        journal(f"switching {model}")
        manager.unload()
        manager.load(model, context_length=512, parallel_chats=1)
        registry.add(model)
        store.save(store.load().settings.with_changes({"model.path": str(model)}))
        journal(f"switched {model}")


def run_ingestion(paths: AppPaths) -> None:
    from app.core.kb.knowledge_base import KnowledgeBase
    from app.core.kb.progress import ProgressTracker

    settings = Settings({"kb.embedding_batch_size": 4})
    with KnowledgeBase.open(paths, settings) as knowledge_base:
        journal("ready")
        summary = knowledge_base.indexer().run([paths.data_dir.parent / "docs"], ProgressTracker(), threading.Event())
        journal(f"indexed {summary.files_indexed}")
    journal("done")
    time.sleep(3600)  # wait to be killed, as the other scenarios do


def main(argv: list[str]) -> int:
    home, scenario, seed = Path(argv[0]), argv[1], int(argv[2])
    models = [Path(item) for item in argv[3:]]
    paths = AppPaths.under_home(home).ensure()
    rng = random.Random(seed)
    with HomeLock(paths, f"crash-harness {scenario}"):
        if scenario == "streaming":
            run_streaming(paths, rng, models[0])
        elif scenario == "settings":
            run_settings(paths, rng)
        elif scenario == "switch":
            run_switch(paths, rng, models)
        elif scenario == "ingestion":
            run_ingestion(paths)
        else:
            raise SystemExit(f"unknown scenario {scenario}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
