"""The default NVML and CUDA readers: their handling of driver answers, and the real libraries' API."""

from __future__ import annotations

import json
import subprocess
import sys
import types
from typing import Any

import pytest

from app.core.hardware import cuda_driver
from app.core.hardware.cuda_driver import CudaDeviceRecord, CudaUnavailable, parse_child_output
from app.core.hardware.nvml_reader import NvmlUnavailable, read_nvml_gpus

GIB = 1024**3


class _NvmlError(Exception):
    pass


class _NvmlNotSupported(_NvmlError):
    pass


def _fake_pynvml(calls: list[str], *, init_fails: bool = False) -> types.ModuleType:
    """A stand-in for pynvml answering like a machine with a GB10 and an RTX 4090."""
    devices: list[dict[str, Any]] = [
        {"name": b"NVIDIA GB10", "memory": None, "capability": (12, 1)},  # old pynvml returned bytes
        {"name": "NVIDIA GeForce RTX 4090", "memory": (24 * GIB, 20 * GIB), "capability": (8, 9)},
    ]
    module = types.ModuleType("pynvml")

    def init() -> None:
        calls.append("init")
        if init_fails:
            raise _NvmlError("NVML Shared Library Not Found")

    def memory_info(handle: int) -> types.SimpleNamespace:
        memory = devices[handle]["memory"]
        if memory is None:
            raise _NvmlNotSupported("Not Supported")
        return types.SimpleNamespace(total=memory[0], free=memory[1], used=memory[0] - memory[1])

    module.__dict__.update(
        NVMLError=_NvmlError,
        NVMLError_NotSupported=_NvmlNotSupported,
        nvmlInit=init,
        nvmlShutdown=lambda: calls.append("shutdown"),
        nvmlSystemGetDriverVersion=lambda: "580.95.05",
        nvmlDeviceGetCount=lambda: len(devices),
        nvmlDeviceGetHandleByIndex=lambda index: index,
        nvmlDeviceGetName=lambda handle: devices[handle]["name"],
        nvmlDeviceGetMemoryInfo=memory_info,
        nvmlDeviceGetCudaComputeCapability=lambda handle: devices[handle]["capability"],
    )
    return module


def test_nvml_reader_tolerates_not_supported_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(calls))

    gb10, rtx = read_nvml_gpus()

    assert (gb10.name, gb10.memory_not_supported, gb10.memory_total_bytes) == ("NVIDIA GB10", True, None)
    assert gb10.compute_capability == "12.1"
    assert gb10.driver == "580.95.05"
    assert (rtx.memory_total_bytes, rtx.memory_free_bytes, rtx.memory_not_supported) == (
        24 * GIB,
        20 * GIB,
        False,
    )
    assert calls == ["init", "shutdown"]


def test_nvml_reader_reports_a_failed_start(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(calls, init_fails=True))

    with pytest.raises(NvmlUnavailable, match="Shared Library Not Found"):
        read_nvml_gpus()


def test_real_pynvml_has_what_the_reader_uses() -> None:
    pynvml = pytest.importorskip("pynvml")

    assert issubclass(pynvml.NVMLError_NotSupported, pynvml.NVMLError)
    for name in (
        "nvmlInit",
        "nvmlShutdown",
        "nvmlSystemGetDriverVersion",
        "nvmlDeviceGetCount",
        "nvmlDeviceGetHandleByIndex",
        "nvmlDeviceGetName",
        "nvmlDeviceGetMemoryInfo",
        "nvmlDeviceGetCudaComputeCapability",
    ):
        assert callable(getattr(pynvml, name)), name


def test_child_output_round_trips_records() -> None:
    record = CudaDeviceRecord(0, "NVIDIA GB10", integrated=True, compute_capability="12.1")
    text = json.dumps(
        {"devices": [{"ordinal": 0, "name": "NVIDIA GB10", "integrated": True, "compute_capability": "12.1"}]}
    )

    assert parse_child_output(text) == (record,)
    with pytest.raises(CudaUnavailable, match="cuInit returned CUDA error 999"):
        parse_child_output(json.dumps({"error": "cuInit returned CUDA error 999"}))
    with pytest.raises(CudaUnavailable, match="unreadable answer"):
        parse_child_output("Segmentation fault")


def _libcuda_loadable() -> bool:
    try:
        cuda_driver.load_libcuda()
    except CudaUnavailable:
        return False
    return True


def test_cuda_query_script_runs_as_an_isolated_child() -> None:
    """The module runs standalone (-I -S, stdlib only) and answers one JSON document."""
    completed = subprocess.run(
        [sys.executable, "-I", "-S", cuda_driver.__file__],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    answer = json.loads(completed.stdout)

    if _libcuda_loadable():
        assert "devices" in answer or "error" in answer
    else:
        assert "libcuda not found" in answer["error"]


@pytest.mark.skipif(_libcuda_loadable(), reason="this machine has a CUDA driver")
def test_default_cuda_reader_without_libcuda_raises() -> None:
    with pytest.raises(CudaUnavailable, match="libcuda not found"):
        cuda_driver.read_cuda_devices()
