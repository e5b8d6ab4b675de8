"""Where UniDesk keeps its files: one home folder (``--home``/``UNIDESK_HOME``) or platformdirs."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "UniDesk"
HOME_ENV_VAR = "UNIDESK_HOME"
PRIVATE_FOLDER_MODE = 0o700


@dataclass(frozen=True)
class AppPaths:
    """The app's folders. Nothing is created until :meth:`ensure` is called."""

    config_dir: Path
    data_dir: Path
    cache_dir: Path
    log_dir: Path

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    @classmethod
    def under_home(cls, home: Path) -> AppPaths:
        """All folders under one directory (used by ``--home``, tests and portable installs)."""
        home = home.expanduser().resolve()
        return cls(
            config_dir=home / "config",
            data_dir=home / "data",
            cache_dir=home / "cache",
            log_dir=home / "logs",
        )

    @classmethod
    def from_platform(cls) -> AppPaths:
        """The operating system's usual per-user folders."""
        import platformdirs

        dirs = platformdirs.PlatformDirs(APP_NAME, appauthor=False)
        return cls(
            config_dir=Path(dirs.user_config_dir),
            data_dir=Path(dirs.user_data_dir),
            cache_dir=Path(dirs.user_cache_dir),
            log_dir=Path(dirs.user_log_dir),
        )

    @classmethod
    def resolve(cls, home: str | os.PathLike[str] | None = None) -> AppPaths:
        """``home`` if given, else ``$UNIDESK_HOME`` if set, else platform folders."""
        chosen = home if home is not None else os.environ.get(HOME_ENV_VAR) or None
        if chosen is not None:
            return cls.under_home(Path(chosen))
        return cls.from_platform()

    def ensure(self) -> AppPaths:
        """Create the folders, readable only by the user (0700); looser existing ones are tightened."""
        for folder in (self.config_dir, self.data_dir, self.cache_dir, self.log_dir):
            folder.mkdir(mode=PRIVATE_FOLDER_MODE, parents=True, exist_ok=True)
            make_private(folder)
        return self


def make_private(folder: Path) -> None:
    """Take group and other permissions away from ``folder`` (POSIX; Windows profiles are per-user already)."""
    if os.name == "nt":
        return
    mode = stat.S_IMODE(folder.stat().st_mode)
    if mode & 0o077:
        folder.chmod(mode & ~0o077 | 0o700)
