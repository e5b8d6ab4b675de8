"""The real app start (``python -m app``'s main) paints its window with no heavy library imported yet."""

from __future__ import annotations

import pytest

from tests.benchmarks.bench_gui_launch import _APP, _run_window

pytestmark = pytest.mark.gui


def test_window_paints_before_any_heavy_library_loads() -> None:
    launch = _run_window(_APP, "offscreen")
    assert launch["heavy_at_paint"] == []  # torch, llama_cpp, chromadb, sentence_transformers, numpy, ...
    assert launch["exit_code"] == 0  # the window closed cleanly afterwards
    # The order only: how fast is the benchmark's to judge (a loaded machine may take any time).
    assert 0 < launch["first_paint_s"] <= launch["usable_s"]
