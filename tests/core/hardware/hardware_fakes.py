"""Fake machines for the hardware-probe tests: fake /proc, /sys and /etc trees, canned driver answers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from app.core.hardware.cuda_driver import CudaDeviceRecord, CudaUnavailable
from app.core.hardware.nvml_reader import NvmlGpuRecord, NvmlUnavailable
from app.core.hardware.sources import ProbeSources

Record = TypeVar("Record")
GIB = 1024**3
MIB = 1024**2


class FakeTree:
    """Writes system files under ``root`` as if ``root`` were ``/``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, absolute: str, content: str | bytes) -> None:
        path = self.root / absolute.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)

    def meminfo(self, total_bytes: int, available_bytes: int | None, free_bytes: int | None = None) -> None:
        lines = [f"MemTotal:       {total_bytes // 1024} kB"]
        lines.append(f"MemFree:        {(free_bytes or total_bytes // 4) // 1024} kB")
        if available_bytes is not None:
            lines.append(f"MemAvailable:   {available_bytes // 1024} kB")
        lines += ["Buffers:          123456 kB", "Cached:         2345678 kB", "HugePages_Total:       0"]
        self.write("/proc/meminfo", "\n".join(lines) + "\n")

    def x86_cpuinfo(self, model: str, cores: int, threads_per_core: int) -> None:
        """One block per thread, with ``physical id`` / ``core id`` as Linux writes them on x86."""
        blocks = []
        for thread in range(cores * threads_per_core):
            blocks.append(
                f"processor\t: {thread}\nvendor_id\t: GenuineIntel\nmodel name\t: {model}\n"
                f"physical id\t: 0\ncore id\t\t: {thread % cores}\ncpu cores\t: {cores}\n"
            )
        self.write("/proc/cpuinfo", "\n".join(blocks))

    def arm_cpuinfo(self, parts: Sequence[int], implementer: int = 0x41) -> None:
        """aarch64 style: no model name, one block per core with implementer and part."""
        blocks = [
            f"processor\t: {index}\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x{implementer:02x}\n"
            f"CPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x{part:03x}\nCPU revision\t: 1\n"
            for index, part in enumerate(parts)
        ]
        self.write("/proc/cpuinfo", "\n".join(blocks))

    def thread_siblings(self, groups: Sequence[str]) -> None:
        """``groups[i]`` is the thread_siblings_list of every CPU it names (e.g. ``"0,16"``)."""
        for group in groups:
            for cpu in group.split(","):
                self.write(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list", group + "\n")

    def amd_card(
        self,
        card: str,
        *,
        device_id: str,
        vram_total: int,
        vram_used: int,
        gtt_total: int,
        product_name: str | None = None,
    ) -> None:
        device = f"/sys/class/drm/{card}/device"
        self.write(f"{device}/vendor", "0x1002\n")
        self.write(f"{device}/device", device_id + "\n")
        self.write(f"{device}/mem_info_vram_total", f"{vram_total}\n")
        self.write(f"{device}/mem_info_vram_used", f"{vram_used}\n")
        self.write(f"{device}/mem_info_gtt_total", f"{gtt_total}\n")
        if product_name is not None:
            self.write(f"{device}/product_name", product_name + "\n")


def nvml_absent() -> tuple[NvmlGpuRecord, ...]:
    raise NvmlUnavailable("NVML could not start (NVML Shared Library Not Found)")


def cuda_absent() -> tuple[CudaDeviceRecord, ...]:
    raise CudaUnavailable("libcuda not found (libcuda.so.1: cannot open shared object file)")


@dataclass
class CallLog:
    """Counts calls to fakes that a test expects never to be made."""

    calls: list[str] = field(default_factory=list)

    def failing(self, name: str) -> Callable[[], tuple[Any, ...]]:
        def reader() -> tuple[Any, ...]:
            self.calls.append(name)
            raise AssertionError(f"{name} should not be asked on this machine")

        return reader


def commands_from(answers: dict[tuple[str, ...], str]) -> Callable[[Sequence[str]], str | None]:
    """A command runner answering only the commands listed (``None`` for anything else)."""
    return lambda arguments: answers.get(tuple(arguments))


def _reader(answer: Sequence[Record] | Callable[[], tuple[Record, ...]]) -> Callable[[], tuple[Record, ...]]:
    if callable(answer):
        return answer
    records = tuple(answer)
    return lambda: records


def fake_sources(
    root: Path,
    *,
    system: str = "Linux",
    machine: str = "x86_64",
    release: str = "6.8.0-test",
    nvml: Sequence[NvmlGpuRecord] | Callable[[], tuple[NvmlGpuRecord, ...]] = nvml_absent,
    cuda: Sequence[CudaDeviceRecord] | Callable[[], tuple[CudaDeviceRecord, ...]] = cuda_absent,
    commands: dict[tuple[str, ...], str] | None = None,
    vllm: bool = False,
    cpu_count: int | None = 2,
) -> ProbeSources:
    """ProbeSources for a fake machine; ``nvml`` / ``cuda`` are canned records or a reader callable."""
    return ProbeSources(
        root=root,
        system=system,
        machine=machine,
        release=release,
        read_nvml=_reader(nvml),
        read_cuda=_reader(cuda),
        run_command=commands_from(commands or {}),
        vllm_importable=lambda: vllm,
        cpu_count=lambda: cpu_count,
    )
