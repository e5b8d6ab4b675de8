"""Launch time of the window: process start to first paint of a usable main window, against baselines.

    .venv/bin/python -m tests.benchmarks.bench_gui_launch [--runs 7] [--platform offscreen|xcb]

Every run is a fresh process with a fresh ``--home``. The child installs an event filter on the
QApplication before ``app.main.main()`` runs, records CLOCK_MONOTONIC (shared by all processes on
Linux) at the first paint of a widget of the main window, and then when the event loop next runs a
zero-delay timer (the window answers input), and which heavy libraries were imported by then. The
parent subtracts its own clock reading taken just before starting the child. Baselines, measured in
the same run and the same way: ``python -c pass`` and ``python -c "import PySide6.QtWidgets"`` (start
to exit), and an empty QMainWindow's first paint. Prints one JSON document; target: median < 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.benchmarks.bench_support import figure

REPO_ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 2.0
HEAVY_MODULES = ("torch", "llama_cpp", "chromadb", "sentence_transformers", "transformers", "vllm", "numpy")

_FIRST_PAINT_HOOK = """
import json, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

HEAVY = {heavy!r}
app = QApplication(sys.argv[:1])

class FirstPaint(QObject):
    def __init__(self):
        super().__init__()
        self.report = None

    def eventFilter(self, watched, event):
        if self.report is None and event.type() == QEvent.Type.Paint and hasattr(watched, "window") \\
                and isinstance(watched.window(), QMainWindow):
            self.report = {{"first_paint": time.monotonic(),
                           "heavy_at_paint": sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)}}
            QTimer.singleShot(0, self.usable)
        return False

    def usable(self):
        self.report["usable"] = time.monotonic()
        print("LAUNCH " + json.dumps(self.report), flush=True)
        for window in QApplication.topLevelWidgets():
            window.close()
        app.quit()

hook = FirstPaint()
app.installEventFilter(hook)
"""

_APP = _FIRST_PAINT_HOOK.format(heavy=HEAVY_MODULES) + """
from app.main import main
sys.exit(main(["--home", sys.argv[1]]))
"""

_EMPTY_WINDOW = _FIRST_PAINT_HOOK.format(heavy=HEAVY_MODULES) + """
window = QMainWindow()
window.resize(1180, 760)
window.show()
sys.exit(app.exec())
"""


def _environment(platform: str) -> dict[str, str]:
    environment = dict(os.environ)
    environment["QT_QPA_PLATFORM"] = platform
    environment.pop("UNIDESK_HOME", None)
    return environment


def _run_window(code: str, platform: str) -> dict[str, Any]:
    """Start a child running ``code``; seconds from start to first paint and to usable, heavy modules."""
    with tempfile.TemporaryDirectory(prefix="unidesk-launch-") as home:
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-c", code, home], cwd=REPO_ROOT, env=_environment(platform),
            capture_output=True, text=True, timeout=120,
        )
    lines = [line for line in result.stdout.splitlines() if line.startswith("LAUNCH ")]
    if not lines:
        raise RuntimeError(f"no first paint reported (exit {result.returncode}): {result.stderr[-2000:]}")
    report = json.loads(lines[-1][len("LAUNCH "):])
    return {
        "first_paint_s": report["first_paint"] - started,
        "usable_s": report["usable"] - started,
        "heavy_at_paint": report["heavy_at_paint"],
        "exit_code": result.returncode,
    }


def _run_to_exit(arguments: list[str], platform: str) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, *arguments], cwd=REPO_ROOT, env=_environment(platform),
                   capture_output=True, check=True, timeout=120)
    return time.monotonic() - started


def measure(runs: int, platform: str) -> dict[str, Any]:
    """Alternate the contenders run by run (so load on the machine hits all of them), one warm-up round first."""
    app_paint: list[float] = []
    app_usable: list[float] = []
    empty_paint: list[float] = []
    python_pass: list[float] = []
    import_qt: list[float] = []
    heavy: set[str] = set()
    exit_codes: set[int] = set()
    for round_number in range(runs + 1):
        app = _run_window(_APP, platform)
        empty = _run_window(_EMPTY_WINDOW, platform)
        bare = _run_to_exit(["-c", "pass"], platform)
        qt = _run_to_exit(["-c", "import PySide6.QtWidgets"], platform)
        print(f"round {round_number}: app paint {app['first_paint_s']:.3f} s, empty window "
              f"{empty['first_paint_s']:.3f} s, python {bare:.3f} s, import Qt {qt:.3f} s", file=sys.stderr)
        if round_number == 0:
            continue  # warm-up: disk caches
        app_paint.append(app["first_paint_s"])
        app_usable.append(app["usable_s"])
        empty_paint.append(empty["first_paint_s"])
        python_pass.append(bare)
        import_qt.append(qt)
        heavy.update(app["heavy_at_paint"])
        exit_codes.add(app["exit_code"])
    app_median = figure(app_paint, 3)["median"]
    return {
        "benchmark": "gui_launch",
        "platform": platform,
        "runs": runs,
        "app_first_paint_s": figure(app_paint, 3),
        "app_usable_s": figure(app_usable, 3),
        "baseline_empty_qmainwindow_first_paint_s": figure(empty_paint, 3),
        "baseline_python_pass_s": figure(python_pass, 3),
        "baseline_import_pyside6_qtwidgets_s": figure(import_qt, 3),
        "app_over_empty_window_s": round(app_median - figure(empty_paint, 3)["median"], 3),
        "heavy_modules_loaded_before_first_paint": sorted(heavy),
        "app_exit_codes": sorted(exit_codes),
        "target": f"app_first_paint_s median < {TARGET_S} s",
        "passed": app_median < TARGET_S and not heavy,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per contender (default 7)")
    parser.add_argument("--platform", default="offscreen", help="Qt platform plugin (default offscreen)")
    args = parser.parse_args()
    result = measure(args.runs, args.platform)
    print(json.dumps(result, indent=2))
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
