"""Local models: adding real GGUF files and HF folders, listing, removing safely."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.models import LocalModelError, LocalModels, models_folder


@pytest.fixture
def registry(tmp_path: Path) -> LocalModels:
    return LocalModels(tmp_path / "data" / "local_models.json", tmp_path / "data" / "models")


def _download_into(registry: LocalModels, source: Path, relative: str) -> Path:
    """Put a copy of ``source`` where a download would have left it."""
    target = registry.folder / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        shutil.copytree(source, target)
    else:
        shutil.copy(source, target)
    return target


def test_the_models_folder_follows_the_setting(tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path)
    assert models_folder(paths, Settings.defaults()) == paths.data_dir / "models"
    custom = Settings.defaults().with_changes({"model.folder": str(tmp_path / "big-disk")})
    assert models_folder(paths, custom) == tmp_path / "big-disk"
    assert LocalModels.open(paths, custom).folder == tmp_path / "big-disk"


def test_adding_a_gguf_file_and_an_hf_folder(registry: LocalModels, tiny_gguf: Path, tiny_hf_llama: Path) -> None:
    gguf = registry.add(tiny_gguf)
    assert gguf.format == "gguf" and not gguf.managed and gguf.path == str(tiny_gguf.resolve())
    assert gguf.size_bytes == tiny_gguf.stat().st_size and gguf.id == tiny_gguf.stem.lower()
    folder = registry.add(tiny_hf_llama / "config.json", name="Tiny Llama")  # a config.json stands for its folder
    assert folder.format == "hf" and folder.path == str(tiny_hf_llama.resolve()) and folder.id == "tiny-llama"
    assert registry.add(tiny_gguf) == gguf  # adding again changes nothing
    reopened = LocalModels(registry.registry_file, registry.folder)
    assert [model.id for model in reopened.models()] == [gguf.id, folder.id]
    assert reopened.get(folder.id.upper()) == folder


def test_ids_stay_unique(registry: LocalModels, tiny_gguf: Path, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / tiny_gguf.name
    copy.parent.mkdir()
    shutil.copy(tiny_gguf, copy)
    first, second = registry.add(tiny_gguf), registry.add(copy)
    assert second.id == f"{first.id}-2"


def test_what_is_not_a_model_is_refused_clearly(
    registry: LocalModels, not_a_model_file: Path, truncated_gguf: Path, tiny_hf_llama: Path, tmp_path: Path
) -> None:
    with pytest.raises(LocalModelError, match=r"is not a model UniDesk can load: .*not a GGUF file"):
        registry.add(not_a_model_file)
    with pytest.raises(LocalModelError, match="truncated"):
        registry.add(truncated_gguf)
    with pytest.raises(LocalModelError, match="does not exist"):
        registry.add(tmp_path / "nothing.gguf")
    config_only = tmp_path / "config-only"
    config_only.mkdir()
    shutil.copy(tiny_hf_llama / "config.json", config_only / "config.json")
    with pytest.raises(LocalModelError, match=r"has a config.json but no .safetensors weights"):
        registry.add(config_only)
    assert registry.models() == ()


def test_removing_the_users_own_file_only_forgets_it(registry: LocalModels, tiny_gguf: Path) -> None:
    model = registry.add(tiny_gguf)
    removed = registry.remove(model.id)
    assert not removed.deleted_files and removed.freed_bytes == 0
    assert tiny_gguf.exists() and registry.models() == ()
    with pytest.raises(LocalModelError, match="no local model"):
        registry.remove(model.id)


def test_removing_a_download_deletes_its_files_and_empty_folders(
    registry: LocalModels, tiny_gguf: Path, tiny_hf_llama: Path
) -> None:
    gguf_path = _download_into(registry, tiny_gguf, "owner/repo-GGUF/model-Q8_0.gguf")
    gguf_path.with_name(gguf_path.name + ".part").write_bytes(b"left over")
    folder_path = _download_into(registry, tiny_hf_llama, "owner/tiny-llama")
    gguf = registry.register_download(gguf_path, name="Tiny Q8_0", catalog_model_id="tiny", variant_id="q8_0")
    folder = registry.register_download(folder_path, name="Tiny HF", catalog_model_id="tiny", variant_id="hf-bf16")
    assert gguf.managed and folder.managed and gguf.catalog_model_id == "tiny"
    removed = registry.remove(gguf.id)
    assert removed.deleted_files and removed.freed_bytes == tiny_gguf.stat().st_size
    assert not gguf_path.exists() and not (registry.folder / "owner/repo-GGUF").exists()
    assert folder_path.exists()  # a sibling download is untouched
    assert registry.remove(folder.id).deleted_files
    assert not (registry.folder / "owner").exists() and registry.folder.is_dir()


def test_a_download_must_lie_inside_the_models_folder(registry: LocalModels, tiny_gguf: Path) -> None:
    with pytest.raises(LocalModelError, match="is not inside the models folder"):
        registry.register_download(tiny_gguf, name="x", catalog_model_id="x", variant_id="q8_0")


def test_a_changed_models_folder_never_deletes_outside_the_original(
    registry: LocalModels, tiny_gguf: Path, tmp_path: Path
) -> None:
    """Deletion is bounded by the folder recorded at download time, not the current setting."""
    path = _download_into(registry, tiny_gguf, "owner/repo/model.gguf")
    model = registry.register_download(path, name="m", catalog_model_id="m", variant_id="q8_0")
    record = json.loads(registry.registry_file.read_text(encoding="utf-8"))
    record["models"][0]["downloaded_into"] = str(tmp_path / "some-other-folder")
    registry.registry_file.write_text(json.dumps(record), encoding="utf-8")
    removed = registry.remove(model.id)
    assert not removed.deleted_files and path.exists()


def test_a_damaged_registry_is_set_aside(registry: LocalModels, tiny_gguf: Path) -> None:
    registry.registry_file.parent.mkdir(parents=True)
    registry.registry_file.write_text("{not json", encoding="utf-8")
    assert registry.models() == ()
    assert registry.registry_file.with_name("local_models.json.bad").read_text(encoding="utf-8") == "{not json"
    assert registry.add(tiny_gguf).id in {model.id for model in registry.models()}


def test_a_missing_file_is_reported_not_hidden(registry: LocalModels, tiny_gguf: Path, tmp_path: Path) -> None:
    copy = tmp_path / "moved.gguf"
    shutil.copy(tiny_gguf, copy)
    model = registry.add(copy)
    copy.unlink()
    listed = registry.get(model.id)
    assert not listed.is_present() and registry.find_by_path(copy) == listed
