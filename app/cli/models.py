"""``unidesk models list|download|add|remove``: the model catalog, downloads and local models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.cli.common import CommandHandler, Subparsers, add_chats_argument, print_json, setting_override
from app.cli.table import aligned_lines
from app.context import AppContext

if TYPE_CHECKING:
    from app.core.hardware import HardwareReport
    from app.core.models.fit import VariantFit

_PROGRESS_INTERVAL_S = 0.5
_BADGE_TEXT = {"fits": "fits", "tight": "tight", "too_big": "too big", "unsupported": "n/a here"}


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    models = subparsers.add_parser("models", help="model catalog with fit badges, downloads, local models")
    commands = models.add_subparsers(dest="models_command", metavar="MODELS_COMMAND", required=True)

    listing = commands.add_parser("list", help="catalog models marked fits / tight / too big here, and local models")
    listing.add_argument("--ctx", type=int, metavar="N",
                         help="context per chat to judge for (default: settings, else 8192)")
    add_chats_argument(listing, "--seqs", help_text="parallel chats to judge for (default: settings)")
    listing.add_argument("--machine", metavar="NAME|FILE",
                         help="judge the fit on another machine: a built-in profile (probe --list-machines) "
                              "or a file saved with probe --json")
    listing.add_argument("--no-measure", action="store_true",
                         help="do not measure this machine's memory bandwidth (about 2 s): the speed column stays ?")
    listing.add_argument("--json", action="store_true", help="print one JSON document")

    download = commands.add_parser("download", help="download a catalog model from the Hugging Face hub (resumable)")
    download.add_argument("id", help="catalog model id, as shown by `models list`")
    download.add_argument("--variant", metavar="Q", help="variant id, e.g. q4_k_m, q8_0, hf-fp8 (default: the model's)")
    download.add_argument("--json", action="store_true", help="print the result as one JSON document")

    add = commands.add_parser("add", help="add your own .gguf file or Hugging Face model folder (never deleted)")
    add.add_argument("path", help="a .gguf file or a folder with config.json and .safetensors")
    add.add_argument("--name", help="display name (default: the file or folder name)")
    add.add_argument("--json", action="store_true", help="print the new entry as one JSON document")

    remove = commands.add_parser("remove", help="remove a local model (deletes only files UniDesk downloaded)")
    remove.add_argument("id", help="local model id, as shown by `models list`")
    return {"models": run_models}


def run_models(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.models import ModelLibrary

    library = ModelLibrary.open(context.paths, context.settings)
    handlers = {"list": _list, "download": _download, "add": _add, "remove": _remove}
    return handlers[args.models_command](args, library, context)


def _list(args: argparse.Namespace, library: Any, context: AppContext) -> int:
    from app.cli.machine import target_machine
    from app.core.models import badge_request_from_settings, human_size
    from app.core.models.fit import DEFAULT_FIT_CONTEXT

    request = badge_request_from_settings(
        context.settings,
        context_length=setting_override(args.ctx, "engine.context_length", "--ctx"),
        parallel_chats=setting_override(args.chats, "engine.parallel_chats", "--chats"),
    )
    hardware = target_machine(args.machine, measure_bandwidth=not args.no_measure)
    fits = {(fit.model_id, fit.variant_id): fit for fit in library.fit_badges(hardware, request)}
    local = library.local.models()
    downloaded = {(model.catalog_model_id, model.variant_id): model.id for model in local if model.managed}
    if args.json:
        catalog = []
        for model in library.catalog:
            entry = model.to_dict()
            for variant in entry["variants"]:
                key = (model.id, variant["id"])
                variant["fit"] = fits[key].to_dict()
                variant["downloaded_as"] = downloaded.get(key)
            catalog.append(entry)
        print_json({
            "machine": {"name": args.machine or "this computer",
                        "ram_available_bytes": hardware.ram_available_bytes,
                        "gpu_memory_free_bytes": hardware.gpu_memory_free_bytes,
                        "unified_memory": hardware.unified.is_unified,
                        "backend": hardware.recommended_backend.backend},
            "request": {"context_length": request.context_length, "parallel_chats": request.parallel_chats},
            "models_folder": str(library.models_folder),
            "catalog": catalog,
            "local": [dict(model.to_dict(), present=model.is_present()) for model in local],
        })
        return 0
    if request.parallel_chats is None:
        chats = "the parallel chats the planner picks for each model (automatic)"
    else:
        chats = "1 chat" if request.parallel_chats == 1 else f"{request.parallel_chats} parallel chats"
    context_text = (f"{request.context_length} tokens" if request.context_length
                    else f"{DEFAULT_FIT_CONTEXT} tokens (automatic)")
    where = f"on {args.machine}" if args.machine else "on this machine"
    print(f"Fit judged for {context_text} × {chats} {where} (change with --ctx / --chats / --machine).")
    header = ("MODEL", "VARIANT", "FORMAT", "SIZE", "FIT", "SPEED", "LICENCE", "LANGUAGES")
    rows: list[tuple[str, ...]] = []
    for model in library.catalog:
        for variant in model.variants:
            fit = fits[(model.id, variant.id)]
            mark = " *" if (model.id, variant.id) in downloaded else ""
            rows.append((f"{model.id}{mark}", variant.id, variant.format, human_size(variant.approx_size_bytes),
                         _fit_text(fit), _speed_text(fit), model.license, ",".join(model.languages[:4])))
    for line in aligned_lines(header, rows, (False, False, False, True, False, False, False, False)):
        print(line)
    print("(* downloaded; sizes are approximate; download with: unidesk models download MODEL --variant VARIANT)")
    print(_speed_note(hardware))
    print(_pins_line(library.catalog))
    print()
    if not local:
        print("No local models yet. Download one, or add your own: unidesk models add PATH")
        return 0
    print(f"Local models (downloads go to {library.models_folder}):")
    local_rows = [(model.id, model.format, human_size(model.size_bytes), "downloaded" if model.managed else "your file",
                   f"{model.path}{'' if model.is_present() else '  [missing]'}") for model in local]
    local_header = ("ID", "FORMAT", "SIZE", "ORIGIN", "PATH")
    for line in aligned_lines(local_header, local_rows, (False, False, True, False, False)):
        print(f"  {line}")
    return 0


def _download(args: argparse.Namespace, library: Any, context: AppContext) -> int:
    from app.core.models import human_size

    job = library.start_download(args.id, args.variant)
    print(library.catalog.find(args.id, args.variant)[1].pin_note(), file=sys.stderr)
    interactive = sys.stderr.isatty()
    last_line = ""
    try:
        while not job.join(_PROGRESS_INTERVAL_S):
            line = _progress_line(job.progress(), human_size)
            if line != last_line:
                sys.stderr.write(f"\r{line:<100}" if interactive else f"{line}\n")
                sys.stderr.flush()
                last_line = line
    except KeyboardInterrupt:
        job.cancel(keep_partial=True)
        job.join(60)
        print("\nunidesk: download stopped; run the same command to resume it", file=sys.stderr)
        return 130
    if interactive:
        sys.stderr.write("\n")
    result = job.wait()
    local = result.local_model
    if args.json:
        print_json({
            "path": str(result.path),
            "bytes_downloaded": result.bytes_downloaded,
            "files": [{"path": str(item.path), "size": item.size, "verified_by": item.verified_by}
                      for item in result.files],
            "local_model": local.to_dict() if local is not None else None,
        })
        return 0
    print(f"downloaded {job.spec.title} to {result.path} ({human_size(sum(item.size for item in result.files))}, "
          f"checked by {', '.join(sorted({item.verified_by for item in result.files}))})")
    if local is not None:
        print(f"local model id: {local.id} (choose it in the window, or set model.path to {local.path})")
    return 0


def _fit_text(fit: VariantFit) -> str:
    """The badge; a context beyond the model's training is judged at its maximum, and says so."""
    badge = _BADGE_TEXT[fit.badge]
    if fit.capped and fit.badge != "unsupported":
        return f"{badge} at its {_context_size(fit.context_length)} maximum"
    return badge


