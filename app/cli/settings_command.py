"""``unidesk settings``: show, locate or change settings from the command line."""

from __future__ import annotations

import argparse

from app.cli.common import CommandHandler, Subparsers, print_json
from app.context import AppContext
from app.core.config import SETTINGS, Settings, format_value, parse_value_text, spec_for


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    settings = subparsers.add_parser("settings", help="show, check or change settings")
    actions = settings.add_subparsers(dest="settings_action", metavar="ACTION")
    show = actions.add_parser("show", help="every setting with its value")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    actions.add_parser("path", help="where the settings file is")
    change = actions.add_parser("set", help="change one setting")
    change.add_argument("key")
    change.add_argument("value", help="written as in the settings file: 4, 0.5, true, dark")
    return {"settings": run_settings}


def run_settings(args: argparse.Namespace, context: AppContext) -> int:
    action = args.settings_action or "show"
    if action == "path":
        print(context.settings_store.path)
    elif action == "set":
        spec = spec_for(args.key)
        updated = context.settings.with_changes({spec.key: parse_value_text(spec, args.value)})
        context.settings_store.save(updated)
        print(f"{spec.key} = {format_value(spec, updated[spec.key])}")
    else:
        show_settings(context.settings, as_json=getattr(args, "json", False))
    return 0


def show_settings(settings: Settings, *, as_json: bool) -> None:
    if as_json:
        print_json({spec.key: settings.display_value(spec.key) if spec.secret else settings[spec.key]
                    for spec in SETTINGS})
        return
    for spec in SETTINGS:
        print(f"{spec.key} = {format_value(spec, settings[spec.key])}    # {spec.title}")
