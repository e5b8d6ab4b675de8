"""The shipped catalog: well-formed, its facts agree with published configs, sizes are plausible."""

from __future__ import annotations

import copy
import fnmatch
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from app.core.models import CatalogError, load_catalog, variant_metadata
from app.core.models.catalog import CATALOG_RESOURCE
from app.core.planner import kv_bytes_per_token
from app.core.planner.hf_config import parse_hf_config
from tests.core.planner import published_configs as published

REPO_ROOT = Path(__file__).resolve().parents[3]
CATALOG_FILE = REPO_ROOT / "app/core/models" / CATALOG_RESOURCE
SHAPE_FIELDS = ("model_type", "n_layers", "n_heads", "n_kv_heads", "head_dim", "hidden_size", "intermediate_size",
                "vocab_size", "context_length", "sliding_window", "sliding_layers", "expert_count", "experts_used",
                "moe_intermediate_size", "moe_layers", "tie_word_embeddings", "qkv_bias", "qk_norm")
# Bits per weight a quantisation can plausibly take, whole file over all parameters (small models
# keep embeddings at higher precision, so the upper bounds are generous).
BITS_PER_WEIGHT = {"Q4_K_M": (4.5, 6.6), "Q5_K_M": (5.3, 7.2), "Q8_0": (8.3, 9.0), "BF16": (15.8, 18.0),
                   "AWQ": (4.2, 6.5), "FP8": (8.0, 9.5), "NVFP4": (4.4, 5.5)}


def _document() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CATALOG_FILE.read_text(encoding="utf-8"))
    return data


def test_the_shipped_catalog_loads_with_the_families_asked_for() -> None:
    catalog = load_catalog()
    assert len(catalog) >= 25
    families = {model.family for model in catalog}
    for family in ("Qwen2.5", "Qwen3", "Llama 3.2", "Llama 3.1", "Gemma 2", "Gemma 3", "Mistral", "Phi",
                   "DeepSeek-R1 Distill", "GLM-4", "Yi-1.5"):
        assert family in families
    assert sum(model.speaks_chinese for model in catalog) >= 15
    formats = {variant.format for model in catalog for variant in model.variants}
    assert formats == {"gguf", "hf"}
    quantisations = {variant.quantization for model in catalog for variant in model.variants}
    assert {"Q4_K_M", "Q8_0", "FP8", "AWQ", "NVFP4", "BF16"} <= quantisations


def test_every_variant_is_consistent() -> None:
    for model in load_catalog():
        assert model.variant().id == model.default_variant
        assert model.source.startswith("Architecture: config.json of")
        for variant in model.variants:
            assert variant.sha256 is None or len(variant.sha256) == 64  # never invented: none stated yet
            if variant.format == "gguf":
                assert variant.file_name is not None and variant.quantization in variant.file_name
                assert variant.backend == "llamacpp"
            else:
                assert variant.file_name is None and variant.backend == "vllm"


def test_hf_variants_from_gating_publishers_are_marked_gated() -> None:
    """meta-llama, google (Gemma) and mistralai make users accept terms before download (HF 401 otherwise)."""
    gating_publishers = {"meta-llama", "google", "mistralai"}
    checked = 0
    for model in load_catalog():
        for variant in model.variants:
            if variant.format == "hf" and variant.repo_id.split("/")[0] in gating_publishers:
                checked += 1
                assert variant.gated, f"{model.id} {variant.id}: {variant.repo_id} is gated on the hub"
    assert checked >= 5


def test_no_variant_points_at_a_renamed_organisation() -> None:
    """THUDM became zai-org in July 2025; the official repositories now live under the new name."""
    renamed = {"THUDM": "zai-org"}
    for model in load_catalog():
        for variant in model.variants:
            organisation = variant.repo_id.split("/")[0]
            assert organisation not in renamed, f"{model.id} {variant.id}: use {renamed.get(organisation)}"


