#!/usr/bin/env python3
"""What the system must provide for UniDesk, checked (and on Debian/Ubuntu installed) before setup.

    python3 packaging/system_check.py            list what is missing (exit 1 if something is)
    python3 packaging/system_check.py --install  install what is missing with apt-get (root or sudo)

Checked: a C compiler (llama.cpp is compiled when installing from source), Qt's system libraries
for the window (X11/xcb, OpenGL, fontconfig, D-Bus), and a font that shows Chinese. The library
list is the app's own (app/core/util/system_libraries.py), so this script, the window's start-up
check and ``unidesk --self-test`` agree. Uses only the standard library.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from app.core.util.system_libraries import (  # noqa: E402  (the repository root is on the path only now)
    CJK_FONT_PACKAGE,
    QT_GUI_LIBRARIES,
    QT_XCB_LIBRARIES,
    missing_libraries,
)

COMPILER_PACKAGE = "build-essential"


def has_compiler() -> bool:
    return any(shutil.which(name) for name in ("cc", "gcc", "clang"))


def has_cjk_font() -> bool:
    """Whether fontconfig knows a font for Chinese (Qt finds fonts through fontconfig on Linux)."""
    if shutil.which("fc-list") is None:
        return False
    listed = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False)
    return bool(listed.stdout.strip())


def missing_packages() -> list[tuple[str, str]]:
    """(package, why) for every missing part on this Linux machine."""
    missing: list[tuple[str, str]] = []
    if not has_compiler():
        missing.append((COMPILER_PACKAGE, "a C/C++ compiler, to build llama.cpp"))
    for library in missing_libraries(QT_GUI_LIBRARIES + QT_XCB_LIBRARIES):
        missing.append((library.package, f"{library.soname}, for the window"))
    if not has_cjk_font():
        missing.append((CJK_FONT_PACKAGE, "a font that shows Chinese"))
    return missing


def install(packages: list[str]) -> int:
    if shutil.which("apt-get") is None:
        print("system_check: no apt-get here; install the packages above with your system's package manager.")
        return 1
    prefix = [] if os.geteuid() == 0 else (["sudo"] if shutil.which("sudo") else None)
    if prefix is None:
        print("system_check: installing needs root; run the command above as root.")
        return 1
    environment = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run([*prefix, "apt-get", "update", "-qq"], check=False, env=environment)
    result = subprocess.run([*prefix, "apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                            check=False, env=environment)
    return result.returncode


def main(argv: list[str]) -> int:
    if platform.system() != "Linux":
        print("system_check: nothing to check outside Linux (Qt's wheels carry what the window needs).")
        return 0
    missing = missing_packages()
    if not missing:
        print("system_check: everything UniDesk needs from the system is here.")
        return 0
    packages = list(dict.fromkeys(package for package, _ in missing))
    print("system_check: missing from this system:")
    for package, why in missing:
        print(f"  - {why} (Debian/Ubuntu package {package})")
    print(f"  install with: sudo apt-get install {' '.join(packages)}")
    if "--install" in argv:
        code = install(packages)
        still = missing_packages()
        if code == 0 and not still:
            print("system_check: installed.")
            return 0
        print("system_check: still missing: " + ", ".join(package for package, _ in still))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
