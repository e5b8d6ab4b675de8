"""Downloads against a local server that answers like the Hugging Face hub (loopback only)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from app.core.models import (
    ChecksumMismatchError,
    DownloadError,
    DownloadJob,
    DownloadSpec,
    HubClient,
    HubError,
    LocalModels,
    ModelLibrary,
    NotEnoughDiskSpaceError,
    TransferOptions,
    load_catalog,
)
from app.core.models.file_download import part_path
from tests.fixtures.fake_hub import FakeHub, running_fake_hub

REPO_ROOT = Path(__file__).resolve().parents[2]
REPO = "someone/Tiny-GGUF"
FILE = "tiny-Q4_K_M.gguf"
FAST = TransferOptions(chunk_size=16 * 1024, max_retries=3, retry_delay_s=0.01)
TIMEOUT_S = 30


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def _payload(size: int, seed: int = 1) -> bytes:
    """Deterministic pseudo-random bytes (so a wrong offset would show as different content)."""
    return random.Random(seed).randbytes(size)


def _client(hub: FakeHub, token: str | None = None) -> HubClient:
    return HubClient(endpoint=hub.url, token=token, timeout_s=10)


def _job(hub: FakeHub, target: Path, *, options: TransferOptions = FAST, token: str | None = None,
         repo: str = REPO, file: str = FILE, **spec: Any) -> DownloadJob:
    return DownloadJob(DownloadSpec(repo, target, files=(file,), **spec), _client(hub, token), options=options)


def _wait_for(condition: Callable[[], bool], what: str, timeout_s: float = TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _ranges(hub: FakeHub) -> list[str | None]:
    return [request.headers.get("Range") for request in hub.cdn_requests() if request.method == "GET"]


def test_a_download_completes_and_is_verified_against_the_hubs_sha256(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(300_000)
    hub.add_file(REPO, FILE, content)
    job = _job(hub, tmp_path / "models").start()
    result = job.wait(TIMEOUT_S)
    assert result is not None
    final = tmp_path / "models" / FILE
    assert result.path == final and final.read_bytes() == content
    assert result.files[0].verified_by == "sha256" and result.bytes_downloaded == len(content)
    assert not part_path(final).exists()
    progress = job.progress()
    assert progress.state == "finished" and progress.bytes_done == progress.bytes_total == len(content)
    methods = [(request.server, request.method) for request in hub.requests]
    assert ("hub", "HEAD") in methods and ("cdn", "GET") in methods


def test_a_dropped_connection_is_resumed_with_a_range_request(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(250_000)
    hub.add_file(REPO, FILE, content)
    hub.drop_connection_after(100_000)
    result = _job(hub, tmp_path).start().wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    assert _ranges(hub) == [None, "bytes=100000-"]
    assert result.bytes_downloaded == len(content)


def test_an_interrupted_download_resumes_from_the_part_file_in_a_new_job(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(250_000)
    hub.add_file(REPO, FILE, content)
    hub.drop_connection_after(100_000)
    hub.fail_cdn(503, times=1)
    no_retries = TransferOptions(chunk_size=16 * 1024, max_retries=0, retry_delay_s=0.01)
    failed = _job(hub, tmp_path, options=no_retries).start()
    with pytest.raises(DownloadError, match=r"stopped at 100000 of 250000 bytes: .*503") as raised:
        failed.wait(TIMEOUT_S)
    assert "resumes" in (raised.value.hint or "")
    assert failed.progress().state == "failed"
    part = part_path(tmp_path / FILE)
    assert part.read_bytes() == content[:100_000] and not (tmp_path / FILE).exists()

    resumed = _job(hub, tmp_path).start()
    result = resumed.wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    assert _ranges(hub)[-1] == "bytes=100000-"
    assert resumed.progress().resumed_bytes == 100_000
    assert result.bytes_downloaded == len(content) - 100_000


def test_a_server_that_ignores_range_restarts_cleanly(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(200_000)
    hub.add_file(REPO, FILE, content)
    hub.drop_connection_after(70_000)
    hub.ignore_range()
    job = _job(hub, tmp_path).start()
    result = job.wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    assert job.progress().bytes_done == len(content) and result.bytes_downloaded == 70_000 + len(content)
    assert _ranges(hub) == [None, "bytes=70000-"]  # asked to resume, got the whole file, started over


def test_a_renamed_repository_is_followed(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(60_000)
    hub.add_file(REPO, FILE, content)
    hub.rename("old-owner/Old-Name", REPO)
    result = _job(hub, tmp_path, repo="old-owner/Old-Name").start().wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    heads = [request.path for request in hub.requests if request.method == "HEAD"]
    assert heads == [f"/old-owner/Old-Name/resolve/main/{FILE}", f"/{REPO}/resolve/main/{FILE}"]


@pytest.mark.parametrize("where", ["hub", "catalog"])
def test_a_wrong_checksum_is_a_clear_error_and_leaves_no_file(hub: FakeHub, tmp_path: Path, where: str) -> None:
    content = _payload(120_000)
    wrong = hashlib.sha256(b"something else").hexdigest()
    hub.add_file(REPO, FILE, content, advertised_sha256=wrong if where == "hub" else None)
    known = ((FILE, wrong),) if where == "catalog" else ()
    job = _job(hub, tmp_path, known_sha256=known).start()
    with pytest.raises(ChecksumMismatchError, match="failed verification") as raised:
        job.wait(TIMEOUT_S)
    assert wrong[:16] in raised.value.message and "deleted" in raised.value.message
    assert not (tmp_path / FILE).exists() and not part_path(tmp_path / FILE).exists()
    assert job.progress().state == "failed"


def test_not_enough_disk_space_fails_before_downloading(
    hub: FakeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub.add_file(REPO, FILE, _payload(100_000))
    seen: list[Path] = []

    def small_disk(path: Path) -> SimpleNamespace:
        seen.append(Path(path))
        return SimpleNamespace(total=10**12, used=10**12 - 50_000, free=50_000)

    monkeypatch.setattr(shutil, "disk_usage", small_disk)
    job = _job(hub, tmp_path / "models").start()
    with pytest.raises(NotEnoughDiskSpaceError, match=r"Not enough disk space .* needs 100 kB more") as raised:
        job.wait(TIMEOUT_S)
    assert "50.00 kB is free" in raised.value.message and "model.folder" in (raised.value.hint or "")
    assert hub.cdn_requests() == [] and seen == [tmp_path]
    assert not (tmp_path / "models").exists() or not any((tmp_path / "models").iterdir())


def test_pause_then_resume_continues_where_it_stopped(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(400_000)
    hub.add_file(REPO, FILE, content)
    hub.throttle(4 * 1024, 0.02)  # slow, so the pause lands mid-file even on a busy machine
    job = _job(hub, tmp_path, options=TransferOptions(chunk_size=4 * 1024, retry_delay_s=0.01)).start()
    _wait_for(lambda: job.progress().bytes_done >= 40_000, "the first bytes")
    job.pause()
    _wait_for(lambda: job.progress().state == "paused", "the pause")
    paused_at = job.progress().bytes_done
    time.sleep(0.2)
    assert job.progress().bytes_done == paused_at < len(content)
    assert part_path(tmp_path / FILE).stat().st_size == paused_at
    assert job.progress().bytes_per_second == 0.0 and not job.done
    hub.throttle(64 * 1024, 0.0)
    job.resume()
    result = job.wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    assert _ranges(hub) == [None, f"bytes={paused_at}-"]


@pytest.mark.parametrize("keep_partial", [False, True])
def test_cancel_stops_and_deletes_or_keeps_the_partial_file(hub: FakeHub, tmp_path: Path, keep_partial: bool) -> None:
    content = _payload(400_000)
    hub.add_file(REPO, FILE, content)
    hub.throttle(4 * 1024, 0.02)
    job = _job(hub, tmp_path, options=TransferOptions(chunk_size=4 * 1024)).start()
    _wait_for(lambda: job.progress().bytes_done >= 30_000, "the first bytes")
    job.cancel(keep_partial=keep_partial)
    assert job.wait(TIMEOUT_S) is None
    assert job.progress().state == "cancelled"
    assert not (tmp_path / FILE).exists()
    part = part_path(tmp_path / FILE)
    assert part.exists() is keep_partial
    if keep_partial:
        assert part.read_bytes() == content[: part.stat().st_size]


def test_a_missing_file_or_repository_is_a_clear_404(hub: FakeHub, tmp_path: Path) -> None:
    hub.add_file(REPO, FILE, b"x" * 10)
    missing_file = _job(hub, tmp_path, file="other.gguf").start()
    with pytest.raises(HubError, match=r"someone/Tiny-GGUF/other.gguf was not found .*\(404\)") as raised:
        missing_file.wait(TIMEOUT_S)
    assert raised.value.status == 404
    missing_repo = _job(hub, tmp_path, repo="nobody/Nothing").start()
    with pytest.raises(HubError, match="does not exist or is private"):
        missing_repo.wait(TIMEOUT_S)
    assert hub.cdn_requests() == []


def test_a_token_is_needed_for_a_protected_repository_and_never_sent_to_the_cdn(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(50_000)
    hub.add_file(REPO, FILE, content)
    hub.require_token(REPO, "hf_secret")
    refused = _job(hub, tmp_path).start()
    with pytest.raises(HubError, match=r"refused access .*401") as raised:
        refused.wait(TIMEOUT_S)
    assert "HF_TOKEN" in (raised.value.hint or "") and raised.value.status == 401
    result = _job(hub, tmp_path, token="hf_secret").start().wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    hub_auth = [request.headers.get("Authorization") for request in hub.requests if request.server == "hub"]
    assert hub_auth[-1] == "Bearer hf_secret"
    assert all("Authorization" not in request.headers for request in hub.cdn_requests())


def _test_catalog(tmp_path: Path) -> Path:
    """The shipped catalog's first model, re-pointed at test repositories (one GGUF, one HF variant)."""
    document = json.loads((REPO_ROOT / "app/core/models/data/models.json").read_text(encoding="utf-8"))
    model = document["models"][0]
    model["variants"] = [
        {"id": "q8_0", "format": "gguf", "repo": REPO, "file": FILE, "quantization": "Q8_0",
         "approx_size_bytes": 1000, "sha256": None},
        {"id": "hf-bf16", "format": "hf", "repo": "someone/tiny-llama", "quantization": "BF16",
         "approx_size_bytes": 1000, "sha256": None},
    ]
    model["default_variant"] = "q8_0"
    document["models"] = [model]
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def test_the_library_downloads_registers_and_removes_gguf_and_hf_models(
    hub: FakeHub, tmp_path: Path, tiny_gguf: Path, tiny_hf_llama: Path
) -> None:
    hub.add_file(REPO, FILE, tiny_gguf.read_bytes())
    for item in sorted(tiny_hf_llama.iterdir()):
        if item.is_file():
            hub.add_file("someone/tiny-llama", item.name, item.read_bytes(), lfs=item.suffix == ".safetensors")
    hub.add_file("someone/tiny-llama", "weights.bin", b"ignored")
    catalog = load_catalog(_test_catalog(tmp_path))
    local = LocalModels(tmp_path / "data" / "local_models.json", tmp_path / "data" / "models")
    library = ModelLibrary(catalog, local, _client(hub), transfer_options=FAST)
    model_id = catalog.models[0].id

    job = library.start_download(model_id)
    assert library.download_job(model_id, "q8_0") is job
    gguf = job.wait(TIMEOUT_S)
    assert gguf is not None and gguf.local_model is not None
    assert gguf.path == tmp_path / "data/models/someone/Tiny-GGUF" / FILE
    assert gguf.local_model.format == "gguf" and gguf.local_model.managed
    assert library.downloaded(model_id) == gguf.local_model
    with pytest.raises(DownloadError, match="already downloaded"):
        library.start_download(model_id)

    folder = library.start_download(model_id, "hf-bf16").wait(TIMEOUT_S)
    assert folder is not None and folder.local_model is not None and folder.local_model.format == "hf"
    fetched = {item.path.name: item.verified_by for item in folder.files}
    assert fetched["config.json"] == "git-sha1"
    assert all(method == "sha256" for name, method in fetched.items() if name.endswith(".safetensors"))
    assert "weights.bin" not in fetched and not (folder.path / "weights.bin").exists()
    for name in fetched:
        assert (folder.path / name).read_bytes() == (tiny_hf_llama / name).read_bytes()

    assert [model.id for model in local.models()] == [gguf.local_model.id, folder.local_model.id]
    removed = library.remove_local(folder.local_model.id)
    assert removed.deleted_files and not folder.path.exists()
    assert (tmp_path / "data" / "models").is_dir()  # the models folder itself stays
    assert library.remove_local(gguf.local_model.id).deleted_files and not gguf.path.exists()


