"""Download sources: the hub, a mirror and ModelScope on loopback; one failing, the next used, resumed across."""

from __future__ import annotations

import hashlib
import json
import random
import re
import socket
import threading
import time
import urllib.error
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.core.models.downloads import DownloadJob, DownloadSpec
from app.core.models.errors import DownloadError
from app.core.models.file_download import TransferOptions, part_path
from app.core.models.hub import MODELSCOPE, HubClient
from app.core.models.sources import DEFAULT_MIRROR_URL, MODELSCOPE_ENDPOINT, download_sources
from tests.fixtures.fake_hub import FakeHub, running_fake_hub

REPO, FILE = "someone/Tiny-GGUF", "tiny-Q4_K_M.gguf"
MODELSCOPE_REPO = "someone-cn/Tiny-GGUF"
NO_RETRIES = TransferOptions(chunk_size=16 * 1024, max_retries=0, retry_delay_s=0.01)
TIMEOUT_S = 30


def _payload(size: int) -> bytes:
    return random.Random(7).randbytes(size)


def _dead_endpoint() -> str:
    """An address on loopback where nothing listens (connections are refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


@pytest.fixture
def mirror() -> Iterator[FakeHub]:
    with running_fake_hub() as server:
        yield server


def _client(url: str) -> HubClient:
    return HubClient(endpoint=url, timeout_s=5)


def test_an_unreachable_hub_is_said_and_the_mirror_used(mirror: FakeHub, tmp_path: Path) -> None:
    content = _payload(120_000)
    mirror.add_file(REPO, FILE, content)
    dead = _dead_endpoint()
    mirror.throttle(16 * 1024, 0.0)  # a body in chunks, so it can be held part way
    release = mirror.hold_at(60_000)
    job = DownloadJob(DownloadSpec(REPO, tmp_path, files=(FILE,)), [_client(dead), _client(mirror.url)],
                      options=NO_RETRIES).start()
    try:
        deadline = time.monotonic() + TIMEOUT_S
        while job.progress().bytes_done == 0 and time.monotonic() < deadline and not job.done:
            time.sleep(0.01)
        said = job.progress().message  # while the mirror's body is held
    finally:
        release.set()
    result = job.wait(TIMEOUT_S)
    host = dead.removeprefix("http://")
    assert said.startswith(f"{host} failed (Cannot reach {host}: the connection was refused)")
    assert said.endswith(f"downloading from {mirror.url.removeprefix('http://')}")
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    assert result.files[0].verified_by == "sha256"
    assert any(request.server == "cdn" for request in mirror.requests)


def test_a_failing_source_is_resumed_from_its_partial_file_by_the_next(
    hub: FakeHub, mirror: FakeHub, tmp_path: Path
) -> None:
    content = _payload(250_000)
    hub.add_file(REPO, FILE, content)
    mirror.add_file(REPO, FILE, content)
    hub.drop_connection_after(100_000)
    hub.fail_cdn(503, times=5)
    job = DownloadJob(DownloadSpec(REPO, tmp_path, files=(FILE,)), [_client(hub.url), _client(mirror.url)],
                      options=NO_RETRIES)
    result = job.start().wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content
    mirror_ranges = [request.headers.get("Range") for request in mirror.cdn_requests() if request.method == "GET"]
    assert mirror_ranges == ["bytes=100000-"]  # the mirror sent only what the hub had not
    assert result.files[0].verified_by == "sha256" and not part_path(tmp_path / FILE).exists()


def test_when_every_source_fails_the_error_names_each_and_the_setting(hub: FakeHub, tmp_path: Path) -> None:
    dead = _dead_endpoint()
    job = DownloadJob(DownloadSpec(REPO, tmp_path, files=(FILE,)), [_client(dead), _client(hub.url)],
                      options=NO_RETRIES)
    with pytest.raises(DownloadError) as raised:
        job.start().wait(TIMEOUT_S)
    message = str(raised.value)
    assert message.startswith("No download source could provide")
    assert "connection was refused" in message and "404" in message  # the dead one, then the hub without it
    assert "Errno" not in message
    assert "model.download_source" in (raised.value.hint or "")
    assert job.progress().state == "failed"


def test_a_single_source_keeps_its_own_error(tmp_path: Path) -> None:
    job = DownloadJob(DownloadSpec(REPO, tmp_path, files=(FILE,)), _client(_dead_endpoint()), options=NO_RETRIES)
    with pytest.raises(Exception, match="connection was refused"):
        job.start().wait(TIMEOUT_S)


class _FakeModelScope:
    """ModelScope's two endpoints on loopback: the file listing API and resolve URLs with Range."""

    def __init__(self, files: dict[tuple[str, str], bytes]) -> None:
        self.files = files
        self.paths: list[str] = []
        served = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                self._serve(head=True)

            def do_GET(self) -> None:
                self._serve(head=False)

            def _serve(self, head: bool) -> None:
                served.paths.append(self.path)
                listing = re.match(r"^/api/v1/models/([^/]+/[^/]+)/repo/files\?Revision=master&Recursive=true$",
                                   self.path)
                if listing:
                    entries = [{"Path": path, "Size": len(data), "Type": "blob",
                                "Sha256": hashlib.sha256(data).hexdigest()}
                               for (repo, path), data in served.files.items() if repo == listing.group(1)]
                    body = json.dumps({"Code": 200, "Data": {"Files": entries}}).encode()
                    self._reply(200, body, {"Content-Type": "application/json"}, head)
                    return
                resolve = re.match(r"^/models/([^/]+/[^/]+)/resolve/master/(.+)$", self.path)
                data = served.files.get((resolve.group(1), resolve.group(2))) if resolve else None
                if data is None:
                    self._reply(404, b"not found", {}, head)
                    return
                start = 0
                wanted = re.match(r"^bytes=(\d+)-$", self.headers.get("Range") or "")
                if wanted:
                    start = int(wanted.group(1))
                    self._reply(206, data[start:], {"Content-Range": f"bytes {start}-{len(data) - 1}/{len(data)}"},
                                head)
                else:
                    self._reply(200, data, {}, head)

            def _reply(self, status: int, body: bytes, headers: dict[str, str], head: bool) -> None:
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if not head:
                    self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> _FakeModelScope:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


