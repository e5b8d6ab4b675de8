"""The words a model load reports to the user (its steps and why it failed), translatable in the window."""

from __future__ import annotations

from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "EngineLoad"
"""The translation context of every text here; write it literally in QT_TRANSLATE_NOOP (lupdate reads literals)."""


def said(template: str, *args: object) -> Text:
    """A load step, error or hint: ``template`` marked with ``QT_TRANSLATE_NOOP("EngineLoad", ...)``."""
    return Text(CONTEXT, template, args)


def warming_up() -> Text:
    """The step after the weights and cache are in place: a first short request, before the model counts as ready."""
    return said(QT_TRANSLATE_NOOP("EngineLoad", "Warming up"))



def load_again() -> Text:
    """The hint after the engine stopped."""
    return said(QT_TRANSLATE_NOOP("EngineLoad", "Load the model again."))


def llamacpp_stopped() -> Text:
    """The llama.cpp engine's thread has ended (a request cannot be served)."""
    return said(QT_TRANSLATE_NOOP("EngineLoad", "The llama.cpp engine has stopped."))
