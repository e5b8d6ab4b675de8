"""The home lock: one owner at a time, named when another is refused, freed when its holder dies."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.config.home_lock import WINDOW_ROLE, HomeBusyError, HomeLock, read_owner, window_channel_path
from app.core.config.paths import AppPaths
from app.core.util.file_lock import open_locked, unlock_and_remove

REPO_ROOT = Path(__file__).resolve().parents[3]
HOLDER = """
import sys, time
from pathlib import Path
from app.core.config.home_lock import HomeLock
from app.core.config.paths import AppPaths
lock = HomeLock(AppPaths.under_home(Path(sys.argv[1])), sys.argv[2]).acquire()
print("held", flush=True)
time.sleep(600)
"""


def start_holder(home: Path, role: str) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(home), role], cwd=REPO_ROOT,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    return holder


def test_a_second_owner_is_refused_with_the_holder_named_and_the_lock_frees_on_kill(tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path)
    holder = start_holder(tmp_path, WINDOW_ROLE)
    try:
        with pytest.raises(HomeBusyError) as refused:
            HomeLock(paths, "serve").acquire()
        assert refused.value.owner is not None
        assert refused.value.owner.pid == holder.pid and refused.value.owner.is_window
        assert "window" in str(refused.value) and str(holder.pid) in str(refused.value)
        assert str(paths.data_dir) in str(refused.value)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(30)
    with HomeLock(paths, "serve") as lock:  # the kernel dropped the dead holder's lock
        assert lock.held
        owner = read_owner(paths)
        assert owner is not None and owner.pid == os.getpid() and owner.role == "serve"
    assert read_owner(paths) is None  # released: nobody named


def test_a_command_holder_is_named_by_its_command(tmp_path: Path) -> None:
    holder = start_holder(tmp_path, "kb")
    try:
        with pytest.raises(HomeBusyError, match=r"`unidesk kb`"):
            HomeLock(AppPaths.under_home(tmp_path), WINDOW_ROLE).acquire()
    finally:
        holder.kill()
        holder.wait(30)


def test_two_handles_in_one_process_exclude_each_other_and_removal_is_safe(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    first = open_locked(path)
    assert first is not None
    assert open_locked(path) is None
    unlock_and_remove(first, path)
    assert not path.exists()
    second = open_locked(path)
    assert second is not None
    second.close()


def test_the_window_channel_path_fits_a_socket_even_for_a_deep_home(tmp_path: Path) -> None:
    deep = AppPaths.under_home(tmp_path / ("d" * 60) / ("e" * 60))
    assert len(os.fsencode(window_channel_path(deep))) <= 104
    assert window_channel_path(AppPaths.under_home(Path("/h"))) == Path("/h/data/window.sock")


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_folders_are_created_private_and_loose_ones_are_tightened(tmp_path: Path) -> None:
    paths = AppPaths.under_home(tmp_path / "home")
    paths.data_dir.mkdir(parents=True)
    paths.data_dir.chmod(0o755)
    previous = os.umask(0o022)
    try:
        paths.ensure()
    finally:
        os.umask(previous)
    for folder in (paths.config_dir, paths.data_dir, paths.cache_dir, paths.log_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
