"""Where models are downloaded from: the Hugging Face hub, a mirror of it, or ModelScope, in order.

The ``model.download_source`` setting picks one, or ``auto``: the hub first, then the mirror, then
ModelScope, so a user in a place where the hub is slow or blocked still gets the model, and the
download says which source failed and which it tries next. A partial file is kept between sources:
the next one resumes it with a Range request, and the checksum check at the end (the catalog's
pinned sha256, or the hub's own) makes sure bytes from two sources form the right file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from app.core.models.hub import DEFAULT_ENDPOINT, ENDPOINT_ENV, HUGGINGFACE, MODELSCOPE, TOKEN_ENV, HubClient

AUTO, MIRROR = "auto", "mirror"
SOURCE_CHOICES: tuple[str, ...] = (AUTO, HUGGINGFACE, MIRROR, MODELSCOPE)
DEFAULT_MIRROR_URL = "https://hf-mirror.com"
MODELSCOPE_ENDPOINT = "https://www.modelscope.cn"


def _clean(url: str) -> str:
    return url.strip().rstrip("/")


def download_sources(
    choice: str,
    mirror_url: str = DEFAULT_MIRROR_URL,
    environ: Mapping[str, str] | None = None,
    *,
    timeout_s: float = 30.0,
) -> tuple[HubClient, ...]:
    """The hubs a download tries, in order, for the ``model.download_source`` setting ``choice``.

    ``HF_ENDPOINT`` (if set) replaces huggingface.co, as the Hugging Face tools do; ``HF_TOKEN`` is sent
    to the hub and its mirror only, never to ModelScope.
    """
    env = os.environ if environ is None else environ
    token = (env.get(TOKEN_ENV) or "").strip() or None
    hub = HubClient(_clean(env.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT), token, timeout_s)
    mirror = HubClient(_clean(mirror_url or DEFAULT_MIRROR_URL), token, timeout_s)
    modelscope = HubClient(MODELSCOPE_ENDPOINT, None, timeout_s, flavour=MODELSCOPE)
    by_choice = {HUGGINGFACE: (hub,), MIRROR: (mirror,), MODELSCOPE: (modelscope,)}
    if choice in by_choice:
        return by_choice[choice]
    ordered = (hub, mirror, modelscope)
    return tuple(client for index, client in enumerate(ordered)
                 if all(client.endpoint != earlier.endpoint for earlier in ordered[:index]))
