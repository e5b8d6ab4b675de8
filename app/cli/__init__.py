"""Headless commands. Each module registers its subcommands; ``main`` dispatches to them."""

from __future__ import annotations

import argparse

from app.cli import ask, chat, conversations, kb, machine, models, report, serve, settings_command
from app.cli.common import CommandHandler
from app.context import AppContext

# Every module here exposes ``register(subparsers) -> {command name: handler}``.
_COMMAND_MODULES = (machine, chat, settings_command, kb, conversations, ask, serve, models, report)


def add_commands(parser: argparse.ArgumentParser) -> dict[str, CommandHandler]:
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    handlers: dict[str, CommandHandler] = {}
    for module in _COMMAND_MODULES:
        handlers.update(module.register(subparsers))
    parser.set_defaults(_handlers=handlers)
    return handlers


def run_command(args: argparse.Namespace, context: AppContext) -> int:
    handler: CommandHandler = args._handlers[args.command]
    return handler(args, context)