def _context_size(tokens: int) -> str:
    """``32K`` for whole 1,024-token blocks (as models state their length), else ``6,000``."""
    return f"{tokens // 1024}K" if tokens >= 1024 and tokens % 1024 == 0 else f"{tokens:,}"


def _speed_text(fit: VariantFit) -> str:
    """The decode ceiling of one chat: ``<= 45 tok/s``, ``<= 2.3 tok/s slow``, ``<= 29 tok/s part on CPU``; ``?``
    when the memory bandwidth is unknown, ``-`` where the model cannot run here."""
    if fit.badge == "unsupported":
        return "-"
    if fit.decode_tok_s is None:
        return "?"
    rate = f"{fit.decode_tok_s:.1f}" if fit.decode_tok_s < 10 else f"{fit.decode_tok_s:,.0f}"
    if fit.slow:
        return f"<= {rate} tok/s slow"
    if fit.cpu_layers:
        return f"<= {rate} tok/s part on CPU"
    return f"<= {rate} tok/s"


def _speed_note(hardware: HardwareReport) -> str:
    """What the SPEED column means, under the table."""
    from app.core.models.fit import SLOW_DECODE_TOK_S

    if hardware.bandwidth.bytes_per_second <= 0:
        return ("(SPEED ?: the memory bandwidth is unknown; run without --no-measure, or give --machine, to see "
                "each model's ceiling)")
    return (f"(SPEED: the most tokens per second one chat can get from {hardware.bandwidth.bytes_per_second / 1e9:.1f}"
            f" GB/s of memory bandwidth; slow: under {SLOW_DECODE_TOK_S:g} tok/s, slower than people read)")


