"""The curated model catalog: models, their GGUF and Hugging Face variants, and the loader."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from app.core.models.catalog_parse import CONTEXT, parse_catalog_document
from app.core.models.errors import CatalogError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, listed

VariantFormat = Literal["gguf", "hf"]
PinLevel = Literal["commit", "checksum", "none"]
CATALOG_PACKAGE = "app.core.models"
CATALOG_RESOURCE = "data/models.json"


_COMMIT = re.compile(r"^[0-9a-f]{40}$")
PINS_CONTEXT = "CatalogPins"

@dataclass(frozen=True)
class CatalogVariant:
    """One downloadable form of a model.

    GGUF variants are one ``file_name`` in ``repo_id`` (run by llama.cpp); HF variants are the
    whole repository's safetensors, config and tokenizer files (run by vLLM).
    ``approx_size_bytes`` is the download size as the hub lists it, rounded (the hub's own
    Content-Length is what the downloader trusts); ``sha256`` (``files_sha256`` for HF) is stated
    only where a published value was found, and ``checksum_source`` says where; otherwise the
    downloader verifies against the sha256 the download source states for the file (see ``pin``).
    """

    id: str
    format: VariantFormat
    repo_id: str
    revision: str
    file_name: str | None
    quantization: str
    approx_size_bytes: int
    sha256: str | None
    quantization_config: Mapping[str, Any] | None
    gated: bool
    note: str
    files_sha256: tuple[tuple[str, str], ...] = ()
    checksum_source: str = ""

    @property
    def pin(self) -> PinLevel:
        """How the download is tied to known bytes. ``commit``: a commit id as ``revision`` and the catalog's
        own checksums (the GGUF file's ``sha256``, or ``files_sha256`` for an HF variant). ``checksum``: the
        catalog's checksums, fetched from the branch ``revision`` (a file the publisher replaced is refused).
        ``none``: the branch is followed and each file is checked against the sha256 the download source
        states for it (its size alone where it states none)."""
        checksums = bool(self.sha256) if self.format == "gguf" else bool(self.files_sha256)
        if not checksums:
            return "none"
        return "commit" if _COMMIT.match(self.revision) else "checksum"

    @property
    def pinned(self) -> bool:
        """Pinned to a commit and the catalog's checksums (``pin == "commit"``)."""
        return self.pin == "commit"

    @property
    def checksum_publisher(self) -> str:
        """Who published the catalog's checksum: ``checksum_source`` up to its first ``": "``."""
        return self.checksum_source.split(": ", 1)[0].strip() or "the catalog"

    def pin_note(self) -> Text:
        """One sentence for the catalog and ``models list``: what the download is checked against."""
        if self.pin == "commit":
            return Text(PINS_CONTEXT, QT_TRANSLATE_NOOP(
                "CatalogPins", "Pinned to commit {0}: checked against the catalog's sha256 (from {1})."),
                (self.revision[:12], self.checksum_publisher))
        if self.pin == "checksum":
            return Text(PINS_CONTEXT, QT_TRANSLATE_NOOP(
                "CatalogPins", "Checksum pinned: checked against the catalog's sha256 (from {0}); the file comes "
                               "from the '{1}' branch, so a file the publisher replaced is refused."),
                (self.checksum_publisher, self.revision))
        if self.format == "hf":
            return Text(PINS_CONTEXT, QT_TRANSLATE_NOOP(
                "CatalogPins", "Not pinned: follows the '{0}' branch; each file is checked against the checksum the "
                               "hub publishes for it (sha256 for the weights, git's id for small files)."),
                (self.revision,))
        return Text(PINS_CONTEXT, QT_TRANSLATE_NOOP(
            "CatalogPins", "Not pinned: follows the '{0}' branch and is checked against the sha256 the hub "
                           "publishes for the file."), (self.revision,))

    @property
    def backend(self) -> Literal["llamacpp", "vllm"]:
        """The engine that runs this variant: GGUF files run on llama.cpp, HF folders on vLLM."""
        return "llamacpp" if self.format == "gguf" else "vllm"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "id": self.id,
            "format": self.format,
            "repo_id": self.repo_id,
            "revision": self.revision,
            "file_name": self.file_name,
            "quantization": self.quantization,
            "approx_size_bytes": self.approx_size_bytes,
            "sha256": self.sha256,
            "files_sha256": dict(self.files_sha256),
            "checksum_source": self.checksum_source or None,
            "pin": self.pin,
            "pinned": self.pinned,
            "gated": self.gated,
            "backend": self.backend,
            "note": self.note,
        }