def test_closing_the_library_stops_downloads_and_keeps_them_resumable(
    hub: FakeHub, tmp_path: Path, tiny_gguf: Path
) -> None:
    content = tiny_gguf.read_bytes()
    hub.add_file(REPO, FILE, content)
    hub.throttle(4 * 1024, 0.01)
    catalog = load_catalog(_test_catalog(tmp_path))
    local = LocalModels(tmp_path / "local_models.json", tmp_path / "models")
    options = TransferOptions(chunk_size=4 * 1024)
    library = ModelLibrary(catalog, local, _client(hub), transfer_options=options)
    job = library.start_download(catalog.models[0].id)
    assert library.start_download(catalog.models[0].id) is job  # one job per target
    _wait_for(lambda: job.progress().bytes_done > 0, "the first bytes")
    library.close()
    assert job.done and job.progress().state == "cancelled" and library.running_downloads() == ()
    part = part_path(tmp_path / "models" / REPO / FILE)
    held = part.stat().st_size
    assert 0 < held < len(content) and local.models() == ()
    hub.throttle(64 * 1024, 0.0)
    result = ModelLibrary(catalog, local, _client(hub), transfer_options=options).start_download(
        catalog.models[0].id).wait(TIMEOUT_S)
    assert result is not None and result.local_model is not None and result.path.read_bytes() == content
    assert _ranges(hub)[-1] == f"bytes={held}-" and result.files[0].downloaded_bytes == len(content) - held


