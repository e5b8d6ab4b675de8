"""Limits a search to some documents: listed ids and folders, resolved to document ids when the search runs."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentFilter:
    """The documents a search may return: those in ``document_ids`` and every document whose path is
    one of ``folders`` or lies under one. Folders are resolved at query time, so documents added to a
    folder later are included. A filter with neither allows no document (no filter at all is ``None``).
    """

    document_ids: tuple[int, ...] = ()
    folders: tuple[str, ...] = ()


def folder_prefix(folder: str) -> str:
    """What the path of a document inside ``folder`` starts with (the folder and one separator)."""
    return folder.rstrip("/\\") + os.sep


def filtered_document_ids(connection: sqlite3.Connection, documents: DocumentFilter) -> frozenset[int]:
    """Ids of the knowledge base's documents (of any status) that ``documents`` allows."""
    clauses = ["id IN (SELECT value FROM json_each(?))"]
    parameters: list[object] = [json.dumps([int(value) for value in documents.document_ids])]
    for folder in dict.fromkeys(documents.folders):
        prefix = folder_prefix(folder)
        clauses.append("(path = ? OR substr(path, 1, ?) = ?)")
        parameters += [folder, len(prefix), prefix]
    rows = connection.execute(f"SELECT id FROM documents WHERE {' OR '.join(clauses)}", parameters).fetchall()
    return frozenset(int(row[0]) for row in rows)


def id_list_json(document_ids: Collection[int]) -> str:
    """Document ids as one JSON array parameter (for ``json_each``: no limit on how many)."""
    return json.dumps(sorted(int(value) for value in document_ids))
