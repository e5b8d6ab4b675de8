"""The API's bearer token: made on first use, kept readable only by the user under the data folder."""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from pathlib import Path

TOKEN_FOLDER = "api"
TOKEN_FILE_NAME = "token"
TOKEN_BYTES = 32


def token_path(data_dir: Path) -> Path:
    return data_dir / TOKEN_FOLDER / TOKEN_FILE_NAME


def api_token(data_dir: Path) -> str:
    """The token in ``data_dir`` (mode 0600), generated with :mod:`secrets` the first time."""
    path = token_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            path.chmod(0o600)  # someone loosened it: readable by others means anyone could call the API
        token = path.read_text(encoding="ascii").strip()
        if token:
            return token
        path.unlink()
        return api_token(data_dir)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with os.fdopen(descriptor, "w", encoding="ascii") as file:
        file.write(token + "\n")
    return token


def token_matches(header: str | None, token: str) -> bool | None:
    """None when no bearer token was sent; otherwise whether it is the right one (constant time)."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return hmac.compare_digest(value.strip().encode(), token.encode())