@dataclass(frozen=True)
class CatalogModel:
    """A model with its licence, languages, architecture facts (``config``) and variants.

    ``config`` holds the keys of the model's published config.json the planner reads, so fit
    badges work before anything is downloaded; ``source`` says where the facts came from.
    """

    id: str
    name: str
    family: str
    publisher: str
    parameters: str
    license: str
    languages: tuple[str, ...]
    context_length: int
    summary: str
    config: Mapping[str, Any]
    source: str
    default_variant: str
    variants: tuple[CatalogVariant, ...]

    @property
    def speaks_chinese(self) -> bool:
        """True when the publisher lists Chinese among the model's languages."""
        return "zh" in self.languages

    def variant(self, variant_id: str | None = None) -> CatalogVariant:
        """The variant ``variant_id`` (case-insensitive), or the default one when None."""
        wanted = (variant_id or self.default_variant).lower()
        for variant in self.variants:
            if variant.id == wanted:
                return variant
        raise CatalogError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors", "{0} has no variant '{1}'."), (self.id, variant_id)),
            Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors", "Choose one of: {0}."),
                 (listed(variant.id for variant in self.variants),)))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the architecture facts, which stay in the catalog file)."""
        return {
            "id": self.id,
            "name": self.name,
            "family": self.family,
            "publisher": self.publisher,
            "parameters": self.parameters,
            "license": self.license,
            "languages": list(self.languages),
            "context_length": self.context_length,
            "summary": self.summary,
            "default_variant": self.default_variant,
            "variants": [variant.to_dict() for variant in self.variants],
        }


@dataclass(frozen=True)
class Catalog:
    """All catalog models, in the catalog file's order."""

    models: tuple[CatalogModel, ...]
    origin: str

    def __iter__(self) -> Iterator[CatalogModel]:
        return iter(self.models)

    def __len__(self) -> int:
        return len(self.models)

    def model(self, model_id: str) -> CatalogModel:
        """The model ``model_id`` (case-insensitive); a clear error naming close ids otherwise."""
        wanted = model_id.strip().lower()
        for model in self.models:
            if model.id == wanted:
                return model
        close = difflib.get_close_matches(wanted, [model.id for model in self.models], n=3)
        hint = (Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors", "Did you mean {0}?"), (" or ".join(close),))
                if close else
                Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors",
                                                "Run `unidesk models list` to see the catalog's ids.")))
        raise CatalogError(
            Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors", "'{0}' is not in the model catalog."), (model_id,)), hint)

    def find(self, model_id: str, variant_id: str | None = None) -> tuple[CatalogModel, CatalogVariant]:
        """The model and its variant (default variant when ``variant_id`` is None)."""
        model = self.model(model_id)
        return model, model.variant(variant_id)


def load_catalog(path: Path | None = None) -> Catalog:
    """Load ``path``, or the catalog shipped inside this package (works from a checkout or a wheel)."""
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise CatalogError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "CatalogErrors", "Cannot read the model catalog {0}: {1}."), (str(path), str(error.strerror or error))
            )) from error
        origin = str(path)
    else:
        resource = resources.files(CATALOG_PACKAGE).joinpath(CATALOG_RESOURCE)
        text = resource.read_text(encoding="utf-8")
        origin = f"{CATALOG_PACKAGE}/{CATALOG_RESOURCE}"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise CatalogError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "CatalogErrors", "The model catalog {0} is not valid JSON (line {1}: {2})."),
            (origin, error.lineno, error.msg))) from error
    models = tuple(_build_model(entry) for entry in parse_catalog_document(document, origin))
    return Catalog(models=models, origin=origin)


def _build_model(entry: Mapping[str, Any]) -> CatalogModel:
    """A CatalogModel from one validated catalog entry."""
    variants = tuple(
        CatalogVariant(
            id=variant["id"],
            format=variant["format"],
            repo_id=variant["repo"],
            revision=variant.get("revision", "main"),
            file_name=variant.get("file"),
            quantization=variant["quantization"],
            approx_size_bytes=variant["approx_size_bytes"],
            sha256=variant.get("sha256"),
            quantization_config=variant.get("quantization_config"),
            gated=bool(variant.get("gated", False)),
            note=variant.get("note", ""),
            files_sha256=tuple(sorted((variant.get("files_sha256") or {}).items())),
            checksum_source=variant.get("checksum_source", ""),
        )
        for variant in entry["variants"]
    )
    return CatalogModel(
        id=entry["id"],
        name=entry["name"],
        family=entry["family"],
        publisher=entry["publisher"],
        parameters=entry["parameters"],
        license=entry["license"],
        languages=tuple(entry["languages"]),
        context_length=entry["context_length"],
        summary=entry["summary"],
        config=entry["config"],
        source=entry["source"],
        default_variant=entry["default_variant"],
        variants=variants,
    )
