"""The app's helper processes name themselves, and are recognised by that name."""

from __future__ import annotations

import multiprocessing
import os
import sys
from multiprocessing.connection import Connection
from pathlib import Path

import pytest

from app.core.util.process_names import APP_HELPER_PREFIX, is_app_helper, name_this_process

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and prctl are Linux's")


def _named_child(connection: Connection, role: str) -> None:
    connection.send(name_this_process(role))
    connection.recv()  # stay alive until the parent has looked


def test_a_spawned_child_that_names_itself_is_an_app_helper_and_others_are_not() -> None:
    context = multiprocessing.get_context("spawn")
    parent_end, child_end = context.Pipe()
    child = context.Process(target=_named_child, args=(child_end, "reader"), daemon=True)
    child.start()
    try:
        assert parent_end.recv() is True
        assert child.pid is not None
        comm = Path(f"/proc/{child.pid}/comm").read_text(encoding="ascii").strip()
        assert comm == f"{APP_HELPER_PREFIX}reader"
        assert is_app_helper(child.pid)
        assert not is_app_helper(os.getpid())  # the test runner never named itself
        parent_end.send("done")
    finally:
        child.join(30)
        if child.is_alive():
            child.kill()


def test_a_long_role_is_cut_to_the_kernels_limit_and_a_missing_process_is_not_a_helper(tmp_path: Path) -> None:
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "comm").write_text(f"{APP_HELPER_PREFIX}embedding-m\n")
    assert is_app_helper(7, tmp_path)
    assert not is_app_helper(8, tmp_path)  # gone: no /proc entry
