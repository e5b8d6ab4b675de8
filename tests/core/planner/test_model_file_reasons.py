"""The reasons a model file or folder cannot be read are translatable core Texts (message and hint), so the window
shows them in its language: a missing path, a file that is not GGUF, a cut GGUF, a folder without config.json, a
config.json that is not JSON or not an object."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.planner import ModelMetadataError, read_model_metadata
from app.core.util.translatable import Text


def reason(path: Path) -> ModelMetadataError:
    with pytest.raises(ModelMetadataError) as caught:
        read_model_metadata(path)
    return caught.value


def test_every_reason_for_an_unreadable_model_is_translatable(
        tmp_path: Path, not_a_model_file: Path, truncated_gguf: Path) -> None:
    folder = tmp_path / "photos"
    folder.mkdir()
    broken_json = tmp_path / "broken" / "config.json"
    broken_json.parent.mkdir()
    broken_json.write_text("{not json", encoding="utf-8")
    a_list = tmp_path / "list" / "config.json"
    a_list.parent.mkdir()
    a_list.write_text("[1, 2]", encoding="utf-8")
    cases = {
        tmp_path / "missing.gguf": "does not exist",
        not_a_model_file: "is not a GGUF file",
        truncated_gguf: "truncated",
        folder: "has no config.json",
        broken_json: "is not valid JSON",
        a_list: "is not a model config",
    }
    for path, words in cases.items():
        error = reason(path)
        assert words in error.message, (path, error.message)
        assert isinstance(error.message, Text) and isinstance(error.hint, Text), (path, error.message)
        assert isinstance(str(error), Text)  # what the window receives keeps the translatable parts
