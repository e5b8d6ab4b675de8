"""SQLite helpers shared by the conversation store and the knowledge base."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on an autocommit connection: everything inside is committed together
    or, on any exception, not at all. The write lock is taken at once (``BEGIN IMMEDIATE``), so a
    concurrent writer waits for the busy timeout instead of failing later in the transaction."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")
