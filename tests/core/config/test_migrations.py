"""Migrations of the raw settings dict: the version-1 flat layout, and the chain mechanics."""

from __future__ import annotations

import copy
from typing import Any

from app.core.config import CURRENT_VERSION, MIGRATIONS, Migration, migrate

V1_DOCUMENT: dict[str, Any] = {
    "model_path": "/models/qwen.gguf",
    "parallel_chats": 3,
    "gpu_memory_utilization": 0.6,
    "n_gpu_layers": 20,
    "flash_attention": True,
    "chunk_size": 800,
    "chunk_overlap": 100,
    "theme": "auto",
    "max_tokens": 1024,
}


def test_migrations_form_an_unbroken_chain_up_to_the_current_version() -> None:
    assert [migration.from_version for migration in MIGRATIONS] == list(range(1, CURRENT_VERSION))
    assert all(migration.summary for migration in MIGRATIONS)


def test_version_1_flat_keys_move_into_section_tables_with_new_names() -> None:
    upgraded = migrate(V1_DOCUMENT, 1)
    assert upgraded == {
        "model": {"path": "/models/qwen.gguf"},
        "engine": {"parallel_chats": 3, "memory_utilization": 0.6, "gpu_layers": 20,
                   "flash_attention": "on"},
        "kb": {"chunk_tokens": 800, "chunk_overlap_tokens": 100},
        "ui": {"theme": "system"},
        "sampling": {"max_answer_tokens": 1024},
    }


def test_migration_does_not_modify_its_input() -> None:
    original = copy.deepcopy(V1_DOCUMENT) | {"engine": {"threads": 4}}
    snapshot = copy.deepcopy(original)
    migrate(original, 1)
    assert original == snapshot


def test_flat_key_whose_new_place_is_taken_is_left_for_the_loader_to_report() -> None:
    upgraded = migrate({"parallel_chats": 3, "engine": {"parallel_chats": 5}, "foo": 1}, 1)
    assert upgraded["engine"] == {"parallel_chats": 5}
    assert upgraded["parallel_chats"] == 3
    assert upgraded["foo"] == 1


def test_false_flash_attention_becomes_off() -> None:
    assert migrate({"flash_attention": False}, 1) == {"engine": {"flash_attention": "off"}}


def test_current_version_documents_are_left_alone() -> None:
    document = {"engine": {"parallel_chats": 2}, "parallel_chats": 9}
    assert migrate(document, CURRENT_VERSION) == document


def test_migrations_run_in_order_from_the_file_version() -> None:
    applied: list[int] = []

    def step(version: int) -> Migration:
        def apply(raw: dict[str, Any]) -> dict[str, Any]:
            applied.append(version)
            return {**raw, "trail": [*raw.get("trail", []), version]}
        return Migration(version, f"step {version}", apply)

    chain = (step(1), step(2), step(3))
    assert migrate({}, 2, chain) == {"trail": [2, 3]}
    assert applied == [2, 3]
    assert migrate({}, 1, chain)["trail"] == [1, 2, 3]
