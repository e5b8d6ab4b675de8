"""The planner's llama.cpp KV and compute sizes against what llama.cpp itself allocates.

Each case creates a real llama.cpp context for a generated GGUF with the parameters the llama.cpp
backend builds from the plan (``llamacpp_native.context_params``: n_ctx, n_seq_max, kv_unified,
swa_full, batch sizes, flash attention, KV type) and reads the sizes llama.cpp logs through the
app's log router: "llama_kv_cache: size = X MiB (N cells, L layers, s/S seqs), K (t): .., V (t): ..",
"CPU compute buffer size = X MiB" and "CPU  output buffer size = X MiB". On the CPU the plan counts the part of
the compute buffer the engine's graphs write (tests/benchmarks/bench_plan_vs_memory.py measures it), never more
than the reservation, whose own formula is checked here against llama.cpp's figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from app.core.engines.base import EngineConfig
from app.core.planner import PlanRequest, plan_memory, read_model_metadata
from app.core.planner.compute import llamacpp_compute_bytes, llamacpp_output_buffer_bytes
from app.core.planner.engine_plan import LlamaCppPlan
from app.core.planner.kv import kv_bytes_for_cells, llamacpp_kv_layout
from tests.core.planner.fake_hardware import cpu_only
from tests.fixtures.models import GgufFactory, ModelShape

MIB = 1024**2
HEAD_DIM_64 = ModelShape(n_layers=2, n_embd=256, n_heads=4, n_kv_heads=2, n_ff=512)  # q8_0/q4_0 KV need it
KV_SIZE_LINE = re.compile(
    r"llama_kv_cache: size =\s*([\d.]+) MiB \(\s*(\d+) cells,\s*(\d+) layers,\s*(\d+)/(\d+) seqs\), "
    r"K \((\w+)\):\s*([\d.]+) MiB, V \((\w+)\):\s*([\d.]+) MiB"
)
N_CTX_LINE = re.compile(r"llama_context: n_ctx\s+=\s+(\d+)")
COMPUTE_LINE = re.compile(r"CPU compute buffer size =\s*([\d.]+) MiB")
OUTPUT_LINE = re.compile(r"CPU\s+output buffer size =\s*([\d.]+) MiB")


@dataclass(frozen=True)
class Allocation:
    """What llama.cpp logged for one context."""

    n_ctx: int
    kv_mib: str
    cells: int
    layers: int
    streams: int
    k_type: str
    k_mib: str
    v_mib: str
    compute_mib: float
    output_mib: str


def allocate(config: EngineConfig) -> Allocation:
    """Create and free a llama.cpp context as the backend does for ``config``; parse what llama.cpp logged
    (through the app's own log router, which receives llama.cpp's log once any engine has loaded)."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from app.core.engines.backends.llamacpp_native import context_params, install_log_router

    router = install_log_router()
    with router.capture() as lines:
        llama_cpp.llama_backend_init()
        model = llama_cpp.llama_model_load_from_file(
            str(config.model_path).encode(), llama_cpp.llama_model_default_params()
        )
        assert model, "llama.cpp could not load the test model"
        try:
            context = llama_cpp.llama_init_from_model(model, context_params(llama_cpp, config, threads=1))
            assert context, "llama.cpp could not create the context"
            llama_cpp.llama_free(context)
        finally:
            llama_cpp.llama_model_free(model)
    log = "".join(lines)
    size = KV_SIZE_LINE.search(log)
    n_ctx_match = N_CTX_LINE.search(log)
    compute = COMPUTE_LINE.search(log)
    output = OUTPUT_LINE.search(log)
    assert size and n_ctx_match and compute and output, log[-3000:]
    return Allocation(
        n_ctx=int(n_ctx_match.group(1)),
        kv_mib=size.group(1),
        cells=int(size.group(2)),
        layers=int(size.group(3)),
        streams=int(size.group(5)),
        k_type=size.group(6),
        k_mib=size.group(7),
        v_mib=size.group(9),
        compute_mib=float(compute.group(1)),
        output_mib=output.group(1),
    )


def mib_text(value: float) -> str:
    """Bytes as llama.cpp prints them (%.2f MiB)."""
    return f"{value / MIB:.2f}"


CASES = [
    # (shape, weight dtype, tokens per chat, chats, KV type)
    ("llama-tiny", "f32", 1000, 1, "f16"),  # n_ctx 1000 is padded to 1024
    ("llama-mha", "f16", 2048, 1, "f32"),
    ("llama-deep", "q8_0", 1300, 3, "f16"),  # 3900 -> 4096 total, 1365 -> 1536 cells per stream
    ("llama-deep", "f32", 2000, 4, "f16"),
    (HEAD_DIM_64, "f16", 1500, 2, "q8_0"),
    (HEAD_DIM_64, "f32", 2048, 1, "q4_0"),
]


@pytest.mark.parametrize(("shape", "weights", "context", "chats", "kv_type"), CASES)
def test_plan_matches_llamacpp_kv_and_compute(
    tiny_gguf_factory: GgufFactory,
    shape: str | ModelShape,
    weights: str,
    context: int,
    chats: int,
    kv_type: str,
) -> None:
    path = tiny_gguf_factory(shape, weights)  # type: ignore[arg-type]
    model = read_model_metadata(path)
    plan = plan_memory(
        model,
        cpu_only(64, 60),
        PlanRequest(backend="llamacpp", context_length=context, parallel_chats=chats, kv_cache_dtype=kv_type),
    )
    assert plan.fits
    llamacpp = plan.recommended.llamacpp
    assert llamacpp is not None
    config = EngineConfig(path, context, chats, kv_cache_dtype=kv_type, flash_attention="on", llamacpp=llamacpp)
    allocation = allocate(config)

    assert allocation.n_ctx == llamacpp.n_ctx
    streams = 1 if llamacpp.kv_unified else chats
    assert allocation.streams == streams
    assert allocation.cells * streams >= context * chats
    assert allocation.layers == model.n_layers
    assert allocation.k_type == kv_type
    assert allocation.kv_mib == mib_text(plan.kv_bytes_total)
    assert allocation.k_mib == allocation.v_mib == mib_text(plan.kv_bytes_total / 2)
    # What llama.cpp reserves: never more than the formula, at most 9 MiB less; its output buffer exactly.
    reserved = llamacpp_compute_bytes(model, llamacpp.n_ctx // streams, llamacpp.n_ubatch, chats)
    assert allocation.compute_mib * MIB <= reserved <= allocation.compute_mib * MIB + 9 * MIB
    output = llamacpp_output_buffer_bytes(model, chats)
    assert allocation.output_mib == mib_text(output)
    # On the CPU (the plan has no GPU, so no graph sampling) the plan counts the reservation and the output buffer.
    assert plan.compute_bytes == reserved + output


@pytest.mark.parametrize(("context", "chats"), [(1300, 3), (700, 4)])
def test_unified_kv_layout_matches_llamacpp(
    tiny_gguf_factory: GgufFactory, context: int, chats: int
) -> None:
    path = tiny_gguf_factory("llama-deep", "f32")
    model = read_model_metadata(path)
    layout = llamacpp_kv_layout(model, context, chats, kv_unified=True)
    plan = LlamaCppPlan(n_ctx=layout.n_ctx, kv_unified=True)
    allocation = allocate(EngineConfig(path, context, chats, flash_attention="on", llamacpp=plan))
    assert allocation.streams == 1
    assert allocation.cells == layout.full_cells == layout.n_ctx
    assert allocation.kv_mib == mib_text(kv_bytes_for_cells(model, "f16", layout.full_cells, layout.sliding_cells))
