"""The chat model the first-run guide recommends for this machine, with its reason.

Among the catalog variants that fit with room to spare (badge ``fits``, not gated), it takes the
largest one that still decodes at a comfortable reading speed on this machine's memory bandwidth
(the badge's roofline: decode reads the active weights once per token, so tokens/s is at most
bandwidth / bytes read per token), and
prefers models that speak both Chinese and English. When none is fast enough, the fastest one that
fits is offered, and the reason says it will be slow.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.core.hardware.report import HardwareReport
from app.core.models.catalog import Catalog, CatalogModel, CatalogVariant
from app.core.models.fit import VariantFit
from app.core.models.units import human_size
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelRecommendation"
COMFORTABLE_TOK_S = 15.0
"""Decode speed (upper bound) above which answers stream faster than people read."""
ASSUMED_BANDWIDTH = 20e9
"""Bytes/s assumed when the machine's bandwidth is unknown: a modest dual-channel desktop, so the guess errs small."""


@dataclass(frozen=True)
class Recommendation:
    """The recommended variant, its fit, its decode-speed bound, and why it was chosen."""

    model: CatalogModel
    variant: CatalogVariant
    fit: VariantFit
    decode_tok_s_bound: float | None
    reason: Text


def decode_speed_bound(fit: VariantFit, hardware: HardwareReport) -> float | None:
    """The badge's decode ceiling (the planner's roofline); with an unknown bandwidth, the same bytes per
    token over ASSUMED_BANDWIDTH."""
    if fit.decode_tok_s is not None:
        return fit.decode_tok_s
    if fit.decode_bytes_per_token <= 0:
        return None
    return (hardware.bandwidth.bytes_per_second or ASSUMED_BANDWIDTH) / fit.decode_bytes_per_token


def _bilingual(model: CatalogModel) -> bool:
    return "zh" in model.languages and "en" in model.languages


def recommend_chat_model(catalog: Catalog, fits: tuple[VariantFit, ...],
                         hardware: HardwareReport) -> Recommendation | None:
    """The variant to offer first on this machine, or None when nothing in the catalog fits."""
    candidates: list[tuple[CatalogModel, CatalogVariant, VariantFit, float | None]] = []
    for fit in fits:
        if fit.badge != "fits":
            continue
        model, variant = catalog.find(fit.model_id, fit.variant_id)
        if variant.gated:
            continue
        candidates.append((model, variant, fit, decode_speed_bound(fit, hardware)))
    if not candidates:
        return None
    comfortable = [item for item in candidates if item[3] is None or item[3] >= COMFORTABLE_TOK_S]
    if comfortable:
        model, variant, fit, speed = max(
            comfortable, key=lambda item: (_bilingual(item[0]), item[1].approx_size_bytes,
                                           item[1].id == item[0].default_variant))
        reason = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelRecommendation", "The largest model in the catalog that fits this computer with room to spare "
                                   "and still answers faster than you read ({0}). {1}"),
            (human_size(variant.approx_size_bytes), _speed_sentence(speed, hardware)))
    else:
        model, variant, fit, speed = max(candidates, key=lambda item: (item[3] or 0.0, _bilingual(item[0])))
        reason = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelRecommendation", "The fastest model that fits this computer ({0}); answers will still come "
                                   "slowly here. {1}"),
            (human_size(variant.approx_size_bytes), _speed_sentence(speed, hardware)))
    return Recommendation(model, variant, fit, speed, reason)


def _speed_sentence(tokens_per_second: float | None, hardware: HardwareReport) -> Text:
    if tokens_per_second is None or hardware.bandwidth.bytes_per_second <= 0:
        return Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelRecommendation", "Its speed here is a guess: this computer's memory bandwidth is not known."))
    return Text(CONTEXT, QT_TRANSLATE_NOOP("ModelRecommendation", "At most {0:.0f} tokens per second here."),
                (tokens_per_second,))
