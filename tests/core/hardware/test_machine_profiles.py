"""Other machines: built-in profiles (with sources) and saved probe files read back exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.hardware import probe_hardware
from app.core.hardware.machine_profiles import find_profile, machine_profiles, machine_report
from app.core.hardware.report_io import MachineFileError, read_report_file, report_from_dict
from app.core.planner.budget import GPU_RESERVE_BYTES, memory_budget
from tests.core.hardware import hardware_machines

GIB = 1024**3
EXPECTED_PROFILES = {
    "dgx-spark", "jetson-agx-thor", "jetson-agx-orin-64gb", "gh200", "rtx-4090", "apple-m3-max", "cpu-laptop",
}


def test_every_built_in_profile_is_complete_and_cites_its_sources() -> None:
    profiles = {profile.id: profile for profile in machine_profiles()}
    assert set(profiles) == EXPECTED_PROFILES
    for profile in profiles.values():
        report = profile.report
        assert profile.sources and all(source.strip() for source in profile.sources)
        assert 0 < report.ram_available_bytes <= report.ram_total_bytes
        assert report.bandwidth.bytes_per_second > 0 and report.bandwidth.source == "table"
        assert report.unified.evidence and profile.id in report.unified.evidence[0]
        if report.unified.is_unified:  # one pool, counted once: GPUs carry no memory of their own
            assert all(gpu.memory_total_bytes is None for gpu in report.gpus)


@pytest.mark.parametrize(
    ("profile_id", "kind", "bandwidth_gb_s", "backend"),
    [
        ("dgx-spark", "unified", 273, "vllm"),
        ("jetson-agx-thor", "unified", 273, "vllm"),
        ("jetson-agx-orin-64gb", "unified", 204.8, "vllm"),
        ("gh200", "unified", 4000, "vllm"),
        ("rtx-4090", "discrete", 1008, "llamacpp"),
        ("apple-m3-max", "unified", 400, "llamacpp"),
        ("cpu-laptop", "cpu", 89.6, "llamacpp"),
    ],
)
def test_each_profile_plans_as_its_kind_of_machine(profile_id: str, kind: str, bandwidth_gb_s: float,
                                                   backend: str) -> None:
    report = machine_report(profile_id)
    assert memory_budget(report, 4 * GIB).kind == kind
    assert report.bandwidth.bytes_per_second == pytest.approx(bandwidth_gb_s * 1e9)
    assert report.recommended_backend.backend == backend


def test_a_discrete_profile_keeps_its_gpu_memory() -> None:
    report = machine_report("rtx-4090")
    assert report.gpu_memory_total_bytes == pytest.approx(23.99 * GIB, rel=1e-6)
    assert memory_budget(report, 4 * GIB).gpu_bytes == report.gpu_memory_free_bytes - GPU_RESERVE_BYTES > 20 * GIB


@pytest.mark.parametrize("name", ["dgx-spark", "DGX Spark", "dgx_spark", "GB10", "spark"])
def test_profiles_answer_to_their_aliases(name: str) -> None:
    profile = find_profile(name)
    assert profile is not None and profile.id == "dgx-spark"


@pytest.mark.parametrize("machine", ["dgx_spark", "jetson_thor", "grace_hopper"])
def test_a_saved_probe_reads_back_as_the_same_report(tmp_path: Path, machine: str) -> None:
    original = probe_hardware(getattr(hardware_machines, machine)(tmp_path / "root").sources, measure_bandwidth=False)
    saved = tmp_path / "mine.json"
    saved.write_text(json.dumps(original.to_dict(), default=str), encoding="utf-8")
    assert read_report_file(saved) == original
    assert machine_report(str(saved)) == original


def test_this_computer_round_trips_too(tmp_path: Path) -> None:
    original = probe_hardware(measure_bandwidth=False)
    assert report_from_dict(json.loads(json.dumps(original.to_dict(), default=str))) == original


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("{not json", "not a saved machine description"),
        ("[1, 2]", "not a JSON object"),
        ('{"os_name": "Linux"}', "has no 'unified'"),
    ],
)
def test_a_corrupt_machine_file_is_one_clear_error_and_is_left_alone(tmp_path: Path, content: str,
                                                                     fragment: str) -> None:
    bad = tmp_path / "mine.json"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(MachineFileError) as caught:
        machine_report(str(bad))
    assert fragment in str(caught.value) and str(bad) in str(caught.value)
    assert "unidesk probe --json" in str(caught.value.hint)
    assert bad.read_text(encoding="utf-8") == content


def test_impossible_figures_in_a_saved_probe_are_refused(tmp_path: Path) -> None:
    document = machine_report("dgx-spark").to_dict()
    document["ram_available_bytes"] = document["ram_total_bytes"] + 1
    with pytest.raises(ValueError, match="RAM figures are impossible"):
        report_from_dict(json.loads(json.dumps(document, default=str)))
    document = machine_report("dgx-spark").to_dict()
    document["bandwidth"]["source"] = "guessed"
    with pytest.raises(ValueError, match=r"bandwidth\.source"):
        report_from_dict(json.loads(json.dumps(document, default=str)))


def test_an_unknown_machine_names_the_profiles(tmp_path: Path) -> None:
    with pytest.raises(MachineFileError) as caught:
        machine_report("dgx-sprak")
    assert "dgx-sprak" in str(caught.value)
    assert "dgx-spark" in str(caught.value.hint) and "cpu-laptop" in str(caught.value.hint)