def _unidesk(home: Path, hub: FakeHub, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, HF_ENDPOINT=hub.url)
    environment.pop("UNIDESK_HOME", None)
    environment.pop("HF_TOKEN", None)
    return subprocess.run([sys.executable, "-m", "app", "--home", str(home), *arguments], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120, env=environment)


def test_cli_download_list_and_remove(hub: FakeHub, tmp_path: Path, tiny_gguf: Path) -> None:
    catalog = load_catalog()
    model, variant = next((model, variant) for model in catalog for variant in model.variants
                          if variant.format == "gguf" and variant.pin == "none")  # test bytes fail a pinned one
    assert variant.file_name is not None
    hub.add_file(variant.repo_id, variant.file_name, tiny_gguf.read_bytes())
    home = tmp_path / "home"

    downloaded = _unidesk(home, hub, "models", "download", model.id, "--variant", variant.id, "--json")
    assert downloaded.returncode == 0, downloaded.stderr
    result = json.loads(downloaded.stdout)
    final = Path(result["path"])
    assert final == home / "data/models" / variant.repo_id / variant.file_name
    assert final.read_bytes() == tiny_gguf.read_bytes() and result["files"][0]["verified_by"] == "sha256"
    local_id = result["local_model"]["id"]

    listed = _unidesk(home, hub, "models", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    document = json.loads(listed.stdout)
    entry = next(item for item in document["catalog"] if item["id"] == model.id)
    chosen = next(item for item in entry["variants"] if item["id"] == variant.id)
    assert chosen["downloaded_as"] == local_id and chosen["fit"]["badge"] in ("fits", "tight", "too_big")
    assert [item["id"] for item in document["local"]] == [local_id]

    again = _unidesk(home, hub, "models", "download", model.id, "--variant", variant.id)
    assert again.returncode == 1 and "already downloaded" in again.stderr

    removed = _unidesk(home, hub, "models", "remove", local_id)
    assert removed.returncode == 0 and "deleted" in removed.stdout and not final.exists()


def test_cli_download_errors_are_one_line(hub: FakeHub, tmp_path: Path) -> None:
    missing = _unidesk(tmp_path, hub, "models", "download", "qwen2.5-0.5b-instruct")
    assert missing.returncode == 1 and "Traceback" not in missing.stderr
    errors = [line for line in missing.stderr.splitlines() if line.startswith("unidesk: error:")]
    assert len(errors) == 1 and "not found" in errors[0] and "404" in errors[0]
    unknown = _unidesk(tmp_path, hub, "models", "download", "qwen2.5-7b-instruc")
    assert unknown.returncode == 1 and "Did you mean qwen2.5-7b-instruct" in unknown.stderr
    assert hub.requests == [request for request in hub.requests if "Qwen2.5-0.5B" in request.path]
