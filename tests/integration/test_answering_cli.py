"""`unidesk ask`: a real process answering from a knowledge base in its --home folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.kb.knowledge_base import KnowledgeBase
from tests.fixtures.knowledge_base import shared_embedder_pool
from tests.integration.answering_support import Corpus, index_corpus, write_citing_model, write_corpus

pytestmark = [pytest.mark.integration, pytest.mark.slow]
REPO_ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Which project connects the two islands?"


def unidesk(home: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment.pop("UNIDESK_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "app", "--home", str(home), *arguments],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=environment,
    )


@pytest.fixture(scope="module")
def home_with_kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Corpus, Path]:
    root = tmp_path_factory.mktemp("ask")
    home = root / "home"
    corpus = write_corpus(root / "docs")
    settings = Settings({"kb.chunk_tokens": 64, "kb.chunk_overlap_tokens": 8})
    with KnowledgeBase.open(AppPaths.under_home(home).ensure(), settings, shared_embedder_pool()) as knowledge_base:
        index_corpus(knowledge_base, corpus)
    return home, corpus, write_citing_model(root / "cite.gguf")


def test_ask_json_has_answer_citations_timings_and_budget(home_with_kb: tuple[Path, Corpus, Path]) -> None:
    home, corpus, model = home_with_kb
    result = unidesk(home, "ask", str(model), QUESTION, "--json", "--ctx", "2048", "--k", "3",
                     "--temperature", "0")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["question"] == QUESTION and document["answer"] == "[2]"
    citations = document["citations"]
    assert [citation["number"] for citation in citations] == [1, 2, 3]
    assert (Path(citations[0]["path"]), citations[0]["page"]) == (corpus.report.resolve(), 2)
    assert [citation["cited"] for citation in citations] == [False, True, False]
    assert all("path" in citation and "page" in citation for citation in citations)
    timings = document["timings"]
    assert timings["retrieval_s"] > 0 and timings["time_to_first_token_s"] > 0
    budget = document["budget"]
    assert budget["context"] == 2048 and budget["sources"] > 0 and budget["question"] > 0
    assert budget["system"] + budget["sources"] + budget["history"] + budget["question"] \
        + budget["reserved_for_answer"] + budget["free"] == 2048
    assert document["finish_reason"] == "stop" and document["error"] is None


def test_ask_prints_the_answer_and_its_sources(home_with_kb: tuple[Path, Corpus, Path]) -> None:
    home, _, model = home_with_kb
    result = unidesk(home, "ask", str(model), QUESTION, "--ctx", "2048", "--k", "2", "--temperature", "0")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "[2]"
    assert "Sources:" in lines
    sources = lines[lines.index("Sources:") + 1:]
    assert sources[0].startswith("[1] ") and sources[0].endswith("report.pdf, p. 2")
    assert sources[1].startswith("[2] ") and sources[1].endswith("(cited)") and len(sources) == 2


def test_ask_with_a_question_longer_than_the_context_is_a_one_line_error(
    home_with_kb: tuple[Path, Corpus, Path],
) -> None:
    home, _, model = home_with_kb
    result = unidesk(home, "ask", str(model), "why " * 1500, "--ctx", "512", "--no-kb")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("unidesk: error:")]
    assert len(errors) == 1 and "does not fit" in errors[0] and "512 tokens" in errors[0]
