"""The embedder and reranker in a child process (the placement for GPU builds of llama.cpp), with real models:
the same vectors and scores as in process, a dying child recovered once, load errors as in process, no
PyTorch in the parent, and a child that never outlives its parent."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import psutil
import pytest

from app.core.kb.embedder import Embedder
from app.core.kb.errors import EmbeddingModelError
from app.core.kb.model_placement import Placement, choose_placement
from app.core.kb.model_process import CHILD_LOGGER
from app.core.kb.reranker import Reranker
from tests.core.kb.model_process_servers import FAIL_TEXT, MARKER_VARIABLE
from tests.fixtures.embedding_models import write_tiny_sentence_transformer
from tests.fixtures.log_records import WAIT_S, records_of

REPO_ROOT = Path(__file__).resolve().parents[3]
SERVERS = "tests.core.kb.model_process_servers"
TEXTS = ["The cat sleeps on the sofa.", "A kitten naps on the couch.", "Interest rates rose in May.",
         "猫在沙发上睡觉。", "retrieval augmented generation " * 60, "x"] * 3
CHILD_EXIT_TIMEOUT_S = 120
HEAVY = ("torch", "sentence_transformers", "transformers")


@pytest.fixture(scope="module")
def in_process() -> Embedder:
    return Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.SAME_PROCESS)


@pytest.fixture(scope="module")
def in_child() -> Iterator[Embedder]:
    embedder = Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.CHILD_PROCESS, batch_size=4)
    yield embedder
    embedder.close()


def test_the_automatic_placement_separates_exactly_on_a_gpu_build_of_llama_cpp() -> None:
    assert choose_placement(gpu_llama=lambda: True).separate
    assert "GPU build" in choose_placement(gpu_llama=lambda: True).reason
    assert not choose_placement(gpu_llama=lambda: False).separate
    assert choose_placement(Placement.CHILD_PROCESS, gpu_llama=lambda: False).separate
    assert not choose_placement(Placement.SAME_PROCESS, gpu_llama=lambda: True).separate


def test_the_child_gives_the_same_vectors_tokens_and_facts(in_process: Embedder, in_child: Embedder) -> None:
    expected, got = in_process.embed_documents(TEXTS), in_child.embed_documents(TEXTS)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-5)
    np.testing.assert_allclose(in_child.embed_query("Where is the cat?"), in_process.embed_query("Where is the cat?"),
                               atol=1e-5)
    assert in_child.embed_documents([]).shape == (0, 384)
    for text in ("hello world", TEXTS[3], TEXTS[4]):
        assert in_child.count_tokens(text) == in_process.count_tokens(text)
        assert in_child.unknown_token_fraction(text) == in_process.unknown_token_fraction(text)
    assert (in_child.dimension, in_child.max_seq_length, in_child.device) == (384, 256, "cpu")
    assert in_child.chunk_tokens_for(512) == in_process.chunk_tokens_for(512)
    assert in_child.child_pid is not None and in_child.child_pid != os.getpid() and in_process.child_pid is None


def test_a_family_with_prefixes_embeds_the_same_in_the_child(tmp_path: Path) -> None:
    folder = write_tiny_sentence_transformer(tmp_path / "multilingual-e5-small")
    local = Embedder(str(folder), device="cpu", placement=Placement.SAME_PROCESS)
    child = Embedder(str(folder), device="cpu", placement=Placement.CHILD_PROCESS)
    try:
        assert local.source.spec is not None and local.source.spec.passage_prefix, "the e5 family has prefixes"
        np.testing.assert_allclose(child.embed_documents(TEXTS[:4]), local.embed_documents(TEXTS[:4]), atol=1e-5)
        np.testing.assert_allclose(child.embed_query("cat"), local.embed_query("cat"), atol=1e-5)
        assert child.chunk_tokens_for(512) == local.chunk_tokens_for(512)
    finally:
        child.close()


def test_a_child_killed_mid_batch_is_restarted_and_the_batch_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_process: Embedder
) -> None:
    marker = tmp_path / "died"
    monkeypatch.setenv(MARKER_VARIABLE, str(marker))
    embedder = Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.CHILD_PROCESS, batch_size=4,
                        child_server=f"{SERVERS}:DiesOnceMidBatch")
    try:
        embedder.load()
        first_pid = embedder.child_pid
        assert first_pid is not None
        vectors = embedder.embed_documents(TEXTS)
        assert marker.read_text() == str(first_pid), "the first child was killed after sending one part"
        assert embedder.child_pid not in (None, first_pid)
        np.testing.assert_allclose(vectors, in_process.embed_documents(TEXTS), atol=1e-5)
        assert not psutil.pid_exists(first_pid) or psutil.Process(first_pid).status() == psutil.STATUS_ZOMBIE
    finally:
        embedder.close()


def test_the_childs_log_records_reach_the_apps_log_and_end_with_it() -> None:
    """The app's modules, transformers and Python warnings in the child: in the parent's logging, under
    app.kb.model_child, with their levels, messages and tracebacks; its relay ends with it (closed or killed)."""
    others = set(_log_relays())  # another test's child may be running
    with records_of(CHILD_LOGGER, logging.INFO) as seen:
        embedder = Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.CHILD_PROCESS,
                            child_server=f"{SERVERS}:LogsWhenEncoding")
        try:
            embedder.embed_documents(["one", "two"])
            loaded = seen.wait_for(lambda r: r.getMessage().endswith(" loaded on cpu"))
            assert (loaded.name, loaded.levelno) == (f"{CHILD_LOGGER}.app.core.kb.embedder", logging.INFO)
            assert loaded.process == embedder.child_pid != os.getpid()
            encoding = seen.wait_for(lambda r: r.getMessage() == "encoding 2 texts")
            assert (encoding.name, encoding.levelno) == (f"{CHILD_LOGGER}.{SERVERS}", logging.WARNING)
            assert "KeyError: 'a missing key'" in logging.Formatter().format(encoding)
            warned = seen.wait_for(lambda r: "FutureWarning: a deprecated option" in r.getMessage())
            assert (warned.name, warned.levelno) == (f"{CHILD_LOGGER}.py.warnings", logging.WARNING)
            library = seen.wait_for(lambda r: r.getMessage() == "a transformers warning")
            assert (library.name, library.levelno) == (f"{CHILD_LOGGER}.transformers.modeling_utils", logging.WARNING)
            with pytest.raises(EmbeddingModelError, match="RuntimeError: the server broke"):
                embedder.embed_documents([FAIL_TEXT])
            failed = seen.wait_for(lambda r: r.getMessage().startswith("request encode to "))
            assert failed.levelno == logging.ERROR and "RuntimeError: the server broke" in (failed.exc_text or "")
            assert all(r.levelno >= logging.INFO for r in seen.records), "the child logs at the parent's level"
            (relay,) = set(_log_relays()) - others
            killed = embedder.child_pid
            assert killed is not None
            os.kill(killed, signal.SIGKILL)
            relay.join(WAIT_S)
            assert not relay.is_alive(), "the relay of a killed child ends by itself"
            embedder.embed_documents(["three"])  # a new child, with a relay of its own
            assert embedder.child_pid not in (None, killed) and len(set(_log_relays()) - others) == 1
        finally:
            embedder.close()
    assert not set(_log_relays()) - others, "closing the child ends its relay"


def _log_relays() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name.startswith("unidesk-model-")
            and thread.name.endswith("-logs")]


def test_a_child_that_dies_again_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.CHILD_PROCESS,
                        child_server=f"{SERVERS}:DiesOnEveryEncode")
    try:
        twice = re.escape("stopped unexpectedly, twice in a row (signal SIGKILL)")
        with pytest.raises(EmbeddingModelError, match=twice):
            embedder.embed_documents(["one", "two"])
        assert embedder.count_tokens("hello world") == 2, "counting needs no child: the parent has the tokenizer"
    finally:
        embedder.close()


def test_a_load_error_in_the_child_is_the_same_clear_error() -> None:
    name = "no-such-org/no-such-embedding-model"
    with pytest.raises(EmbeddingModelError) as local:
        Embedder(name, device="cpu", placement=Placement.SAME_PROCESS).load()
    with pytest.raises(EmbeddingModelError) as child:
        Embedder(name, device="cpu", placement=Placement.CHILD_PROCESS).load()
    assert "not available on this computer" in child.value.message
    assert (child.value.message, child.value.hint) == (local.value.message, local.value.hint)


def test_the_reranker_scores_the_same_in_a_child(tmp_path: Path) -> None:
    folder = _tiny_cross_encoder(tmp_path / "cross-encoder")
    passages = ["Otters eat sea urchins.", "Beavers build dams.", "猫在沙发上睡觉。"]
    local = Reranker(str(folder), device="cpu", placement=Placement.SAME_PROCESS)
    child = Reranker(str(folder), device="cpu", placement=Placement.CHILD_PROCESS)
    try:
        assert child.scores("what do otters eat", passages) == pytest.approx(
            local.scores("what do otters eat", passages), abs=1e-5)
        assert child.child_pid is not None and child.plan().pool == local.plan().pool
        missing = Reranker("no-such-org/no-such-reranker", device="cpu", placement=Placement.CHILD_PROCESS)
        assert not missing.available() and "not on this computer" in (missing.unavailable_reason or "")
    finally:
        child.close()


def test_on_a_gpu_build_pytorch_never_loads_in_the_apps_process(tmp_path: Path) -> None:
    """A CUDA llama.cpp (its backend library found on disk): the pool's embedder and the reranker run in children."""
    fake_build = tmp_path / "llama-lib"
    fake_build.mkdir()
    (fake_build / "libggml-cuda.so").write_bytes(b"")
    folder = _tiny_cross_encoder(tmp_path / "cross-encoder")
    script = tmp_path / "app_process.py"
    script.write_text(textwrap.dedent(f"""
        import json, sys
        from app.core.kb.knowledge_base import EmbedderPool
        from app.core.kb.reranker import Reranker

        def main():
            embedder = EmbedderPool(device="cpu").get("all-MiniLM-L6-v2")
            rows = len(embedder.embed_documents(["one", "two", "three"]))
            embedder.embed_query("a question")
            tokens = embedder.count_tokens("hello world")
            reranker = Reranker({str(folder)!r}, device="cpu")
            scores = reranker.scores("a question", ["one", "two"])
            print(json.dumps({{"separate": embedder.placement.separate, "embedder_child": embedder.child_pid,
                              "reranker_child": reranker.child_pid, "rows": rows, "tokens": tokens,
                              "scores": len(scores),
                              "heavy": sorted(m for m in sys.modules if m.split(".")[0] in {HEAVY!r})}}))

        if __name__ == "__main__":
            main()
    """))
    environment = {**os.environ, "LLAMA_CPP_LIB_PATH": str(fake_build), "PYTHONPATH": str(REPO_ROOT)}
    completed = subprocess.run([sys.executable, str(script)], cwd=REPO_ROOT, env=environment, capture_output=True,
                               text=True, timeout=600, check=False)
    assert completed.returncode == 0, completed.stderr[-3000:]
    facts = json.loads(completed.stdout)
    assert facts["separate"] and facts["embedder_child"] and facts["reranker_child"]
    assert (facts["rows"], facts["tokens"], facts["scores"]) == (3, 2, 2)
    assert facts["heavy"] == [], "PyTorch and sentence-transformers stay in the children"


