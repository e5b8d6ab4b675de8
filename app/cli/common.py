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


def setting_override(value: int | None, key: str, flag: str) -> int | None:
    """A number given on the command line for setting ``key`` (``--ctx`` for engine.context_length...), checked
    against that setting's declaration; None when not given or when it is the setting's Automatic value."""
    if value is None:
        return None
    from app.core.config.declarations import spec_for
    from app.core.config.schema import SettingValueError
    from app.core.config.validation import validate_value
    from app.core.util.errors import UserFacingError

    spec = spec_for(key)
    try:
        checked = validate_value(spec, value)
    except SettingValueError as error:
        raise UserFacingError(f"{flag} {error.problem}", error.hint) from None
    if spec.is_automatic(checked) or not isinstance(checked, int):
        return None
    return checked


def add_chats_argument(parser: argparse.ArgumentParser, *aliases: str, help_text: str, **options: Any) -> None:
    """``--chats N`` (engine.parallel_chats for this command), also under the flag users knew it by."""
    parser.add_argument("--chats", *aliases, dest="chats", type=int, metavar="N", help=help_text, **options)
