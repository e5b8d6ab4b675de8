"""The probe never crashes: unreadable files and failing drivers become "unknown" plus evidence."""

from __future__ import annotations

from pathlib import Path

from app.core.hardware import probe_hardware
from app.core.hardware.cuda_driver import CudaDeviceRecord
from app.core.hardware.nvml_reader import NvmlGpuRecord
from app.core.hardware.sources import ProbeSources
from tests.core.hardware.hardware_fakes import GIB, MIB, FakeTree, fake_sources


def test_empty_filesystem_gives_unknowns_and_notes(tmp_path: Path) -> None:
    report = probe_hardware(fake_sources(tmp_path, cpu_count=6), measure_bandwidth=False)

    assert report.cpu_model == "unknown"
    assert report.cpu_cores_logical == 6  # falls back to the OS count
    assert report.cpu_cores_physical == 6
    assert report.ram_total_bytes == 0
    assert report.ram_available_bytes == 0
    evidence = "\n".join(report.unified.evidence)
    assert "Probe note: could not read /proc/meminfo: RAM unknown" in evidence
    assert "Probe note: could not read /proc/cpuinfo" in evidence
    assert report.bandwidth.source == "unknown"


def test_unreadable_meminfo_is_a_note_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "proc" / "meminfo").mkdir(parents=True)  # a directory where a file should be
    report = probe_hardware(fake_sources(tmp_path), measure_bandwidth=False)

    assert report.ram_total_bytes == 0
    assert any("could not read /proc/meminfo" in line for line in report.unified.evidence)


def test_meminfo_without_memavailable_uses_free_buffers_cached(tmp_path: Path) -> None:
    tree = FakeTree(tmp_path)
    tree.meminfo(16 * GIB, available_bytes=None, free_bytes=4 * GIB)
    report = probe_hardware(fake_sources(tmp_path), measure_bandwidth=False)

    buffers_and_cached = (123456 + 2345678) * 1024  # what FakeTree.meminfo writes
    assert report.ram_available_bytes == 4 * GIB + buffers_and_cached
    assert any("no MemAvailable" in line for line in report.unified.evidence)


def test_nvml_raising_anything_becomes_evidence(tmp_path: Path) -> None:
    def broken_nvml() -> tuple[NvmlGpuRecord, ...]:
        raise RuntimeError("GPU is lost\nsecond line")

    report = probe_hardware(fake_sources(tmp_path, nvml=broken_nvml), measure_bandwidth=False)

    assert "NVML not available: GPU is lost" in report.unified.evidence
    assert report.gpus == ()


def test_nvml_memory_error_other_than_not_supported_is_not_unified(tmp_path: Path) -> None:
    nvml = [NvmlGpuRecord(0, "NVIDIA GeForce RTX 3090", memory_error="Unknown Error")]
    report = probe_hardware(fake_sources(tmp_path, nvml=nvml), measure_bandwidth=False)

    assert not report.unified.is_unified
    assert "NVML memory query failed for NVIDIA GeForce RTX 3090: Unknown Error" in report.unified.evidence
    assert report.bandwidth.bytes_per_second == 936e9


def test_cuda_only_gpu_is_listed_when_nvml_is_missing(tmp_path: Path) -> None:
    cuda = [CudaDeviceRecord(0, "NVIDIA GeForce RTX 3080", integrated=False, compute_capability="8.6")]
    report = probe_hardware(fake_sources(tmp_path, cuda=cuda), measure_bandwidth=False)

    assert [(gpu.name, gpu.integrated, gpu.memory_total_bytes) for gpu in report.gpus] == [
        ("NVIDIA GeForce RTX 3080", False, None)
    ]
    assert not report.unified.is_unified


def test_failing_vllm_check_means_llamacpp(tmp_path: Path) -> None:
    def broken_check() -> bool:
        raise ValueError("vllm.__spec__ is None")

    base = fake_sources(tmp_path, nvml=[NvmlGpuRecord(0, "NVIDIA GB10", memory_not_supported=True)])
    sources = ProbeSources(
        root=base.root,
        system=base.system,
        machine="aarch64",
        release=base.release,
        read_nvml=base.read_nvml,
        read_cuda=base.read_cuda,
        run_command=base.run_command,
        vllm_importable=broken_check,
        cpu_count=base.cpu_count,
    )
    report = probe_hardware(sources, measure_bandwidth=False)

    assert report.unified.is_unified
    assert report.recommended_backend.backend == "llamacpp"


def test_nvidia_laptop_gpu_outranks_the_amd_apu(tmp_path: Path) -> None:
    """Ryzen laptop: 780M iGPU (small carve-out) + RTX 4070 Laptop GPU. The NVIDIA GPU decides."""
    tree = FakeTree(tmp_path)
    tree.x86_cpuinfo("AMD Ryzen 9 7940HS w/ Radeon 780M Graphics", cores=8, threads_per_core=2)
    tree.meminfo(30 * GIB, 22 * GIB)
    tree.amd_card("card1", device_id="0x15bf", vram_total=512 * MIB, vram_used=64 * MIB, gtt_total=15 * GIB)
    nvml = [
        NvmlGpuRecord(
            0, "NVIDIA GeForce RTX 4070 Laptop GPU", memory_total_bytes=8 * GIB, memory_free_bytes=7 * GIB
        )
    ]
    report = probe_hardware(fake_sources(tmp_path, nvml=nvml, vllm=True), measure_bandwidth=True)

    assert not report.unified.is_unified
    assert "the AMD GPU does not decide the verdict" in "\n".join(report.unified.evidence)
    assert report.gpus[0].name == "NVIDIA GeForce RTX 4070 Laptop GPU"
    # The laptop part is not the desktop 4070 (504 GB/s); a CPU figure would mislead for a GPU.
    assert report.bandwidth.source == "unknown"
    assert "RTX 4070 Laptop GPU" in report.bandwidth.detail
    assert report.recommended_backend.backend == "llamacpp"


def test_grace_cpu_without_gpu_is_not_unified(tmp_path: Path) -> None:
    tree = FakeTree(tmp_path)
    tree.arm_cpuinfo([0xD4F] * 8)
    tree.write("/sys/devices/soc0/soc_id", "jep106:036b:0241")
    tree.meminfo(240 * GIB, 230 * GIB)
    report = probe_hardware(fake_sources(tmp_path, machine="aarch64", vllm=True), measure_bandwidth=False)

    assert not report.unified.is_unified
    assert any("but no NVIDIA GPU was found" in line for line in report.unified.evidence)
    assert report.recommended_backend.backend == "llamacpp"
