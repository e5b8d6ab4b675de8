"""One fake machine per kind the probe must recognise, with the RAM figures written into it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.hardware.cuda_driver import CudaDeviceRecord
from app.core.hardware.nvml_reader import NvmlGpuRecord
from app.core.hardware.sources import ProbeSources
from tests.core.hardware.hardware_fakes import GIB, MIB, CallLog, FakeTree, cuda_absent, fake_sources


@dataclass(frozen=True)
class FakeMachine:
    sources: ProbeSources
    ram_total_bytes: int
    ram_available_bytes: int
    physical_cores: int
    logical_cores: int


def dgx_spark(root: Path, *, vllm: bool = True, cuda_reachable: bool = True) -> FakeMachine:
    """GB10: aarch64, 10 Cortex-X925 + 10 Cortex-A725, NVML cannot report memory."""
    tree = FakeTree(root)
    tree.arm_cpuinfo([0xD85] * 10 + [0xD87] * 10)
    tree.thread_siblings([str(cpu) for cpu in range(20)])
    total, available = 119 * GIB + 700 * MIB, 111 * GIB
    tree.meminfo(total, available)
    nvml = [
        NvmlGpuRecord(0, "NVIDIA GB10", memory_not_supported=True, compute_capability="12.1", driver="580.95")
    ]
    cuda = [CudaDeviceRecord(0, "NVIDIA GB10", integrated=True, compute_capability="12.1")]
    sources = fake_sources(
        root, machine="aarch64", nvml=nvml, cuda=cuda if cuda_reachable else cuda_absent, vllm=vllm
    )
    return FakeMachine(sources, total, available, 20, 20)


def jetson_thor(root: Path, *, vllm: bool = True) -> FakeMachine:
    """Jetson AGX Thor: device tree, nv_tegra_release, 14 Neoverse-V3AE, NVML memory not supported."""
    tree = FakeTree(root)
    tree.arm_cpuinfo([0xD83] * 14)
    tree.thread_siblings([str(cpu) for cpu in range(14)])
    tree.write("/proc/device-tree/compatible", b"nvidia,p3971-0080+p3834-0008\0nvidia,tegra264\0")
    tree.write("/proc/device-tree/model", b"NVIDIA Jetson AGX Thor Developer Kit\0")
    tree.write("/etc/nv_tegra_release", "# R38 (release), REVISION: 2.0, GCID: 1, BOARD: generic\n")
    total, available = 122 * GIB, 100 * GIB
    tree.meminfo(total, available)
    nvml = [NvmlGpuRecord(0, "NVIDIA Thor", memory_not_supported=True, compute_capability="11.0")]
    cuda = [CudaDeviceRecord(0, "NVIDIA Thor", integrated=True, compute_capability="11.0")]
    return FakeMachine(
        fake_sources(root, machine="aarch64", nvml=nvml, cuda=cuda, vllm=vllm), total, available, 14, 14
    )


def jetson_orin_without_drivers(root: Path) -> FakeMachine:
    """Jetson AGX Orin where neither NVML nor the CUDA driver answers: only the device tree tells."""
    tree = FakeTree(root)
    tree.arm_cpuinfo([0xD42] * 12)
    tree.write("/sys/firmware/devicetree/base/compatible", b"nvidia,p3737-0000+p3701-0005\0nvidia,tegra234\0")
    tree.write("/sys/firmware/devicetree/base/model", b"NVIDIA Jetson AGX Orin Developer Kit\0")
    total, available = 61 * GIB, 50 * GIB
    tree.meminfo(total, available)
    return FakeMachine(fake_sources(root, machine="aarch64", vllm=True), total, available, 12, 12)


def grace_hopper(root: Path, *, vllm: bool = True) -> FakeMachine:
    """GH200: Grace (soc_id jep106:036b:0241, 72 Neoverse-V2) + Hopper whose HBM NVML does report."""
    tree = FakeTree(root)
    tree.arm_cpuinfo([0xD4F] * 72)
    tree.thread_siblings([str(cpu) for cpu in range(72)])
    tree.write("/sys/devices/soc0/soc_id", "jep106:036b:0241\n")
    total, available = 574 * GIB, 540 * GIB
    tree.meminfo(total, available)
    nvml = [
        NvmlGpuRecord(
            0,
            "NVIDIA GH200 480GB",
            memory_total_bytes=95 * GIB,
            memory_free_bytes=94 * GIB,
            compute_capability="9.0",
        )
    ]
    cuda = [CudaDeviceRecord(0, "NVIDIA GH200 480GB", integrated=False, compute_capability="9.0")]
    return FakeMachine(
        fake_sources(root, machine="aarch64", nvml=nvml, cuda=cuda, vllm=vllm), total, available, 72, 72
    )


def rtx_4090_desktop(root: Path, *, vllm: bool = True) -> FakeMachine:
    """x86 desktop, 8 cores / 16 threads (no sysfs topology: cores come from cpuinfo), RTX 4090."""
    tree = FakeTree(root)
    tree.x86_cpuinfo("Intel(R) Core(TM) i7-11700K @ 3.60GHz", cores=8, threads_per_core=2)
    total, available = 62 * GIB, 48 * GIB
    tree.meminfo(total, available)
    nvml = [
        NvmlGpuRecord(
            0,
            "NVIDIA GeForce RTX 4090",
            memory_total_bytes=24 * GIB,
            memory_free_bytes=23 * GIB,
            compute_capability="8.9",
            driver="570.86",
        )
    ]
    cuda = [CudaDeviceRecord(0, "NVIDIA GeForce RTX 4090", integrated=False, compute_capability="8.9")]
    return FakeMachine(fake_sources(root, nvml=nvml, cuda=cuda, vllm=vllm), total, available, 8, 16)


def strix_halo(root: Path, *, vllm: bool = True) -> FakeMachine:
    """Ryzen AI Max+ 395: 512 MiB VRAM carve-out, 96 GiB GTT, no NVIDIA driver."""
    tree = FakeTree(root)
    tree.x86_cpuinfo("AMD RYZEN AI MAX+ 395 w/ Radeon 8060S", cores=16, threads_per_core=2)
    tree.thread_siblings([f"{core},{core + 16}" for core in range(16)])
    tree.amd_card("card1", device_id="0x1586", vram_total=512 * MIB, vram_used=90 * MIB, gtt_total=96 * GIB)
    tree.write("/sys/class/drm/card1-DP-1/status", "disconnected\n")  # a connector, not a card
    tree.write("/sys/class/drm/card0/device/uevent", "DRIVER=simpledrm\n")  # no vendor file
    total, available = 123 * GIB, 110 * GIB
    tree.meminfo(total, available)
    return FakeMachine(fake_sources(root, vllm=vllm), total, available, 16, 32)


def radeon_7900_xtx_desktop(root: Path) -> FakeMachine:
    """x86 desktop with a discrete RX 7900 XTX (24 GiB VRAM) and no product_name file."""
    tree = FakeTree(root)
    tree.x86_cpuinfo("AMD Ryzen 9 7950X 16-Core Processor", cores=16, threads_per_core=2)
    tree.amd_card("card0", device_id="0x744c", vram_total=24 * GIB, vram_used=1 * GIB, gtt_total=31 * GIB)
    total, available = 62 * GIB, 55 * GIB
    tree.meminfo(total, available)
    return FakeMachine(fake_sources(root, vllm=True), total, available, 16, 32)


VM_STAT = """Mach Virtual Memory Statistics: (page size of 16384 bytes)
Pages free:                               91234.
Pages active:                            812345.
Pages inactive:                          790123.
Pages speculative:                        12345.
Pages throttled:                              0.
Pages wired down:                        301234.
Pages purgeable:                          23456.
"""
VM_STAT_AVAILABLE_BYTES = (91234 + 790123 + 12345) * 16384


def apple_m3_max(root: Path, *, physical_cores: int = 16, calls: CallLog | None = None) -> FakeMachine:
    """macOS arm64 on an M3 Max: everything comes from sysctl and vm_stat; NVML must not be asked."""
    total = 64 * GIB
    commands = {
        ("sysctl", "-n", "machdep.cpu.brand_string"): "Apple M3 Max\n",
        ("sysctl", "-n", "hw.memsize"): f"{total}\n",
        ("sysctl", "-n", "hw.physicalcpu"): f"{physical_cores}\n",
        ("sysctl", "-n", "hw.logicalcpu"): f"{physical_cores}\n",
        ("vm_stat",): VM_STAT,
    }
    log = calls if calls is not None else CallLog()
    sources = fake_sources(
        root,
        system="Darwin",
        machine="arm64",
        release="24.1.0",
        nvml=log.failing("NVML"),
        cuda=log.failing("CUDA"),
        commands=commands,
        vllm=True,
    )
    return FakeMachine(sources, total, VM_STAT_AVAILABLE_BYTES, physical_cores, physical_cores)


def cpu_only_server(root: Path) -> FakeMachine:
    """x86 server with no GPU at all and no NVIDIA driver."""
    tree = FakeTree(root)
    tree.x86_cpuinfo("AMD EPYC 9654 96-Core Processor", cores=4, threads_per_core=2)
    tree.thread_siblings([f"{core},{core + 4}" for core in range(4)])
    total, available = 31 * GIB, 27 * GIB
    tree.meminfo(total, available)
    return FakeMachine(fake_sources(root, vllm=True), total, available, 4, 8)
