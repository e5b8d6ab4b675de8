"""The dependency rules of docs/ARCHITECTURE.md (Layers) hold: Qt-free core, layered core, cheap ``import app.core``."""

from __future__ import annotations

import json
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import app.core

REPO_ROOT = Path(__file__).resolve().parent.parent
HEAVY_MODULES = ("torch", "vllm", "llama_cpp", "sentence_transformers", "chromadb", "transformers")
QT_MODULES = ("PySide6", "shiboken6")


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).parent / "lint-imports"
    assert lint.exists(), "import-linter is part of the dev extra"
    return subprocess.run(
        [str(lint), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_import_linter_contracts_pass() -> None:
    result = _lint_imports(REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken" in result.stdout


def test_import_linter_catches_qt_in_core(tmp_path: Path) -> None:
    """The contract is not vacuous: a core module importing Qt breaks it."""
    shutil.copytree(REPO_ROOT / "app", tmp_path / "app", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "app" / "core" / "util" / "sneaky.py").write_text("import PySide6.QtCore\n")
    result = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode != 0
    assert "app.core.util.sneaky -> PySide6" in result.stdout


def _core_module_names() -> list[str]:
    names = []
    for module in pkgutil.walk_packages(app.core.__path__, prefix="app.core."):
        # Backends are the one place allowed to import inference libraries at module level.
        if not module.name.startswith("app.core.engines.backends."):
            names.append(module.name)
    return names


def test_importing_the_core_loads_no_heavy_library() -> None:
    modules = _core_module_names()
    assert "app.core.planner.plan" in modules or any(m.startswith("app.core.planner.") for m in modules)
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY_MODULES + QT_MODULES!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_cli_and_composition_root_stay_free_of_qt_until_the_window_opens() -> None:
    code = (
        "import json, sys, app.main, app.cli\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY_MODULES + QT_MODULES!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []
