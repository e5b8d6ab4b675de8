"""``unidesk probe`` and ``unidesk plan``: what this machine is and what a model needs on it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.common import CommandHandler, Subparsers, add_chats_argument, print_json, setting_override
from app.context import AppContext

if TYPE_CHECKING:
    from app.core.hardware.report import HardwareReport
    from app.core.planner import MemoryPlan, ModelMetadata, PlanRequest

MACHINE_HELP = "a built-in machine (probe --list-machines names them, e.g. dgx-spark) or a file saved with probe --json"


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    probe = subparsers.add_parser("probe", help="hardware facts, unified-memory verdict, bandwidth, backend")
    probe.add_argument("--json", action="store_true", help="print one JSON document")
    probe.add_argument("--no-measure", action="store_true", help="skip the short memory-bandwidth measurement")
    probe.add_argument("--machine", metavar="NAME|FILE", help=MACHINE_HELP + " (show it instead of this computer)")
    probe.add_argument("--list-machines", action="store_true", help="list the built-in machine profiles and exit")

    plan = subparsers.add_parser("plan", help="memory plan for a model on this machine")
    plan.add_argument("model", help="a .gguf file, a Hugging Face model folder or a config.json")
    plan.add_argument("--ctx", type=int, metavar="N", help="context length per chat in tokens (default: settings)")
    add_chats_argument(plan, "--seqs", help_text="parallel chats (default: settings)")
    plan.add_argument("--kv-dtype", metavar="T", help="KV-cache type: auto, f16, bf16, f32, q8_0, q4_0, fp8")
    plan.add_argument("--backend", choices=["auto", "vllm", "llamacpp"], help="engine to plan for")
    plan.add_argument("--machine", metavar="NAME|FILE", help=MACHINE_HELP + " (plan for it instead of this computer)")
    plan.add_argument("--json", action="store_true", help="print one JSON document")
    return {"probe": run_probe, "plan": run_plan}


def target_machine(name_or_file: str | None, *, measure_bandwidth: bool = True) -> HardwareReport:
    """The machine to plan for: a built-in profile, a saved ``probe --json`` file, or (None) this computer."""
    if name_or_file:
        from app.core.hardware.machine_profiles import machine_report

        return machine_report(name_or_file)
    from app.core.hardware import probe_hardware

    return probe_hardware(measure_bandwidth=measure_bandwidth)


def _list_machines() -> int:
    from app.core.hardware.machine_profiles import machine_profiles

    for profile in machine_profiles():
        print(f"{profile.id:<22} {profile.title}")
        for source in profile.sources:
            print(f"{'':<24}source: {source}")
    return 0


def run_probe(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.hardware import format_report

    if args.list_machines:
        return _list_machines()
    report = target_machine(args.machine, measure_bandwidth=not args.no_measure)
    if args.json:
        print_json(report.to_dict())
    else:
        print(format_report(report))
    return 0


def run_plan(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.planner import format_plan, plan_memory, read_model_metadata
    from app.core.planner.from_settings import plan_request_from_settings
    from app.core.planner.request import BackendChoice

    settings = context.settings
    context_length = setting_override(args.ctx, "engine.context_length", "--ctx")
    parallel_chats = setting_override(args.chats, "engine.parallel_chats", "--chats")
    model = read_model_metadata(Path(args.model))
    hardware = target_machine(args.machine)
    chosen = args.backend or settings.str_value("engine.backend")
    backend: BackendChoice
    if chosen in ("vllm", "llamacpp"):
        backend = "vllm" if chosen == "vllm" else "llamacpp"
    else:  # auto (or remote): GGUF files always run on llama.cpp; folders go where the probe recommends.
        backend = "llamacpp" if model.source == "gguf" else hardware.recommended_backend.backend
    request = plan_request_from_settings(
        settings, backend, context_length=context_length, parallel_chats=parallel_chats, kv_cache_dtype=args.kv_dtype
    )
    plan = plan_memory(model, hardware, request)
    fit = machine_fit(args.machine, model, hardware, request, plan) if args.machine else None
    if args.json:
        print_json(plan.to_dict() if fit is None else dict(plan.to_dict(), machine=fit))
    else:
        print(format_plan(plan))
        if fit is not None:
            print(machine_fit_text(fit))
    return 0


def machine_fit(
    name_or_file: str, model: ModelMetadata, hardware: HardwareReport, request: PlanRequest, plan: MemoryPlan
) -> dict[str, Any]:
    """What ``plan --machine`` adds: the machine, KV bytes per token, the largest context that fits one chat
    (whatever the plan's number of chats), and the single-chat decode roofline at an empty context."""
    from dataclasses import replace

    from app.core.hardware.machine_profiles import find_profile
    from app.core.planner.largest_context import largest_fitting_context

    profile = find_profile(name_or_file)
    return {
        "name": profile.id if profile is not None else name_or_file,
        "title": profile.title if profile is not None else f"{hardware.cpu_model} ({name_or_file})",
        "memory_kind": plan.memory_kind,
        "bandwidth_bytes_per_second": hardware.bandwidth.bytes_per_second,
        "kv_bytes_per_token": plan.kv_bytes_per_token,
        "kv_cache_dtype": plan.kv_cache_dtype,
        "largest_context_that_fits": largest_fitting_context(model, hardware, replace(request, parallel_chats=1)),
        "decode_tok_s_roofline_empty": plan.decode_tok_s_roofline_empty,
    }


def machine_fit_text(fit: dict[str, Any]) -> str:
    """The ``plan --machine`` lines for people."""
    roofline = fit["decode_tok_s_roofline_empty"]
    ceiling = f"{roofline:.1f} tok/s" if roofline is not None else "unknown"
    largest = fit["largest_context_that_fits"]
    return (f"Machine: {fit['title']} ({fit['memory_kind']} memory, "
            f"{fit['bandwidth_bytes_per_second'] / 1e9:,.0f} GB/s)\n"
            f"KV cache: {fit['kv_bytes_per_token']:,} bytes per token ({fit['kv_cache_dtype']}); "
            f"largest context that fits one chat: {largest:,} tokens" + ("" if largest else " (none)") + "; "
            f"decode ceiling at an empty context: {ceiling}")
