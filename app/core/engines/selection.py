"""Which backend runs a model: from the model's format, the probe and the user's setting."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.engines.base import BackendName, ModelLoadError
from app.core.hardware.report import HardwareReport
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "BackendChoice"


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


def select_backend(model_path: Path, setting: str, hardware: HardwareReport) -> BackendSelection:
    """Pick the backend for ``model_path``.

    ``setting`` is ``engine.backend`` (auto / vllm / llamacpp / remote). GGUF files always run
    on llama.cpp; Hugging Face folders need vLLM. Forcing a backend that cannot run the model
    raises ModelLoadError saying why.
    """
    if setting == "remote":
        return BackendSelection("remote", _said(QT_TRANSLATE_NOOP(
            "BackendChoice", "the settings send requests to a remote server")))
    gguf = is_gguf_model(model_path)
    vllm_ok = hardware.recommended_backend.backend == "vllm"
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
    if vllm_ok or setting == "vllm":
        if not vllm_ok:
            raise ModelLoadError(
                _said(QT_TRANSLATE_NOOP("BackendChoice", "vLLM cannot run here: {0}"),
                      hardware.recommended_backend.reason),
                _said(QT_TRANSLATE_NOOP("BackendChoice", "Use a .gguf model with llama.cpp instead.")),
                cause="unsupported",
            )
        return BackendSelection("vllm", hardware.recommended_backend.reason)
    raise ModelLoadError(
        _said(QT_TRANSLATE_NOOP("BackendChoice", "{0} is a Hugging Face model folder; on this machine models run on "
                                                 "llama.cpp, which needs a .gguf file."), model_path.name),
        _said(QT_TRANSLATE_NOOP("BackendChoice", "Choose a GGUF version of the model ({0})."),
              hardware.recommended_backend.reason),
        cause="unsupported",
    )
