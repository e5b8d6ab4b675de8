"""Asks the CUDA driver (libcuda via ctypes, no torch) which devices exist and whether each is integrated.

This module imports only the standard library so it can also run as a script in a short child
process: the default reader does that, so the app's own process never calls ``cuInit`` and stays
safe to fork (vLLM forks its engine workers unless it sees CUDA initialised through torch).
"""

from __future__ import annotations

import ctypes
import json
import sys
from dataclasses import asdict, dataclass
from typing import Any

CU_DEVICE_ATTRIBUTE_INTEGRATED = 18
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CUDA_SUCCESS = 0
CUDA_ERROR_NO_DEVICE = 100
CHILD_TIMEOUT_S = 30.0

_LIBRARY_NAMES: dict[str, tuple[str, ...]] = {
    "linux": ("libcuda.so.1", "libcuda.so"),
    "win32": ("nvcuda.dll",),
}


@dataclass(frozen=True)
class CudaDeviceRecord:
    """One CUDA device as the driver describes it."""

    ordinal: int
    name: str
    integrated: bool
    compute_capability: str | None = None


class CudaUnavailable(Exception):
    """The CUDA driver cannot be reached (no libcuda, no device, or the driver failed)."""


def load_libcuda() -> ctypes.CDLL:
    """Load libcuda without initialising it (loading alone does not touch the GPU)."""
    names = _LIBRARY_NAMES.get(sys.platform)
    if names is None:
        raise CudaUnavailable(f"no CUDA driver on this platform ({sys.platform})")
    failures: list[str] = []
    for name in names:
        try:
            return ctypes.CDLL(name)
        except OSError as error:
            failures.append(str(error))
    raise CudaUnavailable(f"libcuda not found ({failures[0]})")


def _call(library: ctypes.CDLL, function: str, *arguments: Any) -> None:
    result = int(getattr(library, function)(*arguments))
    if result != CUDA_SUCCESS:
        raise CudaUnavailable(f"{function} returned CUDA error {result}")


def _attribute(library: ctypes.CDLL, attribute: int, device: ctypes.c_int) -> int:
    value = ctypes.c_int()
    _call(library, "cuDeviceGetAttribute", ctypes.byref(value), attribute, device)
    return value.value


def query_cuda_devices() -> tuple[CudaDeviceRecord, ...]:
    """Initialise CUDA in *this* process and describe every device (empty when there is none)."""
    library = load_libcuda()
    init_result = int(library.cuInit(0))
    if init_result == CUDA_ERROR_NO_DEVICE:
        return ()
    if init_result != CUDA_SUCCESS:
        raise CudaUnavailable(f"cuInit returned CUDA error {init_result}")
    count = ctypes.c_int()
    _call(library, "cuDeviceGetCount", ctypes.byref(count))
    records: list[CudaDeviceRecord] = []
    for ordinal in range(count.value):
        device = ctypes.c_int()
        _call(library, "cuDeviceGet", ctypes.byref(device), ordinal)
        name_buffer = ctypes.create_string_buffer(256)
        _call(library, "cuDeviceGetName", name_buffer, len(name_buffer), device)
        major = _attribute(library, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        minor = _attribute(library, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
        records.append(
            CudaDeviceRecord(
                ordinal=ordinal,
                name=name_buffer.value.decode("utf-8", "replace"),
                integrated=_attribute(library, CU_DEVICE_ATTRIBUTE_INTEGRATED, device) == 1,
                compute_capability=f"{major}.{minor}",
            )
        )
    return tuple(records)


def parse_child_output(text: str) -> tuple[CudaDeviceRecord, ...]:
    """Turn the child's JSON answer back into records, or raise what the child reported."""
    try:
        answer = json.loads(text)
        if "error" in answer:
            raise CudaUnavailable(str(answer["error"]))
        return tuple(CudaDeviceRecord(**device) for device in answer["devices"])
    except (ValueError, KeyError, TypeError) as error:
        raise CudaUnavailable(f"unreadable answer from the CUDA query process: {text[:200]!r}") from error


def read_cuda_devices() -> tuple[CudaDeviceRecord, ...]:
    """Default CUDA reader: query the driver in a child Python so this process stays CUDA-free."""
    load_libcuda()  # cheap check: no libcuda means no child process at all
    if getattr(sys, "frozen", False):  # a frozen app cannot run a script: query in process
        return query_cuda_devices()
    import subprocess

    try:
        completed = subprocess.run(
            [sys.executable, "-I", "-S", __file__],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise CudaUnavailable(f"CUDA query process failed: {error}") from error
    if completed.returncode != 0:
        last_line = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        raise CudaUnavailable(f"CUDA query process exited with {completed.returncode}: {last_line}")
    return parse_child_output(completed.stdout)


def _main() -> None:
    try:
        answer: dict[str, Any] = {"devices": [asdict(record) for record in query_cuda_devices()]}
    except CudaUnavailable as error:
        answer = {"error": str(error)}
    print(json.dumps(answer))


if __name__ == "__main__":
    _main()
