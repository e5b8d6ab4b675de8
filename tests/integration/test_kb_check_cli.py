"""`unidesk kb model` and `unidesk kb check` as a user runs them: a real process, real files, one home folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[2]
NOTES = {
    "otters.md": "# Otters\n\nSea otters eat sea urchins, crabs and clams and float on their backs while they "
                 "eat, opening the shells with a stone they keep in a pouch of skin under the arm.\n",
    "panda.txt": "大熊猫主要以竹子为食，每天要花十多个小时进食，一只成年大熊猫一天能吃掉十二到三十八公斤竹子，"
                 "它们生活在四川、陕西和甘肃的山区竹林中。",
}


def unidesk(home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "UNIDESK_HOME"}
    return subprocess.run(
        [sys.executable, "-m", "app", "--home", str(home), *arguments],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, env=environment,
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("check-cli")
    folder = root / "docs"
    folder.mkdir()
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    result = unidesk(root / "home", "kb", "add", str(folder))
    assert result.returncode == 0, result.stderr
    return root / "home"


def test_kb_model_says_which_model_is_used_and_why(home: Path) -> None:
    result = unidesk(home, "kb", "model")
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first.startswith("Using all-MiniLM-L6-v2 (English only) until ") and "chosen because" in first
    assert "unidesk kb model --download" in result.stdout


def test_kb_check_reports_recall_with_questions_from_the_chat_model(home: Path, tiny_gguf: Path) -> None:
    result = unidesk(home, "kb", "check", str(tiny_gguf), "--samples", "2", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["k"] == 5 and len(report["questions"]) == 2 and 0.0 <= report["recall_at_k"] <= 1.0
    assert report["found"] == sum(1 for item in report["questions"] if item["rank"] is not None)
    assert report["settings"]["embedding model"] == "all-MiniLM-L6-v2"
    assert {Path(item["path"]).name for item in report["questions"]} == set(NOTES)


def test_kb_check_refuses_bad_numbers_in_one_line(home: Path, tiny_gguf: Path) -> None:
    result = unidesk(home, "kb", "check", str(tiny_gguf), "--samples", "0")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "--samples and --k must be at least 1" in result.stderr
