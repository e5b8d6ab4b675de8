"""Which embedding model the knowledge base uses, why, and fetching the chosen one on first use.

``kb.embedding_model = auto`` lets the planner choose per machine (app.core.planner.embedders).
A chosen model that is not on this computer yet is downloaded into the knowledge base's ``embedding-models`` folder
when the user starts it (with progress, through the models' own download job); until then the
bundled all-MiniLM-L6-v2 keeps the knowledge base working, and :class:`EmbeddingSelection` says so.
When the download completes, the next indexing run re-embeds everything into the new model's
space in the background (app.core.kb.reembed); search uses the old vectors until then.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from app.core.kb.model_placement import choose_placement
from app.core.planner.embedders import AUTOMATIC, EmbedderChoice, recommend_embedder
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

if TYPE_CHECKING:
    from app.core.hardware.report import HardwareReport

CONTEXT: Final = "EmbeddingChoice"
FALLBACK_MODEL: Final = "all-MiniLM-L6-v2"
EMBEDDING_MODELS_FOLDER: Final = "embedding-models"
"""Downloaded embedding models live in the knowledge base's folder, beside the vectors they made."""


@dataclass(frozen=True)
class EmbeddingSelection:
    """The model indexing and search use now (``model``), the one wanted (``wanted``), and why.

    ``missing`` is True when the wanted model is not on this computer: ``model`` is then the
    bundled fallback until app.core.services.embedding_download has fetched ``wanted``.
    """

    model: str
    wanted: str
    reason: Text
    missing: bool = False
    placement: Text | None = None
    """Where the model runs (this process or its own) and why: app.core.kb.model_placement."""

    @property
    def note(self) -> Text:
        """One line for the window and `kb` commands: which model is in use and why, and where it runs."""
        if self.missing:
            line = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "EmbeddingChoice", "Using {0} (English only) until {1} is downloaded; chosen because {2}."),
                (self.model, self.wanted, self.reason))
        else:
            line = Text(CONTEXT, QT_TRANSLATE_NOOP("EmbeddingChoice", "Using {0}: {1}."), (self.model, self.reason))
        if self.placement is None:
            return line
        return Text(CONTEXT, QT_TRANSLATE_NOOP("EmbeddingChoice", "{0} {1}"), (line, self.placement))


def download_folder(models_dir: Path, repo_id: str) -> Path:
    """Where a downloaded embedding model lives: ``<models_dir>/<owner>--<name>``."""
    return models_dir / repo_id.replace("/", "--")


def has_model_files(folder: Path) -> bool:
    """Whether ``folder`` holds a transformers model: its config and its weights."""
    has_weights = any(folder.glob("*.safetensors")) or (folder / "pytorch_model.bin").is_file()
    return (folder / "config.json").is_file() and has_weights


def is_complete(folder: Path) -> bool:
    """Whether ``folder`` holds a loadable sentence-transformers model (config, modules and weights)."""
    return has_model_files(folder) and (folder / "modules.json").is_file()


def downloaded_location(models_dir: Path, name: str) -> str:
    """Where to load hub model ``name`` from: its complete download in ``models_dir``, else the name itself
    (the Hugging Face cache or a folder). Used for the reranker, a cross-encoder without modules.json."""
    folder = download_folder(models_dir, name.strip())
    return str(folder) if "/" in name and has_model_files(folder) else name


def in_hub_cache(repo_id: str) -> bool:
    """Whether the Hugging Face cache on this computer already holds ``repo_id`` (looks, never fetches)."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    found = try_to_load_from_cache(repo_id, "modules.json")
    return isinstance(found, str)


def machine_choice(report: HardwareReport) -> EmbedderChoice:
    """:func:`recommend_embedder` for a probed machine: its largest discrete GPU, or unified memory."""
    discrete = [gpu.memory_total_bytes for gpu in report.gpus
                if gpu.memory_total_bytes and not gpu.integrated and not report.unified.is_unified]
    unified = report.ram_total_bytes if report.unified.is_unified and report.gpus else None
    return recommend_embedder(max(discrete) if discrete else None, unified_memory_bytes=unified)


def select_embedding_model(
    setting: str, models_dir: Path | None, choose: Callable[[], EmbedderChoice]
) -> EmbeddingSelection:
    """The model to use for the ``kb.embedding_model`` ``setting`` (``auto``: what ``choose`` says)."""
    cleaned = setting.strip()
    placement = choose_placement().reason
    if cleaned.lower() != AUTOMATIC:
        return EmbeddingSelection(cleaned, cleaned, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "EmbeddingChoice", "it is set in Settings (kb.embedding_model)")), placement=placement)
    choice = choose()
    wanted = choice.model
    if models_dir is not None and is_complete(download_folder(models_dir, wanted)):
        return EmbeddingSelection(str(download_folder(models_dir, wanted)), wanted, choice.reason, placement=placement)
    if in_hub_cache(wanted):
        return EmbeddingSelection(wanted, wanted, choice.reason, placement=placement)
    return EmbeddingSelection(FALLBACK_MODEL, wanted, choice.reason, missing=True, placement=placement)
