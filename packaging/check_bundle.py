#!/usr/bin/env python3
"""Check a built bundle the way a user meets it, headless, and print one JSON document.

    .venv/bin/python packaging/check_bundle.py [--bundle dist/UniDesk]

1. its size on disk (and the archive's, when one lies beside it);
2. ``UniDesk --self-test`` passes (Qt platform plugin, translations, CJK font, llama.cpp, the
   bundled embedding model, a writable data folder);
3. cold start to first paint: ``UniDesk --startup-time`` opens the window offscreen with a fresh
   home, prints the time from process start to the window's first paint, and quits;
4. a tiny random-weight model (written by the test fixtures) loads and answers through the bundle:
   ``UniDesk chat tiny.gguf --prompt ... --json``;
5. when the Linux tarball lies beside the bundle: it unpacks, ``install.sh --prefix`` installs it
   into a scratch prefix (menu entry pointing at the installed program, metadata, icon, the
   ``unidesk`` command; install.sh ends with the installed program's self-test), and
   ``uninstall.sh`` removes it again.
Exit status 0 only when 2-5 worked. Runs with the test environment's Python (it writes the model).
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

REPO_ROOT = Path(__file__).resolve().parent.parent


def folder_mib(folder: Path) -> float:
    total = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())
    return round(total / 2**20, 1)


def run_bundle(program: Path, home: Path, *arguments: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    environment.pop("UNIDESK_HOME", None)
    environment.pop("PYTHONPATH", None)  # the bundle must need nothing from the source tree
    home.mkdir(parents=True, exist_ok=True)  # run from a folder outside the source tree
    return subprocess.run([str(program), "--home", str(home), *arguments], capture_output=True, text=True,
                          timeout=timeout, env=environment, cwd=home)


def check_archive(archive: Path, root: Path) -> dict[str, Any]:
    """Unpack ``archive``, install it into a scratch prefix, look at what was installed, uninstall."""
    import tarfile

    unpacked, prefix = root / "unpacked", root / "prefix"
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked, filter="tar")
    top = next(unpacked.iterdir())
    environment = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(root / "user-home"))
    started = time.monotonic()
    install = subprocess.run(["sh", str(top / "install.sh"), "--prefix", str(prefix)], capture_output=True,
                             text=True, timeout=600, env=environment)
    report: dict[str, Any] = {"install_s": round(time.monotonic() - started, 1), "install_rc": install.returncode}
    desktop = prefix / "share" / "applications" / "io.github.unidesk.UniDesk.desktop"
    program = prefix / "opt" / "UniDesk" / "UniDesk"
    exec_line = next((line for line in desktop.read_text().splitlines() if line.startswith("Exec=")), "") \
        if desktop.exists() else ""
    report["menu_entry_runs_installed_program"] = exec_line == f'Exec="{program}" %F'
    report["metadata_and_icon"] = all(path.exists() for path in (
        prefix / "share" / "metainfo" / "io.github.unidesk.UniDesk.metainfo.xml",
        prefix / "share" / "icons" / "hicolor" / "scalable" / "apps" / "io.github.unidesk.UniDesk.svg",
        prefix / "bin" / "unidesk"))
    uninstall = subprocess.run(["sh", str(top / "uninstall.sh"), "--prefix", str(prefix)], capture_output=True,
                               text=True, timeout=120, env=environment)
    report["uninstalled"] = uninstall.returncode == 0 and not program.exists() and not desktop.exists()
    report["passed"] = install.returncode == 0 and report["menu_entry_runs_installed_program"] \
        and report["metadata_and_icon"] and report["uninstalled"]
    if not report["passed"]:
        report["output"] = (install.stdout + install.stderr + uninstall.stderr)[-2000:]
    return report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bundle", type=Path, default=REPO_ROOT / "dist" / "UniDesk")
    args = parser.parse_args(argv)
    bundle: Path = args.bundle.resolve()
    program = bundle / ("UniDesk.exe" if sys.platform == "win32" else "UniDesk")
    if not program.exists():
        print(f"check_bundle: no bundle at {bundle}: build it with packaging/build_bundle.py", file=sys.stderr)
        return 2
    result: dict[str, Any] = {"bundle": str(bundle), "bundle_mib": folder_mib(bundle)}
    archives = sorted(bundle.parent.glob("UniDesk-*.tar.gz"))
    if archives:
        result["archive_mib"] = round(archives[-1].stat().st_size / 2**20, 1)
    ok = True
    with tempfile.TemporaryDirectory(prefix="unidesk-bundle-check-") as scratch:
        root = Path(scratch)
        started = time.monotonic()
        self_test = run_bundle(program, root / "home-self-test", "--self-test")
        result["self_test_s"] = round(time.monotonic() - started, 1)
        result["self_test_passed"] = self_test.returncode == 0
        result["self_test_report"] = self_test.stdout.strip().splitlines()
        ok &= self_test.returncode == 0

        startup = run_bundle(program, root / "home-startup", "--startup-time", timeout=300)
        lines = [line for line in startup.stdout.splitlines() if line.startswith("first paint after ")]
        if startup.returncode == 0 and lines:
            result["cold_start_to_first_paint_s"] = float(lines[-1].split()[3])
        else:
            ok = False
            result["startup_error"] = (startup.stderr or startup.stdout).strip()[-2000:]

        sys.path.insert(0, str(REPO_ROOT))
        from tests.fixtures.gguf_models import write_llama_gguf

        model = write_llama_gguf(root / "tiny.gguf")
        started = time.monotonic()
        chat = run_bundle(program, root / "home-chat", "chat", str(model), "--prompt", "Hello", "--max-tokens", "8",
                          "--temperature", "0", "--json")
        result["tiny_model_answer_s"] = round(time.monotonic() - started, 1)
        try:
            answer = json.loads(chat.stdout)
        except json.JSONDecodeError:
            answer = None
        generated = answer.get("metrics", {}).get("generated_tokens", 0) if isinstance(answer, dict) else 0
        answered = chat.returncode == 0 and generated > 0
        result["tiny_model_answered"] = answered
        result["tiny_model_generated_tokens"] = generated
        if not answered:
            ok = False
            result["chat_error"] = (chat.stderr or chat.stdout).strip()[-2000:]
        if archives:
            installed = check_archive(archives[-1], root)
            result["archive_install"] = installed
            ok &= installed["passed"]
    result["passed"] = ok
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
