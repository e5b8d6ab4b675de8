"""The worker side of the memory verdict: which model, how much a reload frees, how sizes read."""

from __future__ import annotations

from pathlib import Path

from app.core.config import Settings
from app.core.engines.base import EngineConfig, LoadedModel
from app.core.engines.manager import ManagerState, ManagerStatus
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.ui.settings.verdict_planning import (
    MetadataCache,
    compute_verdict,
    format_tokens,
    memory_a_reload_frees,
    model_path_for,
)
from tests.core.planner.fake_hardware import cpu_only


def test_token_counts_read_like_people_say_them() -> None:
    assert [format_tokens(n) for n in (16384, 131072, 1000, 512)] == ["16K", "128K", "1000", "512"]


def test_the_model_is_the_chosen_one_else_the_loaded_one(tmp_path: Path) -> None:
    loaded = LoadedModel("llamacpp", "m", EngineConfig(model_path=tmp_path / "loaded.gguf", context_length=512), 0.1)
    status = ManagerStatus(ManagerState.READY, loaded=loaded)
    assert model_path_for(Settings(), status) == tmp_path / "loaded.gguf"
    chosen = Settings({"model.path": str(tmp_path / "chosen.gguf")})
    assert model_path_for(chosen, status) == tmp_path / "chosen.gguf"
    assert model_path_for(Settings(), ManagerStatus(ManagerState.EMPTY)) is None


def test_a_reload_frees_the_llamacpp_caches_of_the_loaded_model(tiny_gguf: Path) -> None:
    plan = plan_memory(read_model_metadata(tiny_gguf), cpu_only(), PlanRequest("llamacpp"))
    assert memory_a_reload_frees(ManagerStatus(ManagerState.READY, plan=plan)) == (
        plan.kv_bytes_total + plan.compute_bytes
    )
    assert memory_a_reload_frees(ManagerStatus(ManagerState.LOADING, plan=plan)) == 0


def test_metadata_is_read_once_per_file(tiny_gguf: Path) -> None:
    reads: list[Path] = []

    def reader(path: Path):  # type: ignore[no-untyped-def]
        reads.append(path)
        return read_model_metadata(path)

    cache = MetadataCache(reader)
    first = compute_verdict(Settings(), tiny_gguf, cpu_only(), cache)
    second = compute_verdict(Settings({"engine.parallel_chats": 4}), tiny_gguf, cpu_only(), cache)
    assert reads == [tiny_gguf]
    assert first.plan is not None and second.plan is not None
    assert (first.plan.parallel_chats, second.plan.parallel_chats) == (1, 4)
    assert first.selection is not None and first.selection.backend == "llamacpp"


def test_remote_backend_plans_nothing_here(tiny_gguf: Path) -> None:
    verdict = compute_verdict(Settings({"engine.backend": "remote"}), tiny_gguf, cpu_only(), MetadataCache())
    assert verdict.plan is None and verdict.problem is None
    assert verdict.selection is not None and verdict.selection.backend == "remote"


def test_the_verdict_says_how_many_chats_the_planner_chose_and_why(tiny_gguf: Path) -> None:
    settings = Settings({"model.path": str(tiny_gguf)})  # parallel chats: automatic (the default)
    verdict = compute_verdict(settings, tiny_gguf, cpu_only(), MetadataCache())
    assert verdict.plan is not None and verdict.plan.parallel_chats == 1
    assert verdict.plan.parallel_chats_reason == "with 4 CPU cores, one chat at a time answers fastest"
    assert verdict.plan.explanation.endswith(
        "1 chat at a time, chosen automatically: with 4 CPU cores, one chat at a time answers fastest.")
    fixed = compute_verdict(settings.with_changes({"engine.parallel_chats": 2}), tiny_gguf, cpu_only(), MetadataCache())
    assert fixed.plan is not None and fixed.plan.parallel_chats == 2 and fixed.plan.parallel_chats_reason is None
