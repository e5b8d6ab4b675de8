"""The diagnostic report: what a bug report needs, nothing private."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.core.config import Settings
from app.core.services.diagnostics import (
    MASK,
    diagnostic_report,
    hide_user_names,
    installed_components,
    log_tail,
    masked_settings,
)

REPO_ROOT = Path(__file__).resolve().parents[3]


def test_secret_settings_are_masked_and_others_kept() -> None:
    settings = Settings.defaults().with_changes({"engine.remote_api_key": "sk-very-secret", "api.port": 9000})
    shown = masked_settings(settings)
    assert shown["engine.remote_api_key"] == MASK
    assert shown["api.port"] == "9000"
    assert masked_settings(Settings.defaults())["engine.remote_api_key"] == ""  # unset: nothing to hide


def test_user_names_are_taken_out_of_paths(tmp_path: Path) -> None:
    text = f"model at {tmp_path}/m.gguf and /home/alice/docs/a.pdf and /Users/bob/x"
    hidden = hide_user_names(text, home=tmp_path)
    assert str(tmp_path) not in hidden and "alice" not in hidden and "bob" not in hidden
    assert "~/m.gguf" in hidden and "/home/<user>/docs/a.pdf" in hidden


def test_log_tail_keeps_the_last_lines_and_survives_a_missing_log(tmp_path: Path) -> None:
    log_file = tmp_path / "unidesk.log"
    log_file.write_text("".join(f"line {number}\n" for number in range(500)), encoding="utf-8")
    tail = log_tail(log_file, lines=3)
    assert tail == ["line 497", "line 498", "line 499"]
    assert log_tail(tmp_path / "absent.log") == []


def test_components_name_the_installed_parts_with_a_licence() -> None:
    components = {component.name: component for component in installed_components()}
    assert "llama_cpp_python" in components and "PySide6-Essentials" in components
    assert all(component.version and component.licence for component in components.values())
    assert "MIT" in components["llama_cpp_python"].licence


def test_the_report_holds_settings_and_log_without_secrets(tmp_path: Path) -> None:
    log_file = tmp_path / "unidesk.log"
    log_file.write_text("INFO app.main: UniDesk starting\n", encoding="utf-8")
    settings = Settings.defaults().with_changes({"engine.remote_api_key": "sk-very-secret"})
    report = diagnostic_report(None, settings, log_file)
    assert "sk-very-secret" not in report
    assert f"engine.remote_api_key = {MASK}" in report
    assert "UniDesk starting" in report and "## Parts" in report


def test_report_command_prints_it(tmp_path: Path) -> None:
    environment = dict(os.environ)
    environment.pop("UNIDESK_HOME", None)
    result = subprocess.run(
        [sys.executable, "-m", "app", "--home", str(tmp_path), "report", "--no-measure"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("UniDesk ") and "## Machine" in result.stdout and "CPU" in result.stdout
