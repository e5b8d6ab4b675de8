"""Options every command accepts, before or after the command name (``unidesk kb list --home DIR``)."""

from __future__ import annotations

import argparse


def add_global_options(parser: argparse.ArgumentParser, *, after_command: bool = False) -> None:
    """Add ``--home`` and ``--verbose`` to ``parser``.

    On a command's own parser (``after_command``) they have no default, so a value given before the
    command is kept unless the same option is given again after it.
    """
    extra: dict[str, object] = {"default": argparse.SUPPRESS} if after_command else {}
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="keep all settings, data, caches and logs under DIR (default: $UNIDESK_HOME or the system's folders)",
        **extra,  # type: ignore[arg-type]
    )
    parser.add_argument(
        "--verbose", "-v", action="store_true",
        help="log details (DEBUG) to the log file and print the log on the console",
        **extra,  # type: ignore[arg-type]
    )


def accept_global_options_after_commands(parser: argparse.ArgumentParser) -> None:
    """Give every command and sub-command parser under ``parser`` the global options too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command_parser in dict.fromkeys(action.choices.values()):
                add_global_options(command_parser, after_command=True)
                accept_global_options_after_commands(command_parser)
