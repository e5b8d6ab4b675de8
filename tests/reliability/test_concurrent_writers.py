"""Two writers of one file: a second download of the same file is refused while the first runs, and
registry writes from two processes never tear or collide on a temporary name."""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.models import DownloadError, DownloadJob, DownloadSpec, HubClient, LocalModels, TransferOptions
from app.core.models.file_download import lock_path, part_path
from app.core.models.local_models import REGISTRY_NAME
from tests.fixtures.fake_hub import FakeHub, running_fake_hub
from tests.reliability.conftest import REPO_ROOT

REPO, FILE = "someone/Tiny-GGUF", "tiny-Q4_K_M.gguf"
FAST = TransferOptions(chunk_size=16 * 1024, max_retries=1, retry_delay_s=0.01)
TIMEOUT_S = 60
WRITER = """
import sys
from pathlib import Path
from app.core.models.local_models import LocalModels
registry = LocalModels(Path(sys.argv[1]), Path(sys.argv[2]))
for model in sys.argv[3:]:
    registry.add(Path(model))
print("done", flush=True)
"""


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def job(hub: FakeHub, target: Path) -> DownloadJob:
    return DownloadJob(DownloadSpec(REPO, target, files=(FILE,)), HubClient(endpoint=hub.url, timeout_s=10),
                       options=FAST)


def test_a_second_download_of_the_same_file_is_refused_while_the_first_runs(hub: FakeHub, tmp_path: Path) -> None:
    content = random.Random(3).randbytes(200_000)
    hub.add_file(REPO, FILE, content)
    release = hub.hold_at(100_000)
    first = job(hub, tmp_path).start()
    try:
        deadline = time.monotonic() + TIMEOUT_S  # the first holds the file's lock once its bytes flow
        while first.progress().bytes_done == 0 and not first.done and time.monotonic() < deadline:
            time.sleep(0.01)
        assert first.progress().bytes_done > 0 and not first.done
        second = job(hub, tmp_path).start()
        with pytest.raises(DownloadError, match="already being downloaded"):
            second.wait(TIMEOUT_S)
    finally:
        release.set()
    result = first.wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content  # the first was not disturbed
    assert not part_path(tmp_path / FILE).exists() and not lock_path(tmp_path / FILE).exists()
    again = job(hub, tmp_path).start().wait(TIMEOUT_S)  # once it has finished, the file is simply there
    assert again is not None and again.files[0].verified_by == "present"


def test_two_processes_writing_the_registry_never_tear_it(tmp_path: Path, tiny_gguf: Path) -> None:
    registry_file = tmp_path / "data" / REGISTRY_NAME
    copies = []
    for index in range(24):
        copy = tmp_path / "own" / f"model{index:02d}.gguf"
        copy.parent.mkdir(exist_ok=True)
        shutil.copyfile(tiny_gguf, copy)
        copies.append(str(copy))
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(registry_file), str(tmp_path / "models"), *half],
                         cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for half in (copies[0::2], copies[1::2])
    ]
    for writer in writers:
        out, err = writer.communicate(timeout=TIMEOUT_S * 2)
        assert writer.returncode == 0 and out.strip() == "done", err[-3000:]
    # Without the home lock, read-modify-write from two processes may drop entries, but every write is whole:
    assert not registry_file.with_name(REGISTRY_NAME + ".bad").exists()
    models = LocalModels(registry_file, tmp_path / "models").models()
    assert models and {model.path for model in models} <= set(copies)
    assert not list(registry_file.parent.glob("*.tmp"))  # no temporary file left behind
