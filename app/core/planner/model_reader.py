"""Entry point that reads metadata from whatever the user points at: .gguf, HF folder or config.json."""

from __future__ import annotations

from pathlib import Path

from app.core.planner.errors import ModelMetadataError
from app.core.planner.gguf_reader import GGUF_MAGIC, read_gguf_metadata
from app.core.planner.hf_reader import read_hf_metadata
from app.core.planner.metadata import ModelMetadata
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelFiles"
_HINT = Text(CONTEXT, QT_TRANSLATE_NOOP(
    "ModelFiles", "Pick a .gguf file, a Hugging Face model folder (with config.json) or a config.json."))


def read_model_metadata(path: Path) -> ModelMetadata:
    """Read a model's shape and sizes; raises ModelMetadataError with a one-line reason."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ModelMetadataError(Text(CONTEXT, QT_TRANSLATE_NOOP("ModelFiles", "{0} does not exist."), (str(path),)),
                                 _HINT)
    if path.is_dir() or path.suffix.lower() == ".json":
        return read_hf_metadata(path)
    try:
        with path.open("rb") as handle:
            magic = handle.read(4)
    except OSError as exc:
        raise ModelMetadataError(Text(CONTEXT, QT_TRANSLATE_NOOP("ModelFiles", "Cannot read {0}: {1}."),
                                      (str(path), str(exc.strerror or exc))), _HINT) from exc
    if magic != GGUF_MAGIC:
        raise ModelMetadataError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelFiles", "{0} is not a GGUF file (it does not start with 'GGUF')."), (path.name,)), _HINT)
    return read_gguf_metadata(path)