def test_modelscope_serves_a_named_file_under_its_own_repository_id(tmp_path: Path) -> None:
    content = _payload(90_000)
    with _FakeModelScope({(MODELSCOPE_REPO, FILE): content}) as modelscope:
        client = HubClient(modelscope.url, None, 5, flavour=MODELSCOPE)
        spec = DownloadSpec(REPO, tmp_path, files=(FILE,), other_repos=((MODELSCOPE, MODELSCOPE_REPO),),
                            known_sha256=((FILE, hashlib.sha256(content).hexdigest()),))
        result = DownloadJob(spec, [_client(_dead_endpoint()), client], options=NO_RETRIES).start().wait(TIMEOUT_S)
        assert result is not None and (tmp_path / FILE).read_bytes() == content
        assert result.files[0].verified_by == "sha256"
        assert f"/models/{MODELSCOPE_REPO}/resolve/master/{FILE}" in modelscope.paths


def test_modelscope_listing_gives_sizes_and_checksums(tmp_path: Path) -> None:
    files = {(MODELSCOPE_REPO, "config.json"): b"{}", (MODELSCOPE_REPO, "model.safetensors"): _payload(5000)}
    with _FakeModelScope(files) as modelscope:
        listed = HubClient(modelscope.url, None, 5, flavour=MODELSCOPE).list_files(MODELSCOPE_REPO)
    by_path = {remote.path: remote for remote in listed}
    assert set(by_path) == {"config.json", "model.safetensors"}
    assert by_path["model.safetensors"].size == 5000 and by_path["model.safetensors"].checksum is not None


def test_a_model_not_published_on_modelscope_skips_it(hub: FakeHub, tmp_path: Path) -> None:
    content = _payload(10_000)
    hub.add_file(REPO, FILE, content)
    modelscope_first = [HubClient(_dead_endpoint(), None, 5, flavour=MODELSCOPE), _client(hub.url)]
    result = DownloadJob(DownloadSpec(REPO, tmp_path, files=(FILE,)), modelscope_first,
                         options=NO_RETRIES).start().wait(TIMEOUT_S)
    assert result is not None and (tmp_path / FILE).read_bytes() == content


def test_download_sources_follow_the_setting_and_the_environment() -> None:
    environment = {"HF_ENDPOINT": "http://127.0.0.1:9/", "HF_TOKEN": "hf_secret"}
    automatic = download_sources("auto", DEFAULT_MIRROR_URL, environment)
    assert [client.endpoint for client in automatic] == ["http://127.0.0.1:9", DEFAULT_MIRROR_URL, MODELSCOPE_ENDPOINT]
    assert [client.token for client in automatic] == ["hf_secret", "hf_secret", None]  # never sent to ModelScope
    assert [client.endpoint for client in download_sources("mirror", "https://mirror.example/", {})] == [
        "https://mirror.example"]
    assert [client.flavour for client in download_sources("modelscope", DEFAULT_MIRROR_URL, {})] == [MODELSCOPE]
    # A mirror set as HF_ENDPOINT too is tried once.
    twice = download_sources("auto", "https://hf-mirror.com", {"HF_ENDPOINT": "https://hf-mirror.com"})
    assert [client.endpoint for client in twice] == ["https://hf-mirror.com", MODELSCOPE_ENDPOINT]


def test_offline_is_one_clear_sentence_without_errno() -> None:
    client = HubClient("http://no-such-host.invalid", None, 5)
    error = urllib.error.URLError(socket.gaierror(-2, "Name or service not known"))
    reason = client.network_reason(error)
    assert "offline" in reason and "Errno" not in reason and "-2" not in reason


def test_the_setting_offers_exactly_the_sources_and_the_library_follows_it(tmp_path: Path) -> None:
    from app.core.config import Settings, spec_for
    from app.core.config.paths import AppPaths
    from app.core.models.library import ModelLibrary
    from app.core.models.sources import SOURCE_CHOICES

    assert tuple(choice.value for choice in spec_for("model.download_source").choices) == SOURCE_CHOICES
    settings = Settings.defaults().with_changes({"model.download_source": "mirror",
                                                 "model.mirror_url": "https://mirror.example"})
    library = ModelLibrary.open(AppPaths.resolve(str(tmp_path)), settings)
    assert [source.endpoint for source in library.sources] == ["https://mirror.example"]
