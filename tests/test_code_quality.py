"""House rules that tools can check: ruff clean, ``mypy --strict`` on the core, small modules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
MAX_MODULE_LINES = 600


def _tool(name: str) -> str:
    path = Path(sys.executable).parent / name
    assert path.exists(), f"{name} is part of the dev extra"
    return str(path)


def test_ruff_finds_nothing() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", "app", "tests", "packaging"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_core_is_strictly_typed() -> None:
    result = subprocess.run(
        [_tool("mypy"), "--strict", "--no-incremental", "-p", "app.core"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_modules_stay_small() -> None:
    oversized = [
        f"{path.relative_to(REPO_ROOT)} ({count} lines)"
        for path in sorted((REPO_ROOT / "app").rglob("*.py"))
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    ]
    assert oversized == []
