"""vLLM (its CPU build, for real) is given the plan's KV cache in bytes and allocates exactly that many tokens;
the model file's pages are dropped from the page cache after the load."""

from __future__ import annotations

from pathlib import Path

from app.core.config import Settings
from app.core.engines.base import BackendName, Engine
from app.core.engines.manager import EngineManager
from app.core.planner import kv_bytes_per_token
from tests.core.engines.test_page_cache import resident_fraction
from tests.integration.test_vllm_lifecycle import vllm_cpu_machine
from tests.integration.vllm_support import VLLM_MARKS, EagerVllmEngine

pytestmark = VLLM_MARKS


def test_the_kv_cache_vllm_allocates_is_the_planned_bytes(tiny_hf_llama: Path) -> None:
    def factory(backend: BackendName) -> Engine:
        assert backend == "vllm"
        return EagerVllmEngine()

    settings = Settings.defaults().with_changes({"engine.backend": "vllm", "engine.warmup": False})
    manager = EngineManager(vllm_cpu_machine, lambda: settings, engine_factory=factory)
    loaded = manager.load(tiny_hf_llama, context_length=1024, parallel_chats=2)
    try:
        plan = manager.status().plan
        assert plan is not None and loaded.config.vllm is not None
        planned_bytes = loaded.config.vllm.kv_cache_memory_bytes
        assert planned_bytes == plan.recommended.kv_bytes_total > 0
        metrics = manager.metrics()
        assert metrics is not None
        per_token = kv_bytes_per_token(plan.model, plan.kv_cache_dtype, plan.context_length)
        # vLLM's own figure: blocks x block size, as it allocated them from kv_cache_memory_bytes.
        assert metrics.kv_cells_capacity * per_token == planned_bytes
        assert metrics.kv_cells_capacity >= 1024 * 2  # room for both chats at full length
        assert any("KV cache sized in bytes" in note for note in loaded.notes)
        for weights in tiny_hf_llama.glob("*.safetensors"):
            assert resident_fraction(weights) < 0.5  # read to load, then dropped from the page cache
    finally:
        manager.unload()
