"""Which backend runs a model: from the model's format, the probe and the user's setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.engines.base import BackendName, ModelLoadError
from app.core.hardware.report import HardwareReport


@dataclass(frozen=True)
class BackendSelection:
    backend: BackendName
    reason: str


def is_gguf_model(model_path: Path) -> bool:
    """True for a ``.gguf`` name or a file starting with the GGUF magic."""
    if model_path.suffix.lower() == ".gguf":
        return True
    if not model_path.is_file():
        return False
    with model_path.open("rb") as handle:
        return handle.read(4) == b"GGUF"


def select_backend(model_path: Path, setting: str, hardware: HardwareReport) -> BackendSelection:
    """Pick the backend for ``model_path``.

    ``setting`` is ``engine.backend`` (auto / vllm / llamacpp / remote). GGUF files always run
    on llama.cpp; Hugging Face folders need vLLM. Forcing a backend that cannot run the model
    raises ModelLoadError saying why.
    """
    if setting == "remote":
        return BackendSelection("remote", "the settings send requests to a remote server")
    gguf = is_gguf_model(model_path)
    vllm_ok = hardware.recommended_backend.backend == "vllm"
    if gguf:
        if setting == "vllm":
            return BackendSelection(
                "llamacpp", "GGUF files run on llama.cpp (vLLM was chosen in settings, but it does not load GGUF)"
            )
        return BackendSelection("llamacpp", "GGUF files run on llama.cpp")
    if setting == "llamacpp":
        raise ModelLoadError(
            f"{model_path.name} is a Hugging Face model folder, which llama.cpp cannot load.",
            "Choose a .gguf file, or set the backend to auto or vLLM.",
            cause="unsupported",
        )
    if vllm_ok or setting == "vllm":
        if not vllm_ok:
            raise ModelLoadError(
                f"vLLM cannot run here: {hardware.recommended_backend.reason}",
                "Use a .gguf model with llama.cpp instead.",
                cause="unsupported",
            )
        return BackendSelection("vllm", hardware.recommended_backend.reason)
    raise ModelLoadError(
        f"{model_path.name} is a Hugging Face model folder; on this machine models run on llama.cpp, "
        "which needs a .gguf file.",
        f"Choose a GGUF version of the model ({hardware.recommended_backend.reason}).",
        cause="unsupported",
    )