@pytest.mark.parametrize(
    ("model_id", "config"),
    [
        ("llama-3.1-8b-instruct", published.LLAMA_3_1_8B),
        ("llama-3.2-1b-instruct", published.LLAMA_3_2_1B),
        ("qwen2.5-7b-instruct", published.QWEN2_5_7B),
        ("gemma-2-9b-it", published.GEMMA_2_9B),
        ("gemma-3-12b-it", published.GEMMA_3_12B),
        ("qwen3-30b-a3b", published.QWEN3_30B_A3B),
    ],
)
def test_catalog_facts_agree_with_the_published_configs(model_id: str, config: dict[str, Any]) -> None:
    """What the planner reads from the catalog equals what it reads from the real config.json."""
    ours = parse_hf_config(dict(load_catalog().model(model_id).config), "catalog")
    theirs = parse_hf_config(config, "published")
    for field in SHAPE_FIELDS:
        assert getattr(ours, field) == getattr(theirs, field), field


def test_the_planner_reads_the_catalog_facts_like_the_design_says() -> None:
    """Llama-3.1-8B with an f16 cache holds 128 KiB per token (2 x 32 layers x 8 KV heads x 128 x 2 bytes)."""
    model, variant = load_catalog().find("llama-3.1-8b-instruct", "q4_k_m")
    metadata = variant_metadata(model, variant)
    assert kv_bytes_per_token(metadata, "f16", 8192) == 131072
    assert metadata.weight_bytes == variant.approx_size_bytes and metadata.source == "gguf"
    assert 7.9e9 < metadata.parameter_count < 8.1e9
    assert metadata.context_length == 131072
    gemma, gemma_variant = load_catalog().find("gemma-3-12b-it")
    gemma_metadata = variant_metadata(gemma, gemma_variant)
    assert sum(gemma_metadata.sliding_layers) == 40 and gemma_metadata.sliding_window == 1024


def test_download_sizes_are_plausible_for_their_quantisation() -> None:
    for model in load_catalog():
        for variant in model.variants:
            metadata = variant_metadata(model, variant)
            bits = variant.approx_size_bytes * 8 / metadata.parameter_count
            low, high = BITS_PER_WEIGHT[variant.quantization]
            assert low <= bits <= high, f"{model.id} {variant.id}: {bits:.2f} bits per weight"
            assert sum(metadata.layer_weight_bytes) < metadata.weight_bytes


def test_the_catalog_ships_as_package_data() -> None:
    """pyproject's package-data must cover the catalog file, or installed copies would lack it."""
    settings = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = settings["tool"]["setuptools"]["package-data"]["app.core.models"]
    assert any(fnmatch.fnmatch(CATALOG_RESOURCE, pattern) for pattern in patterns)
    assert load_catalog().origin.endswith(CATALOG_RESOURCE)


def test_lookups_explain_what_is_wrong() -> None:
    catalog = load_catalog()
    with pytest.raises(CatalogError, match=r"Did you mean qwen2\.5-7b-instruct"):
        catalog.model("qwen2.5-7b-instruc")
    with pytest.raises(CatalogError, match="has no variant 'q2_k'") as raised:
        catalog.find("qwen3-8b", "q2_k")
    assert "q4_k_m" in (raised.value.hint or "")
    assert catalog.find("QWEN3-8B", "Q8_0")[1].id == "q8_0"


def _write(tmp_path: Path, document: Any) -> Path:
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _broken(change: str) -> dict[str, Any]:
    document = _document()
    first = document["models"][0]
    if change == "duplicate id":
        document["models"].append(copy.deepcopy(first))
    elif change == "bad sha256":
        first["variants"][0]["sha256"] = "abc"
    elif change == "missing default":
        first["default_variant"] = "q9_9"
    elif change == "unknown key":
        first["variants"][0]["szie"] = 1
    elif change == "gguf without file":
        del first["variants"][0]["file"]
    return document


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("duplicate id", r"models\[\d+\] repeats the id 'qwen2.5-0.5b-instruct'"),
        ("bad sha256", r"models\[0\].variants\[0\].sha256 must be null or 64"),
        ("missing default", r"default_variant 'q9_9' is not one of its variants"),
        ("unknown key", r"variants\[0\] has unknown keys \['szie'\]"),
        ("gguf without file", r"variants\[0\].file must name a .gguf file"),
    ],
)
def test_a_malformed_catalog_is_one_clear_error(tmp_path: Path, change: str, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        load_catalog(_write(tmp_path, _broken(change)))


def test_unreadable_or_invalid_catalog_files(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="Cannot read the model catalog"):
        load_catalog(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  'models': []", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"not valid JSON \(line 2"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match="'schema' must be 1"):
        load_catalog(_write(tmp_path, {"schema": 2, "models": []}))
