"""The vLLM backend's vLLM-free parts: argument mapping, stats collector, process guard (fake and real /proc)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.core.config import Settings
from app.core.engines.backends.vllm_args import engine_arguments, sampling_arguments, speculative_config
from app.core.engines.backends.vllm_guard import (
    ProcessIdentity,
    descendants,
    engine_child_processes,
    is_alive,
    process_identity,
    start_guard,
)
from app.core.engines.backends.vllm_stats import VllmStatsCollector
from app.core.engines.base import EngineConfig, ModelLoadError, VllmOptions
from app.core.engines.manager import engine_config_from_plan
from app.core.engines.requests import GREEDY, SamplingParams
from app.core.planner import PlanRequest, plan_memory
from app.core.planner.engine_plan import VllmPlan
from app.core.planner.from_settings import plan_request_from_settings
from tests.core.planner.fake_hardware import cpu_only
from tests.core.planner.published_configs import LLAMA_3_2_1B
from tests.core.planner.test_plan import load

GIB = 1024**3


def config(cpu_kvcache_space_gib: int | None = None, **options: object) -> EngineConfig:
    return EngineConfig(Path("/models/llama"), 4096, 3, kv_cache_dtype="bf16",
                        vllm=VllmPlan(block_size=32, cpu_kvcache_space_gib=cpu_kvcache_space_gib),
                        vllm_options=VllmOptions(**options))  # type: ignore[arg-type]


def test_cpu_arguments_size_the_kv_cache_in_bytes_from_the_plan() -> None:
    planned = config(cpu_kvcache_space_gib=3, enforce_eager=True)
    arguments = engine_arguments(planned, kv_cache_memory_bytes=3 * GIB, memory_utilization=None)
    assert arguments["kv_cache_memory_bytes"] == 3 * GIB
    assert "gpu_memory_utilization" not in arguments
    assert (arguments["max_model_len"], arguments["max_num_seqs"], arguments["block_size"]) == (4096, 3, 32)
    assert arguments["enforce_eager"] is True and arguments["enable_prefix_caching"] is True
    assert arguments["kv_cache_dtype"] == "auto" and arguments["model"] == "/models/llama"


def test_gpu_arguments_carry_the_checked_utilization() -> None:
    arguments = engine_arguments(config(cpu_kvcache_space_gib=3, max_num_batched_tokens=2048, seed=7),
                                 kv_cache_memory_bytes=None, memory_utilization=0.201)
    assert arguments["gpu_memory_utilization"] == 0.201 and "kv_cache_memory_bytes" not in arguments
    assert arguments["max_num_batched_tokens"] == 2048 and arguments["enforce_eager"] is False
    assert arguments["seed"] == 7
    fp8 = engine_arguments(EngineConfig(Path("m"), 1024, kv_cache_dtype="fp8"), kv_cache_memory_bytes=None,
                           memory_utilization=0.5)
    assert fp8["kv_cache_dtype"] == "fp8" and "block_size" not in fp8 and "seed" not in fp8


def test_speculative_settings() -> None:
    assert speculative_config(VllmOptions()) is None and speculative_config(VllmOptions(speculative="off")) is None
    ngram = speculative_config(VllmOptions(speculative="ngram", speculative_tokens=5))
    assert ngram is not None and ngram["method"] == "ngram" and ngram["num_speculative_tokens"] == 5
    draft = speculative_config(VllmOptions(speculative="draft", speculative_draft_model="/models/small"))
    assert draft == {"method": "draft_model", "model": "/models/small", "num_speculative_tokens": 4}
    with pytest.raises(ModelLoadError, match="needs a draft model"):
        speculative_config(VllmOptions(speculative="draft"))
    with pytest.raises(ModelLoadError, match="Unknown speculative"):
        speculative_config(VllmOptions(speculative="medusa"))  # type: ignore[arg-type]


def test_settings_reach_vllm_through_the_plan(tmp_path: Path) -> None:
    """The live path: settings -> plan request -> plan -> EngineConfig (engine_config_from_plan) -> vLLM arguments."""
    settings = Settings.defaults().with_changes({
        "engine.speculative": "ngram", "engine.speculative_tokens": 6, "engine.os_reserve_gib": 8.0,
        "engine.block_size": 64, "engine.parallel_chats": 2, "engine.context_length": 2048,
    })
    model = load(tmp_path, LLAMA_3_2_1B)
    plan = plan_memory(model, cpu_only(64, 60), plan_request_from_settings(settings, "vllm"))
    config = engine_config_from_plan(Path("/models/llama-3.2-1b"), plan, settings)
    assert config.llamacpp is None and config.vllm is not None
    assert config.vllm.reserve_bytes == 8 * GIB and config.vllm.memory_kind == "cpu"
    assert config.vllm.cpu_kvcache_space_gib == plan.recommended.vllm.cpu_kvcache_space_gib  # type: ignore[union-attr]
    assert (config.context_length, config.parallel_chats, config.vllm.block_size) == (2048, 2, 64)
    speculative = speculative_config(config.vllm_options)
    assert speculative is not None and speculative["method"] == "ngram"
    assert speculative["num_speculative_tokens"] == 6


def test_a_memory_utilisation_setting_overrides_the_plans(tmp_path: Path) -> None:
    model = load(tmp_path, LLAMA_3_2_1B)
    request = PlanRequest("vllm", 2048, 1)
    plan = plan_memory(model, cpu_only(64, 60), request)
    planned = engine_config_from_plan(Path("m"), plan, Settings.defaults())
    recommended = plan.recommended.vllm
    assert planned.vllm is not None and recommended is not None
    assert planned.vllm.gpu_memory_utilization == recommended.gpu_memory_utilization
    override = Settings.defaults().with_changes({"engine.memory_utilization": 0.5})
    chosen = engine_config_from_plan(Path("m"), plan, override)
    assert chosen.vllm is not None and chosen.vllm.gpu_memory_utilization == 0.5


def test_sampling_arguments() -> None:
    greedy = sampling_arguments(GREEDY)
    assert (greedy["temperature"], greedy["top_k"], greedy["top_p"], greedy["min_p"]) == (0.0, 0, 1.0, 0.0)
    sampled = sampling_arguments(SamplingParams(temperature=0.8, top_k=40, stop=("###",), seed=3, ignore_eos=True))
    assert sampled["top_k"] == 40 and sampled["stop"] == ["###"] and sampled["seed"] == 3 and sampled["ignore_eos"]


def scheduler(usage: float, running: int, waiting: int, queries: int, hits: int, drafts: int = 0, accepted: int = 0
              ) -> SimpleNamespace:
    speculation = SimpleNamespace(num_draft_tokens=drafts, num_accepted_tokens=accepted) if drafts else None
    return SimpleNamespace(
        kv_cache_usage=usage, num_running_reqs=running, num_waiting_reqs=waiting,
        prefix_cache_stats=SimpleNamespace(queries=queries, hits=hits), spec_decoding_stats=speculation,
    )


def iteration(generated: int, prompt: int = 0, first_tokens: tuple[float, ...] = (), finished: int = 0
              ) -> SimpleNamespace:
    return SimpleNamespace(num_generation_tokens=generated, num_prompt_tokens=prompt,
                           time_to_first_tokens_iter=list(first_tokens), finished_requests=[None] * finished)


def test_collector_accumulates_vllm_statistics() -> None:
    now = [100.0]
    collector = VllmStatsCollector(clock=lambda: now[0])
    collector.record(scheduler(0.25, 2, 1, queries=256, hits=0), iteration(2, prompt=256, first_tokens=(0.05, 0.07)))
    for step in range(1, 11):
        now[0] = 100.0 + step * 0.1
        collector.record(scheduler(0.3, 2, 0, queries=256 if step == 5 else 0, hits=128 if step == 5 else 0,
                                   drafts=4, accepted=3), iteration(2, finished=2 if step == 10 else 0))
    snapshot = collector.snapshot()
    assert (snapshot.kv_cache_usage, snapshot.running_requests, snapshot.waiting_requests) == (0.3, 2, 0)
    assert snapshot.prefix_cache_hit_rate == 128 / 512
    assert snapshot.speculative_acceptance_rate == 30 / 40
    assert snapshot.last_time_to_first_token_s == 0.07
    assert snapshot.tokens_generated == 22 and snapshot.requests_finished == 2
    assert snapshot.decode_tokens_per_s == pytest.approx(20 / 1.0)  # 10 steps of 2 tokens in 1 s
    now[0] += 60  # idle: no recent steps, no speed
    assert collector.snapshot().decode_tokens_per_s is None


def write_process(proc: Path, pid: int, ppid: int, state: str = "S", start: int = 1000, cmdline: str = "x") -> None:
    folder = proc / str(pid)
    folder.mkdir(parents=True)
    fields = [state, str(ppid)] + ["0"] * 17 + [str(start)] + ["0"] * 10
    (folder / "stat").write_text(f"{pid} (VLLM::Engine Core) {' '.join(fields)}\n")
    (folder / "cmdline").write_bytes(cmdline.replace(" ", "\0").encode())


def test_process_tree_from_a_fake_proc(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    write_process(proc, 10, 1, cmdline="python -m app")
    write_process(proc, 11, 10, start=2000, cmdline="VLLM::EngineCore")
    write_process(proc, 12, 11, start=2100, cmdline="VLLM::Worker")
    write_process(proc, 13, 10, cmdline="python -B -c from multiprocessing.resource_tracker import main")
    write_process(proc, 14, 10, cmdline="python -c from app.core.engines.backends.vllm_guard import main")
    write_process(proc, 15, 10, state="Z", start=3000, cmdline="VLLM::EngineCore")
    core = process_identity(11, proc)
    assert core == ProcessIdentity(11, 2000)
    assert is_alive(core, proc)
    assert not is_alive(ProcessIdentity(11, 1999), proc)  # same pid, another process
    assert not is_alive(ProcessIdentity(15, 3000), proc)  # a zombie holds nothing
    assert not is_alive(ProcessIdentity(99, 1), proc)
    assert sorted(descendants(10, proc)) == [11, 12, 13, 14, 15]
    assert [identity.pid for identity in engine_child_processes(10, proc)] == [11, 15]


def test_the_apps_own_spawned_helpers_are_not_taken_for_engine_processes(tmp_path: Path) -> None:
    """A document reader or embedding-model child started while vLLM loads has vLLM's command line too;
    its short name tells it apart, so unloading vLLM leaves it running."""
    proc = tmp_path / "proc"
    spawned = "python -c from multiprocessing.spawn import spawn_main; spawn_main() --multiprocessing-fork"
    write_process(proc, 10, 1, cmdline="python -m app")
    write_process(proc, 11, 10, start=2000, cmdline=spawned)  # vLLM's engine core
    write_process(proc, 12, 10, start=2100, cmdline=spawned)  # the app's embedding model
    (proc / "11" / "comm").write_text("VLLM::EngineCor\n")
    (proc / "12" / "comm").write_text("unidesk-model\n")
    assert [identity.pid for identity in engine_child_processes(10, proc)] == [11]


def test_the_guard_kills_its_targets_when_the_app_goes_away_and_spares_them_on_release() -> None:
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(2)]
    try:
        identities = [process_identity(sleeper.pid) for sleeper in sleepers]
        assert all(identities)
        released = start_guard([identities[0]])  # type: ignore[list-item]
        released.release()
        abandoned = start_guard([identities[1]])  # type: ignore[list-item]
        assert abandoned._process.stdin is not None
        abandoned._process.stdin.close()  # what the kernel does when the app dies
        assert sleepers[1].wait(10) != 0  # killed by the guard
        abandoned._process.wait(10)
        time.sleep(0.2)
        assert sleepers[0].poll() is None  # a clean release kills nothing
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
