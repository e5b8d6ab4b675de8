"""``unidesk --self-test`` and the system-library check: real parts, a real process."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from app.core.config.paths import AppPaths
from app.core.util.system_libraries import (
    QT_GUI_LIBRARIES,
    QT_XCB_LIBRARIES,
    expected_qt_platform,
    install_hint,
    missing_for_window,
)
from app.self_test import CheckResult, check_data_folder, run_checks, write_report

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_self_test_passes_on_this_installation_and_names_each_part(tmp_path: Path) -> None:
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    environment.pop("UNIDESK_HOME", None)
    result = subprocess.run(
        [sys.executable, "-m", "app", "--home", str(tmp_path), "--self-test"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=environment,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for part in ("Qt platform plugin", "llama.cpp library", "embedding model", "CJK font", "data folder writable",
                 "data files"):
        assert f"[ok  ] {part}" in result.stdout
    assert "self-test passed" in result.stdout
    assert not any(tmp_path.joinpath("data").glob(".self-test-*"))  # the probe file is gone


def test_an_unwritable_data_folder_fails_the_check_with_the_folder_named(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file where the data folder should be")
    paths = AppPaths.resolve(str(tmp_path))
    results = {result.name: result for result in run_checks(paths)}
    failed = results["data folder writable"]
    assert not failed.passed and str(paths.data_dir) in failed.detail
    out = io.StringIO()
    assert write_report(list(results.values()), 1.0, out) is False
    assert "[FAIL] data folder writable" in out.getvalue() and "self-test FAILED" in out.getvalue()


def test_a_failed_optional_check_warns_without_failing_the_verdict() -> None:
    out = io.StringIO()
    report = [CheckResult("a", True, "fine"), CheckResult("b", False, "absent", required=False)]
    assert write_report(report, 0.1, out) is True
    assert "[warn] b: absent" in out.getvalue()


def test_check_data_folder_creates_it(tmp_path: Path) -> None:
    paths = AppPaths.resolve(str(tmp_path / "new-home"))
    assert check_data_folder(paths) == str(paths.data_dir)
    assert paths.data_dir.is_dir()


def test_qt_platform_follows_the_environment_the_way_qt_does() -> None:
    assert expected_qt_platform({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert expected_qt_platform({"QT_QPA_PLATFORM": "wayland;xcb"}) == "wayland"
    assert expected_qt_platform({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}) == "wayland"
    assert expected_qt_platform({"DISPLAY": ":0"}) == "xcb"


def test_missing_xcb_libraries_are_named_with_their_packages() -> None:
    absent = {"libxcb-icccm.so.4", "libxcb-keysyms.so.1"}
    missing = missing_for_window({"DISPLAY": ":0"}, "Linux", can_load=lambda soname: soname not in absent)
    assert {library.soname for library in missing} == absent
    hint = install_hint(missing)
    assert "libxcb-icccm4" in hint and "libxcb-keysyms1" in hint and "apt-get install" in hint


def test_offscreen_and_other_systems_need_no_x11_libraries() -> None:
    nothing_loads = lambda soname: False  # noqa: E731
    offscreen = missing_for_window({"QT_QPA_PLATFORM": "offscreen"}, "Linux", can_load=nothing_loads)
    assert {library.soname for library in offscreen} == {library.soname for library in QT_GUI_LIBRARIES}
    assert not set(QT_XCB_LIBRARIES) & set(offscreen)
    assert missing_for_window({"DISPLAY": ":0"}, "Windows", can_load=nothing_loads) == []


def test_startup_time_opens_the_window_reports_its_first_paint_and_quits(tmp_path: Path) -> None:
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    environment.pop("UNIDESK_HOME", None)
    result = subprocess.run(
        [sys.executable, "-m", "app", "--home", str(tmp_path), "--startup-time"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=environment,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("first paint after ")]
    assert len(lines) == 1
    assert 0 < float(lines[0].split()[3]) < 300
