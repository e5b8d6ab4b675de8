"""``unidesk serve``: the OpenAI-compatible API on 127.0.0.1 for other local tools."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from app.cli.common import CommandHandler, Subparsers, add_chats_argument, setting_override
from app.context import AppContext
from app.core.util.errors import UserFacingError


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    serve = subparsers.add_parser("serve", help="serve an OpenAI-compatible API on 127.0.0.1")
    serve.add_argument("--port", type=int, metavar="N", help="port (default: settings api.port; 0: any free port)")
    serve.add_argument("--model", metavar="PATH", help="model to load (default: settings model.path)")
    serve.add_argument("--ctx", type=int, metavar="N", help="context length (default: settings / planner)")
    add_chats_argument(serve, "--parallel",
                       help_text="requests answered at once (default: settings engine.parallel_chats)")
    return {"serve": run_serve}


def run_serve(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware
    from app.core.services.api.setup import build_api_server
    from app.core.services.memory_guardian import GuardianNotice, guard_engine_manager

    settings = context.settings
    model = args.model or settings.str_value("model.path")
    if not model:
        raise UserFacingError("No model to serve.", "Pass --model PATH or choose a model in the app first.")
    if args.port is not None and not 0 <= args.port <= 65535:
        raise UserFacingError(f"--port must be from 0 to 65535, not {args.port}.")
    report = probe_hardware(measure_bandwidth=False)
    manager = EngineManager(lambda: report, lambda: settings)
    stop = threading.Event()
    guardian = guard_engine_manager(manager, lambda: settings)
    unloaded = threading.Event()

    def tell(notice: GuardianNotice) -> None:  # the guardian pauses requests (503), or unloads and serving ends
        print(f"unidesk: memory: {notice.message}", file=sys.stderr, flush=True)
        if notice.action == "unloaded":
            unloaded.set()
            stop.set()

    guardian.add_listener(tell)

    def request_stop(signal_number: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, request_stop)
    try:
        loaded = manager.load(
            Path(model),
            context_length=setting_override(args.ctx, "engine.context_length", "--ctx"),
            parallel_chats=setting_override(args.chats, "engine.parallel_chats", "--chats"),
        )
        server = build_api_server(manager, context.paths, lambda: settings, port=args.port).start()
        print(f"UniDesk API for {loaded.model_name} on {server.url}", flush=True)
        print(f"token: {server.token}", flush=True)
        print("Press Ctrl+C to stop.", file=sys.stderr, flush=True)
        guardian.start()
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        server.stop()
    finally:
        guardian.stop()
        signal.signal(signal.SIGTERM, previous)
        manager.unload()
    return 1 if unloaded.is_set() else 0
