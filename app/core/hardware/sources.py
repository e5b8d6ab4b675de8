"""Everything the hardware probe reads from outside, bundled so tests can swap in fakes."""

from __future__ import annotations

import importlib.util
import os
import platform
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.core.hardware.cuda_driver import CudaDeviceRecord, read_cuda_devices
from app.core.hardware.nvml_reader import NvmlGpuRecord, read_nvml_gpus

CommandRunner = Callable[[Sequence[str]], str | None]
COMMAND_TIMEOUT_S = 5.0


def run_command(arguments: Sequence[str]) -> str | None:
    """Run a short command and return its stdout, or ``None`` when it is missing or fails."""
    try:
        completed = subprocess.run(
            list(arguments), capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return completed.stdout if completed.returncode == 0 else None


def vllm_importable() -> bool:
    """True when the ``vllm`` package is installed (found, never imported: importing it takes seconds)."""
    try:
        return importlib.util.find_spec("vllm") is not None
    except (ImportError, ValueError):
        return False


@dataclass(frozen=True)
class ProbeSources:
    """The outside world as the probe sees it. Defaults are the real machine.

    ``root`` stands for ``/`` (so ``/proc``, ``/sys`` and ``/etc`` can be fake trees), the platform
    strings are what :mod:`platform` says, ``read_nvml`` / ``read_cuda`` return plain records or
    raise, ``run_command`` answers commands such as ``sysctl`` (``None`` on failure).
    """

    root: Path = Path("/")
    system: str = field(default_factory=platform.system)
    machine: str = field(default_factory=platform.machine)
    release: str = field(default_factory=platform.release)
    read_nvml: Callable[[], tuple[NvmlGpuRecord, ...]] = read_nvml_gpus
    read_cuda: Callable[[], tuple[CudaDeviceRecord, ...]] = read_cuda_devices
    run_command: CommandRunner = run_command
    vllm_importable: Callable[[], bool] = vllm_importable
    cpu_count: Callable[[], int | None] = os.cpu_count

    def path(self, absolute: str) -> Path:
        """Where an absolute system path such as ``/proc/meminfo`` lies under :attr:`root`."""
        return self.root / absolute.lstrip("/")

    def read_text(self, absolute: str) -> str | None:
        """The file's text, or ``None`` when it is missing or unreadable."""
        raw = self.read_bytes(absolute)
        return None if raw is None else raw.decode("utf-8", "replace")

    def read_bytes(self, absolute: str) -> bytes | None:
        """The file's bytes, or ``None`` when it is missing or unreadable."""
        try:
            return self.path(absolute).read_bytes()
        except OSError:
            return None

    def exists(self, absolute: str) -> bool:
        """True when the path exists under :attr:`root` (errors count as missing)."""
        try:
            return self.path(absolute).exists()
        except OSError:
            return False

    def list_dir(self, absolute: str) -> tuple[str, ...]:
        """Sorted entry names of a directory, empty when it is missing or unreadable."""
        try:
            return tuple(sorted(entry.name for entry in self.path(absolute).iterdir()))
        except OSError:
            return ()
