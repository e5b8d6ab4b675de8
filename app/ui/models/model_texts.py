"""Translated words for the model manager: fit badges and their reasons, languages, download states, the machine."""

from __future__ import annotations

import re
from collections.abc import Sequence

from PySide6.QtGui import QColor, QPalette

from app.core.hardware.report import HardwareReport
from app.core.models.fit import VariantFit
from app.core.models.progress import DownloadProgress
from app.core.models.units import human_size
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text, join_sentences
from app.ui.i18n import duration_text, render, translate
from app.ui.theme import status_colors

GIB = 1024**3
SHOWN_LANGUAGES = 3
# Every translate() names its context ("ModelTexts") literally: pyside6-lupdate reads only literals.
_ACTIVE_PARAMETERS = re.compile(r"(?P<total>\S+)\s*\((?P<active>\S+) active\)")


def badge_text(badge: str) -> str:
    """``Fits``, ``Tight``, ``Too big`` or ``Needs vLLM``."""
    texts = {
        "fits": translate("ModelTexts", "Fits"),
        "tight": translate("ModelTexts", "Tight"),
        "too_big": translate("ModelTexts", "Too big"),
        "unsupported": translate("ModelTexts", "Needs vLLM"),
    }
    return texts.get(badge, badge)


def context_size_text(tokens: int) -> str:
    """``32K`` for a whole number of 1,024-token blocks (as models state their length), else ``6,000``."""
    return f"{tokens // 1024}K" if tokens >= 1024 and tokens % 1024 == 0 else f"{tokens:,}"


def fit_badge_text(fit: VariantFit) -> str:
    """The variant's badge; when the asked context was beyond the model's, the maximum it was judged at
    (``Fits at its 32K maximum``), so a capped model's "Fits" does not read as a contradiction."""
    if not fit.capped or fit.badge == "unsupported":
        return badge_text(fit.badge)
    maximum = context_size_text(fit.context_length)
    texts = {
        "fits": translate("ModelTexts", "Fits at its {0} maximum"),
        "tight": translate("ModelTexts", "Tight at its {0} maximum"),
        "too_big": translate("ModelTexts", "Too big even at its {0} maximum"),
    }
    return texts[fit.badge].format(maximum)


def rate_figure(tokens_per_second: float) -> str:
    """``2.3`` below ten, ``45`` above (a ceiling needs no more digits)."""
    return f"{tokens_per_second:.1f}" if tokens_per_second < 10 else f"{tokens_per_second:,.0f}"


def speed_text(fit: VariantFit) -> str:
    """Beside the badge: ``≤ 45 tok/s``, ``≤ 2.3 tok/s · slow``, ``≤ 29 tok/s · part on CPU`` (layers left in
    system memory); empty when the speed is not known."""
    if fit.decode_tok_s is None or fit.badge == "unsupported":
        return ""
    if fit.slow:
        return translate("ModelTexts", "≤ {0} tok/s · slow").format(rate_figure(fit.decode_tok_s))
    if fit.cpu_layers:  # the ceiling is the GPU's; layers read from system memory bring it well down
        return translate("ModelTexts", "≤ {0} tok/s · part on CPU").format(rate_figure(fit.decode_tok_s))
    return translate("ModelTexts", "≤ {0} tok/s").format(rate_figure(fit.decode_tok_s))


def speed_detail(fit: VariantFit) -> str:
    """Where the speed comes from, and what "slow" means (the speed column's tooltip and the details)."""
    if fit.badge == "unsupported":
        return ""
    if fit.decode_tok_s is None:
        return translate("ModelTexts", "Its speed here is not known: the machine's memory bandwidth is not known.")
    gigabytes = fit.decode_tok_s * fit.decode_bytes_per_token / 1e9  # the bandwidth the ceiling was drawn from
    text = translate("ModelTexts", "Writes at most {0} tokens a second here: each token reads {1} from memory, "
                                   "at {2} GB/s. Real speed is lower.").format(
        rate_figure(fit.decode_tok_s), gib(fit.decode_bytes_per_token), rate_figure(gigabytes))
    if fit.cpu_layers:
        text = join_sentences((text, translate("ModelTexts", "{0} of its layers stay in system memory, which is "
                                                             "slower than the GPU's: expect much less.").format(
            fit.cpu_layers)))
    if fit.slow:
        text = join_sentences((text, translate("ModelTexts", "Slower than people read: answers will come word by "
                                                             "word.")))
    return text


