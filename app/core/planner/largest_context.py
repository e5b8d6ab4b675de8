"""The longest context (tokens per chat) that fits on a machine for a request, found by bisection over the plan."""

from __future__ import annotations

from dataclasses import replace

from app.core.hardware.report import HardwareReport
from app.core.planner.metadata import ModelMetadata
from app.core.planner.plan import plan_memory
from app.core.planner.request import PlanRequest

TOKEN_STEP = 256  # contexts are compared in steps of 256 tokens (llama.cpp pads n_ctx to 256 too)


def _fits(model: ModelMetadata, hardware: HardwareReport, request: PlanRequest, context: int) -> bool:
    return plan_memory(model, hardware, replace(request, context_length=context)).fits


def largest_fitting_context(model: ModelMetadata, hardware: HardwareReport, request: PlanRequest) -> int:
    """The largest multiple of 256 tokens up to the model's trained context that fits with ``request``'s
    other settings (chats, KV type, reserve), or 0 when not even 256 tokens fit."""
    low, high = 0, model.context_length // TOKEN_STEP
    if high and _fits(model, hardware, request, high * TOKEN_STEP):
        return high * TOKEN_STEP
    while high - low > 1:  # invariant: low fits (or is 0), high does not
        middle = (low + high) // 2
        if _fits(model, hardware, request, middle * TOKEN_STEP):
            low = middle
        else:
            high = middle
    return low * TOKEN_STEP
