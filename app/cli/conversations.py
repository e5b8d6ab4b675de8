"""``unidesk conversations list|export|import``: the window's conversations from the command line."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.cli.common import CommandHandler, Subparsers, print_json
from app.context import AppContext
from app.core.chat.export import EXPORT_FORMATS, ExportFormat, export_text, export_to_file, import_from_file
from app.core.chat.store import ConversationStore


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    conversations = subparsers.add_parser("conversations", help="list, export and import the window's conversations")
    commands = conversations.add_subparsers(dest="conversations_command", metavar="CONVERSATIONS_COMMAND",
                                            required=True)

    listing = commands.add_parser("list", help="conversations, newest first, with their ids")
    listing.add_argument("--json", action="store_true", help="print one JSON document (a list)")

    export = commands.add_parser("export", help="write one conversation as Markdown or JSON")
    export.add_argument("id", help="conversation id, as shown by `conversations list`")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="markdown",
                        help="markdown: the branch on show, to read; json: everything, to import again")
    export.add_argument("--output", "-o", type=Path, metavar="FILE", help="write to FILE (default: stdout)")

    imported = commands.add_parser("import", help="add a conversation exported as JSON")
    imported.add_argument("file", type=Path, help="a .json file written by `conversations export --format json`")
    imported.add_argument("--json", action="store_true", help="print the new conversation as one JSON document")
    return {"conversations": run_conversations}


def run_conversations(args: argparse.Namespace, context: AppContext) -> int:
    handlers = {"list": _list, "export": _export, "import": _import}
    with ConversationStore.open(context.paths.data_dir) as store:
        return handlers[args.conversations_command](args, store)


def _list(args: argparse.Namespace, store: ConversationStore) -> int:
    conversations = store.conversations()
    if args.json:
        print_json([{"id": item.id, "title": item.title, "updated_at": item.updated_at, "pinned": item.pinned}
                    for item in conversations])
        return 0
    for item in conversations:
        updated = time.strftime("%Y-%m-%d %H:%M", time.localtime(item.updated_at))
        print(f"{item.id}  {updated}  {'* ' if item.pinned else ''}{item.title or '(untitled)'}")
    if not conversations:
        print("(no conversations)", file=sys.stderr)
    return 0


def _export(args: argparse.Namespace, store: ConversationStore) -> int:
    export_format: ExportFormat = args.format
    if args.output is None:
        sys.stdout.write(export_text(store, args.id, export_format))
        return 0
    written = export_to_file(store, args.id, args.output, export_format)
    print(f"exported {args.id} to {written}", file=sys.stderr)
    return 0


def _import(args: argparse.Namespace, store: ConversationStore) -> int:
    conversation = import_from_file(store, args.file)
    if args.json:
        print_json({"id": conversation.id, "title": conversation.title,
                    "messages": len(store.messages(conversation.id))})
    else:
        print(f"imported {conversation.id}  {conversation.title or '(untitled)'}")
    return 0
