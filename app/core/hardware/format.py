"""Human-readable, multi-line text of a hardware report (what ``unidesk probe`` prints and the welcome page shows).

The report is a Text (app.core.util.translatable): English to the CLI, translated in the window. Its labels are
padded by characters, which suits a terminal; the window takes the rows (:func:`summary_rows`) and aligns them by
their drawn width (Chinese characters are twice as wide as Latin ones).
"""

from __future__ import annotations

from app.core.hardware.report import BandwidthEstimate, GpuInfo, HardwareReport
from app.core.util.translatable import LAYOUT, QT_TRANSLATE_NOOP, Text, joined, listed

GIB = 1024**3
LABEL_WIDTH = 16
CONTEXT = "MachineSummary"
_ROW = f"{{0:<{LABEL_WIDTH}}}{{1}}"
_BANDWIDTH_SOURCES = {
    "table": QT_TRANSLATE_NOOP("MachineSummary", "table"),
    "measured": QT_TRANSLATE_NOOP("MachineSummary", "measured"),
}


def _said(template: str, *args: object) -> Text:
    """A phrase of the summary (``template`` marked with QT_TRANSLATE_NOOP("MachineSummary", ...))."""
    return Text(CONTEXT, template, args)


def _unknown() -> Text:
    return _said(QT_TRANSLATE_NOOP("MachineSummary", "unknown"))


def format_bytes(byte_count: int | None) -> str:
    """``"23.4 GiB"``, or ``"unknown"`` for ``None`` / zero."""
    return f"{byte_count / GIB:.1f} GiB" if byte_count else _unknown()


def format_bandwidth(estimate: BandwidthEstimate) -> str:
    """``"273 GB/s (table: NVIDIA GB10 ...)"`` or ``"unknown (why)"``."""
    if estimate.source == "unknown" or estimate.bytes_per_second <= 0:
        if estimate.detail:
            return _said(QT_TRANSLATE_NOOP("MachineSummary", "unknown ({0})"), estimate.detail)
        return _unknown()
    gigabytes = estimate.bytes_per_second / 1e9
    figure = f"{gigabytes:,.0f} GB/s" if gigabytes >= 10 else f"{gigabytes:.1f} GB/s"
    source = Text(CONTEXT, _BANDWIDTH_SOURCES.get(estimate.source, estimate.source))
    return _said(QT_TRANSLATE_NOOP("MachineSummary", "{0} ({1}: {2})"), figure, source, estimate.detail)


def _gpu_line(gpu: GpuInfo, is_unified: bool) -> str:
    details: list[str] = []
    if gpu.memory_total_bytes is not None:
        total = format_bytes(gpu.memory_total_bytes)
        details.append(_said(QT_TRANSLATE_NOOP("MachineSummary", "{0}, {1} free"), total,
                             format_bytes(gpu.memory_free_bytes)) if gpu.memory_free_bytes is not None else total)
    elif is_unified:
        details.append(_said(QT_TRANSLATE_NOOP("MachineSummary", "shares system RAM")))
    if gpu.integrated:
        details.append(_said(QT_TRANSLATE_NOOP("MachineSummary", "integrated")))
    if gpu.compute_capability:
        details.append(_said(QT_TRANSLATE_NOOP("MachineSummary", "compute {0}"), gpu.compute_capability))
    if gpu.driver:
        details.append(_said(QT_TRANSLATE_NOOP("MachineSummary", "driver {0}"), gpu.driver))
    if not details:
        return gpu.name
    return _said(QT_TRANSLATE_NOOP("MachineSummary", "{0} ({1})"), gpu.name, listed(details))


def _row(label: str, value: str) -> Text:
    return Text(LAYOUT, _ROW, (label, value))


def summary_rows(summary: str) -> tuple[tuple[str, str], ...] | None:
    """The ``(label, value)`` rows of a summary :func:`format_report` made (an empty label continues the row
    above), for a window that aligns them by width itself; None for any other text."""
    if not isinstance(summary, Text) or summary.context != LAYOUT:
        return None
    rows: list[tuple[str, str]] = []
    for line in summary.args:
        if not (isinstance(line, Text) and line.template == _ROW and len(line.args) == 2):
            return None
        label, value = line.args
        if not (isinstance(label, str) and isinstance(value, str)):
            return None
        rows.append((label, value))
    return tuple(rows)


def format_report(report: HardwareReport) -> str:
    """The report as aligned ``label  value`` lines, with the unified-memory evidence as bullets (a Text)."""
    unified = report.unified
    total, available = format_bytes(report.ram_total_bytes), format_bytes(report.ram_available_bytes)
    cores = _said(QT_TRANSLATE_NOOP("MachineSummary", "{0}, {1} cores / {2} threads"), report.cpu_model,
                  report.cpu_cores_physical, report.cpu_cores_logical)
    lines = [
        _row(_said(QT_TRANSLATE_NOOP("MachineSummary", "OS")), f"{report.os_name} {report.os_release} ({report.arch})"),
        _row(_said(QT_TRANSLATE_NOOP("MachineSummary", "CPU")), cores),
        _row(_said(QT_TRANSLATE_NOOP("MachineSummary", "RAM")),
             _said(QT_TRANSLATE_NOOP("MachineSummary", "{0} total, {1} available"), total, available)),
    ]
    gpu_label = _said(QT_TRANSLATE_NOOP("MachineSummary", "GPU"))
    if report.gpus:
        for index, gpu in enumerate(report.gpus):
            lines.append(_row(gpu_label if index == 0 else "", _gpu_line(gpu, unified.is_unified)))
    else:
        lines.append(_row(gpu_label, _said(QT_TRANSLATE_NOOP("MachineSummary", "none"))))
    verdict = (_said(QT_TRANSLATE_NOOP("MachineSummary", "yes: one pool (system RAM), counted once"))
               if unified.is_unified else _said(QT_TRANSLATE_NOOP("MachineSummary", "no")))
    lines.append(_row(_said(QT_TRANSLATE_NOOP("MachineSummary", "Unified memory")), verdict))
    lines.extend(_row("", Text(LAYOUT, "- {0}", (line,))) for line in unified.evidence)
    lines.append(_row(_said(QT_TRANSLATE_NOOP("MachineSummary", "Bandwidth")), format_bandwidth(report.bandwidth)))
    backend = report.recommended_backend
    lines.append(_row(_said(QT_TRANSLATE_NOOP("MachineSummary", "Backend")),
                      _said(QT_TRANSLATE_NOOP("MachineSummary", "{0} ({1})"), backend.backend, backend.reason)))
    return joined(lines, "\n")
