"""Turn off the telemetry of the libraries UniDesk uses, before any of them is imported."""

from __future__ import annotations

import os
from collections.abc import MutableMapping

# Each of these makes a library stay silent: no usage pings, no update checks.
TELEMETRY_OFF: dict[str, str] = {
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_IMPLICIT_TOKEN": "1",
    "DO_NOT_TRACK": "1",
    "ANONYMIZED_TELEMETRY": "False",  # chromadb
    "VLLM_NO_USAGE_STATS": "1",
    "VLLM_DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def disable_library_telemetry(environment: MutableMapping[str, str] | None = None) -> None:
    """Set the telemetry opt-outs in ``environment`` (default: this process), keeping user overrides."""
    target = os.environ if environment is None else environment
    for name, value in TELEMETRY_OFF.items():
        target.setdefault(name, value)
