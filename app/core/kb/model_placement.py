"""Where the knowledge base's PyTorch models (embedder, reranker) run: in the app's process or in one of their own.

A llama.cpp built with CUDA (or HIP) and PyTorch's GPU code cannot share a process: whichever loads second
crashes it (seen on an H200: the model load segfaults after PyTorch's CUDA loaded, PyTorch aborts after
llama.cpp's). The automatic choice is therefore a child process exactly when the installed llama.cpp has a
GPU backend library; elsewhere the models stay in the app's process, which saves the child's start-up (a
second interpreter) and its memory. Tests and benchmarks may ask for either.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Final

from app.core.hardware.gpu_libraries import has_gpu_backend_library
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT: Final = "ModelPlacement"


class Placement(Enum):
    SAME_PROCESS = "same process"
    CHILD_PROCESS = "child process"


@dataclass(frozen=True)
class PlacementChoice:
    """Where a model runs and why (one sentence for the window and the log)."""

    placement: Placement
    reason: Text

    @property
    def separate(self) -> bool:
        return self.placement is Placement.CHILD_PROCESS


def choose_placement(
    requested: Placement | None = None, *, gpu_llama: Callable[[], bool] = has_gpu_backend_library
) -> PlacementChoice:
    """``requested`` as asked; ``None``: a child process when llama.cpp here is a GPU build, else this process."""
    if requested is Placement.CHILD_PROCESS:
        return PlacementChoice(requested, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelPlacement", "It runs in a process of its own, as asked.")))
    if requested is Placement.SAME_PROCESS:
        return PlacementChoice(requested, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelPlacement", "It runs in the app's process, as asked.")))
    if gpu_llama():
        return PlacementChoice(Placement.CHILD_PROCESS, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelPlacement", "It runs in a process of its own: llama.cpp here is a GPU build, which cannot share "
                              "a process with the embedding model's GPU code.")))
    return PlacementChoice(Placement.SAME_PROCESS, Text(CONTEXT, QT_TRANSLATE_NOOP(
        "ModelPlacement", "It runs in the app's process: llama.cpp here has no GPU backend that could clash with "
                          "it.")))
