"""The system libraries Qt's window needs on Linux, checked before Qt is loaded.

PySide6's wheels carry Qt itself but not the X11/xcb, OpenGL, font and D-Bus libraries of the
system. When one is missing, Qt's own message names the wrong library (``libxcb-cursor0``) and the
window never opens. This module tries to load each library the way Qt will (``dlopen`` by soname)
and names the Debian/Ubuntu package that provides each missing one.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SystemLibrary:
    """One shared library by its soname, and the Debian/Ubuntu package that installs it."""

    soname: str
    package: str


# What libQt6Gui, libQt6Widgets and libQt6DBus load on every platform plugin (offscreen included).
QT_GUI_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libGL.so.1", "libgl1"),
    SystemLibrary("libEGL.so.1", "libegl1"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1"),
    SystemLibrary("libfreetype.so.6", "libfreetype6"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0"),
    SystemLibrary("libdbus-1.so.3", "libdbus-1-3"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0"),
)

# What Qt's xcb platform plugin (the window on X11 and XWayland) loads besides those.
QT_XCB_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libxcb.so.1", "libxcb1"),
    SystemLibrary("libX11.so.6", "libx11-6"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1"),
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
)

# The font packages that render Chinese; checked separately (fonts are not libraries).
CJK_FONT_PACKAGE = "fonts-noto-cjk"


def expected_qt_platform(environ: Mapping[str, str]) -> str:
    """The platform plugin Qt will pick: ``QT_QPA_PLATFORM`` if set, Wayland in a Wayland session, else xcb."""
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def _can_load(soname: str) -> bool:
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def libraries_for_platform(qt_platform: str) -> tuple[SystemLibrary, ...]:
    """The libraries Qt needs on ``qt_platform`` (xcb adds the X11 ones)."""
    if qt_platform == "xcb":
        return QT_GUI_LIBRARIES + QT_XCB_LIBRARIES
    return QT_GUI_LIBRARIES


def missing_libraries(
    libraries: Sequence[SystemLibrary], can_load: Callable[[str], bool] = _can_load
) -> list[SystemLibrary]:
    """The libraries among ``libraries`` that the dynamic loader cannot find."""
    return [library for library in libraries if not can_load(library.soname)]


def missing_for_window(
    environ: Mapping[str, str] | None = None,
    system: str | None = None,
    can_load: Callable[[str], bool] = _can_load,
) -> list[SystemLibrary]:
    """What the window would lack on this Linux machine; always empty elsewhere (Qt ships what it needs)."""
    if (system or platform.system()) != "Linux":
        return []
    qt_platform = expected_qt_platform(os.environ if environ is None else environ)
    return missing_libraries(libraries_for_platform(qt_platform), can_load)


def install_hint(missing: Sequence[SystemLibrary]) -> str:
    """One sentence that names the missing libraries and the command that installs them."""
    names = ", ".join(library.soname for library in missing)
    packages = " ".join(dict.fromkeys(library.package for library in missing))
    return (
        f"The window needs system libraries that are not installed: {names}. "
        f"On Debian or Ubuntu install them with: sudo apt-get install {packages} "
        "(other systems: the packages that provide these files)."
    )
