"""Catalog pins: a variant pinned to a commit and the catalog's own checksums is downloaded from that commit
and checked against those checksums, whatever the hub says; the shipped catalog's pins are listed."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.models import CatalogError, ChecksumMismatchError, LocalModels, ModelLibrary, load_catalog
from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.integration.test_model_downloads import FAST, FILE, REPO, _client, _test_catalog

COMMIT = "0123456789abcdef0123456789abcdef01234567"
TIMEOUT_S = 60


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
    with pytest.raises(ChecksumMismatchError):
        library.start_download(library.catalog.models[0].id).wait(TIMEOUT_S)
    assert not list((tmp_path / "data" / "models").rglob(FILE))


@pytest.mark.parametrize("changes", [{"revision": "main branch!"}, {"files_sha256": {FILE: "ab" * 32}}])
def test_malformed_pins_are_a_clear_catalog_error(tmp_path: Path, changes: dict[str, object]) -> None:
    with pytest.raises(CatalogError, match=r"variants\[0\]\.(revision|files_sha256)"):
        load_catalog(pinned_catalog(tmp_path, **changes))


def test_the_shipped_catalog_says_which_variants_are_pinned() -> None:
    catalog = load_catalog()
    variants = [(model.id, variant) for model in catalog.models for variant in model.variants]
    pinned = [f"{model_id}/{variant.id}" for model_id, variant in variants if variant.pinned]
    print(f"catalog pins: {len(pinned)} of {len(variants)} variants pinned to a commit and checksums: {pinned}")
    for model_id, variant in variants:
        assert variant.to_dict()["pinned"] == variant.pinned
        if variant.pinned:
            assert len(variant.revision) == 40, f"{model_id}/{variant.id}"
