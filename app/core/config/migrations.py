"""Upgrades of the raw settings-file dict from one format version to the next (N -> N+1).

Each migration is a pure function on the parsed TOML dict (without the ``version`` key).
The file format's version is ``CURRENT_VERSION = len(MIGRATIONS) + 1``; a file without a
``version`` key is a version-1 file (the first format had none).

History:
  1: flat keys at the top level (``model_path``, ``chunk_size``, ``n_gpu_layers`` ...),
     ``flash_attention`` a boolean, ``theme = "auto"``.
  2: one table per section (``[engine] parallel_chats = 2``), keys as in declarations.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

RawSettings = dict[str, Any]
"""A parsed TOML document (what ``tomllib.loads`` returns)."""


@dataclass(frozen=True)
class Migration:
    """Turns a file of format ``from_version`` into one of ``from_version + 1``."""

    from_version: int
    summary: str
    apply: Callable[[RawSettings], RawSettings]


_V1_RENAMES: Mapping[str, str] = {
    "model_path": "model.path",
    "backend": "engine.backend",
    "remote_url": "engine.remote_url",
    "api_key": "engine.remote_api_key",
    "context_length": "engine.context_length",
    "parallel_chats": "engine.parallel_chats",
    "gpu_memory_utilization": "engine.memory_utilization",
    "os_reserve_gib": "engine.os_reserve_gib",
    "kv_cache_dtype": "engine.kv_cache_dtype",
    "block_size": "engine.block_size",
    "prefix_caching": "engine.prefix_caching",
    "warmup": "engine.warmup",
    "n_gpu_layers": "engine.gpu_layers",
    "n_threads": "engine.threads",
    "flash_attention": "engine.flash_attention",
    "embedding_model": "kb.embedding_model",
    "chunk_size": "kb.chunk_tokens",
    "chunk_overlap": "kb.chunk_overlap_tokens",
    "top_k": "kb.top_k",
    "reranker": "kb.reranker",
    "language": "ui.language",
    "theme": "ui.theme",
    "api_enabled": "api.enabled",
    "api_port": "api.port",
    "temperature": "sampling.temperature",
    "top_p": "sampling.top_p",
    "max_tokens": "sampling.max_answer_tokens",
}


def _convert_v1_value(new_key: str, value: Any) -> Any:
    """Values whose meaning changed between format 1 and 2."""
    if new_key == "engine.flash_attention" and isinstance(value, bool):
        return "on" if value else "off"
    if new_key == "ui.theme" and value == "auto":
        return "system"
    return value


def _v1_flat_to_sections(raw: RawSettings) -> RawSettings:
    """Move the flat format-1 keys into their section tables, renaming where needed.

    A flat key whose new place is already set (a hand-made mix of formats) stays where it
    is, so the loader reports it as unknown instead of silently picking one of the two.
    Keys that format 1 did not have are left untouched.
    """
    upgraded: RawSettings = {
        name: dict(value) if isinstance(value, dict) else value for name, value in raw.items()
    }
    for old_key, new_key in _V1_RENAMES.items():
        if old_key not in upgraded or isinstance(upgraded[old_key], dict):
            continue
        section, _, name = new_key.partition(".")
        table = upgraded.setdefault(section, {})
        if not isinstance(table, dict) or name in table:
            continue
        table[name] = _convert_v1_value(new_key, upgraded.pop(old_key))
    return upgraded


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "flat keys moved into one table per section", _v1_flat_to_sections),
)

CURRENT_VERSION = len(MIGRATIONS) + 1


def migrate(
    raw: RawSettings,
    from_version: int,
    migrations: tuple[Migration, ...] = MIGRATIONS,
) -> RawSettings:
    """Apply every migration from ``from_version`` up to the newest one, in order.

    ``raw`` is not modified. Versions at or above the newest are returned unchanged.
    """
    upgraded = dict(raw)
    for migration in migrations:
        if migration.from_version >= from_version:
            upgraded = migration.apply(upgraded)
    return upgraded
