"""``unidesk report``: print the diagnostic report for a bug report (the Help menu copies the same text)."""

from __future__ import annotations

import argparse

from app.cli.common import CommandHandler, Subparsers
from app.context import AppContext


def register(subparsers: Subparsers) -> dict[str, CommandHandler]:
    report = subparsers.add_parser(
        "report", help="print a diagnostic report for bug reports (machine, settings without secrets, last log lines)"
    )
    report.add_argument("--no-measure", action="store_true", help="skip the memory-bandwidth measurement")
    return {"report": run_report}


def run_report(args: argparse.Namespace, context: AppContext) -> int:
    from app.core.hardware import probe_hardware
    from app.core.services.diagnostics import diagnostic_report

    hardware = probe_hardware(measure_bandwidth=not args.no_measure)
    print(diagnostic_report(hardware, context.settings, context.log_file), end="")
    return 0
