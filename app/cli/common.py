"""Shared helpers of the headless commands."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from app.context import AppContext

CommandHandler = Callable[[argparse.Namespace, AppContext], int]
# The type of ``parser.add_subparsers()``'s result, for ``register`` functions.
Subparsers = Any


def print_json(document: Any) -> None:
    """One JSON document on stdout (``--json`` output)."""
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")
