"""``unidesk --self-test``: check that this installation is whole, headless, and print a short report.

Each check loads the real part (Qt's platform plugin, the llama.cpp library, the bundled embedding
model, ...) the way the app does, so a bundle that lacks a plugin, a shared library or a data file
fails here with the part named, not later in front of a user. Exit status 0 when every required
check passed, 1 otherwise. Nothing is downloaded and nothing in the user's data is changed (a
probe file is written and removed in the data folder).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

from app.core.config.paths import AppPaths
from app.core.util.system_libraries import (
    CJK_FONT_PACKAGE,
    expected_qt_platform,
    install_hint,
    missing_for_window,
)


@dataclass(frozen=True)
class CheckResult:
    """One line of the report: what was checked, whether it passed, and what was seen."""

    name: str
    passed: bool
    detail: str
    required: bool = True


class CheckFailed(Exception):
    """A check's part is missing or broken; the message says which and what to do."""


def check_system_libraries() -> str:
    missing = missing_for_window()
    if missing:
        raise CheckFailed(install_hint(missing))
    return f"all found for the {expected_qt_platform(os.environ)} platform"


def check_data_folder(paths: AppPaths) -> str:
    probe = paths.data_dir / f".self-test-{os.getpid()}"
    try:
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        with open(probe, "wb") as handle:
            handle.write(b"unidesk self-test\n")
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as error:
        raise CheckFailed(f"cannot write in {paths.data_dir}: {error.strerror or error}") from error
    finally:
        probe.unlink(missing_ok=True)
    return str(paths.data_dir)


def check_llama_cpp() -> str:
    try:
        import llama_cpp
    except (ImportError, OSError) as error:
        raise CheckFailed(f"the llama.cpp library does not load: {error}") from error
    system_info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    features = [part.split(":")[-1].strip() for part in system_info.split("|") if "= 1" in part]
    return f"llama-cpp-python {llama_cpp.__version__}" + (f" ({', '.join(features[:6])})" if features else "")


def check_embedding_model() -> str:
    from app.core.kb.embedder import BUNDLED_MODEL_KEY, Embedder, resolve_embedding_model

    source = resolve_embedding_model(BUNDLED_MODEL_KEY)
    if not source.bundled:
        raise CheckFailed(f"the bundled embedding model ({BUNDLED_MODEL_KEY}) is not installed")
    # As the app runs it: in a process of its own where llama.cpp (loaded by the check before) is a GPU build.
    embedder = Embedder(BUNDLED_MODEL_KEY, device="cpu")
    try:
        vector = embedder.embed_documents(["UniDesk self-test 自检"])
        where = "in its own process" if embedder.child_pid is not None else "in process"
    finally:
        embedder.close()
    return f"{BUNDLED_MODEL_KEY} loads and embeds ({vector.shape[-1]} dimensions, {where})"


def check_qt_platform() -> str:
    from PySide6 import __version__ as pyside_version
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    if QApplication.instance() is None:
        QApplication(sys.argv[:1])
    return f"platform plugin '{QGuiApplication.platformName()}' loaded (PySide6 {pyside_version})"


def check_cjk_font() -> str:
    from PySide6.QtGui import QFontDatabase

    families = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    if not families:
        raise CheckFailed(
            "no font that shows Chinese was found; install one "
            f"(Debian/Ubuntu: sudo apt-get install {CJK_FONT_PACKAGE})"
        )
    return f"{len(families)} families, e.g. {families[0]}"


def check_translations_and_icons() -> str:
    from PySide6.QtCore import QTranslator
    from PySide6.QtGui import QIcon

    from app.ui.i18n import TRANSLATIONS_DIR
    from app.ui.theme import RESOURCES_DIR

    translator = QTranslator()
    translation = TRANSLATIONS_DIR / "unidesk_zh_CN.qm"
    if not translator.load(str(translation)):
        raise CheckFailed(f"the Chinese translation does not load from {translation}")
    icon_file = RESOURCES_DIR / "icons" / "unidesk.svg"
    if QIcon(str(icon_file)).pixmap(64, 64).isNull():
        raise CheckFailed(f"the app icon does not render from {icon_file} (Qt's SVG plugin may be missing)")
    return "Chinese translation and SVG icons load"


def check_data_files() -> str:
    from app.core.hardware.machine_profiles import machine_profiles
    from app.core.models.catalog import load_catalog

    catalog = load_catalog()
    return f"model catalog ({len(catalog.models)} models) and {len(machine_profiles())} machine profiles load"


def _run(name: str, check: Callable[[], str], *, required: bool = True) -> CheckResult:
    try:
        return CheckResult(name, True, check(), required)
    except CheckFailed as failure:
        return CheckResult(name, False, str(failure), required)
    except Exception as error:  # a broken part may raise anything: report it, keep checking
        return CheckResult(name, False, f"{type(error).__name__}: {error}", required)


def run_checks(paths: AppPaths) -> list[CheckResult]:
    """Every check, in the order a launch needs them; later checks run even when earlier ones fail."""
    window_needs_x11 = expected_qt_platform(os.environ) == "xcb"
    return [
        _run("system libraries", check_system_libraries, required=window_needs_x11),
        _run("data folder writable", lambda: check_data_folder(paths)),
        _run("Qt platform plugin", check_qt_platform),
        _run("translations and icons", check_translations_and_icons),
        _run("data files", check_data_files),
        _run("CJK font", check_cjk_font),
        _run("llama.cpp library", check_llama_cpp),
        _run("embedding model", check_embedding_model),
    ]


def write_report(results: list[CheckResult], elapsed_s: float, out: TextIO) -> bool:
    """Print one line per check and a verdict; True when every required check passed."""
    for result in results:
        mark = "ok  " if result.passed else ("FAIL" if result.required else "warn")
        out.write(f"[{mark}] {result.name}: {result.detail}\n")
    passed = all(result.passed for result in results if result.required)
    verdict = "UniDesk self-test passed" if passed else "UniDesk self-test FAILED"
    out.write(f"{verdict} in {elapsed_s:.1f} s\n")
    return passed


def run_self_test(paths: AppPaths, out: TextIO = sys.stdout) -> int:
    started = time.monotonic()
    results = run_checks(paths)
    return 0 if write_report(results, time.monotonic() - started, out) else 1


