"""Hub client configuration, checksum parsing and download progress arithmetic (no network)."""

from __future__ import annotations

import hashlib
import time

import pytest

from app.core.models import HubClient, human_size
from app.core.models.checksums import checksum_from_headers, parse_etag, sha256_checksum
from app.core.models.hub import DEFAULT_ENDPOINT
from app.core.models.progress import DownloadTracker, TransferCancelled, TransferControl


def test_the_endpoint_and_token_come_from_the_environment() -> None:
    default = HubClient.from_environment({})
    assert default.endpoint == DEFAULT_ENDPOINT == "https://huggingface.co" and default.token is None
    mirror = HubClient.from_environment({"HF_ENDPOINT": "https://hf-mirror.example/ ", "HF_TOKEN": " hf_abc "})
    assert mirror.endpoint == "https://hf-mirror.example" and mirror.token == "hf_abc"
    assert "hf_abc" not in repr(mirror)
    assert mirror.host == "hf-mirror.example"


def test_resolve_urls_quote_names_and_revisions() -> None:
    client = HubClient(endpoint="http://127.0.0.1:9")
    assert client.file_url("Qwen/Qwen3-8B-GGUF", "Qwen3-8B-Q4_K_M.gguf") == (
        "http://127.0.0.1:9/Qwen/Qwen3-8B-GGUF/resolve/main/Qwen3-8B-Q4_K_M.gguf"
    )
    assert client.file_url("a/b", "dir/file name.gguf", "refs/pr/1") == (
        "http://127.0.0.1:9/a/b/resolve/refs%2Fpr%2F1/dir/file%20name.gguf"
    )


def test_etags_stand_for_lfs_sha256_or_git_blob_ids() -> None:
    sha = hashlib.sha256(b"weights").hexdigest()
    lfs = parse_etag(f'"{sha}"')
    assert lfs is not None and lfs.algorithm == "sha256" and lfs.hex_digest == sha
    blob = hashlib.sha1(b"blob 2\0{}", usedforsecurity=False).hexdigest()
    git = parse_etag(f'W/"{blob.upper()}"')
    assert git is not None and git.algorithm == "git-sha1" and git.hex_digest == blob
    assert parse_etag('"d41d8cd98f00b204e9800998ecf8427e"') is None  # an md5-like tag proves nothing
    assert parse_etag(None) is None
    headers = {"X-Linked-Etag": f'"{sha}"', "ETag": f'"{blob}"'}
    linked = checksum_from_headers(headers)
    assert linked is not None and linked.hex_digest == sha  # the LFS object wins over the pointer's tag
    with pytest.raises(ValueError):
        sha256_checksum("xyz")


def test_git_blob_hashing_matches_git() -> None:
    content = b'{"model_type": "llama"}\n'
    expected = hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()
    streaming = parse_etag(expected)
    assert streaming is not None
    hasher = streaming.hasher(len(content))
    for index in range(0, len(content), 5):
        hasher.update(content[index:index + 5])
    assert hasher.hex_digest() == expected


def test_progress_counts_resumed_bytes_apart_from_the_rate() -> None:
    tracker = DownloadTracker()
    tracker.update(state="downloading", bytes_total=1000, files_total=1)
    tracker.resumed(400)
    tracker.received(100)
    time.sleep(0.05)
    tracker.received(100)
    snapshot = tracker.snapshot()
    assert snapshot.bytes_done == 600 and snapshot.resumed_bytes == 400
    assert snapshot.fraction == pytest.approx(0.6)
    assert snapshot.bytes_per_second > 0  # only the 100 bytes received after the first sample count
    assert snapshot.bytes_per_second < 100 / 0.05 * 1.5
    assert snapshot.eta_seconds is not None and snapshot.eta_seconds == pytest.approx(400 / snapshot.bytes_per_second)
    tracker.update(state="paused")
    paused = tracker.snapshot()
    assert paused.bytes_per_second == 0.0 and paused.eta_seconds is None and not paused.finished
    tracker.update(state="finished")
    assert tracker.snapshot().finished and tracker.snapshot().to_dict()["state"] == "finished"


def test_the_control_pauses_resumes_and_cancels() -> None:
    control = TransferControl()
    control.pause()
    assert control.pause_requested
    control.resume()
    control.wait_while_paused()  # returns at once when not paused
    started = time.monotonic()
    control.pause()
    control.sleep(5.0)  # a pause cuts a retry back-off short
    assert time.monotonic() - started < 3.0  # far less than the 5 s it was asked to sleep
    control.cancel(keep_partial=True)
    assert control.cancelled and control.keep_partial and not control.pause_requested
    with pytest.raises(TransferCancelled):
        control.wait_while_paused()


@pytest.mark.parametrize(
    ("size", "text"),
    [(None, "unknown"), (17, "17 bytes"), (512_000, "512 kB"), (4_680_000_000, "4.68 GB"),
     (15_230_000_000, "15.23 GB")],
)
def test_human_sizes(size: int | None, text: str) -> None:
    assert human_size(size) == text


def test_discarded_bytes_leave_the_count() -> None:
    tracker = DownloadTracker()
    tracker.update(state="downloading", bytes_total=1000)
    tracker.resumed(300)
    tracker.received(200)
    tracker.discarded(500)  # the server ignored the Range: everything so far is thrown away
    snapshot = tracker.snapshot()
    assert snapshot.bytes_done == 0 and snapshot.resumed_bytes == 0 and snapshot.bytes_per_second == 0.0
