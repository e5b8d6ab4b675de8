"""`unidesk serve`: a real process serving the API; found through its printed URL and token."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from app.core.services.api.auth import token_path

pytestmark = pytest.mark.integration
REPO_ROOT = Path(__file__).resolve().parents[2]


def test_serve_prints_url_and_token_answers_and_stops_on_sigterm(tmp_path: Path, tiny_gguf: Path) -> None:
    environment = dict(os.environ)
    environment.pop("UNIDESK_HOME", None)
    home = tmp_path / "home"
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "--home", str(home), "serve", "--model", str(tiny_gguf), "--port", "0",
         "--ctx", "512"],
        cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
    )
    try:
        assert process.stdout is not None
        first, second = process.stdout.readline(), process.stdout.readline()
        assert first.startswith("UniDesk API for ") and " on http://127.0.0.1:" in first, first
        url = first.split(" on ", 1)[1].strip()
        token = second.removeprefix("token: ").strip()
        assert url.endswith("/v1") and second.startswith("token: ")
        saved = token_path(home / "data")
        assert saved.read_text().strip() == token and stat.S_IMODE(saved.stat().st_mode) == 0o600

        client = openai.OpenAI(base_url=url, api_key=token, max_retries=0, timeout=60)
        model = client.models.list().data[0].id
        completion = client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "hi"}], max_tokens=5, temperature=0
        )
        assert completion.usage is not None and completion.usage.completion_tokens == 5
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
