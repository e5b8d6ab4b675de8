"""The headless commands, run the way a user runs them: a real process, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def unidesk(home: Path, *arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, **(env or {}))
    environment.pop("UNIDESK_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "app", "--home", str(home), *arguments],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env=environment,
    )


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("unidesk: error:")]
    assert len(lines) == 1, result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_probe_json_is_one_document_with_the_verdict(tmp_path: Path) -> None:
    result = unidesk(tmp_path, "probe", "--json", "--no-measure")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ram_available_bytes"] <= report["ram_total_bytes"]
    assert report["unified"]["is_unified"] in (True, False)
    assert report["recommended_backend"]["backend"] in ("vllm", "llamacpp")
    # --home keeps everything under the folder: the log file is there.
    assert (tmp_path / "logs" / "unidesk.log").exists()


def test_probe_text_names_the_backend(tmp_path: Path) -> None:
    result = unidesk(tmp_path, "probe", "--no-measure")
    assert result.returncode == 0, result.stderr
    assert "llamacpp" in result.stdout or "llama.cpp" in result.stdout


def test_plan_json_for_a_real_gguf(tmp_path: Path, tiny_gguf: Path) -> None:
    result = unidesk(tmp_path, "plan", str(tiny_gguf), "--ctx", "512", "--seqs", "2", "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    for key in (
        "weights_bytes", "kv_bytes_per_token", "kv_bytes_total", "compute_bytes", "overhead_bytes",
        "embedder_bytes", "total_bytes", "budget_bytes", "fits", "decode_tok_s_roofline", "recommended",
    ):
        assert key in plan, key
    for key in ("context_length", "parallel_chats", "kv_cache_dtype", "fits"):
        assert key in plan["recommended"], key
    assert plan["recommended"]["vllm"] is None
    for key in ("n_ctx", "kv_unified", "swa_full", "n_gpu_layers", "n_batch", "n_ubatch"):
        assert key in plan["recommended"]["llamacpp"], key
    assert (plan["recommended"]["context_length"], plan["recommended"]["parallel_chats"]) == (512, 2)
    assert plan["parallel_chats_reason"] is None  # --seqs (the old name of --chats) fixed the number
    assert plan["fits"] is True
    assert plan["embedder_bytes"] > 0  # the default embedding model is counted
    assert plan["kv_bytes_per_token"] > 0 and plan["decode_tok_s_roofline"] > 0


def test_plan_uses_settings_for_defaults(tmp_path: Path, tiny_gguf: Path) -> None:
    assert unidesk(tmp_path, "settings", "set", "engine.parallel_chats", "3").returncode == 0
    plan = json.loads(unidesk(tmp_path, "plan", str(tiny_gguf), "--json").stdout)
    assert plan["recommended"]["parallel_chats"] == 3


def test_plan_shows_the_automatic_number_of_chats_with_its_reason(tmp_path: Path, tiny_gguf: Path) -> None:
    result = unidesk(tmp_path, "plan", str(tiny_gguf))  # engine.parallel_chats is automatic by default
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if line.startswith("Chats: "))
    assert " at once, chosen automatically: " in line
    plan = json.loads(unidesk(tmp_path, "plan", str(tiny_gguf), "--json").stdout)
    assert plan["parallel_chats_reason"] and plan["parallel_chats_reason"] in line
    assert line.startswith(f"Chats: {plan['parallel_chats']} at once")
    fixed = json.loads(unidesk(tmp_path, "plan", str(tiny_gguf), "--chats", "2", "--json").stdout)
    assert fixed["parallel_chats"] == 2 and fixed["parallel_chats_reason"] is None


def test_plan_missing_file_is_one_clear_line(tmp_path: Path) -> None:
    assert_one_line_error(unidesk(tmp_path, "plan", str(tmp_path / "nope.gguf")), "nope.gguf")


def test_plan_not_a_model_is_one_clear_line(tmp_path: Path, not_a_model_file: Path) -> None:
    assert_one_line_error(unidesk(tmp_path, "plan", str(not_a_model_file)), not_a_model_file.name,
                          "'GGUF'). Pick a .gguf file")  # the reason and its hint keep their English space


def test_plan_truncated_gguf_is_one_clear_line(tmp_path: Path, truncated_gguf: Path) -> None:
    assert_one_line_error(unidesk(tmp_path, "plan", str(truncated_gguf)))


def test_plan_config_with_unknown_architecture(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"architectures": ["MysteryNet"], "model_type": "mystery"}))
    assert_one_line_error(unidesk(tmp_path / "home", "plan", str(config)))


def test_plan_rejects_a_nonsense_context(tmp_path: Path, tiny_gguf: Path) -> None:
    assert_one_line_error(unidesk(tmp_path, "plan", str(tiny_gguf), "--ctx", "-5"), "--ctx")


def test_settings_set_then_show(tmp_path: Path) -> None:
    assert unidesk(tmp_path, "settings", "set", "ui.theme", "dark").returncode == 0
    shown = json.loads(unidesk(tmp_path, "settings", "show", "--json").stdout)
    assert shown["ui.theme"] == "dark"
    assert (tmp_path / "config" / "settings.toml").exists()


def test_settings_set_bad_value_is_refused_and_file_kept(tmp_path: Path) -> None:
    assert unidesk(tmp_path, "settings", "set", "engine.parallel_chats", "4").returncode == 0
    before = (tmp_path / "config" / "settings.toml").read_bytes()
    assert_one_line_error(unidesk(tmp_path, "settings", "set", "engine.parallel_chats", "-1"), "parallel_chats")
    assert_one_line_error(unidesk(tmp_path, "settings", "set", "no.such.key", "1"), "no.such.key")
    assert (tmp_path / "config" / "settings.toml").read_bytes() == before


def test_hand_broken_settings_file_still_starts_and_reports_the_key(tmp_path: Path) -> None:
    settings_file = tmp_path / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text("version = 2\n[engine]\nparallel_chats = \"many\"\n", encoding="utf-8")
    result = unidesk(tmp_path, "settings", "show", "--json")
    assert result.returncode == 0
    assert "engine.parallel_chats" in result.stderr
    shown = json.loads(result.stdout)
    assert isinstance(shown["engine.parallel_chats"], int)
    assert any(p.name.startswith("settings.toml.bad") for p in settings_file.parent.iterdir())


def test_unidesk_home_environment_variable_is_honoured(tmp_path: Path) -> None:
    environment = dict(os.environ, UNIDESK_HOME=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-m", "app", "settings", "path"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == (tmp_path / "config" / "settings.toml").resolve()


def test_global_options_are_accepted_after_the_command(tmp_path: Path) -> None:
    """``unidesk settings path --home DIR``, as the README promises, not only ``--home DIR settings path``."""
    environment = dict(os.environ)
    environment.pop("UNIDESK_HOME", None)
    result = subprocess.run(
        [sys.executable, "-m", "app", "settings", "path", "--home", str(tmp_path), "--verbose"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, env=environment,
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == (tmp_path / "config" / "settings.toml").resolve()
    assert "app.main" in result.stderr  # --verbose after the command printed the log on the console


def test_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """``unidesk kb list | head -1``: when the reader has gone, no traceback and no error line."""
    environment = dict(os.environ)
    environment.pop("UNIDESK_HOME", None)
    read_end, write_end = os.pipe()
    os.close(read_end)  # nobody will ever read: the first write fails with a broken pipe
    try:
        result = subprocess.run(
            [sys.executable, "-m", "app", "--home", str(tmp_path), "settings", "show"],
            cwd=REPO_ROOT, stdout=write_end, stderr=subprocess.PIPE, env=environment, timeout=60,
        )
    finally:
        os.close(write_end)
    stderr = result.stderr.decode()
    assert result.returncode == 0, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr
