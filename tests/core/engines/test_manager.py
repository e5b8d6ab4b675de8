"""EngineManager logic: backend choice, planning, OOM retry, switching, warm-up (with a fake engine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.base import BackendName, ModelLoadError, NoModelLoadedError
from app.core.engines.manager import WARM_UP_FRACTION, EngineManager, ManagerState, smaller_request
from app.core.engines.requests import ChatRequest
from app.core.planner import PlanRequest
from app.core.util.translatable import Text
from tests.core.engines.fake_engine import EngineLog, FakeEngine
from tests.core.planner.fake_hardware import cpu_only, gb10


def make_manager(
    log: EngineLog, settings: Settings | None = None, max_context: int | None = None
) -> EngineManager:
    def factory(backend: BackendName) -> FakeEngine:
        log.events.append(f"create {backend}")
        return FakeEngine(log, max_context)

    chosen = settings or Settings.defaults()
    return EngineManager(lambda: cpu_only(), lambda: chosen, engine_factory=factory)  # type: ignore[arg-type]


def test_load_plans_warms_up_and_serves(tiny_gguf: Path) -> None:
    log = EngineLog()
    manager = make_manager(log, Settings.defaults().with_changes({"engine.parallel_chats": 3}))
    loaded = manager.load(tiny_gguf, context_length=1024)
    assert log.events == ["create llamacpp", "load ctx=1024 seqs=3", "warm_up"]
    assert loaded.config.parallel_chats == 3
    assert manager.status().state is ManagerState.READY
    assert manager.status().selection is not None and manager.status().selection.backend == "llamacpp"
    answer = manager.submit(ChatRequest.single_prompt("hi"))
    assert "".join(answer) == "echo: hi"


def test_context_defaults_to_the_models_trained_length(tiny_gguf: Path) -> None:
    log = EngineLog()
    loaded = make_manager(log).load(tiny_gguf)
    plan = loaded.config
    assert plan.context_length == 2048  # the fixture's n_ctx_train; the machine has room for it


def test_warm_up_can_be_turned_off(tiny_gguf: Path) -> None:
    log = EngineLog()
    make_manager(log, Settings.defaults().with_changes({"engine.warmup": False})).load(tiny_gguf)
    assert "warm_up" not in log.events


def test_out_of_memory_retries_once_smaller_and_says_so(tiny_gguf: Path) -> None:
    log = EngineLog()
    manager = make_manager(log, max_context=1024)
    loaded = manager.load(tiny_gguf, context_length=2048)
    assert [e for e in log.events if e.startswith("load")] == ["load ctx=2048 seqs=1", "load ctx=1024 seqs=1"]
    assert log.events.count("unload") == 1  # the failed engine was freed before the retry
    assert any("Out of memory" in note and "2048" in note for note in loaded.notes)
    assert all(isinstance(note, Text) for note in loaded.notes if "Out of memory" in note)  # the window translates it


def test_warming_up_is_reported_as_a_step_of_the_load(tiny_gguf: Path) -> None:
    steps: list[tuple[float, str]] = []
    make_manager(EngineLog()).load(tiny_gguf, lambda fraction, step: steps.append((fraction, step)))
    assert steps[-1] == (WARM_UP_FRACTION, "Warming up") and isinstance(steps[-1][1], Text)


def test_out_of_memory_twice_gives_up_with_the_error(tiny_gguf: Path) -> None:
    log = EngineLog()
    manager = make_manager(log, max_context=256)
    with pytest.raises(ModelLoadError) as caught:
        manager.load(tiny_gguf, context_length=2048)
    assert caught.value.cause == "out_of_memory"
    assert len([e for e in log.events if e.startswith("load")]) == 2
    assert manager.status().state is ManagerState.FAILED
    with pytest.raises(NoModelLoadedError):
        manager.submit(ChatRequest.single_prompt("hi"))


def test_switching_unloads_the_old_model_before_loading_the_new(tiny_gguf_factory) -> None:  # type: ignore[no-untyped-def]
    log = EngineLog()
    manager = make_manager(log)
    manager.load(tiny_gguf_factory("llama-tiny", "f32"))
    log.events.clear()
    manager.load(tiny_gguf_factory("llama-mha", "f32"))
    assert log.events[0] == "unload"
    assert log.events[1] == "create llamacpp"


def test_not_a_model_fails_clearly_and_manager_stays_usable(not_a_model_file: Path, tiny_gguf: Path) -> None:
    log = EngineLog()
    manager = make_manager(log)
    with pytest.raises(Exception) as caught:
        manager.load(not_a_model_file)
    assert not_a_model_file.name in str(caught.value)
    assert manager.status().state is ManagerState.FAILED
    manager.load(tiny_gguf)
    assert manager.status().state is ManagerState.READY


def test_hf_folder_on_a_llamacpp_machine_says_why(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    manager = make_manager(EngineLog())
    with pytest.raises(ModelLoadError) as caught:
        manager.load(tmp_path)
    assert "gguf" in str(caught.value).lower()


def test_gguf_forced_to_vllm_still_runs_on_llamacpp(tiny_gguf: Path) -> None:
    log = EngineLog()
    settings = Settings.defaults().with_changes({"engine.backend": "vllm"})
    manager = EngineManager(lambda: gb10(), lambda: settings,
                            engine_factory=lambda b: (log.events.append(f"create {b}"), FakeEngine(log))[1])  # type: ignore[arg-type,return-value]
    manager.load(tiny_gguf)
    assert "create llamacpp" in log.events
    status = manager.status()
    assert status.selection is not None and "vLLM" in status.selection.reason


def test_smaller_request_halves_context_then_chats() -> None:
    request = PlanRequest(backend="llamacpp", context_length=4096, parallel_chats=4)
    assert smaller_request(request) == PlanRequest(backend="llamacpp", context_length=2048, parallel_chats=4)
    tiny = PlanRequest(backend="llamacpp", context_length=512, parallel_chats=4)
    assert smaller_request(tiny) == PlanRequest(backend="llamacpp", context_length=512, parallel_chats=2)
    assert smaller_request(PlanRequest(backend="llamacpp", context_length=512, parallel_chats=1)) is None


def test_the_backend_gets_the_plans_llamacpp_layout(tiny_gguf: Path) -> None:
    """The contract: what the planner decided for llama.cpp reaches the engine unchanged, typed."""
    log = EngineLog()
    settings = Settings.defaults().with_changes({"engine.parallel_chats": 3, "engine.gpu_layers": 5})
    manager = make_manager(log, settings)
    manager.load(tiny_gguf, context_length=1000)
    config, plan = log.configs[-1], manager.status().plan
    assert plan is not None and config.llamacpp == plan.recommended.llamacpp
    assert config.vllm is None and config.llamacpp is not None
    assert (config.context_length, config.parallel_chats) == (1000, 3)
    assert config.llamacpp.n_ctx == 3 * 1024  # each chat's 1000 tokens padded to 1024 cells, one stream per chat
    assert config.llamacpp.kv_unified is False and config.llamacpp.swa_full is True
    assert config.llamacpp.n_gpu_layers == 0  # a CPU-only machine: no layer goes to a GPU whatever the setting


def test_automatic_chats_follow_the_machine(tiny_gguf: Path) -> None:
    log = EngineLog()
    manager = EngineManager(lambda: gb10(), lambda: Settings.defaults(),
                            engine_factory=lambda b: FakeEngine(log))  # type: ignore[arg-type,return-value]
    loaded = manager.load(tiny_gguf)
    assert loaded.config.parallel_chats == 4  # the default is automatic: a GPU answers several chats at once
    status = manager.status()
    assert status.plan is not None and status.plan.parallel_chats_reason is not None
    make_manager(log).load(tiny_gguf)  # the fake laptop has 4 cores: one chat at a time
    assert log.configs[-1].parallel_chats == 1
