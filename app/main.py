"""Composition root: parse the command line, build the core objects, start the GUI or a command."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from app import __version__
from app.cli import add_commands, run_command
from app.cli.global_options import accept_global_options_after_commands, add_global_options
from app.cli.home_access import claim_home_for_window, command_lock
from app.cli.open_files import split_open_files
from app.cli.storage_errors import storage_problem
from app.context import AppContext
from app.core.config import SettingsStore
from app.core.config.paths import AppPaths
from app.core.util.errors import UserFacingError
from app.core.util.logging_setup import configure_logging
from app.core.util.privacy import disable_library_telemetry
from app.core.util.system_libraries import install_hint, missing_for_window

log = logging.getLogger(__name__)


# Commands that may load a local model in this process (the window too).
MODEL_COMMANDS = frozenset({"chat", "bench", "ask", "serve"})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="unidesk",
        description="UniDesk: a private AI assistant. With no command, opens the window.",
    )
    parser.add_argument("--version", action="version", version=f"UniDesk {__version__}")
    add_global_options(parser)
    parser.add_argument(
        "--startup-time", action="store_true",
        help="open the window, print the time from start to its first paint, then quit (a fresh --home: cold start)",
    )
    parser.add_argument(
        "--self-test", action="store_true",
        help="check headless that this installation is whole (Qt, llama.cpp, embedding model, fonts), print a report",
    )
    add_commands(parser)
    accept_global_options_after_commands(parser)
    return parser


def command_names(parser: argparse.ArgumentParser) -> set[str]:
    """The commands ``parser`` knows (``kb``, ``chat``, ...)."""
    return set(parser.get_default("_handlers") or ())


def build_context(home: str | None, *, verbose: bool) -> AppContext:
    """Resolve folders, start logging, load settings (bad settings become defaults, reported)."""
    paths = AppPaths.resolve(home).ensure()
    log_file = configure_logging(paths.log_dir, verbose=verbose)
    store = SettingsStore(paths)
    load = store.load()
    if load.settings.bool_value("diagnostics.detailed_log") and not verbose:
        configure_logging(paths.log_dir, detailed=True)
    for problem in load.problems:
        log.warning("settings: %s", problem.message)
        print(f"unidesk: settings: {problem.message}", file=sys.stderr)
    if load.backup_path is not None:
        print(f"unidesk: settings: the original file was kept as {load.backup_path}", file=sys.stderr)
    return AppContext(paths=paths, settings_store=store, settings_load=load, log_file=log_file)


def start_gui(context: AppContext, *, startup_time: bool = False, open_files: Sequence[Path] = ()) -> int:
    """Build the objects the window shares with its workers, then open it (Qt loads only now)."""
    missing = missing_for_window()
    if missing:  # Qt would abort with a message that names the wrong library
        log.error("cannot open the window: %s", install_hint(missing))
        print(f"unidesk: error: {install_hint(missing)}", file=sys.stderr)
        return 1
    from app.core.engines.manager import EngineManager
    from app.core.hardware import probe_hardware
    from app.ui.application import run_gui
    from app.ui.damaged_database import open_or_recover
    from app.ui.state.gui_services import GuiServices
    from app.ui.state.live_settings import LiveSettings
    from app.ui.state.machine_facts import MachineFacts

    claim = claim_home_for_window(context.paths, open_files)  # one window per home; a second one raises the first
    if claim.lock is None:
        from app.ui.startup_error import show_startup_error, stderr_is_read

        if claim.message and not stderr_is_read():  # started from a desktop icon: the error needs a dialog
            show_startup_error(claim.message)
        return claim.exit_code
    with claim.lock:
        live_settings = LiveSettings(context.settings)
        machine = MachineFacts(probe_hardware)
        manager = EngineManager(machine.current, live_settings.get)
        # A damaged conversations file gets a dialog (move it aside, start fresh); other failures are shown.
        services = open_or_recover(lambda: GuiServices(manager, live_settings, machine).with_chat(context.paths),
                                   context.paths)
        if services is None:
            return 1
        try:
            return run_gui(context, services, startup_time=startup_time, open_files=open_files)
        finally:
            if services.chat is not None:
                services.chat.close()


def main(argv: Sequence[str] | None = None) -> int:
    disable_library_telemetry()
    parser = build_parser()
    arguments, open_files = split_open_files(sys.argv[1:] if argv is None else argv, command_names(parser))
    args = parser.parse_args(arguments)
    # Before anything imports numpy: a CUDA build of llama.cpp loaded after numpy crashed on model load.
    # The window preloads only a GPU build (found on disk), so a CPU machine's first paint does not wait for it.
    from app.core.engines.backends.llamacpp_native import preload_library
    from app.core.hardware.gpu_libraries import has_gpu_backend_library

    if args.command in MODEL_COMMANDS or (args.command is None and not args.self_test and has_gpu_backend_library()):
        preload_library()
    try:
        context = build_context(args.home, verbose=args.verbose)
    except OSError as error:
        print(f"unidesk: error: cannot prepare the app's folders: {error}", file=sys.stderr)
        return 1
    log.info("UniDesk %s starting (command: %s)", __version__, args.command or "gui")
    if args.self_test:
        from app.self_test import run_self_test

        return run_self_test(context.paths)
    if args.command is None:
        return start_gui(context, startup_time=args.startup_time, open_files=open_files)
    try:
        with command_lock(args, context.paths):
            return run_command(args, context)
    except UserFacingError as error:
        log.warning("command %s failed: %s", args.command, error)
        print(f"unidesk: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("unidesk: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``unidesk kb list | head``): stop quietly, as other tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:  # one line for the user; the traceback goes to the log file
        log.exception("command %s crashed", args.command)
        problem = storage_problem(error, context.paths.data_dir)
        if problem is not None:  # a full or read-only disk is no mystery: say so
            print(f"unidesk: error: {problem} (details in {context.log_file})", file=sys.stderr)
            return 1
        print(
            f"unidesk: error: unexpected {type(error).__name__}: {error} (details in {context.log_file})",
            file=sys.stderr,
        )
        return 1
