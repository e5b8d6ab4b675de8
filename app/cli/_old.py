"""Headless commands: ``unidesk probe``, ``plan``, ``settings`` (more arrive with later features)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.context import AppContext
from app.core.config import SETTINGS, Settings, format_value, parse_value_text, spec_for
from app.core.util.errors import UserFacingError

GIB = 1024**3


def add_commands(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    probe = commands.add_parser("probe", help="hardware facts, unified-memory verdict, bandwidth, backend")
    probe.add_argument("--json", action="store_true", help="print one JSON document")
    probe.add_argument(
        "--no-measure", action="store_true", help="skip the short memory-bandwidth measurement"
    )

    plan = commands.add_parser("plan", help="memory plan for a model on this machine")
    plan.add_argument("model", help="a .gguf file, a Hugging Face model folder or a config.json")
    plan.add_argument("--ctx", type=int, metavar="N", help="context length in tokens (default: settings)")
    plan.add_argument("--seqs", type=int, metavar="N", help="parallel chats (default: settings)")
    plan.add_argument("--kv-dtype", metavar="T", help="KV-cache type: auto, f16, bf16, f32, q8_0, q4_0, fp8")
    plan.add_argument("--backend", choices=["auto", "vllm", "llamacpp"], help="engine to plan for")
    plan.add_argument("--json", action="store_true", help="print one JSON document")

    settings = commands.add_parser("settings", help="show, check or change settings")
    settings_commands = settings.add_subparsers(dest="settings_command", metavar="ACTION")
    show = settings_commands.add_parser("show", help="every setting with its value")
    show.add_argument("--json", action="store_true", help="print one JSON document")
    settings_commands.add_parser("path", help="where the settings file is")
    change = settings_commands.add_parser("set", help="change one setting")
    change.add_argument("key")
    change.add_argument("value", help="written as in the settings file: 4, 0.5, true, dark")


def run_command(args: argparse.Namespace, context: AppContext) -> int:
    handlers = {"probe": _probe, "plan": _plan, "settings": _settings}
    return handlers[args.command](args, context)


def _print_json(document: Any) -> None:
    json.dump(document, sys.stdout, indent=2, ensure_ascii=False, default=str)
    sys.stdout.write("\n")


def _probe(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.hardware import format_report, probe_hardware

    report = probe_hardware(measure_bandwidth=not args.no_measure)
    if args.json:
        _print_json(report.to_dict())
    else:
        print(format_report(report))
    return 0


def _plan(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.hardware import probe_hardware
    from app.core.planner import PlanRequest, format_plan, plan_memory, read_model_metadata

    settings = context.settings
    model = read_model_metadata(Path(args.model))
    hardware = probe_hardware()
    backend = args.backend or str(settings["engine.backend"])
    if backend not in ("vllm", "llamacpp"):
        # auto (or remote): GGUF files always run on llama.cpp; folders go where the probe recommends.
        backend = "llamacpp" if model.format == "gguf" else hardware.recommended_backend.backend
    context_length = args.ctx if args.ctx is not None else int(settings["engine.context_length"]) or None
    if context_length is not None and context_length <= 0:
        raise UserFacingError(f"--ctx must be a positive number of tokens, not {context_length}.")
    sequences = args.seqs if args.seqs is not None else int(settings["engine.parallel_chats"])
    if sequences <= 0:
        raise UserFacingError(f"--seqs must be at least 1, not {sequences}.")
    request = PlanRequest(
        backend=backend,
        context_length=context_length,
        parallel_sequences=sequences,
        kv_cache_dtype=args.kv_dtype or str(settings["engine.kv_cache_dtype"]),
        reserve_bytes=int(float(settings["engine.os_reserve_gib"]) * GIB),
        embedder_bytes=embedder_bytes_for(str(settings["kb.embedding_model"])),
        block_size=int(settings["engine.block_size"]) or None,
    )
    plan = plan_memory(model, hardware, request)
    if args.json:
        _print_json(plan.to_dict())
    else:
        print(format_plan(plan))
    return 0


def embedder_bytes_for(model_name: str) -> int:
    from app.core.planner import embedder_memory_bytes

    return embedder_memory_bytes(model_name)


def _settings(args: argparse.Namespace, context: AppContext) -> int:
    action = args.settings_command or "show"
    if action == "path":
        print(context.settings_store.path)
        return 0
    if action == "set":
        spec = spec_for(args.key)
        updated = context.settings.with_changes({spec.key: parse_value_text(spec, args.value)})
        context.settings_store.save(updated)
        print(f"{spec.key} = {format_value(spec, updated[spec.key])}")
        return 0
    _show_settings(context.settings, as_json=getattr(args, "json", False))
    return 0


def _show_settings(settings: Settings, *, as_json: bool) -> None:
    if as_json:
        _print_json({spec.key: settings.display_value(spec.key) if spec.secret else settings[spec.key]
                     for spec in SETTINGS})
        return
    for spec in SETTINGS:
        print(f"{spec.key} = {format_value(spec, settings[spec.key])}    # {spec.title}")