def _pins_line(catalog: Any) -> str:
    """How many variants the catalog ties to a stated sha256 (and a commit); the rest trust the hub's sha256."""
    variants = [variant for model in catalog for variant in model.variants]
    checksummed = sum(variant.pin != "none" for variant in variants)
    commits = sum(variant.pin == "commit" for variant in variants)
    return (f"Checksums: {checksummed} of {len(variants)} variants are checked against a sha256 the catalog states "
            f"({commits} also pinned to a commit); the others against the sha256 the hub publishes for the file "
            f"(--json: pin, checksum_source).")


def _progress_line(progress: Any, human_size: Any) -> str:
    name = f" {progress.current_file}" if progress.current_file else ""
    if progress.state != "downloading":
        return f"models: {progress.state}{name}{': ' + progress.message if progress.message else ''}"
    total = f" / {human_size(progress.bytes_total)}" if progress.bytes_total else ""
    percent = f" ({progress.fraction * 100:.0f}%)" if progress.fraction is not None else ""
    eta = f", ETA {progress.eta_seconds:.0f} s" if progress.eta_seconds is not None else ""
    return (f"models: downloading{name}: {human_size(progress.bytes_done)}{total}{percent}, "
            f"{human_size(int(progress.bytes_per_second))}/s{eta}")


def _add(args: argparse.Namespace, library: Any, context: AppContext) -> int:
    from app.core.models import human_size

    model = library.add_local(Path(args.path), name=args.name)
    if args.json:
        print_json(model.to_dict())
        return 0
    print(f"added {model.id}: {model.path} ({model.format}, {human_size(model.size_bytes)}); UniDesk never deletes it")
    return 0


def _remove(args: argparse.Namespace, library: Any, context: AppContext) -> int:
    from app.core.models import human_size

    removed = library.remove_local(args.id)
    if removed.deleted_files:
        print(f"removed {removed.model.id}: deleted {removed.model.path} ({human_size(removed.freed_bytes)} freed)")
    else:
        print(f"removed {removed.model.id} from the list; the files stay at {removed.model.path}")
    return 0
