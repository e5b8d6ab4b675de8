"""The probe on fake machines of every kind: verdict, evidence, pool counted once, bandwidth, backend."""

from __future__ import annotations

from pathlib import Path

import tests.core.hardware.hardware_machines as machines
from app.core.hardware import HardwareReport, probe_hardware
from tests.core.hardware.hardware_fakes import GIB, CallLog


def _probe(machine: machines.FakeMachine, *, measure: bool = False) -> HardwareReport:
    return probe_hardware(machine.sources, measure_bandwidth=measure)


def _evidence(report: HardwareReport) -> str:
    return "\n".join(report.unified.evidence)


def _assert_pool_counted_once(report: HardwareReport, machine: machines.FakeMachine) -> None:
    assert report.unified.is_unified
    assert report.ram_total_bytes == machine.ram_total_bytes
    assert report.ram_available_bytes == machine.ram_available_bytes
    assert report.gpu_memory_total_bytes == 0
    assert report.gpu_memory_free_bytes == 0
    assert all(gpu.memory_total_bytes is None and gpu.memory_free_bytes is None for gpu in report.gpus)


def _assert_cores(report: HardwareReport, machine: machines.FakeMachine) -> None:
    assert report.cpu_cores_physical == machine.physical_cores
    assert report.cpu_cores_logical == machine.logical_cores


def test_dgx_spark_gb10_is_unified_and_gets_vllm(tmp_path: Path) -> None:
    machine = machines.dgx_spark(tmp_path)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    _assert_cores(report, machine)
    evidence = _evidence(report)
    assert "NVML cannot report memory for NVIDIA GB10 (Not Supported)" in evidence
    assert "CUDA reports NVIDIA GB10 as integrated" in evidence
    assert "'NVIDIA GB10' is a unified-memory part" in evidence
    assert report.arch == "aarch64"
    assert report.cpu_model == "10x Cortex-X925 + 10x Cortex-A725"
    assert [gpu.name for gpu in report.gpus] == ["NVIDIA GB10"]
    assert report.gpus[0].integrated is True
    assert report.gpus[0].compute_capability == "12.1"
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 273e9
    assert "GB10" in report.bandwidth.detail
    assert report.recommended_backend.backend == "vllm"


def test_gb10_nvml_not_supported_alone_decides_unified(tmp_path: Path) -> None:
    report = _probe(machines.dgx_spark(tmp_path, cuda_reachable=False))

    assert report.unified.is_unified
    assert "CUDA driver not reachable" in _evidence(report)
    assert report.gpus[0].integrated is None  # CUDA never answered


def test_gb10_without_vllm_falls_back_to_llamacpp_and_says_why(tmp_path: Path) -> None:
    report = _probe(machines.dgx_spark(tmp_path, vllm=False))

    assert report.unified.is_unified
    assert report.recommended_backend.backend == "llamacpp"
    assert "vLLM is not installed" in report.recommended_backend.reason


def test_jetson_agx_thor(tmp_path: Path) -> None:
    machine = machines.jetson_thor(tmp_path)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    _assert_cores(report, machine)
    evidence = _evidence(report)
    assert "/proc/device-tree/compatible lists nvidia,tegra264" in evidence
    assert "/etc/nv_tegra_release present (Jetson Linux: R38 (release)" in evidence
    assert "NVML cannot report memory for NVIDIA Thor" in evidence
    assert report.cpu_model == "14x Neoverse-V3AE"
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 273e9
    assert "Jetson AGX Thor" in report.bandwidth.detail
    assert report.recommended_backend.backend == "vllm"


def test_jetson_orin_found_from_the_device_tree_when_drivers_are_silent(tmp_path: Path) -> None:
    machine = machines.jetson_orin_without_drivers(tmp_path)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    assert "/sys/firmware/devicetree/base/compatible lists nvidia,tegra234" in _evidence(report)
    assert [gpu.name for gpu in report.gpus] == ["NVIDIA Jetson AGX Orin Developer Kit"]
    assert report.gpus[0].integrated is True
    assert report.bandwidth.bytes_per_second == 204.8e9
    assert report.bandwidth.source == "table"


def test_grace_hopper_gh200_counts_one_pool_and_uses_hbm_bandwidth(tmp_path: Path) -> None:
    machine = machines.grace_hopper(tmp_path)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    _assert_cores(report, machine)
    evidence = _evidence(report)
    assert "soc_id is jep106:036b:0241 (NVIDIA Grace)" in evidence
    assert "next to an NVIDIA GPU" in evidence
    assert "'NVIDIA GH200 480GB' is a unified-memory part" in evidence
    assert "CUDA reports NVIDIA GH200 480GB as not integrated" in evidence  # recorded, but not decisive
    assert "NVML reports 95.0 GiB of memory on NVIDIA GH200 480GB" in evidence
    assert report.cpu_model == "NVIDIA Grace (72x Neoverse-V2)"
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 4000e9
    assert "HBM" in report.bandwidth.detail
    assert report.recommended_backend.backend == "vllm"