def badge_colour(badge: str, palette: QPalette) -> QColor:
    """The badge's colour on ``palette`` (lighter tones on a dark theme)."""
    colors = status_colors(palette)
    roles: dict[str, str] = {"fits": colors.good, "tight": colors.warning, "too_big": colors.bad}
    return QColor(roles.get(badge, colors.muted))


def gib(byte_count: int) -> str:
    return translate("ModelTexts", "{0} GiB").format(f"{byte_count / GIB:.1f}")


def parameters_text(parameters: str) -> str:
    """The catalog's parameter count in the current language: "30.5B (3.3B active)" for a mixture of experts."""
    match = _ACTIVE_PARAMETERS.fullmatch(parameters.strip())
    if match is None:
        return parameters
    return translate("ModelTexts", "{0} ({1} active)").format(match.group("total"), match.group("active"))


def chats_text(count: int) -> str:
    if count == 1:
        return translate("ModelTexts", "1 chat")
    return translate("ModelTexts", "{0} parallel chats").format(count)


def fit_reason(fit: VariantFit) -> str:
    """Why the badge is what it is, with the numbers behind it."""
    if fit.badge == "unsupported":
        return translate("ModelTexts", "Hugging Face models run with vLLM, which needs Linux and a GPU that shares "
                                       "system memory. Use a GGUF variant on this machine.")
    text = translate("ModelTexts", "Needs {0} of the {1} available for {2} tokens × {3}.").format(
        gib(fit.needed_bytes), gib(fit.budget_bytes), f"{fit.context_length:,}", chats_text(fit.parallel_chats))
    if fit.capped:
        text = join_sentences((text, translate("ModelTexts", "It was trained for at most {0} tokens, so it is "
                                                             "judged at that length.").format(
            f"{fit.context_length:,}")))
    if fit.longest_context is None:
        return join_sentences((text, translate("ModelTexts", "It does not fit even with a short context.")))
    if fit.badge == "tight":
        text = join_sentences((text, translate("ModelTexts", "Little memory is left over; other programs may slow "
                                                             "it down.")))
    longest = translate("ModelTexts", "Longest context that fits: {0} tokens.")
    return join_sentences((text, longest.format(f"{fit.longest_context:,}")))


def language_name(code: str) -> str:
    names = {
        "zh": translate("ModelTexts", "Chinese"),
        "en": translate("ModelTexts", "English"),
        "fr": translate("ModelTexts", "French"),
        "es": translate("ModelTexts", "Spanish"),
        "pt": translate("ModelTexts", "Portuguese"),
        "de": translate("ModelTexts", "German"),
        "it": translate("ModelTexts", "Italian"),
        "ru": translate("ModelTexts", "Russian"),
        "ja": translate("ModelTexts", "Japanese"),
        "ko": translate("ModelTexts", "Korean"),
        "vi": translate("ModelTexts", "Vietnamese"),
        "th": translate("ModelTexts", "Thai"),
        "ar": translate("ModelTexts", "Arabic"),
        "hi": translate("ModelTexts", "Hindi"),
    }
    return names.get(code, code)


def languages_text(codes: Sequence[str], limit: int = SHOWN_LANGUAGES) -> str:
    """``Chinese, English, French +10`` (the first ``limit``, then how many more)."""
    names = [language_name(code) for code in codes]
    shown = translate("ModelTexts", ", ").join(names[:limit])
    extra = len(names) - limit
    return translate("ModelTexts", "{0} +{1}").format(shown, extra) if extra > 0 else shown


def format_name(model_format: str) -> str:
    if model_format == "gguf":
        return translate("ModelTexts", "GGUF (llama.cpp)")
    return translate("ModelTexts", "Hugging Face (vLLM)")


