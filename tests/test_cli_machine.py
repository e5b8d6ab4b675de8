"""Planning for other machines from the command line: built-in profiles, a saved probe of this one, bad files."""

from __future__ import annotations

import json
from pathlib import Path

from tests.test_cli import REPO_ROOT, assert_one_line_error, unidesk

CONFIGS = REPO_ROOT / "tests" / "fixtures" / "model_configs"


def test_list_machines_names_every_profile_with_its_sources(tmp_path: Path) -> None:
    result = unidesk(tmp_path, "probe", "--list-machines")
    assert result.returncode == 0, result.stderr
    for name in ("dgx-spark", "jetson-agx-thor", "jetson-agx-orin-64gb", "gh200", "rtx-4090", "apple-m3-max",
                 "cpu-laptop"):
        assert name in result.stdout
    assert "source: https://www.nvidia.com/en-us/products/workstations/dgx-spark/" in result.stdout


def test_plan_on_a_dgx_spark_gives_kv_per_token_the_largest_context_and_the_roofline(tmp_path: Path) -> None:
    result = unidesk(tmp_path, "plan", str(CONFIGS / "llama-3.1-8b" / "config.json"), "--machine", "dgx-spark",
                     "--json")
    assert result.returncode == 0, result.stderr
    plan = json.loads(result.stdout)
    machine = plan["machine"]
    assert machine["name"] == "dgx-spark" and machine["memory_kind"] == "unified" == plan["memory_kind"]
    assert machine["kv_bytes_per_token"] == 2 * 32 * 8 * 128 * 2  # 128 KiB per token in bf16
    assert machine["largest_context_that_fits"] == 131072  # one chat: the trained maximum fits in 128 GB
    weights = plan["weights_bytes"]
    assert machine["decode_tok_s_roofline_empty"] == plan["decode_tok_s_roofline_empty"]
    assert abs(machine["decode_tok_s_roofline_empty"] - 273e9 / weights) / (273e9 / weights) < 0.02
    text = unidesk(tmp_path, "plan", str(CONFIGS / "qwen3-30b-a3b" / "config.json"), "--machine", "DGX Spark")
    assert text.returncode == 0, text.stderr
    assert "98,304 bytes per token" in text.stdout and "largest context that fits one chat: 40,960" in text.stdout


def test_a_saved_probe_of_this_computer_plans_like_this_computer(tmp_path: Path) -> None:
    probe = unidesk(tmp_path, "probe", "--json", "--no-measure")
    assert probe.returncode == 0, probe.stderr
    saved = tmp_path / "mine.json"
    saved.write_text(probe.stdout, encoding="utf-8")
    again = unidesk(tmp_path, "probe", "--json", "--machine", str(saved))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == json.loads(probe.stdout)  # the file round-trips exactly
    config = str(CONFIGS / "llama-3.1-8b" / "config.json")
    planned = unidesk(tmp_path, "plan", config, "--machine", str(saved), "--backend", "llamacpp", "--ctx", "4096",
                      "--json")
    assert planned.returncode == 0, planned.stderr
    document = json.loads(planned.stdout)
    assert document["machine"]["name"] == str(saved)
    assert document["budget_bytes"] <= json.loads(probe.stdout)["ram_available_bytes"]


def test_a_corrupt_machine_file_is_one_clear_line_and_stays_as_it_was(tmp_path: Path) -> None:
    broken = tmp_path / "mine.json"
    broken.write_text('{"os_name": "Linux", "ram_total_bytes": ', encoding="utf-8")
    result = unidesk(tmp_path, "plan", str(CONFIGS / "llama-3.1-8b" / "config.json"), "--machine", str(broken))
    assert_one_line_error(result, "is not a saved machine description", "unidesk probe --json")
    assert broken.read_text(encoding="utf-8") == '{"os_name": "Linux", "ram_total_bytes": '
    unknown = unidesk(tmp_path, "plan", str(CONFIGS / "llama-3.1-8b" / "config.json"), "--machine", "dgx-sprak")
    assert_one_line_error(unknown, "Unknown machine 'dgx-sprak'", "dgx-spark")


def test_the_catalog_says_what_fits_on_another_machine(tmp_path: Path) -> None:
    spark = unidesk(tmp_path, "models", "list", "--machine", "dgx-spark", "--json")
    laptop = unidesk(tmp_path, "models", "list", "--machine", "cpu-laptop", "--json")
    assert spark.returncode == 0 and laptop.returncode == 0, spark.stderr + laptop.stderr

    def badges(document: str) -> dict[tuple[str, str], str]:
        catalog = json.loads(document)["catalog"]
        return {(model["id"], variant["id"]): variant["fit"]["badge"] for model in catalog
                for variant in model["variants"]}

    on_spark, on_laptop = badges(spark.stdout), badges(laptop.stdout)
    assert json.loads(spark.stdout)["machine"]["name"] == "dgx-spark"
    assert "unsupported" not in on_spark.values()  # vLLM runs the Hugging Face variants on a Spark
    too_big_on_laptop = {key for key, badge in on_laptop.items() if badge == "too_big"}
    assert too_big_on_laptop and all(on_spark[key] != "too_big" for key in too_big_on_laptop)
