"""The human-readable report, the JSON form, cheap import, and the real probe on this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import tests.core.hardware.hardware_machines as machines
from app.core.hardware import format_report, probe_hardware


def test_format_report_for_a_unified_machine(tmp_path: Path) -> None:
    report = probe_hardware(machines.dgx_spark(tmp_path).sources, measure_bandwidth=False)
    text = format_report(report)

    assert "Linux 6.8.0-test (aarch64)" in text
    assert "10x Cortex-X925 + 10x Cortex-A725, 20 cores / 20 threads" in text
    assert "119.7 GiB total, 111.0 GiB available" in text
    assert "NVIDIA GB10 (shares system RAM, integrated, compute 12.1, driver 580.95)" in text
    assert "Unified memory  yes" in text
    assert all(f"- {line}" in text for line in report.unified.evidence)
    assert "273 GB/s (table: NVIDIA GB10" in text
    assert "Backend         vllm (" in text


def test_format_report_for_a_discrete_and_a_cpu_only_machine(tmp_path: Path) -> None:
    discrete = format_report(
        probe_hardware(machines.rtx_4090_desktop(tmp_path / "a").sources, measure_bandwidth=False)
    )
    cpu_only = format_report(
        probe_hardware(machines.cpu_only_server(tmp_path / "b").sources, measure_bandwidth=False)
    )

    assert "NVIDIA GeForce RTX 4090 (24.0 GiB, 23.0 GiB free, compute 8.9, driver 570.86)" in discrete
    assert "Unified memory  no" in discrete
    assert "GPU             none" in cpu_only
    assert "Bandwidth       unknown (" in cpu_only


def test_report_to_dict_is_json_ready(tmp_path: Path) -> None:
    report = probe_hardware(machines.grace_hopper(tmp_path).sources, measure_bandwidth=False)
    document = json.loads(json.dumps(report.to_dict()))

    assert document["unified"]["is_unified"] is True
    assert document["gpus"][0]["name"] == "NVIDIA GH200 480GB"
    assert document["recommended_backend"]["backend"] == "vllm"


def test_importing_the_package_loads_neither_numpy_nor_pynvml() -> None:
    code = "import sys, app.core.hardware; print(sorted({'numpy', 'pynvml', 'torch'} & set(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parents[3],
    )
    assert completed.stdout.strip() == "[]"


def test_real_probe_on_this_machine_gives_sane_numbers() -> None:
    report = probe_hardware()

    assert report.os_name
    assert report.cpu_cores_logical >= 1
    assert 1 <= report.cpu_cores_physical <= report.cpu_cores_logical
    assert report.ram_total_bytes > 0
    assert 0 < report.ram_available_bytes <= report.ram_total_bytes
    assert report.unified.evidence  # always says why
    if not report.gpus:  # this development machine is CPU-only
        assert report.bandwidth.source == "measured"
        assert report.bandwidth.bytes_per_second > 0
        assert report.recommended_backend.backend == "llamacpp"
    assert format_report(report).count("\n") >= 6