@pytest.mark.parametrize("ending", ["killed", "exits"])
def test_the_child_never_outlives_its_parent(tmp_path: Path, ending: str) -> None:
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import sys
        from app.core.kb.embedder import Embedder
        from app.core.kb.model_placement import Placement

        if __name__ == "__main__":
            embedder = Embedder("all-MiniLM-L6-v2", device="cpu", placement=Placement.CHILD_PROCESS)
            embedder.embed_documents(["loaded"])
            print(embedder.child_pid, flush=True)
            sys.stdin.readline()  # the test kills this process here, or lets it end without closing anything
    """))
    parent = subprocess.Popen([sys.executable, str(script)], cwd=REPO_ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    try:
        assert parent.stdout is not None and parent.stdin is not None
        child = psutil.Process(int(parent.stdout.readline()))
        assert child.ppid() == parent.pid and child.is_running()
        if ending == "killed":
            os.kill(parent.pid, signal.SIGKILL)
        else:
            parent.stdin.close()
        parent.wait(timeout=CHILD_EXIT_TIMEOUT_S)
        _wait_for_exit(child)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _wait_for_exit(process: psutil.Process) -> None:
    """Until ``process`` has ended (a zombie counts: a re-parented child may wait for a reaper that never comes)."""
    try:
        process.wait(timeout=CHILD_EXIT_TIMEOUT_S)
    except psutil.TimeoutExpired:
        assert process.status() == psutil.STATUS_ZOMBIE, f"process {process.pid} outlived its parent"
    except psutil.NoSuchProcess:
        pass


def _tiny_cross_encoder(folder: Path) -> Path:
    """A BERT cross-encoder with random weights and MiniLM's tokenizer (real files, real loader)."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from app.core.kb.embedder import resolve_embedding_model

    tokenizer = AutoTokenizer.from_pretrained(resolve_embedding_model("all-MiniLM-L6-v2").location)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                        num_attention_heads=2, intermediate_size=64, num_labels=1)
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_closing_the_knowledge_base_stops_its_models_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.config import Settings
    from app.core.kb.knowledge_base import KnowledgeBase

    fake_build = tmp_path / "llama-lib"
    fake_build.mkdir()
    (fake_build / "libggml-cuda.so").write_bytes(b"")
    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(fake_build))
    knowledge_base = KnowledgeBase(tmp_path / "kb", Settings({"kb.embedding_model": "all-MiniLM-L6-v2"}))
    embedder = knowledge_base.embedders.get("all-MiniLM-L6-v2")
    embedder.load()
    assert embedder.child_pid is not None, "a GPU build of llama.cpp puts the embedder in a child process"
    child = psutil.Process(embedder.child_pid)
    knowledge_base.close()
    _wait_for_exit(child)


def test_the_embedding_note_says_where_the_model_runs_and_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core.kb.embedding_choice import select_embedding_model

    monkeypatch.setenv("LLAMA_CPP_LIB_PATH", str(tmp_path))
    here = select_embedding_model("all-MiniLM-L6-v2", None, lambda: pytest.fail("no choice needed"))
    assert str(here.note).startswith("Using all-MiniLM-L6-v2: it is set in Settings (kb.embedding_model). ")
    assert str(here.note).endswith("It runs in the app's process: llama.cpp here has no GPU backend that could "
                                   "clash with it.")
    (tmp_path / "libggml-cuda.so").write_bytes(b"")
    gpu = select_embedding_model("all-MiniLM-L6-v2", None, lambda: pytest.fail("no choice needed"))
    assert "It runs in a process of its own: llama.cpp here is a GPU build" in str(gpu.note)