def download_state_text(progress: DownloadProgress) -> str:
    """What a download is doing, in words (the core's message only for failures, which carry the reason)."""
    texts = {
        "preparing": translate("ModelTexts", "Asking the hub about the files…"),
        "downloading": translate("ModelTexts", "Downloading…"),
        "paused": translate("ModelTexts", "Paused. The part already downloaded is kept."),
        "verifying": translate("ModelTexts", "Checking the download's checksum…"),
        "finished": translate("ModelTexts", "Downloaded and verified."),
        "cancelled": translate("ModelTexts", "Download cancelled."),
    }
    failed = translate("ModelTexts", "The download failed: {0}").format(render(progress.message))
    return texts.get(progress.state, failed)


def download_amount_text(progress: DownloadProgress) -> str:
    """``1.20 GB of 4.68 GB · 25.3 MB/s · about 2 min left``."""
    done = human_size(progress.bytes_done)
    if progress.bytes_total:
        done = translate("ModelTexts", "{0} of {1}").format(done, human_size(progress.bytes_total))
    parts = [done]
    if progress.state == "downloading" and progress.bytes_per_second > 0:
        parts.append(translate("ModelTexts", "{0}/s").format(human_size(int(progress.bytes_per_second))))
        if progress.eta_seconds is not None:
            parts.append(translate("ModelTexts", "about {0} left").format(duration_text(progress.eta_seconds)))
    return " · ".join(parts)


def machine_text(report: HardwareReport, name: str | None = None) -> str:
    """``This machine: 24.0 GiB memory (16.0 GiB free), no GPU; runs models with llama.cpp.`` (``name``: another
    machine's, which then replaces "This machine")."""
    memory = translate("ModelTexts", "{0} memory ({1} free)").format(
        gib(report.ram_total_bytes), gib(report.ram_available_bytes))
    if report.unified.is_unified and report.gpus:
        gpu = translate("ModelTexts", "GPU {0} sharing that memory").format(report.gpus[0].name)
    elif report.gpus:
        gpu = translate("ModelTexts", "GPU {0} with {1}").format(
            report.gpus[0].name, gib(report.gpu_memory_total_bytes))
    else:
        gpu = translate("ModelTexts", "no GPU")
    engine = "vLLM" if report.recommended_backend.backend == "vllm" else "llama.cpp"
    if name is not None:
        return translate("ModelTexts", "{0}: {1}, {2}; runs models with {3}.").format(name, memory, gpu, engine)
    return translate("ModelTexts", "This machine: {0}, {1}; runs models with {2}.").format(memory, gpu, engine)


MACHINE_TITLES = (
    QT_TRANSLATE_NOOP("MachineProfiles", "NVIDIA DGX Spark (GB10, 128 GB unified)"),
    QT_TRANSLATE_NOOP("MachineProfiles", "NVIDIA Jetson AGX Thor Developer Kit (T5000, 128 GB unified)"),
    QT_TRANSLATE_NOOP("MachineProfiles", "NVIDIA Jetson AGX Orin 64GB"),
    QT_TRANSLATE_NOOP("MachineProfiles", "NVIDIA GH200 Grace Hopper Superchip (480 GB LPDDR5X + 96 GB HBM3)"),
    QT_TRANSLATE_NOOP("MachineProfiles", "Desktop with NVIDIA GeForce RTX 4090 (24 GB) and 64 GB RAM"),
    QT_TRANSLATE_NOOP("MachineProfiles", "Apple MacBook Pro, M3 Max (16-core CPU, 40-core GPU, 128 GB unified)"),
    QT_TRANSLATE_NOOP("MachineProfiles", "CPU-only laptop (8 cores, 16 GB DDR5-5600 dual channel)"),
)
"""The built-in machines' titles (app/core/hardware/data/machine_profiles.json), here so lupdate finds them."""


def machine_title(title: str) -> str:
    """A built-in machine's title in the current language (its English title if it has no translation)."""
    return render(Text("MachineProfiles", title)) if title in MACHINE_TITLES else title