def test_discrete_rtx_4090_keeps_vram_separate_and_gets_llamacpp(tmp_path: Path) -> None:
    machine = machines.rtx_4090_desktop(tmp_path, vllm=True)
    report = _probe(machine)

    assert not report.unified.is_unified
    _assert_cores(report, machine)
    assert report.ram_total_bytes == machine.ram_total_bytes
    assert report.ram_available_bytes == machine.ram_available_bytes
    assert report.gpu_memory_total_bytes == 24 * GIB
    assert report.gpu_memory_free_bytes == 23 * GIB
    assert report.has_discrete_gpu
    evidence = _evidence(report)
    assert "NVML reports 24.0 GiB of memory on NVIDIA GeForce RTX 4090" in evidence
    assert "CU_DEVICE_ATTRIBUTE_INTEGRATED = 0" in evidence
    assert evidence.endswith("Verdict: discrete GPU memory, counted separately from system RAM")
    assert report.gpus[0].driver == "570.86"
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 1008e9
    assert report.recommended_backend.backend == "llamacpp"  # vLLM is installed, but memory is not unified
    assert "Discrete GPU" in report.recommended_backend.reason


def test_amd_strix_halo_apu_is_unified(tmp_path: Path) -> None:
    machine = machines.strix_halo(tmp_path)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    _assert_cores(report, machine)
    evidence = _evidence(report)
    assert "AMD Radeon 8060S (Strix Halo) has a 0.5 GiB VRAM carve-out and 96.0 GiB of GTT" in evidence
    assert "NVML not available" in evidence
    assert [(gpu.vendor, gpu.name, gpu.integrated) for gpu in report.gpus] == [
        ("amd", "AMD Radeon 8060S (Strix Halo)", True)
    ]
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 256e9
    assert report.recommended_backend.backend == "vllm"


def test_amd_strix_halo_without_vllm_uses_llamacpp(tmp_path: Path) -> None:
    report = _probe(machines.strix_halo(tmp_path, vllm=False))

    assert report.recommended_backend.backend == "llamacpp"


def test_discrete_radeon_is_named_by_vram_and_not_unified(tmp_path: Path) -> None:
    report = _probe(machines.radeon_7900_xtx_desktop(tmp_path))

    assert not report.unified.is_unified
    assert [gpu.name for gpu in report.gpus] == ["AMD Radeon RX 7900 XTX"]
    assert report.gpu_memory_total_bytes == 24 * GIB
    assert report.gpu_memory_free_bytes == 23 * GIB
    assert report.bandwidth.bytes_per_second == 960e9
    assert report.recommended_backend.backend == "llamacpp"


def test_apple_m3_max_is_unified_but_gets_llamacpp(tmp_path: Path) -> None:
    calls = CallLog()
    machine = machines.apple_m3_max(tmp_path, calls=calls)
    report = _probe(machine)

    _assert_pool_counted_once(report, machine)
    _assert_cores(report, machine)
    assert calls.calls == []  # no NVML or CUDA on macOS
    assert report.os_name == "Darwin"
    assert report.cpu_model == "Apple M3 Max"
    assert "Apple Silicon (Apple M3 Max)" in _evidence(report)
    assert [(gpu.vendor, gpu.name) for gpu in report.gpus] == [("apple", "Apple M3 Max")]
    assert report.bandwidth.source == "table"
    assert report.bandwidth.bytes_per_second == 400e9
    assert report.recommended_backend.backend == "llamacpp"
    assert "Darwin" in report.recommended_backend.reason


def test_apple_m3_max_14_core_bin_has_the_narrower_bus(tmp_path: Path) -> None:
    report = _probe(machines.apple_m3_max(tmp_path, physical_cores=14))

    assert report.bandwidth.bytes_per_second == 300e9
    assert "14-core" in report.bandwidth.detail


def test_cpu_only_server_without_measurement(tmp_path: Path) -> None:
    machine = machines.cpu_only_server(tmp_path)
    report = _probe(machine, measure=False)

    assert not report.unified.is_unified
    assert report.gpus == ()
    _assert_cores(report, machine)
    assert report.ram_available_bytes == machine.ram_available_bytes
    evidence = _evidence(report)
    assert "No GPU found" in evidence
    assert "NVML not available" in evidence
    assert "CUDA driver not reachable" in evidence
    assert report.bandwidth.source == "unknown"
    assert report.bandwidth.bytes_per_second == 0
    assert report.recommended_backend.backend == "llamacpp"
    assert "No GPU" in report.recommended_backend.reason


def test_cpu_only_server_measures_bandwidth(tmp_path: Path) -> None:
    report = _probe(machines.cpu_only_server(tmp_path), measure=True)

    assert report.bandwidth.source == "measured"
    assert report.bandwidth.bytes_per_second > 0
    assert "numpy copy" in report.bandwidth.detail


def test_table_hit_skips_measurement(tmp_path: Path) -> None:
    report = _probe(machines.rtx_4090_desktop(tmp_path), measure=True)

    assert report.bandwidth.source == "table"
