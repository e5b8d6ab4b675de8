"""Errors the planner raises for bad model files and impossible plan requests."""

from __future__ import annotations

from app.core.util.errors import UserFacingError


class ModelMetadataError(UserFacingError):
    """The model file or folder is missing, unreadable, or lacks what the planner needs."""


class PlanRequestError(UserFacingError):
    """A plan request asks for something the chosen backend cannot do (e.g. an unknown KV type)."""
