"""A small model-hub client on the standard library: file facts, repository listing, ranged GETs.

It speaks to the Hugging Face hub and its mirrors (``flavour="huggingface"``: same paths, e.g.
hf-mirror.com as ``HF_ENDPOINT`` does) and to ModelScope (``flavour="modelscope"``: its own file URLs
and listing API). Which of them a download tries, and in which order, is
:mod:`app.core.models.sources`'s business.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from app import __version__
from app.core.models.checksums import Checksum, checksum_from_headers, parse_etag
from app.core.models.errors import HubError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "ModelErrors"

DEFAULT_ENDPOINT = "https://huggingface.co"
HUGGINGFACE, MODELSCOPE = "huggingface", "modelscope"
MODELSCOPE_REVISION = "master"  # ModelScope mirrors follow their default branch; checksums guard the content
ENDPOINT_ENV = "HF_ENDPOINT"
TOKEN_ENV = "HF_TOKEN"
MAX_REDIRECTS = 5
_NETWORK_HINT = Text(CONTEXT, QT_TRANSLATE_NOOP(
    "ModelErrors", "Check the internet connection (or the HF_ENDPOINT variable) and try again."))
_TRY_LATER = Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Try again later."))


@dataclass(frozen=True)
class RemoteFile:
    """One file of a hub repository: its resolve URL, size and the checksum the hub states (if any)."""

    repo_id: str
    revision: str
    path: str
    url: str
    size: int | None
    checksum: Checksum | None


class _SafeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects (the hub sends file downloads to its CDN) but never sends the token to another host."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and urlsplit(newurl).netloc != urlsplit(req.full_url).netloc:
            new.remove_header("Authorization")
        return new


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Makes a 3xx answer an HTTPError, so its headers (X-Linked-Etag, Location) can be read."""

    def redirect_request(
        self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        return None


@dataclass(frozen=True)
class HubClient:
    """Talks to ``endpoint`` (huggingface.co, a mirror, or ModelScope) with an optional access ``token``.

    Nothing here runs unless a caller asks for a download: the client holds no connection.
    """

    endpoint: str = DEFAULT_ENDPOINT
    token: str | None = field(default=None, repr=False)
    timeout_s: float = 30.0
    flavour: str = HUGGINGFACE

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None, *, timeout_s: float = 30.0) -> HubClient:
        """Endpoint from HF_ENDPOINT (default huggingface.co), token from HF_TOKEN (default none)."""
        env = os.environ if environ is None else environ
        endpoint = (env.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT).strip().rstrip("/")
        token = (env.get(TOKEN_ENV) or "").strip() or None
        return cls(endpoint=endpoint, token=token, timeout_s=timeout_s)

    @property
    def host(self) -> str:
        """The endpoint's host name, for messages."""
        return urlsplit(self.endpoint).netloc or self.endpoint

    def file_url(self, repo_id: str, path: str, revision: str = "main") -> str:
        """The ``resolve`` URL of ``path`` in ``repo_id`` at ``revision``."""
        if self.flavour == MODELSCOPE:
            return f"{self.endpoint}/models/{repo_id}/resolve/{MODELSCOPE_REVISION}/{quote(path)}"
        return f"{self.endpoint}/{repo_id}/resolve/{quote(revision, safe='')}/{quote(path)}"

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = {"User-Agent": f"UniDesk/{__version__}", "Accept-Encoding": "identity"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        headers.update(extra or {})
        return headers

    def file_info(self, repo_id: str, path: str, revision: str = "main") -> RemoteFile:
        """Size and checksum of one file, from a HEAD request. LFS files answer with a redirect to the
        CDN whose X-Linked-Size / X-Linked-Etag describe the file; other redirects (a renamed
        repository) are followed, without the token once they leave the endpoint's host."""
        url = self.file_url(repo_id, path, revision)
        opener = urllib.request.build_opener(_NoRedirects())
        what = f"{repo_id}/{path}"
        target = url
        for _ in range(MAX_REDIRECTS):
            headers_to_send = self._headers()
            if urlsplit(target).netloc != urlsplit(self.endpoint).netloc:
                headers_to_send.pop("Authorization", None)
            request = urllib.request.Request(target, method="HEAD", headers=headers_to_send)
            try:
                with opener.open(request, timeout=self.timeout_s) as response:
                    headers = response.headers
            except urllib.error.HTTPError as error:
                if not 300 <= error.code < 400:
                    raise self._http_error(error, what) from error
                headers = error.headers
                location = headers.get("Location")
                linked = headers.get("X-Linked-Etag") or headers.get("X-Linked-Size")
                if not linked and location:
                    target = urljoin(target, location)
                    continue
            except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
                raise self._network_error(error) from error
            size_text = headers.get("X-Linked-Size") or headers.get("Content-Length")
            size = int(size_text) if size_text and size_text.isdigit() else None
            return RemoteFile(repo_id, revision, path, url, size, checksum_from_headers(headers))
        raise HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "ModelErrors", "The hub redirected {0} too many times."), (what,)), _TRY_LATER)

    def list_files(self, repo_id: str, revision: str = "main") -> tuple[RemoteFile, ...]:
        """Every file of a repository with sizes and checksums (the hub's model API, ``blobs=true``)."""
        if self.flavour == MODELSCOPE:
            return self._list_modelscope_files(repo_id)
        url = f"{self.endpoint}/api/models/{repo_id}/revision/{quote(revision, safe='')}?blobs=true"
        document = self._get_json(url, repo_id)
        siblings = document.get("siblings") if isinstance(document, dict) else None
        if not isinstance(siblings, list):
            raise HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "The hub's file list for {0} is not in the expected form."), (repo_id,)),
                           _TRY_LATER)
        files: list[RemoteFile] = []
        for sibling in siblings:
            if not isinstance(sibling, dict) or not isinstance(sibling.get("rfilename"), str):
                continue
            lfs = sibling.get("lfs") if isinstance(sibling.get("lfs"), dict) else None
            size = sibling.get("size", lfs.get("size") if lfs else None)
            checksum = parse_etag(str(lfs.get("sha256") or "")) if lfs else parse_etag(str(sibling.get("blobId") or ""))
            path = sibling["rfilename"]
            files.append(RemoteFile(repo_id, revision, path, self.file_url(repo_id, path, revision),
                                    size if isinstance(size, int) else None, checksum))
        return tuple(files)

    def _list_modelscope_files(self, repo_id: str) -> tuple[RemoteFile, ...]:
        """ModelScope's listing: ``/api/v1/models/<id>/repo/files`` answers ``{"Data": {"Files": [...]}}``."""
        url = f"{self.endpoint}/api/v1/models/{repo_id}/repo/files?Revision={MODELSCOPE_REVISION}&Recursive=true"
        document = self._get_json(url, repo_id)
        data = document.get("Data") if isinstance(document, dict) else None
        entries = data.get("Files") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "The hub's file list for {0} is not in the expected form."), (repo_id,)),
                           _TRY_LATER)
        files: list[RemoteFile] = []
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("Type") == "tree" or not isinstance(entry.get("Path"), str):
                continue
            size = entry.get("Size")
            path = entry["Path"]
            files.append(RemoteFile(repo_id, MODELSCOPE_REVISION, path, self.file_url(repo_id, path),
                                    size if isinstance(size, int) else None,
                                    parse_etag(str(entry.get("Sha256") or ""))))
        return tuple(files)

    def _get_json(self, url: str, what: str) -> Any:
        request = urllib.request.Request(url, headers=self._headers({"Accept": "application/json"}))
        try:
            with urllib.request.build_opener(_SafeRedirects()).open(request, timeout=self.timeout_s) as response:
                body = response.read()
        except urllib.error.HTTPError as error:
            raise self._http_error(error, what) from error
        except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
            raise self._network_error(error) from error
        try:
            return json.loads(body)
        except ValueError as error:
            raise HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "The hub's answer about {0} is not valid JSON."), (what,)), _TRY_LATER) from error

    def open_range(self, url: str, start: int) -> http.client.HTTPResponse:
        """GET ``url`` from byte ``start`` on (a Range request when ``start`` > 0), following the
        redirect to the CDN. A 416 answer comes back as an HTTPError for the caller to handle."""
        extra = {"Range": f"bytes={start}-"} if start > 0 else {}
        request = urllib.request.Request(url, headers=self._headers(extra))
        response: http.client.HTTPResponse = urllib.request.build_opener(_SafeRedirects()).open(
            request, timeout=self.timeout_s
        )
        return response

    def http_error(self, error: urllib.error.HTTPError, what: str) -> HubError:
        """A user-facing error for an HTTP error answer about ``what``."""
        return self._http_error(error, what)

    def network_error(self, error: BaseException) -> HubError:
        """A user-facing error for a failure to reach or hear from the hub."""
        return self._network_error(error)

    def _http_error(self, error: urllib.error.HTTPError, what: str) -> HubError:
        code = error.code
        error_code = (error.headers.get("X-Error-Code") or "") if error.headers else ""
        if error_code == "RepoNotFound":
            return HubError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "{0} was not found on {1} ({2}): the repository does not exist or is private."),
                    (what, self.host, code)),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors", "Check the model id; for a private repository set HF_TOKEN to a token that can "
                                   "read it.")),
                status=code,
            )
        if code == 404:
            return HubError(Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} was not found on {1} (404)."),
                                 (what, self.host)),
                            Text(CONTEXT, QT_TRANSLATE_NOOP(
                                "ModelErrors", "The catalog entry may be out of date, or the file was renamed or "
                                               "removed.")),
                            status=code)
        if error_code == "GatedRepo" or code == 403:
            return HubError(
                Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} is a gated model: {1} refused access ({2})."),
                     (what, self.host, code)),
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "ModelErrors",
                    "Accept the model's licence on its Hugging Face page, then set HF_TOKEN to that account's token.")),
                status=code,
            )
        if code == 401:
            hint = (Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "The token in HF_TOKEN was rejected; create a new read token on huggingface.co."))
                    if self.token else Text(CONTEXT, QT_TRANSLATE_NOOP(
                        "ModelErrors", "Set HF_TOKEN to a Hugging Face access token that can read it.")))
            return HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "{0} refused access to {1} (401 Unauthorized)."),
                                 (self.host, what)), hint, status=code)
        if code == 429:
            return HubError(Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "{0} is limiting requests (429 Too Many Requests)."), (self.host,)),
                            Text(CONTEXT, QT_TRANSLATE_NOOP(
                                "ModelErrors", "Wait a few minutes, then run the download again: it resumes.")),
                            status=code)
        return HubError(Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} answered {1} {2} for {3}."),
                             (self.host, code, str(error.reason), what)),
                        Text(CONTEXT, QT_TRANSLATE_NOOP(
                            "ModelErrors", "Try again later: the download resumes where it stopped.")), status=code)

    def network_reason(self, error: BaseException) -> str:
        """Why the hub could not be reached or heard from, in words (no errno), without a closing full stop."""
        reason = error.reason if isinstance(error, urllib.error.URLError) else error
        if isinstance(error, TimeoutError) or isinstance(reason, TimeoutError):
            return Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0} did not answer within {1:.0f} s"),
                        (self.host, self.timeout_s))
        if isinstance(reason, socket.gaierror):
            return Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Cannot reach {0}: this computer seems to be offline (the name could not be looked up)"),
                (self.host,))
        if isinstance(reason, ConnectionRefusedError):
            return Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Cannot reach {0}: the connection was refused"),
                        (self.host,))
        if isinstance(reason, ssl.SSLError):
            return Text(CONTEXT, QT_TRANSLATE_NOOP(
                "ModelErrors", "Cannot reach {0}: the secure connection failed (a proxy or the system clock?)"),
                (self.host,))
        if isinstance(reason, OSError) and reason.strerror:
            return Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Cannot reach {0}: {1}"),
                        (self.host, reason.strerror))
        return Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "Cannot reach {0}: {1}"), (self.host, str(reason)))

    def _network_error(self, error: BaseException) -> HubError:
        return HubError(Text(CONTEXT, QT_TRANSLATE_NOOP("ModelErrors", "{0}."), (self.network_reason(error),)),
                        _NETWORK_HINT)
