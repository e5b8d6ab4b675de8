"""Validates the catalog file's JSON, so a typo becomes one clear error naming where it is."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app.core.models.errors import CatalogError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CATALOG_SCHEMA = 1
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")  # a branch, tag or 40-hex commit
_MODEL_TEXT_KEYS = ("id", "name", "family", "publisher", "parameters", "license", "summary", "source",
                    "default_variant")
_MODEL_KEYS = frozenset({*_MODEL_TEXT_KEYS, "languages", "context_length", "config", "variants"})
_VARIANT_KEYS = frozenset({"id", "format", "repo", "revision", "file", "quantization", "approx_size_bytes",
                           "sha256", "files_sha256", "checksum_source", "quantization_config", "gated", "note"})
CONTEXT = "CatalogErrors"


def _fail(origin: str, where: str, problem: str) -> CatalogError:
    return CatalogError(
        Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors", "Model catalog {0}: {1} {2}."), (origin, where, problem)),
        Text(CONTEXT, QT_TRANSLATE_NOOP("CatalogErrors",
                                        "Fix the catalog file (or reinstall UniDesk if you did not edit it).")))


def _problem(template: str, *args: object) -> Text:
    return Text(CONTEXT, template, args)


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def parse_catalog_document(document: Any, origin: str) -> list[Mapping[str, Any]]:
    """The catalog's model entries, each checked; raises CatalogError at the first problem."""
    if not isinstance(document, dict) or not isinstance(document.get("models"), list):
        raise _fail(origin, _problem(QT_TRANSLATE_NOOP("CatalogErrors", "the file")),
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a JSON object with a 'models' list")))
    if document.get("schema") != CATALOG_SCHEMA:
        raise _fail(origin, "'schema'", _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be {0}, not {1}"),
                                                  CATALOG_SCHEMA, repr(document.get("schema"))))
    seen: set[str] = set()
    entries: list[Mapping[str, Any]] = []
    for index, entry in enumerate(document["models"]):
        where = f"models[{index}]"
        _check_model(entry, where, origin)
        if entry["id"] in seen:
            raise _fail(origin, where,
                        _problem(QT_TRANSLATE_NOOP("CatalogErrors", "repeats the id '{0}'"), entry["id"]))
        seen.add(entry["id"])
        entries.append(entry)
    return entries


def _check_model(entry: Any, where: str, origin: str) -> None:
    """Raise CatalogError unless ``entry`` is a well-formed model entry."""
    if not isinstance(entry, dict):
        raise _fail(origin, where, _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be an object")))
    unknown = sorted(set(entry) - _MODEL_KEYS)
    if unknown:
        raise _fail(origin, where, _problem(QT_TRANSLATE_NOOP("CatalogErrors", "has unknown keys {0}"), unknown))
    for key in _MODEL_TEXT_KEYS:
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise _fail(origin, f"{where}.{key}",
                        _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a non-empty string")))
    if not _ID.match(entry["id"]):
        raise _fail(origin, f"{where}.id",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be lower-case letters, digits, '.', '_' or '-'")))
    languages = entry.get("languages")
    if not isinstance(languages, list) or not languages or not all(isinstance(code, str) for code in languages):
        raise _fail(origin, f"{where}.languages",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a non-empty list of language codes")))
    if not _positive_int(entry.get("context_length")):
        raise _fail(origin, f"{where}.context_length",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a positive whole number of tokens")))
    if not isinstance(entry.get("config"), dict) or not entry["config"]:
        raise _fail(origin, f"{where}.config",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be the model's config.json facts (an object)")))
    variants = entry.get("variants")
    if not isinstance(variants, list) or not variants:
        raise _fail(origin, f"{where}.variants",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a non-empty list")))
    variant_ids: set[str] = set()
    for position, variant in enumerate(variants):
        variant_where = f"{where}.variants[{position}]"
        _check_variant(variant, variant_where, origin)
        if variant["id"] in variant_ids:
            raise _fail(origin, variant_where,
                        _problem(QT_TRANSLATE_NOOP("CatalogErrors", "repeats the variant id '{0}'"), variant["id"]))
        variant_ids.add(variant["id"])
    if entry["default_variant"] not in variant_ids:
        raise _fail(origin, f"{where}.default_variant",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "'{0}' is not one of its variants"),
                                                            entry["default_variant"]))


def _check_variant(variant: Any, where: str, origin: str) -> None:
    """Raise CatalogError unless ``variant`` is a well-formed variant entry."""
    if not isinstance(variant, dict):
        raise _fail(origin, where, _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be an object")))
    unknown = sorted(set(variant) - _VARIANT_KEYS)
    if unknown:
        raise _fail(origin, where, _problem(QT_TRANSLATE_NOOP("CatalogErrors", "has unknown keys {0}"), unknown))
    if not isinstance(variant.get("id"), str) or not _ID.match(variant["id"]):
        raise _fail(origin, f"{where}.id",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be lower-case letters, digits, '.', '_' or '-'")))
    if variant.get("format") not in ("gguf", "hf"):
        raise _fail(origin, f"{where}.format", _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be 'gguf' or 'hf'")))
    if not isinstance(variant.get("repo"), str) or not _REPO.match(variant["repo"]):
        raise _fail(origin, f"{where}.repo",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a hub repository id like 'owner/name'")))
    file_name = variant.get("file")
    if variant["format"] == "gguf":
        if not isinstance(file_name, str) or not file_name.endswith(".gguf") or "/" in file_name:
            raise _fail(origin, f"{where}.file",
                        _problem(QT_TRANSLATE_NOOP("CatalogErrors",
                                                   "must name a .gguf file at the top of the repository")))
    elif file_name is not None:
        raise _fail(origin, f"{where}.file",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors",
                                               "is only for GGUF variants (HF variants download the repository)")))
    if not isinstance(variant.get("quantization"), str) or not variant["quantization"]:
        raise _fail(origin, f"{where}.quantization",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a non-empty string")))
    if not _positive_int(variant.get("approx_size_bytes")):
        raise _fail(origin, f"{where}.approx_size_bytes",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a positive whole number")))
    sha256 = variant.get("sha256")
    if sha256 is not None and (not isinstance(sha256, str) or not _SHA256.match(sha256)):
        raise _fail(origin, f"{where}.sha256",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be null or 64 lower-case hex digits")))
    revision = variant.get("revision")
    if revision is not None and (not isinstance(revision, str) or not _REVISION.match(revision)):
        raise _fail(origin, f"{where}.revision",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors",
                                               "must be a commit id, tag or branch of the repository")))
    files_sha256 = variant.get("files_sha256")
    if files_sha256 is not None and (
        variant.get("format") != "hf" or not isinstance(files_sha256, dict)
        or not all(isinstance(name, str) and isinstance(digest, str) and _SHA256.match(digest)
                   for name, digest in files_sha256.items())
    ):
        raise _fail(origin, f"{where}.files_sha256",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors",
                                               "must map an HF variant's file names to 64 lower-case hex digits")))
    quantization_config = variant.get("quantization_config")
    if quantization_config is not None and not isinstance(quantization_config, dict):
        raise _fail(origin, f"{where}.quantization_config",
                    _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be an object")))
    for key, kind in (("note", str), ("gated", bool), ("checksum_source", str)):
        if key in variant and not isinstance(variant[key], kind):
            raise _fail(origin, f"{where}.{key}", _problem(QT_TRANSLATE_NOOP("CatalogErrors", "must be a {0}"),
                                                             kind.__name__))
