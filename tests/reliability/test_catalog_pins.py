"""Catalog pins: a variant pinned to a commit and the catalog's own checksums is downloaded from that commit
and checked against those checksums, whatever the hub says; one with the catalog's checksum but no commit
follows the branch and still refuses other bytes; an unpinned one is checked against the hub's stated sha256.
Each says so (``pin``, ``pin_note``, shown in the catalog in English and Chinese); the shipped catalog's pins
name where each checksum was published."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.core.models import CatalogError, ChecksumMismatchError, LocalModels, ModelLibrary, load_catalog
from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.integration.test_model_downloads import FAST, FILE, REPO, _client, _test_catalog
from tests.ui.i18n_support import switched_language
from tests.ui.models_support import SMALL_MACHINE, UsedModels, make_library, open_dialog

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TIMEOUT_S = 60
WAIT_MS = 30_000


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def pinned_catalog(tmp_path: Path, **variant_changes: object) -> Path:
    path = _test_catalog(tmp_path)
    document = json.loads(path.read_text(encoding="utf-8"))
    document["models"][0]["variants"][0].update(variant_changes)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def library_for(hub: FakeHub, catalog: Path, tmp_path: Path) -> ModelLibrary:
    local = LocalModels(tmp_path / "data" / "local_models.json", tmp_path / "data" / "models")
    return ModelLibrary(load_catalog(catalog), local, _client(hub), transfer_options=FAST)


def test_a_pinned_variant_downloads_its_commit_and_checks_the_catalogs_checksum(
    hub: FakeHub, tmp_path: Path, tiny_gguf: Path
) -> None:
    content = tiny_gguf.read_bytes()
    hub.add_file(REPO, FILE, content)
    catalog = pinned_catalog(tmp_path, revision=COMMIT, sha256=hashlib.sha256(content).hexdigest())
    library = library_for(hub, catalog, tmp_path)
    model = library.catalog.models[0]
    assert model.variants[0].pinned and not model.variants[1].pinned
    result = library.start_download(model.id).wait(TIMEOUT_S)
    assert result is not None and result.path.read_bytes() == content
    assert result.files[0].verified_by == "sha256"
    resolved = [request.path for request in hub.requests if "/resolve/" in request.path]
    assert resolved and all(f"/resolve/{COMMIT}/" in path for path in resolved)


def test_a_pinned_checksum_the_hub_does_not_match_is_refused_even_if_the_hub_vouches_for_its_file(
    hub: FakeHub, tmp_path: Path
) -> None:
    hub.add_file(REPO, FILE, random.Random(1).randbytes(50_000))  # the hub states this file's own sha256
    catalog = pinned_catalog(tmp_path, revision=COMMIT, sha256="ab" * 32)
    library = library_for(hub, catalog, tmp_path)
    with pytest.raises(ChecksumMismatchError) as raised:
        library.start_download(library.catalog.models[0].id).wait(TIMEOUT_S)
    assert not list((tmp_path / "data" / "models").rglob(FILE))
    assert "the catalog states" in str(raised.value.hint) and "replaced the file" in str(raised.value.hint)


def test_a_checksum_pin_without_a_commit_follows_the_branch_and_refuses_a_replaced_file(
    hub: FakeHub, tmp_path: Path, tiny_gguf: Path
) -> None:
    published = tiny_gguf.read_bytes()
    source = "a published gallery entry"
    catalog = pinned_catalog(tmp_path, sha256=hashlib.sha256(published).hexdigest(), checksum_source=source)
    hub.add_file(REPO, FILE, published)
    variant = load_catalog(catalog).models[0].variants[0]
    assert (variant.pin, variant.pinned) == ("checksum", False)
    assert "a published gallery entry" in variant.pin_note() and "'main' branch" in variant.pin_note()
    assert variant.to_dict()["checksum_source"] == source
    result = library_for(hub, catalog, tmp_path).start_download(variant_model_id(catalog)).wait(TIMEOUT_S)
    assert result is not None and result.path.read_bytes() == published and result.files[0].verified_by == "sha256"
    assert all("/resolve/main/" in request.path for request in hub.requests if "/resolve/" in request.path)

    replaced = published[:-1] + bytes([published[-1] ^ 0xFF])  # the publisher swaps the file; the hub vouches for it
    hub.add_file(REPO, FILE, replaced)
    result.path.unlink()
    with pytest.raises(ChecksumMismatchError):
        library_for(hub, catalog, tmp_path / "again").start_download(variant_model_id(catalog)).wait(TIMEOUT_S)


def test_an_unpinned_variant_says_so_and_is_checked_against_the_hubs_stated_sha256(
    hub: FakeHub, tmp_path: Path, tiny_gguf: Path
) -> None:
    content = tiny_gguf.read_bytes()
    hub.add_file(REPO, FILE, content, advertised_sha256="cd" * 32)  # bytes that differ from what the hub states
    catalog = _test_catalog(tmp_path)
    variant = load_catalog(catalog).models[0].variants[0]
    assert variant.pin == "none" and variant.pin_note().startswith("Not pinned")
    hf_variant = load_catalog(catalog).models[0].variants[1]
    assert hf_variant.format == "hf" and "git's id for small files" in hf_variant.pin_note()
    with pytest.raises(ChecksumMismatchError) as raised:
        library_for(hub, catalog, tmp_path).start_download(variant_model_id(catalog)).wait(TIMEOUT_S)
    assert "the catalog states" not in str(raised.value.hint)  # the hub's own checksum failed, not a pin

    hub.add_file(REPO, FILE, content)  # the hub states the file's real sha256
    result = library_for(hub, catalog, tmp_path).start_download(variant_model_id(catalog)).wait(TIMEOUT_S)
    assert result is not None and result.files[0].verified_by == "sha256"


def variant_model_id(catalog: Path) -> str:
    return load_catalog(catalog).models[0].id


@pytest.mark.parametrize("changes", [{"revision": "main branch!"}, {"files_sha256": {FILE: "ab" * 32}},
                                     {"checksum_source": 7}])
def test_malformed_pins_are_a_clear_catalog_error(tmp_path: Path, changes: dict[str, object]) -> None:
    with pytest.raises(CatalogError, match=r"variants\[0\]\.(revision|files_sha256|checksum_source)"):
        load_catalog(pinned_catalog(tmp_path, **changes))


def test_the_shipped_catalog_says_which_variants_are_pinned_and_where_each_checksum_was_published() -> None:
    catalog = load_catalog()
    variants = [(f"{model.id}/{variant.id}", variant) for model in catalog.models for variant in model.variants]
    levels = Counter(variant.pin for _, variant in variants)
    checksummed = [name for name, variant in variants if variant.pin != "none"]
    print(f"catalog pins: {len(variants)} variants: {levels['commit']} pinned to a commit and checksums, "
          f"{levels['checksum']} to the catalog's sha256 on the branch, {levels['none']} checked against the hub's "
          f"stated sha256; with a catalog checksum: {checksummed}")
    for name, variant in variants:
        described = variant.to_dict()
        assert (described["pin"], described["pinned"]) == (variant.pin, variant.pin == "commit"), name
        assert variant.pin_note(), name
        if variant.pin != "none":
            assert variant.checksum_source.strip(), f"{name}: a checksum without a source"
            assert variant.repo_id in variant.checksum_source and (variant.file_name or "") in variant.checksum_source
        if variant.pinned:
            assert len(variant.revision) == 40, name
    assert len(checksummed) >= 13  # the checksums found published (app/core/models/data/PINS.md)


def test_the_catalog_shows_each_variants_pin_in_english_and_chinese(
    qtbot: Any, qapp: Any, tmp_path: Path
) -> None:
    dialog = open_dialog(qtbot, make_library(tmp_path), SMALL_MACHINE, UsedModels())
    dialog.resize(1100, 760)
    page = dialog.catalog_page
    shots = tmp_path / "screenshots"
    shots.mkdir()
    pinned, unpinned = ("qwen2.5-0.5b-instruct", "q4_k_m"), ("qwen2.5-0.5b-instruct", "q8_0")
    page.tree.select(pinned)
    qtbot.waitUntil(lambda: "Checksum pinned" in page.details.text(), timeout=WAIT_MS)
    assert "(from LocalAI)" in page.details.text() and "'main' branch" in page.details.text()
    save_laid_out(qtbot, dialog, page.details, shots / "en-checksum-pinned.png")
    page.tree.select(unpinned)
    qtbot.waitUntil(lambda: "Not pinned" in page.details.text(), timeout=WAIT_MS)
    assert "the sha256 the hub publishes" in page.details.text()
    with switched_language(qapp) as languages:
        assert languages.apply("zh_CN") == "zh_CN"
        qtbot.waitUntil(lambda: "未固定" in page.details.text(), timeout=WAIT_MS)
        save_laid_out(qtbot, dialog, page.details, shots / "zh-not-pinned.png")
        page.tree.select(pinned)
        qtbot.waitUntil(lambda: "已固定校验和" in page.details.text(), timeout=WAIT_MS)
        assert "LocalAI" in page.details.text() and "Checksum" not in page.details.text()
        save_laid_out(qtbot, dialog, page.details, shots / "zh-checksum-pinned.png")
        page.tree.select(("qwen2.5-0.5b-instruct", "hf-bf16"))
        qtbot.waitUntil(lambda: "git 对象哈希" in page.details.text(), timeout=WAIT_MS)
        save_laid_out(qtbot, dialog, page.details, shots / "zh-hf-not-pinned.png")
    print(f"catalog pin screenshots: {shots}")


def save_laid_out(qtbot: Any, window: Any, label: Any, path: Path) -> None:
    """A screenshot of ``window`` once ``label`` has the height its new text needs (layout runs after)."""
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()), timeout=WAIT_MS)
    assert window.grab().save(str(path))
